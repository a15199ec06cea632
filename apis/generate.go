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

// The generators below run from this directory with the tool versions pinned
// by the tool directives in go.mod. Run them with
//
//	go generate ./apis/...
//
// from the repository root. Running them twice must leave the tree unchanged.

// Remove the CRDs, so that a deleted or renamed kind leaves no stale file.
//go:generate rm -rf ../package/crds

// DeepCopy methods (zz_generated.deepcopy.go) and CRD manifests.
//go:generate go tool controller-gen object:headerFile=../hack/boilerplate.go.txt paths=./... crd:crdVersions=v1 output:artifacts:config=../package/crds

// crossplane-runtime method sets (zz_generated.managed.go, .managedlist.go,
// .pc.go, .pcu.go, .pculist.go) and reference resolvers
// (zz_generated.resolvers.go).
//go:generate go tool angryjet generate-methodsets --header-file=../hack/boilerplate.go.txt ./...

// The XRDs of the XStorageCluster composite API, whose parameter schemas are
// copied from the CRDs above.
//go:generate go run ../hack/xrd-gen --crds=../package/crds --out=../examples/composition

package apis
