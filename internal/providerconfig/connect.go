package providerconfig

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

const (
	errTrackUsage = "cannot track ProviderConfig usage"
	errNewClient  = "cannot create simplyblock client"
)

// NewClientFn builds a simplyblock API client from a configuration.
type NewClientFn func(cfg simplyblock.Config) (simplyblock.API, error)

// NewClient is the production NewClientFn.
func NewClient(cfg simplyblock.Config) (simplyblock.API, error) {
	return simplyblock.New(cfg)
}

// A Connector is what every managed-resource connector of this provider
// shares: it records the ProviderConfig usage, resolves the config and
// builds a client. Its dependencies are fields so unit tests can replace them.
type Connector struct {
	Kube      client.Client
	Usage     resource.ModernTracker
	NewClient NewClientFn
}

// Connect returns a simplyblock client for the managed resource's config.
func (c *Connector) Connect(ctx context.Context, mg resource.ModernManaged) (simplyblock.API, error) {
	if err := c.Usage.Track(ctx, mg); err != nil {
		return nil, errors.Wrap(err, errTrackUsage)
	}
	cfg, err := ClientConfig(ctx, c.Kube, mg)
	if err != nil {
		return nil, err
	}
	api, err := c.NewClient(cfg)
	return api, errors.Wrap(err, errNewClient)
}
