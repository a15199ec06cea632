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

// Package e2e is the live end-to-end tier: the composite API of
// examples/composition run by a real Crossplane. On an envtest control plane
// (a real kube-apiserver and etcd) it runs, each as a process, the garbage
// collector of kube-controller-manager, Crossplane core out of cluster (with
// --enable-operations), function-patch-and-transform, function-storagecluster
// and function-scheduled-ops (serving mTLS, registered through
// FunctionRevisions, see cluster/local/controlplane) and the provider binary,
// against the simulator in process. It applies the shipped XRDs,
// Compositions and Function objects unchanged, runs the CronOperation of
// examples/scheduled every minute, and judges each scenario by the
// simulator's journal and the API server's objects. Every exchange of the
// simulator is validated against the vendor OpenAPI spec and its extra
// checks (internal/contract), as in test/integration and test/crash: a
// test that makes a namespace fails with the violations recorded during
// it, and the run fails with any recorded outside a test (contract_test.go).
//
// make test runs it (hack/envtest-binaries.sh and hack/crossplane-tools.sh
// provide the binaries; without CROSSPLANE_TOOLS the tier skips, and fails
// under CI). Run it alone with
//
//	KUBEBUILDER_ASSETS=$(bash hack/envtest-binaries.sh) CROSSPLANE_TOOLS=$(bash hack/crossplane-tools.sh) \
//	  go test -count=1 -v ./test/e2e
//
// E2E_KEEP_LOGS=1 keeps the logs of every process (printed at the end).
package e2e
