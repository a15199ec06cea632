package storagenode

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// A connector produces an external client for a StorageNode.
type connector struct {
	providerconfig.Connector
	// Locks reads the node's StorageCluster and the operation holding its
	// lock from the API server, before a removal.
	Locks client.Reader
}

// Connect resolves the StorageNode's provider config into a client.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.StorageNode) (managed.TypedExternalClient[*v1alpha1.StorageNode], error) {
	api, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &external{api: api, locks: c.Locks}, nil
}
