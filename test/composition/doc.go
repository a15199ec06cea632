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

// Package composition tests the XStorageCluster composite API offline: the
// real Crossplane composition engine (crossplane composition render with the
// core binary) runs the Compositions of examples/composition with
// function-patch-and-transform and this repository's function-storagecluster
// as local processes; the output is compared with golden files and validated
// against the provider's CRDs and the XRDs with crossplane resource validate.
//
// The tools come from hack/crossplane-tools.sh; make test passes their folder
// in CROSSPLANE_TOOLS. Regenerate the golden files with
//
//	CROSSPLANE_TOOLS=$(bash hack/crossplane-tools.sh) go test ./test/composition -update
package composition
