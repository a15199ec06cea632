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
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// Compile-time checks of the contracts this package relies on.
var (
	_ managed.TypedExternalConnector[*v1alpha1.StorageNodeOps] = &ops.Connector[*v1alpha1.StorageNodeOps]{}
	_ managed.TypedExternalClient[*v1alpha1.StorageNodeOps]    = &ops.External[*v1alpha1.StorageNodeOps]{}
	_ ops.Object                                               = &v1alpha1.StorageNodeOps{}
)
