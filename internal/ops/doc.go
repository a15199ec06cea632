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
// from, and then runs its steps, which come from the step library
// (package steps). Each step may send one state-changing backend call,
// guarded by a write-ahead record: the intent is persisted before the call
// and the outcome after it, so a crash at any point never leads to a second
// call. Skipping or sending a call is decided on an observation made after
// the step started. A lost answer is resolved by evidence, or by the step's
// lost-answer policy. Deadlines, cancel, a TTL after finishing, and
// run-once protection against re-created objects complete the lifecycle.
//
// The mapping onto crossplane-runtime's managed reconciler: Observe
// advances the operation and reports the external resource missing exactly
// when the current step's call is due; Create sends it under the guard;
// Update never runs; Delete releases the lock. docs/operations-engine.md
// explains the rules.
//
// Files, one concern each:
//
//	object.go    what the engine needs from an operation object
//	step.go      a step: gate, call, evidence, completion, policies
//	engine.go    Observe / Release: queue, preconditions, evidence, finish
//	guard.go     Trigger: the write-ahead guard and call classification
//	answers.go   call answers held until the next status write
//	intent.go    a call's intent carried by the finalizer's write
//	managed.go   the mapping onto crossplane-runtime's managed reconciler
//	approval.go  approval: the plan shown, approved, expired
//	window.go    maintenance windows: start in one, pause outside
//	budget.go    DisruptionBudget slots
//	stop.go      cancel and delete: where an operation may stop
//	lock.go      the durable lock and the bounded history
//	ledger.go    the ledger: every operation that ran, for run-once
//	queue.go     one queue per cluster for both operation kinds, indexes
//	priority.go  reconcile priorities: running operations first
//	snapshot.go  shared, short-lived backend observations
//	eventlog.go  the cluster log: positions and entries read as changes
//	watch.go     the Watcher that wakes operations on backend changes
//	events.go    the operation kinds' event handlers
//	status.go    phases, reasons and conditions
//	policy.go    defaults, backoff, deadlines and the poll interval
//	settings.go  the tunables set from provider flags
//	metrics.go   Prometheus metrics
//	crash.go     test-only crash injection points
package ops
