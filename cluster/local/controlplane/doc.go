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

// Package controlplane runs the parts of a local Crossplane control plane that
// envtest does not: the garbage collector of kube-controller-manager (it
// deletes what a composite resource composed, since Crossplane leaves that to
// owner references), and Crossplane core and composition functions as local
// processes, out of cluster. The e2e tier (test/e2e) and `make demo-xr` use
// it against a kube-apiserver and etcd started by envtest.
//
// Out of cluster, Crossplane's package manager cannot pull packages: this
// package stands in for it by registering each function process through a
// FunctionRevision whose status carries the process's endpoint, next to the
// Function object the user applies. Core and the functions talk mTLS with
// certificates from one throw-away CA.
package controlplane
