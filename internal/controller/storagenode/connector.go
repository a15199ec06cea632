package storagenode

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// A connector produces an external client for a StorageNode.
type connector struct {
	providerconfig.Connector
}

// Connect resolves the StorageNode's provider config into a client.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.StorageNode) (managed.TypedExternalClient[*v1alpha1.StorageNode], error) {
	api, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &external{api: api}, nil
}
