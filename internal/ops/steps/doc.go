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

// Package steps is the one library of operation steps: one constructor per
// backend call (and per wait), with its gate, evidence, completion and
// lost-answer policy taken from the backend's behaviour. ClusterOps and
// StorageNodeOps build their plans only from it.
//
// docs/steps.md says, per step, what the backend does and why each rule is
// what it is; the comments here are short and point there.
//
// Files:
//
//	node.go     node shutdown, restart/start, suspend, resume, remove
//	cluster.go  cluster activate, expand, shutdown, start, update, rebalance
//	wait.go     steps that only wait (the rebalancing after a node's return)
//	gates.go    what the backend refuses for now, shared by the gates
//	observe.go  reading snapshots: statuses, status changes, lists
package steps
