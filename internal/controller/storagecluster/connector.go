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

package storagecluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// A connector produces an external client for a StorageCluster.
type connector struct {
	providerconfig.Connector
	// Locks reads the operation holding a cluster's lock from the API
	// server, before a deletion.
	Locks client.Reader
}

// Connect resolves the StorageCluster's provider config into a client.
func (c *connector) Connect(ctx context.Context, cr *v1alpha1.StorageCluster) (managed.TypedExternalClient[*v1alpha1.StorageCluster], error) {
	api, err := c.Connector.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return &external{api: api, locks: c.Locks}, nil
}
