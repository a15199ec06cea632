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

// Package composition is the composition function behind the XStorageCluster
// composite API (examples/composition). It composes the list-driven and
// stateful parts of a storage cluster that function-patch-and-transform cannot
// express: one StorageNode per listed node, one StoragePool per listed pool,
// the Activate ClusterOps, and one Expand ClusterOps per change that adds nodes
// to an activated cluster. The StorageCluster itself is composed by the
// pipeline step before it.
//
// The function is deterministic: the same XR and the same observed resources
// always produce the same desired resources, with names derived from the XR
// and the change, so a re-render never composes a second operation.
package composition
