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

// Package ops is the operation engine shared by ClusterOps and
// StorageNodeOps: one-shot managed resources that run an imperative,
// possibly multi-step operation against the simplyblock control plane.
//
// An operation waits its turn in its target's FIFO queue (a durable lock in
// the target's status), waits for the target to reach a state it may start
// from, and then runs its steps. Each step may send one state-changing
// backend call, guarded by a write-ahead record: the intent is persisted
// before the call and the outcome after it, so a crash at any point never
// leads to a second call. A call whose answer was lost is resolved by
// backend evidence (status transitions in the backend's event log and in
// polled state), never by sending it again unless the step declares a
// repeat harmless. Definite failures are retried with exponential backoff.
// Deadlines, cancel, a TTL after finishing, and run-once protection against
// re-created objects (the target's bounded history) complete the lifecycle.
//
// Files, one concern each:
//
//	object.go    what the engine needs from an operation object
//	step.go      steps and plans: gate, call, evidence, completion
//	engine.go    Observe / Release: queue, preconditions, evidence, finish
//	guard.go     Trigger: the write-ahead guard and call classification
//	managed.go   the mapping onto crossplane-runtime's managed reconciler
//	lock.go      the durable lock and the bounded history
//	queue.go     one queue per cluster for both operation kinds, indexes
//	snapshot.go  shared, short-lived backend observations and event parsing
//	status.go    phases, reasons and conditions
//	policy.go    defaults, backoff, deadlines and the poll interval
//	settings.go  the tunables set from provider flags
//	metrics.go   Prometheus metrics
//	crash.go     test-only crash injection points
package ops
