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

// Package storagenodeops is the controller of StorageNodeOps managed
// resources: node-level operations (suspend, resume, shutdown, restart,
// start, remove, migrate) run by the operation engine in internal/ops.
// types.go is the table of operation types (opTypes); each type's plan,
// built from the step library (internal/ops/steps), is in its own file
// (suspend.go, restart.go, …); run.go finds the operation's StorageNode and that node's StorageCluster
// (whose queue and lock every operation on the cluster shares); setup.go
// wires the engine (ops.Connector) into a managed reconciler.
package storagenodeops
