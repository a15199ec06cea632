/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package storagenodeops

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

const (
	errTrackUsage = "cannot track ProviderConfig usage"
	errNewClient  = "cannot create simplyblock client"
)

// A connector resolves a StorageNodeOps' provider config into a client (one
// per configuration, shared) and hands the operation to the engine.
type connector struct {
	kube    client.Client
	usage   resource.ModernTracker
	clients *providerconfig.ClientCache
	engine  *ops.Engine
}

// Connect returns the external client of one reconcile.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.StorageNodeOps) (managed.TypedExternalClient[*v1alpha1.StorageNodeOps], error) {
	if err := c.usage.Track(ctx, cr); err != nil {
		return nil, errors.Wrap(err, errTrackUsage)
	}
	cfg, err := providerconfig.ClientConfig(ctx, c.kube, cr)
	if err != nil {
		return nil, err
	}
	api, key, err := c.clients.Get(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errNewClient)
	}
	return &external{kube: c.kube, engine: c.engine, source: ops.Source{Key: key, API: api}}, nil
}
