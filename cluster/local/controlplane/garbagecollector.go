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

package controlplane

import "path/filepath"

// StartGarbageCollector runs kube-controller-manager (from the envtest
// binaries folder, see hack/envtest-binaries.sh) with only its garbage
// collector: Crossplane deletes what an XR composed through owner
// references, and envtest runs no controller manager. It serves nothing and
// elects no leader.
func StartGarbageCollector(envtestBinaries, kubeconfig, logDir string) (*Process, error) {
	return StartProcess("kube-controller-manager", logDir, filepath.Join(envtestBinaries, "kube-controller-manager"), []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=garbagecollector",
		"--leader-elect=false",
		"--secure-port=0",
	}, nil)
}
