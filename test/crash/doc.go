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

// Package crash is the crash-matrix test suite: the provider runs as a
// separate process, is killed abruptly at injected points and restarted,
// and the simulator's call journal proves what reached the backend.
//
// # World
//
// TestMain (harness_test.go) starts one world shared by every test in the
// package:
//
//   - a real kube-apiserver and etcd (envtest; KUBEBUILDER_ASSETS, else
//     hack/envtest-binaries.sh), with package/crds installed and a
//     kubeconfig file for the provider process;
//   - the provider binary, built once with `go build ./cmd/provider`
//     (CRASH_PROVIDER_RACE=1 builds it with -race, and a data race it
//     reports then fails the test);
//   - the simplyblock simulator, in process, over TLS, at speed x200, its
//     responses checked against the vendor OpenAPI contract (per test,
//     when ../shared/reference holds the spec);
//   - the namespace crash-system with the credentials Secret (admin token
//     and CA bundle) and the ClusterProviderConfig "default" that managed
//     resources use when they name no provider config.
//
// # Per test
//
// Tests run one after another (never t.Parallel): the first helper a test
// (or subtest) calls resets the simulator's journal, so countCalls counts
// only that test's calls; at cleanup the test's provider processes are
// killed and every object in the namespaces it created is deleted, with
// finalizers stripped, so no later provider process reconciles it.
//
// The provider process is started by a supervisor, runWithCrashes. Crash
// points are armed with the environment variable SIMPLYBLOCK_OPS_CRASH_AT
// (comma-separated). The provider's contract: when it reaches an armed
// point it prints the line "SIMPLYBLOCK_OPS_CRASH <point>" to stderr and
// kills itself with SIGKILL. The supervisor parses that line, drops the
// point from the armed list and restarts the provider with the rest; any
// other exit fails the test with the tail of the provider's log. Logs of
// failed tests are kept (their paths are printed); CRASH_KEEP_LOGS=1 keeps
// them all.
//
// The suite is skipped with -short. Run it with
//
//	KUBEBUILDER_ASSETS=$(bash hack/envtest-binaries.sh) go test -count=1 -race -v ./test/crash/
package crash
