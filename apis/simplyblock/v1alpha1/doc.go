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

// Package v1alpha1 contains the managed resources of provider-simplyblock:
// StorageCluster, StorageNode and StoragePool, all namespaced, in the API
// group simplyblock.m.crossplane.io.
//
// Conventions used throughout the types:
//
//   - spec.forProvider mirrors the backend's create parameters in camelCase,
//     with the backend's defaults as OpenAPI defaults, so that what a user
//     reads back is exactly what was sent to the backend.
//   - A field whose default is not the Go zero value is not omitempty. A Go
//     client that reads an object and writes it back therefore always keeps
//     an explicit zero (say haJm: false) instead of dropping it and letting
//     the API server put the default back, which would silently change a
//     creation parameter or trip an immutability rule.
//   - Parameters the backend cannot change after creation are immutable,
//     enforced by CEL rules (self == oldSelf) whose messages name the field.
//   - A reference to another resource of this provider (clusterId with
//     clusterIdRef or clusterIdSelector) resolves to that resource's
//     external name, which is its backend UUID, and only within the
//     referencing resource's own namespace.
//   - status.atProvider mirrors the backend's DTO, never including secrets.
//
// +kubebuilder:object:generate=true
// +groupName=simplyblock.m.crossplane.io
// +versionName=v1alpha1
package v1alpha1
