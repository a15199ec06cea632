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

package v1alpha1

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// referenceResolver is the method crossplane-runtime's
// managed.APISimpleReferenceResolver looks for on a managed resource (it
// declares the interface inline, so it is repeated here).
type referenceResolver interface {
	ResolveReferences(ctx context.Context, c client.Reader) error
}

// Compile-time checks that the managed resources satisfy the
// crossplane-runtime interfaces. They live in a test file so that angryjet
// can generate the methods before anything asserts them.
var (
	_ resource.ModernManaged = &StorageCluster{}
	_ resource.ModernManaged = &StorageNode{}
	_ resource.ModernManaged = &StoragePool{}
	_ resource.ModernManaged = &ClusterOps{}
	_ resource.ModernManaged = &StorageNodeOps{}

	_ resource.ManagedList = &StorageClusterList{}
	_ resource.ManagedList = &StorageNodeList{}
	_ resource.ManagedList = &StoragePoolList{}
	_ resource.ManagedList = &ClusterOpsList{}
	_ resource.ManagedList = &StorageNodeOpsList{}

	// StorageNode, StoragePool and ClusterOps resolve clusterIdRef and
	// clusterIdSelector; StorageNodeOps resolves nodeIdRef and
	// nodeIdSelector.
	_ referenceResolver = &StorageNode{}
	_ referenceResolver = &StoragePool{}
	_ referenceResolver = &ClusterOps{}
	_ referenceResolver = &StorageNodeOps{}
)
