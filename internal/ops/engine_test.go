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

package ops

import (
	"context"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func prog(done, total int64, current string) *v1alpha1.OperationProgress {
	return &v1alpha1.OperationProgress{Done: done, Total: total, Current: current}
}

// rec is the history record of op1, started at t0 and completed at t0+d.
func rec(phase v1alpha1.OperationPhase, reason string, d time.Duration) v1alpha1.OperationRecord {
	return v1alpha1.OperationRecord{Name: "op1", UID: "uid-1", Type: string(v1alpha1.ClusterActivate), Phase: phase, Reason: reason,
		StartedAt: at(0), CompletedAt: at(d), SpecHash: testHash}
}

// finishedAs is the status change of an operation that finished at t0+d.
func finishedAs(phase v1alpha1.OperationPhase, reason string, d time.Duration, more ...func(st *v1alpha1.OperationStatus)) func(st *v1alpha1.OperationStatus) {
	return func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.CompletedAt = phase, reason, at(d)
		st.QueuePosition, st.NextAttemptAt = nil, nil
		for _, f := range more {
			f(st)
		}
	}
}

// queuedAs is an operation waiting in its queue at position pos.
func queuedAs(pos int64) opModifier {
	return withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To(pos)
	})
}

// queuedOp is operation name, created at t0+d, waiting in its queue.
func queuedOp(name string, uid types.UID, d time.Duration, m ...opModifier) *v1alpha1.ClusterOps {
	return operation(append([]opModifier{named(name, uid), createdAt(d), queuedAs(2)}, m...)...)
}

// inWindow gives an operation a one-hour maintenance window opening at
// schedule (UTC).
func inWindow(schedule string) opModifier {
	return withPolicy(func(p *v1alpha1.OperationPolicy) {
		p.Window = &v1alpha1.MaintenanceWindow{Schedule: schedule, Duration: "1h"}
	})
}

// targetUnwritten checks that the StorageCluster was not written.
func targetUnwritten(t *testing.T, kube client.Client) {
	t.Helper()
	if rv := getCluster(t, kube).ResourceVersion; rv != "999" {
		t.Errorf("the StorageCluster was written: resourceVersion %s", rv)
	}
}

// evidenceSeen marks the guard's evidence as seen.
func evidenceSeen(st *v1alpha1.OperationStatus) { st.Guard.EvidenceSeen = true }

func withProgress(p *v1alpha1.OperationProgress) func(st *v1alpha1.OperationStatus) {
	return func(st *v1alpha1.OperationStatus) { st.Progress = p }
}

var ignoreMessages = cmp.Options{
	cmpopts.IgnoreFields(v1alpha1.OperationStatus{}, "Message"),
	cmpopts.IgnoreFields(v1alpha1.OperationRecord{}, "Message"),
	cmpopts.EquateEmpty(),
}

func TestEngineObserve(t *testing.T) {
	op0 := operation(named("op0", "uid-0"), ofType(v1alpha1.ClusterRestart), createdAt(-time.Hour), withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.StartedAt = v1alpha1.OperationRunning, ReasonInProgress, at(-time.Hour)
	}))
	op0Lock := lockOf(op0, v1alpha1.OperationRunning)
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	// acquired: the lock taken at t0+d and the first step's gate checked
	// in the same pass.
	acquired := func(d time.Duration) func(st *v1alpha1.OperationStatus) {
		return func(st *v1alpha1.OperationStatus) {
			st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonWaitingForPrecond, testHash, nil
			st.StartedAt, st.StepStartedAt, st.Progress = at(d), at(d), prog(0, 1, "activate")
		}
	}
	waits := testStep(func(s *Step) {
		s.Gate = func(*Snapshot) (string, string) { return "the cluster is in_expansion", "" }
	})

	// doneWith is op1 seeing its call's end at t0+2m while others wait on
	// its target; doneHandingTo is its success, its lock handed to next.
	doneWith := func(others ...client.Object) observeArgs {
		return observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 2 * time.Minute, op: operation(sent(time.Minute)),
			backend: &backend{status: sb.ClusterActive}, others: others}
	}
	doneHandingTo := func(next *v1alpha1.ClusterOps) observeWant {
		return observeWant{
			status:  finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute, withProgress(prog(1, 1, "")), evidenceSeen),
			message: "activate done", lock: lockOf(next, v1alpha1.OperationPending),
			history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute)},
		}
	}

	cases := map[string]observeCase{
		"QueuedBehindLiveHolder": {
			reason: "An operation waits while another live, unfinished operation holds the lock; finished operations and the holder do not count in the queue.",
			args: observeArgs{cluster: storageCluster(lockedBy(op0Lock)), op: operation(), now: 10 * time.Second,
				others: []client.Object{op0, operation(named("op-old", "uid-old"), createdAt(-2*time.Hour), finished(v1alpha1.OperationFailed, ReasonCancelled, 0))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](1)
				},
				message: "waiting for op0 (Restart) to finish on StorageCluster demo by 2026-03-01T12:00:00Z at most; queue position 1", lock: op0Lock, noBackend: true,
			},
		},
		"QueuedBehindAnApproval": {
			reason: "Behind a holder awaiting approval, the queue says until when at most: when that approval expires (#48).",
			args: observeArgs{cluster: storageCluster(lockedBy(op0Lock)), op: operation(), now: 10 * time.Second,
				others: []client.Object{operation(named("op0", "uid-0"), ofType(v1alpha1.ClusterRestart), createdAt(-time.Hour),
					withPolicy(func(p *v1alpha1.OperationPolicy) { p.Approval = v1alpha1.ApprovalRequired }),
					withOpStatus(func(st *v1alpha1.OperationStatus) {
						st.Phase, st.Reason, st.StartedAt = v1alpha1.OperationPending, ReasonAwaitingApproval, at(-time.Hour)
						st.Plan = &v1alpha1.OperationPlan{ID: "p", ComputedAt: *at(-time.Hour)}
					}))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](1)
				},
				message: "waiting for op0 (Restart) to finish on StorageCluster demo by 2026-03-02T11:00:00Z at most; queue position 1", lock: op0Lock, noBackend: true,
			},
		},
		"QueuedSecondBehindAHolder": {
			reason: "Second in line, the queue says when its turn comes at most: the holder's bound plus the longest hold of each operation ahead (an approval's wait and its run) (#48).",
			args: observeArgs{cluster: storageCluster(lockedBy(op0Lock)), op: operation(), now: 10 * time.Second,
				others: []client.Object{op0, operation(named("op-a", "uid-a"), createdAt(-time.Minute),
					withPolicy(func(p *v1alpha1.OperationPolicy) { p.Approval = v1alpha1.ApprovalRequired }))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](2)
				},
				message: "by 2026-03-01T12:00:00Z at most; queue position 2; its turn comes by 2026-03-02T13:00:00Z at most (the 1 ahead of it each within its timeouts)",
				lock:    op0Lock, noBackend: true,
			},
		},
		"QueuedSecondInLine": {
			reason: "An operation created after another waiting one is second in line and does not take the free lock.",
			args: observeArgs{cluster: storageCluster(), op: operation(), now: 10 * time.Second,
				others: []client.Object{operation(named("op0", "uid-0"), createdAt(-time.Minute))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](2)
				},
				message: "waiting for its turn on StorageCluster demo; queue position 2", noBackend: true,
			},
		},
		"FirstInQueueAcquires": {
			reason: "The first waiting operation takes the free lock, records its start, leaves the queue and, its gate open, asks for its first call in the same pass, its status written first.",
			args: observeArgs{cluster: storageCluster(), now: 10 * time.Second, op: operation(withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](2)
			}))},
			want: observeWant{trigger: true, status: acquired(10 * time.Second), message: "activate: preconditions hold; sending " + testPath, lock: op1Lock},
		},
		"AcquiresAndWaitsAtTheGate": {
			reason: "An operation that takes the lock while its first step's gate is closed keeps the lock and waits, Pending.",
			args:   observeArgs{cluster: storageCluster(), now: 10 * time.Second, op: operation(), steps: []Step{waits}},
			want: observeWant{status: func(st *v1alpha1.OperationStatus) {
				acquired(10 * time.Second)(st)
				st.Reason = ReasonWaitingForPrecond
			}, message: "activate: waiting: the cluster is in_expansion", lock: op1Lock},
		},
		"AcquiresWhilePreviousHolderFinishes": {
			reason: "An operation that started and released the lock no longer counts in the queue, even before its terminal status reaches the cache.",
			args: observeArgs{cluster: storageCluster(), now: 10 * time.Second, op: operation(),
				others: []client.Object{operation(named("op0", "uid-0"), createdAt(-time.Minute), holding(0))}},
			want: observeWant{trigger: true, status: acquired(10 * time.Second), lock: op1Lock},
		},
		"TakesOverLockOfDeletedHolder": {
			reason: "A lock whose holder no longer exists is taken over.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op0Lock)), op: operation(), now: 10 * time.Second},
			want:   observeWant{trigger: true, status: acquired(10 * time.Second), lock: op1Lock},
		},
		"GateWaits": {
			reason: "While the first step's gate waits, the operation is Pending and says what it waits for.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				steps: []Step{waits}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationPending, ReasonWaitingForPrecond, prog(0, 1, "activate")
				},
				message: "activate: waiting: the cluster is in_expansion", lock: op1Lock,
			},
		},
		"GateTimesOut": {
			reason: "A gate still waiting after the precondition timeout (10m by default) fails the operation, releases the lock and records it.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: 10*time.Minute + time.Second,
				steps: []Step{waits}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 10*time.Minute+time.Second, withProgress(prog(0, 1, "activate"))),
				message: "activate: still waiting after 10m0s: the cluster is in_expansion",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 10*time.Minute+time.Second)},
			},
		},
		"GateTimesOutCustom": {
			reason: "preconditionTimeoutSeconds bounds the first step's gate.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 31 * time.Second, steps: []Step{waits},
				op: operation(holding(0), withPolicy(func(p *v1alpha1.OperationPolicy) { p.PreconditionTimeoutSeconds = ptr.To[int64](30) }))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 31*time.Second, withProgress(prog(0, 1, "activate"))),
				message: "still waiting after 30s",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 31*time.Second)},
			},
		},
		"LaterStepGateWaitsWithoutLimit": {
			reason: "A later step's gate (without its own GateTimeout) is not bound by the precondition timeout, and the operation is Running.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 30 * time.Minute,
				steps: []Step{testStep(), func() Step { s := waits; s.Name = "second"; return s }()},
				op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Step, st.Attempts, st.StepStartedAt = 1, 1, at(time.Minute)
				}))},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonWaitingForPrecond, prog(1, 2, "second")
				},
				message: "second: waiting", lock: op1Lock,
			},
		},
		"LaterStepGateTimeout": {
			reason: "A later step's GateTimeout counts from the step's start.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 7 * time.Minute,
				steps: []Step{testStep(), func() Step { s := waits; s.Name, s.GateTimeout = "second", 5*time.Minute; return s }()},
				op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Step, st.Attempts, st.StepStartedAt = 1, 1, at(time.Minute)
				}))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 7*time.Minute, withProgress(prog(1, 2, "second"))),
				message: "second: still waiting after 5m0s",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPreconditionTimeout, 7*time.Minute)},
			},
		},
		"GateRefuses": {
			reason: "A gate's refusal fails the operation at once.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				steps: []Step{testStep(func(s *Step) {
					s.Gate = func(*Snapshot) (string, string) { return "", "it would be an outage" }
				})}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonPreconditionFailed, time.Minute, withProgress(prog(0, 1, "activate"))),
				message: "activate: it would be an outage",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPreconditionFailed, time.Minute)},
			},
		},
		"GatePassesAsksForTheCall": {
			reason: "When the gate passes, Observe asks for the call without writing the status: the intent write carries its changes (the operation client keeps them on the way to Create).",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute},
			want: observeWant{
				trigger: true,
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationPending, ReasonWaitingForPrecond, prog(0, 1, "activate")
				},
				message: "activate: preconditions hold; sending " + testPath, lock: op1Lock,
			},
		},
		"GatePassesAsksForCall": {
			reason: "When the gate passes and nothing else changed, Observe asks for the call.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute, op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Message, st.Progress = "activate: preconditions hold; sending "+testPath, prog(0, 1, "activate")
			}))},
			want: observeWant{trigger: true, lock: op1Lock},
		},
		"RetryNotYetDue": {
			reason: "A scheduled retry waits for nextAttemptAt.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 30 * time.Second, op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Phase, st.Reason, st.Attempts, st.StepAttempts, st.NextAttemptAt = v1alpha1.OperationRunning, ReasonRetryScheduled, 1, 1, at(time.Minute)
			}))},
			want: observeWant{status: withProgress(prog(0, 1, "activate")), lock: op1Lock},
		},
		"RetryDue": {
			reason: "A due retry clears nextAttemptAt and prepares the next attempt; the change is persisted before the call.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + time.Second, op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Phase, st.Reason, st.Attempts, st.StepAttempts, st.NextAttemptAt = v1alpha1.OperationRunning, ReasonRetryScheduled, 1, 1, at(time.Minute)
			}))},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.NextAttemptAt, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, nil, prog(0, 1, "activate")
				},
				message: "activate: sending " + testPath, lock: op1Lock, trigger: true,
			},
		},
		"CancelledWhileQueued": {
			reason: "Cancelling a queued operation fails it at once; nothing is sent or even read from the backend, and it has no history record.",
			args: observeArgs{cluster: storageCluster(lockedBy(op0Lock)), others: []client.Object{op0}, now: time.Minute,
				op: operation(cancelled(), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.QueuePosition = v1alpha1.OperationPending, ReasonQueued, testHash, ptr.To[int64](1)
				}))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonCancelled, time.Minute),
				message: "cancelled while queued; nothing was sent to the backend", lock: op0Lock, noBackend: true,
			},
		},
		"CancelledBeforeFirstCall": {
			reason: "Cancelling an operation that holds the lock but sent nothing fails it and releases the lock.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), cancelled()), now: time.Minute},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonCancelled, time.Minute, withProgress(prog(0, 1, "activate"))),
				message: "cancelled before activate",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonCancelled, time.Minute)},
			},
		},
		"CancelAfterCallWaits": {
			reason: "A cancel after the step's call was sent cannot stop it: the step runs on and the message says so.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute), cancelled()), now: 2 * time.Minute, backend: &backend{status: sb.ClusterInActivation}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard.EvidenceSeen = true
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				message: "cancel requested", lock: op1Lock,
			},
		},
		"CancelledAtCancellableStep": {
			reason: "After a call was sent, cancel stops the operation before the next cancellable step.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 5 * time.Minute,
				steps: []Step{testStep(), testStep(func(s *Step) { s.Name, s.SafePoint = "second", true })},
				op: operation(holding(0), cancelled(), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Step, st.Attempts = v1alpha1.OperationRunning, 1, 1
				}))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonCancelled, 5*time.Minute, withProgress(prog(1, 2, "second"))),
				message: "cancelled before second",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonCancelled, 5*time.Minute)},
			},
		},
		"DeletedWhileQueued": {
			reason: "A deleted operation that never left the queue ends at once, leaves no record and another's lock alone.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op0Lock)), others: []client.Object{op0}, op: operation(deletedAt(time.Minute)), now: 2 * time.Minute},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeleted, 2*time.Minute, func(st *v1alpha1.OperationStatus) { st.StartedAt, st.SpecHash = nil, testHash }),
				message: "deleted while queued; nothing was sent to the backend", lock: op0Lock,
			},
		},
		"DeletedBeforeSending": {
			reason: "A deleted operation that holds the lock but sent nothing stops at once: the lock is released and the record says Deleted.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), deletedAt(time.Minute)), now: 2 * time.Minute},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeleted, 2*time.Minute, withProgress(prog(0, 1, "activate"))),
				message: "deleted while Pending; nothing was sent to the backend",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeleted, 2*time.Minute)},
			},
		},
		"DeletedWhileItsCallRuns": {
			reason: "A deleted operation whose call was sent keeps the lock and follows the step; its message says where it will stop.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute), deletedAt(2*time.Minute)), now: 3 * time.Minute,
				backend: &backend{status: sb.ClusterInActivation}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard.EvidenceSeen = true
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				message: "deleted: stops after its last step, activate, then goes away; now: activate: the cluster is in_activation", lock: op1Lock,
			},
		},
		"DeletedStopsAtSafePoint": {
			reason: "A deleted operation stops before a safe-point step, recording DeletedWhileRunning with how far it got and the backend's state.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 5 * time.Minute,
				steps: []Step{testStep(), testStep(func(s *Step) { s.Name, s.SafePoint = "second", true })},
				op: operation(holding(0), deletedAt(4*time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Step, st.Attempts = v1alpha1.OperationRunning, 1, 1
				}))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeletedWhileRunning, 5*time.Minute, withProgress(prog(1, 2, "second"))),
				message: "deleted while Running: stopped at a safe point, before second (1 of 2 steps done); StorageCluster demo was left with cluster unready",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeletedWhileRunning, 5*time.Minute)},
			},
		},
		"DeletedSendsStepThatCompletesThePrevious": {
			reason: "A deleted operation whose next step is no safe point (a start after a shutdown) still sends its call, guarded as ever.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 5 * time.Minute,
				steps: []Step{testStep(), testStep(func(s *Step) { s.Name = "second" })},
				op: operation(holding(0), deletedAt(4*time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Step, st.Attempts = v1alpha1.OperationRunning, 1, 1
				}))},
			want: observeWant{
				trigger: true,
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.Progress = ReasonInProgress, prog(1, 2, "second")
				},
				message: "deleted: stops after its last step, second, then goes away; now: second: sending " + testPath, lock: op1Lock,
			},
		},
		"DeletedFinishesItsLastStep": {
			reason: "A deleted operation that finishes its last step on its way out records it as DeletedWhileRunning, phase Succeeded, with the backend's state.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute), deletedAt(2*time.Minute)), now: 3 * time.Minute,
				backend: &backend{status: sb.ClusterActive}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonDeletedWhileRunning, 3*time.Minute, withProgress(prog(1, 1, "")), evidenceSeen),
				message: "deleted while Running: finished its last step before going away (activate done); StorageCluster demo was left with cluster active",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonDeletedWhileRunning, 3*time.Minute)},
			},
		},
		"DeletedWhileAwaitingConfirmation": {
			reason: "A deleted operation waiting for a re-send decision gives up like a cancel: the outcome stays unknown.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 2*time.Second,
				op:    operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute), deletedAt(time.Minute)),
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerAsks })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second, withProgress(prog(0, 1, "activate"))),
				message: "deleted while waiting for a decision",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second)},
			},
		},
		"DeadlineExceeded": {
			reason: "An operation still running after its timeout (1h by default) fails even when the backend cannot be read; the message names the step and the unknown outcome.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Hour + time.Second,
				op:      operation(unresolved(v1alpha1.GuardAmbiguous, 30*time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") })),
				backend: &backend{listErr: errors.New("connection refused")}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second),
				message: "did not finish within 1h0m0s (at activate); the outcome of its last backend call is unknown",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second)},
			},
		},
		"DeadlineNamesWhatTheBackendShowsNow": {
			reason: "At the deadline a sent step is judged on a fresh snapshot: the message names the backend's state now, not at the previous reconcile.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Hour + time.Second,
				op:      operation(sent(time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Message = "activate: the cluster is in_activation" })),
				backend: &backend{status: sb.ClusterDegraded}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second, withProgress(prog(0, 1, "activate")), evidenceSeen),
				message: "did not finish within 1h0m0s (at activate); last seen: activate: the cluster is degraded",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second)},
			},
		},
		"DoneAtTheDeadline": {
			reason: "A step the backend finished by the time the deadline is noticed succeeds rather than failing.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Hour + time.Second,
				op: operation(sent(time.Minute)), backend: &backend{status: sb.ClusterActive}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, time.Hour+time.Second, withProgress(prog(1, 1, "")), evidenceSeen),
				message: "activate done",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Hour+time.Second)},
			},
		},
		"DoneHandsTheLockOver": {
			reason: "A finishing operation hands its lock to the first in its queue in the write that records it, so that the next need not take it.",
			args:   doneWith(queuedOp("op3", "uid-3", 3*time.Minute), queuedOp("op2", "uid-2", 2*time.Minute)),
			want:   doneHandingTo(queuedOp("op2", "uid-2", 2*time.Minute)),
		},
		"HandOverSkipsACancelledOperation": {
			reason: "A cancelled operation first in line ends without the lock: the lock goes to the one after it.",
			args:   doneWith(queuedOp("op2", "uid-2", 2*time.Minute, cancelled()), queuedOp("op3", "uid-3", 3*time.Minute)),
			want:   doneHandingTo(queuedOp("op3", "uid-3", 3*time.Minute)),
		},
		"HandOverPassesAClosedWindow": {
			reason: "An operation first in line whose maintenance window is closed does not queue: the lock goes to the one after it.",
			args:   doneWith(queuedOp("op3", "uid-3", 3*time.Minute), queuedOp("op2", "uid-2", 2*time.Minute, inWindow("0 2 * * *"))),
			want:   doneHandingTo(queuedOp("op3", "uid-3", 3*time.Minute)),
		},
		"HandOverToAnOpenWindow": {
			reason: "An operation first in line whose maintenance window is open is handed the lock.",
			args:   doneWith(queuedOp("op3", "uid-3", 3*time.Minute), queuedOp("op2", "uid-2", 2*time.Minute, inWindow("0 12 * * *"))),
			want:   doneHandingTo(queuedOp("op2", "uid-2", 2*time.Minute)),
		},
		"HandedTheLockStarts": {
			reason: "An operation handed the lock starts without taking it: no read from the API server and no write of the target, and its first call is due in the same pass.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 10 * time.Second, noAPIReads: true, op: operation(queuedAs(1))},
			want: observeWant{trigger: true, status: acquired(10 * time.Second), message: "activate: preconditions hold; sending " + testPath, lock: op1Lock,
				after: targetUnwritten},
		},
		"HandedTheLockButCancelled": {
			reason: "A cancelled operation handed the lock before it saw it ends as cancelled while queued, without a record, and passes the lock on.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 10 * time.Second, op: operation(queuedAs(1), cancelled()),
				others: []client.Object{queuedOp("op2", "uid-2", time.Minute)}},
			want: observeWant{status: finishedAs(v1alpha1.OperationFailed, ReasonCancelled, 10*time.Second),
				message: "cancelled while queued; nothing was sent to the backend", noBackend: true,
				lock: lockOf(queuedOp("op2", "uid-2", time.Minute), v1alpha1.OperationPending)},
		},
		"HandedTheLockButAlreadyCompleted": {
			reason: "A re-created operation handed the lock does not run again and passes the lock on.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock), withHistory(record("op1", "uid-old", ReasonCompleted))), now: time.Minute,
				op: operation(queuedAs(1))},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonAlreadyCompleted, at(time.Minute)
				},
				message: "already ran (uid uid-old, Succeeded: Completed)",
				history: []v1alpha1.OperationRecord{record("op1", "uid-old", ReasonCompleted)}, noBackend: true,
			},
		},
		"FinishedHolderHandsOver": {
			reason: "A finished operation that still holds its lock (it was handed it after it ended) hands it to the next in line.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Hour,
				op:     operation(finished(v1alpha1.OperationFailed, ReasonCancelled, time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.StartedAt = nil })),
				others: []client.Object{queuedOp("op2", "uid-2", time.Minute)}},
			want: observeWant{noBackend: true, lock: lockOf(queuedOp("op2", "uid-2", time.Minute), v1alpha1.OperationPending)},
		},
		"StepTimeout": {
			reason: "A step's own timeout fails the operation.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: 5*time.Minute + time.Second,
				steps: []Step{testStep(func(s *Step) { s.Timeout = 5 * time.Minute })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 5*time.Minute+time.Second, withProgress(prog(0, 1, "activate"))),
				message: "activate did not finish within 5m0s",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 5*time.Minute+time.Second)},
			},
		},
		"AlreadyCompleted": {
			reason: "A re-created operation whose twin (same name, type, spec; other UID) is in the history does not run again and takes its twin's phase.",
			args:   observeArgs{cluster: storageCluster(withHistory(record("op1", "uid-old", ReasonCompleted))), op: operation(), now: time.Minute},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonAlreadyCompleted, testHash, at(time.Minute)
				},
				message: "already ran (uid uid-old, Succeeded: Completed)",
				history: []v1alpha1.OperationRecord{record("op1", "uid-old", ReasonCompleted)}, noBackend: true,
			},
		},
		"AlreadyCompletedByTheLedger": {
			reason: "A re-created operation whose twin left the status history (50 newer operations, a restore without status, a re-import) is found in the ledger and does not run again.",
			args:   observeArgs{cluster: storageCluster(), op: operation(), now: time.Minute, others: []client.Object{ledgerOf(t, record("op1", "uid-old", ReasonCompleted))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonAlreadyCompleted, testHash, at(time.Minute)
				},
				message: "already ran (uid uid-old, Succeeded: Completed)", noBackend: true,
			},
		},
		"AlreadyCompletedByACompactedRecord": {
			reason: "A twin whose ledger record was compacted to its run-once key still stops the re-created operation, with the phase it ended in.",
			args: observeArgs{cluster: storageCluster(), op: operation(), now: time.Minute,
				others: []client.Object{compactedLedgerOf(t, record("op1", "uid-old", ReasonBackendRejected), v1alpha1.OperationFailed)}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash, st.CompletedAt = v1alpha1.OperationFailed, ReasonAlreadyCompleted, testHash, at(time.Minute)
				},
				message: "already ran (the ledger's compacted record says Failed)", noBackend: true,
			},
		},
		"DeletedTwinInTheLedgerRuns": {
			reason: "A ledger record of an operation deleted while it ran does not stop its re-creation, as in the status history.",
			args:   observeArgs{cluster: storageCluster(), op: operation(), now: time.Minute, others: []client.Object{ledgerOf(t, record("op1", "uid-old", ReasonDeleted))}},
			want:   observeWant{trigger: true, status: acquired(time.Minute), lock: op1Lock},
		},
		"OwnLedgerRecordRepairsStatus": {
			reason: "An operation whose record is in the ledger but not in the status history crashed between the ledger write and the lock's release: it takes the recorded result, records it in the history and releases the lock, without reading the backend.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 6 * time.Minute,
				others: []client.Object{ledgerOf(t, rec(v1alpha1.OperationSucceeded, ReasonCompleted, 5*time.Minute))}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonCompleted, at(5*time.Minute)
				},
				noBackend: true,
				history:   []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, 5*time.Minute)},
			},
		},
		"FinishAppendsToTheLedger": {
			reason: "A finishing operation appends its record to the ledger before it releases the lock, with the status history's records the ledger lacks (written before it existed).",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock), withHistory(record("op0", "uid-0", ReasonCompleted))), now: time.Hour + time.Second,
				op: operation(sent(time.Minute)), backend: &backend{status: sb.ClusterActive}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, time.Hour+time.Second, withProgress(prog(1, 1, "")), evidenceSeen),
				message: "activate done",
				history: []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted), rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Hour+time.Second)},
				after: func(t *testing.T, kube client.Client) {
					t.Helper()
					got := ledgerRecords(t, kube)
					want := []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted), rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Hour+time.Second)}
					if diff := cmp.Diff(want, got, ignoreMessages); diff != "" {
						t.Errorf("ledger: -want, +got:\n%s", diff)
					}
				},
			},
		},
		"TwinWithOtherSpecRuns": {
			reason: "An earlier operation of the same name with another spec does not stop this one.",
			args: observeArgs{cluster: storageCluster(withHistory(func() v1alpha1.OperationRecord {
				r := record("op1", "uid-old", ReasonCompleted)
				r.SpecHash = "hash-0"
				return r
			}())), op: operation(), now: time.Minute},
			want: observeWant{trigger: true, status: acquired(time.Minute), lock: op1Lock,
				history: []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-old", Type: "Activate", Phase: v1alpha1.OperationSucceeded, Reason: ReasonCompleted, SpecHash: "hash-0"}}},
		},
		"OwnRecordRepairsStatus": {
			reason: "An operation that finds its own record finished before a crash and takes the recorded result, without reading the backend.",
			args: observeArgs{cluster: storageCluster(withHistory(func() v1alpha1.OperationRecord {
				r := rec(v1alpha1.OperationSucceeded, ReasonCompleted, 5*time.Minute)
				r.Message = "all steps done"
				return r
			}())), op: operation(sent(time.Minute)), now: 6 * time.Minute},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonCompleted, at(5*time.Minute)
				},
				message: "all steps done", noBackend: true,
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, 5*time.Minute)},
			},
		},
		"LockLostAfterCall": {
			reason: "An operation that sent a call and finds its lock taken by another fails rather than running on unprotected.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op0Lock)), others: []client.Object{op0}, op: operation(sent(time.Minute)), now: 2 * time.Minute},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, "LockLost", 2*time.Minute),
				message: "the lock on StorageCluster demo was taken by op0", lock: op0Lock, noBackend: true,
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, "LockLost", 2*time.Minute)},
			},
		},
		"LockLostBeforeCallQueuesAgain": {
			reason: "An operation that lost its lock before sending anything simply queues again.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op0Lock)), others: []client.Object{op0}, op: operation(holding(0)), now: time.Minute},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.StartedAt, st.Phase, st.Reason, st.QueuePosition = nil, v1alpha1.OperationPending, ReasonQueued, ptr.To[int64](1)
				},
				message: "waiting for op0 (Restart)", lock: op0Lock, noBackend: true,
			},
		},
		"IntendedWithEvidence": {
			reason: "An intent left by a crash is resolved as sent when the backend shows evidence.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardIntended, time.Minute)), now: time.Minute,
				backend: &backend{status: sb.ClusterInActivation}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard.Outcome, st.Guard.ResolvedAt, st.Guard.EvidenceSeen, st.Triggered = v1alpha1.GuardSent, at(time.Minute), true, true
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonTriggered, prog(0, 1, "activate")
				},
				message: "the backend shows that " + testPath + " took effect", lock: op1Lock,
			},
		},
		"IntendedAwaitingEvidence": {
			reason: "Within the evidence grace an unresolved intent keeps looking for evidence.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardIntended, time.Minute)), now: time.Minute},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonResolving, prog(0, 1, "activate")
				},
				message: "the provider stopped between recording the intent and the answer", lock: op1Lock,
			},
		},
		"AmbiguousWithoutEvidenceFails": {
			reason: "A lost answer without evidence after the grace fails with OutcomeUnknown when a repeat could be harmful.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), now: time.Minute + 2*time.Second},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second, withProgress(prog(0, 1, "activate"))),
				message: "its answer was lost) and it showed no evidence within 1s. Sending it again could be harmful, so the operation stops; check the cluster's status",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second)},
			},
		},
		"AmbiguousWithoutEvidenceResends": {
			reason: "A lost answer without evidence clears the guard for another attempt when a repeat is harmless.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), now: time.Minute + 2*time.Second,
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerResends })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard, st.Phase, st.Reason, st.Progress = nil, v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				message: "sending it again is harmless", lock: op1Lock,
			},
		},
		"CancelWhileRefusedForNow": {
			reason: "An operation whose only call so far was refused for now (nothing took effect) can still be cancelled while it waits.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute,
				op: operation(holding(0), cancelled(), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts = 1, 1
					st.Calls = []v1alpha1.BackendCall{{Method: "POST", Path: "/clusters/c1/activate", StatusCode: 409, Result: "RefusedForNow: Migration task found", Attempt: 1, Step: "activate", Time: *at(30 * time.Second)}}
				}))},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonCancelled, time.Minute, withProgress(prog(0, 1, "activate"))),
				message: "cancelled before activate; nothing more was sent to the backend",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonCancelled, time.Minute)},
			},
		},
		"AmbiguousResendsOnlyAfterTheHoldLimit": {
			reason: "A harmless repeat is sent only once the backend can no longer apply the original: within the hold limit it keeps looking for evidence.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), now: time.Minute + 2*time.Second,
				holdLimit: 10 * time.Second, steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerResends })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonResolving, prog(0, 1, "activate")
				},
				message: "looking for evidence that it took effect", lock: op1Lock,
			},
		},
		"AmbiguousAsksForConfirmation": {
			reason: "A step whose late original would be harmful once the plan moves on waits for the user instead of re-sending, naming the token that confirms.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), now: time.Minute + 2*time.Second,
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerAsks })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonAwaitingConfirmation, prog(0, 1, "activate")
				},
				message: `set spec.forProvider.confirmResend to "0/1" to send it again, or cancel: true to give up`, lock: op1Lock,
			},
		},
		"AmbiguousAskIgnoresAnotherToken": {
			reason: "A token confirms one call only: one naming another attempt does not re-send this one.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 2*time.Second,
				op:    operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute), withPolicy(func(p *v1alpha1.OperationPolicy) { p.ConfirmResend = "0/2" })),
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerAsks })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonAwaitingConfirmation, prog(0, 1, "activate")
				},
				message: `confirmResend to "0/1"`, lock: op1Lock,
			},
		},
		"AmbiguousResendConfirmed": {
			reason: "With the guard's token in confirmResend the call is sent again (its skip and gate run first).",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 2*time.Second,
				op:    operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute), withPolicy(func(p *v1alpha1.OperationPolicy) { p.ConfirmResend = "0/1" })),
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerAsks })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard, st.Phase, st.Reason, st.Progress = nil, v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				message: "re-sending " + testPath + " as confirmed (confirmResend 0/1)", lock: op1Lock,
			},
		},
		"AmbiguousAskGivenUp": {
			reason: "Cancel while waiting for the decision gives up: the outcome stays unknown.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 2*time.Second,
				op:    operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute), cancelled()),
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerAsks })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second, withProgress(prog(0, 1, "activate"))),
				message: "cancelled while waiting for a decision",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second)},
			},
		},
		"AmbiguousResendsAtMostMaxAttempts": {
			reason: "A harmless repeat is still bounded by maxAttempts; then the outcome is unknown.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 2*time.Second,
				op:    operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Attempts, st.StepAttempts = 3, 3 })),
				steps: []Step{testStep(func(s *Step) { s.OnLostAnswer = LostAnswerResends })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second, withProgress(prog(0, 1, "activate"))),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute+2*time.Second)},
			},
		},
		"AcceptedAwaitingEvidence": {
			reason: "An accepted call that requires evidence waits for it within the grace.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: time.Minute,
				steps: []Step{testStep(func(s *Step) { s.WithoutEvidence = NoEvidenceFails })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonTriggered, prog(0, 1, "activate")
				},
				message: "waiting for the backend to act on " + testPath, lock: op1Lock,
			},
		},
		"AcceptedNoEvidenceNoEffect": {
			reason: "An accepted call without evidence after the grace fails with NoEffect (the backend refused it silently).",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: time.Minute + 2*time.Second,
				steps: []Step{testStep(func(s *Step) { s.WithoutEvidence = NoEvidenceFails })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonNoEffect, time.Minute+2*time.Second, withProgress(prog(0, 1, "activate"))),
				message: "showed no sign of acting on it within 1s",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonNoEffect, time.Minute+2*time.Second)},
			},
		},
		"AcceptedNoEvidenceSendsAgain": {
			reason: "A step whose silent refusal passes sends its call again after the grace, within the precondition timeout.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: time.Minute + 2*time.Second,
				steps: []Step{testStep(func(s *Step) { s.WithoutEvidence = NoEvidenceSendsAgain })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard, st.Triggered, st.NextAttemptAt = nil, false, at(time.Minute+7*time.Second)
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonWaitingForPrecond, prog(0, 1, "activate")
				},
				message: "did not act on it within 1s (it refuses silently for now", lock: op1Lock,
			},
		},
		"AcceptedNoEvidencePastThePreconditionTimeout": {
			reason: "Past the precondition timeout a silent refusal that passes fails with NoEffect like any other.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 11 * time.Minute,
				steps: []Step{testStep(func(s *Step) { s.WithoutEvidence = NoEvidenceSendsAgain })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationFailed, ReasonNoEffect, 11*time.Minute, withProgress(prog(0, 1, "activate"))),
				message: "showed no sign of acting on it",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonNoEffect, 11*time.Minute)},
			},
		},
		"AcceptedNoEvidenceMeansDone": {
			reason: "A step whose lack of evidence means success completes after the grace.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: time.Minute + 2*time.Second,
				steps: []Step{testStep(func(s *Step) { s.WithoutEvidence, s.DoneWithoutEvidence = NoEvidenceMeansDone, "nothing needed moving" })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute+2*time.Second, withProgress(prog(1, 1, ""))),
				message: "nothing needed moving",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute+2*time.Second)},
			},
		},
		"CheckFails": {
			reason: "A failure the step's check reads fails the operation with the check's reason.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 2 * time.Minute,
				backend: &backend{status: sb.ClusterSuspended}},
			want: observeWant{
				status: finishedAs(v1alpha1.OperationFailed, "ActivationFailed", 2*time.Minute, withProgress(prog(0, 1, "activate")),
					func(st *v1alpha1.OperationStatus) { st.Guard.EvidenceSeen = true }),
				message: "activate: the activation failed",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, "ActivationFailed", 2*time.Minute)},
			},
		},
		"CheckInProgress": {
			reason: "While the check reads progress the operation runs on and records the evidence it saw.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 2 * time.Minute,
				backend: &backend{status: sb.ClusterInActivation}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard.EvidenceSeen = true
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				message: "activate: the cluster is in_activation", lock: op1Lock,
			},
		},
		"LastStepDone": {
			reason: "When the last step is done the operation succeeds, releases the lock and leaves its record in the history.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock), withHistory(record("older", "uid-older", ReasonCompleted))), op: operation(sent(time.Minute)),
				now: 2 * time.Minute, backend: &backend{status: sb.ClusterActive}},
			want: observeWant{
				status: finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute, withProgress(prog(1, 1, "")),
					func(st *v1alpha1.OperationStatus) { st.Guard.EvidenceSeen = true }),
				message: "activate done",
				history: []v1alpha1.OperationRecord{record("older", "uid-older", ReasonCompleted), rec(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute)},
			},
		},
		"FirstOfTwoStepsDone": {
			reason: "When a step other than the last is done the operation moves to the next with a fresh guard, attempts and step start.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 2 * time.Minute,
				steps: []Step{testStep(), testStep(func(s *Step) { s.Name = "second" })}, backend: &backend{status: sb.ClusterActive}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Step, st.Guard, st.Triggered, st.StepAttempts, st.StepStartedAt = 1, nil, false, 0, at(2*time.Minute)
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 2, "activate")
				},
				message: "activate done", lock: op1Lock,
			},
		},
		"SkipCompletes": {
			reason: "A step whose goal already holds is skipped without a call.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				steps: []Step{testStep(func(s *Step) { s.Skip = func(*Snapshot) (bool, string) { return true, "already active" } })}},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonNothingToDo, time.Minute, withProgress(prog(1, 1, ""))),
				message: "already active",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonNothingToDo, time.Minute)},
			},
		},
		"WaitOnlyStepStartsWatching": {
			reason: "A step without a call starts watching at once: a resolved guard with the baseline of now, and triggered so Trigger never sends for it.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				steps: []Step{testStep(func(s *Step) { s.Call = nil })}},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard = &v1alpha1.OperationGuard{Step: 0, Outcome: v1alpha1.GuardSent, IntendedAt: *at(time.Minute), ResolvedAt: at(time.Minute),
						BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition}
					st.Triggered = true
					st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
				},
				lock: op1Lock,
			},
		},
		"BackendUnreadable": {
			reason: "A backend that cannot be read does not fail the operation; it says so and waits.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(sent(time.Minute)), now: 2 * time.Minute,
				backend: &backend{listErr: errors.New("connection refused")}},
			want: observeWant{message: "cannot observe the backend (" + errGetCluster + ": connection refused)", lock: op1Lock},
		},
		"TargetMissingWaits": {
			reason: "An operation whose StorageCluster does not exist waits for it.",
			args:   observeArgs{noTarget: true, op: operation(), now: time.Minute},
			want: observeWant{
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash = v1alpha1.OperationPending, ReasonWaitingForTarget, testHash
				},
				message: "waiting for StorageCluster demo to exist", noBackend: true,
			},
		},
		"TargetMissingTimesOut": {
			reason: "An operation whose StorageCluster never appears fails after the precondition timeout, counted from its creation.",
			args:   observeArgs{noTarget: true, op: operation(), now: 10*time.Minute + time.Second},
			want: observeWant{
				status: finishedAs(v1alpha1.OperationFailed, ReasonTargetNotFound, 10*time.Minute+time.Second,
					func(st *v1alpha1.OperationStatus) { st.SpecHash = testHash }),
				message: "StorageCluster demo does not exist 10m0s after the operation was created", noBackend: true,
			},
		},
		"ChooseTargetsFixesTargets": {
			reason: "An operation with targets fixes them from the backend before its first step.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				choose: func(s *Snapshot) []string {
					ids := []string{}
					for _, n := range s.LiveNodes() {
						ids = append(ids, n.ID)
					}
					return ids
				},
				backend: &backend{status: sb.ClusterActive, nodes: []sb.StorageNodeDTO{{ID: "n1"}, {ID: "n2", Status: sb.NodeRemoved}, {ID: "n3"}}}},
			want: observeWant{status: func(st *v1alpha1.OperationStatus) { st.Targets = []string{"n1", "n3"} }, lock: op1Lock},
		},
		"ChooseTargetsNothingToDo": {
			reason: "An operation with no targets succeeds with nothing to do.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute,
				choose: func(*Snapshot) []string { return nil }},
			want: observeWant{
				status:  finishedAs(v1alpha1.OperationSucceeded, ReasonNothingToDo, time.Minute),
				message: "there is nothing to work on",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonNothingToDo, time.Minute)},
			},
		},
		"RecordedWhileItsLockIsStillHeld": {
			reason: "An operation whose record was written but whose own status and lock release were not (a failed write) takes its outcome from the record and releases the lock.",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning)), withHistory(rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute))),
				op: operation(sent(0)), now: 2 * time.Minute},
			want: observeWant{noBackend: true, history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.CompletedAt = v1alpha1.OperationSucceeded, ReasonCompleted, at(time.Minute)
				}},
		},
		"FinishedReleasesStaleLock": {
			reason: "A finished operation that still holds its lock (a failed release) releases it without reading the backend.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute)), now: 2 * time.Minute},
			want:   observeWant{noBackend: true},
		},
		"FinishedOutOfTheHistory": {
			reason: "A finished operation whose record fell out of the cluster's bounded history, and which the cache shows not holding the lock, asks the API server nothing.",
			args: observeArgs{cluster: storageCluster(), op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute)),
				now: 2 * time.Minute, noAPIReads: true},
			want: observeWant{noBackend: true},
		},
		"FinishedTTLPassed": {
			reason: "A finished operation is deleted once its TTL passed.",
			args: observeArgs{cluster: storageCluster(), now: time.Minute + time.Second,
				op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0), withPolicy(func(p *v1alpha1.OperationPolicy) { p.TTLSecondsAfterFinished = ptr.To[int64](60) }))},
			want: observeWant{noBackend: true, deleted: true},
		},
		"FinishedTTLNotYet": {
			reason: "A finished operation is kept until its TTL passed.",
			args: observeArgs{cluster: storageCluster(), now: 59 * time.Second,
				op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0), withPolicy(func(p *v1alpha1.OperationPolicy) { p.TTLSecondsAfterFinished = ptr.To[int64](60) }))},
			want: observeWant{noBackend: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.run(t) })
	}
}

// An observeCase is one case of a table of Engine.Observe tests.
type observeCase struct {
	reason string
	args   observeArgs
	want   observeWant
}

type observeArgs struct {
	cluster  *v1alpha1.StorageCluster // nil: the target does not exist
	others   []client.Object
	op       *v1alpha1.ClusterOps
	steps    []Step // default: testStep()
	choose   func(s *Snapshot) []string
	backend  *backend // default: an unready cluster
	now      time.Duration
	noTarget bool
	// holdLimit is the engine's HoldLimit (default 0).
	holdLimit time.Duration
	// disruptive makes the operation take DisruptionBudget slots.
	disruptive bool
	// noAPIReads makes every read from the API server (not the cache) fail.
	noAPIReads bool
}
type observeWant struct {
	trigger bool
	// status changes the operation's status as it was into the one wanted;
	// nil: unchanged.
	status    func(st *v1alpha1.OperationStatus)
	message   string // a substring of status.message
	lock      *v1alpha1.OperationReference
	history   []v1alpha1.OperationRecord
	noBackend bool // the backend is not read
	deleted   bool
	// after checks more of what Observe left behind.
	after func(t *testing.T, kube client.Client)
}

// run observes tc's operation once and checks what changed.
func (tc observeCase) run(t *testing.T) {
	t.Helper()
	objs := append([]client.Object{tc.args.op}, tc.args.others...)
	if !tc.args.noTarget {
		objs = append(objs, tc.args.cluster)
	}
	kube := newKube(t, nil, objs...)
	b := tc.args.backend
	if b == nil {
		b = &backend{status: sb.ClusterUnready}
	}
	steps := tc.args.steps
	if steps == nil {
		steps = []Step{testStep()}
	}
	e := newEngine(kube, &clock{now: t0.Add(tc.args.now)})
	e.HoldLimit = tc.args.holdLimit
	if tc.args.noAPIReads {
		e.Lock.Reader = errReader{err: errors.New("the API server is not to be asked")}
	}
	o := getOp(t, kube, tc.args.op.GetName())
	want := o.Status.AtProvider.OperationStatus.DeepCopy()
	if tc.want.status != nil {
		tc.want.status(want)
	}
	r := runOf(kube, o, b.api(), steps...)
	r.ChooseTargets, r.Disruptive = tc.args.choose, tc.args.disruptive

	trigger, err := e.Observe(context.Background(), r)
	if err != nil {
		t.Fatalf("\n%s\nObserve(...): unexpected error: %v", tc.reason, err)
	}
	if trigger != tc.want.trigger {
		t.Errorf("\n%s\nObserve(...) trigger = %t, want %t", tc.reason, trigger, tc.want.trigger)
	}
	got := o.Status.AtProvider.OperationStatus
	if diff := cmp.Diff(*want, got, ignoreMessages); diff != "" {
		t.Errorf("\n%s\nObserve(...): status: -want, +got:\n%s", tc.reason, diff)
	}
	if !strings.Contains(got.Message, tc.want.message) {
		t.Errorf("\n%s\nObserve(...): message %q, want it to contain %q", tc.reason, got.Message, tc.want.message)
	}
	checkReady(t, tc.reason, o)
	if !tc.want.deleted {
		// Observe never writes the status itself: the reconciler does,
		// or the intent write before a call.
		wantStored := tc.args.op.Status.AtProvider.OperationStatus
		stored := getOp(t, kube, o.GetName()).Status.AtProvider.OperationStatus
		if diff := cmp.Diff(wantStored, stored, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("\n%s\nObserve(...): stored status: -want, +got:\n%s", tc.reason, diff)
		}
	}
	if tc.want.noBackend && b.reads != 0 {
		t.Errorf("\n%s\nObserve(...) read the backend %d times, want none", tc.reason, b.reads)
	}
	if s := b.sentCalls(); len(s) != 0 {
		t.Errorf("\n%s\nObserve(...) sent %v; Observe must never call the backend's state-changing API", tc.reason, s)
	}
	if !tc.args.noTarget {
		c := getCluster(t, kube)
		if diff := cmp.Diff(tc.want.lock, c.Status.AtProvider.ActiveOperation); diff != "" {
			t.Errorf("\n%s\nObserve(...): target lock: -want, +got:\n%s", tc.reason, diff)
		}
		if diff := cmp.Diff(tc.want.history, c.Status.AtProvider.OperationHistory, ignoreMessages); diff != "" {
			t.Errorf("\n%s\nObserve(...): target history: -want, +got:\n%s", tc.reason, diff)
		}
	}
	err = kube.Get(context.Background(), client.ObjectKeyFromObject(o), &v1alpha1.ClusterOps{})
	if deleted := kerrors.IsNotFound(err); deleted != tc.want.deleted {
		t.Errorf("\n%s\nObserve(...): operation deleted = %t, want %t (get: %v)", tc.reason, deleted, tc.want.deleted, err)
	}
	if tc.want.after != nil {
		tc.want.after(t, kube)
	}
}

// checkReady checks that the Ready condition mirrors the phase: True only
// when Succeeded, else False with the status reason.
func checkReady(t *testing.T, reason string, o *v1alpha1.ClusterOps) {
	t.Helper()
	st := o.Status.AtProvider.OperationStatus
	c := o.GetCondition(xpv2.TypeReady)
	wantStatus, wantReason := corev1.ConditionFalse, xpv2.ConditionReason(st.Reason)
	if st.Phase == v1alpha1.OperationSucceeded {
		wantStatus, wantReason = corev1.ConditionTrue, xpv2.ReasonAvailable
	}
	if st.Reason == "" && st.Phase != v1alpha1.OperationSucceeded {
		wantReason = ReasonQueued
	}
	if c.Status != wantStatus || c.Reason != wantReason || c.Message != st.Message {
		t.Errorf("\n%s\nReady condition = (%s, %s, %q), want (%s, %s, %q)", reason, c.Status, c.Reason, c.Message, wantStatus, wantReason, st.Message)
	}
}

// TestEngineQueueConflictMessage: when taking the lock loses a write race,
// the operation is queued and must not claim to wait for itself.
func TestEngineQueueConflictMessage(t *testing.T) {
	conflict := &interceptor.Funcs{SubResourceUpdate: func(_ context.Context, _ client.Client, _ string, obj client.Object, _ ...client.SubResourceUpdateOption) error {
		return kerrors.NewConflict(schema.GroupResource{Group: v1alpha1.Group, Resource: "storageclusters"}, obj.GetName(), errors.New("object was modified"))
	}}
	kube := newKube(t, conflict, storageCluster(), operation())
	o := getOp(t, kube, "op1")
	b := &backend{status: sb.ClusterUnready}
	if _, err := newEngine(kube, &clock{now: t0}).Observe(context.Background(), runOf(kube, o, b.api(), testStep())); err != nil {
		t.Fatal(err)
	}
	st := o.Status.AtProvider.OperationStatus
	if st.Reason != ReasonQueued || strings.Contains(st.Message, "waiting for op1") {
		t.Errorf("\nAn operation that lost the race for a free lock is queued and does not name itself as the holder.\nreason %q, message %q", st.Reason, st.Message)
	}
}

// TestEngineLifecycle runs one operation from the queue to success, the
// way the managed reconciler drives it: Observe, persist the status, and
// Create (Trigger) when Observe asks for the call.
func TestEngineLifecycle(t *testing.T) {
	ctx := context.Background()
	kube := newKube(t, nil, storageCluster(), operation())
	clk := &clock{now: t0.Add(time.Second)}
	e := newEngine(kube, clk)
	e.Observer.Now = clk.Now
	e.Lock.ObserveTarget = func(t Target, s *Snapshot) {
		t.(*v1alpha1.StorageCluster).Status.AtProvider.Status = string(s.Cluster.Status)
	}
	b := &backend{status: sb.ClusterUnready}
	b.onCall = func() { b.set(sb.ClusterInActivation) } // the backend starts acting on the call
	api := b.api()
	step := testStep()

	observe := func(what string, persist bool) (*v1alpha1.ClusterOps, bool) {
		t.Helper()
		o := getOp(t, kube, "op1")
		trigger, err := e.Observe(ctx, runOf(kube, o, api, step))
		if err != nil {
			t.Fatalf("%s: Observe(...): %v", what, err)
		}
		if persist {
			if err := kube.Status().Update(ctx, o); err != nil {
				t.Fatalf("%s: cannot persist status: %v", what, err)
			}
		}
		return o, trigger
	}
	expect := func(what string, o *v1alpha1.ClusterOps, trigger, wantTrigger bool, phase v1alpha1.OperationPhase, reason string) {
		t.Helper()
		st := o.Status.AtProvider.OperationStatus
		if trigger != wantTrigger || st.Phase != phase || st.Reason != reason {
			t.Errorf("%s: got trigger=%t %s/%s (%s), want trigger=%t %s/%s", what, trigger, st.Phase, st.Reason, st.Message, wantTrigger, phase, reason)
		}
	}

	// One pass takes the lock, finds the gate open and asks for the call
	// without writing the status: the intent write carries it.
	o, trig := observe("acquire", false)
	expect("acquire", o, trig, true, v1alpha1.OperationPending, ReasonWaitingForPrecond)
	if l := getCluster(t, kube).Status.AtProvider.ActiveOperation; l == nil || l.UID != "uid-1" {
		t.Fatalf("acquire: lock %+v, want it held by uid-1", l)
	}
	if st := getOp(t, kube, "op1").Status.AtProvider; st.StartedAt != nil {
		t.Fatalf("acquire: stored status %+v, want it unwritten until the intent", st.OperationStatus)
	}
	startedAt := o.Status.AtProvider.StartedAt

	if err := e.Trigger(ctx, runOf(kube, o, api, step)); err != nil {
		t.Fatalf("Trigger(...): %v", err)
	}
	if diff := cmp.Diff([]string{"activate c1"}, b.sentCalls()); diff != "" {
		t.Fatalf("Trigger(...): calls: -want, +got:\n%s", diff)
	}
	if st := getOp(t, kube, "op1").Status.AtProvider; st.StartedAt == nil || !st.StartedAt.Equal(startedAt) || st.Guard == nil {
		t.Fatalf("Trigger(...): stored status %+v, want the start Observe decided on (%v) and the guard", st.OperationStatus, startedAt)
	}

	// The evidence is kept with the answer: neither is written alone.
	clk.Advance(time.Second)
	o, trig = observe("backend acting", true)
	expect("backend acting", o, trig, false, v1alpha1.OperationRunning, ReasonTriggering)
	if g := o.Status.AtProvider.Guard; g == nil || g.Outcome != v1alpha1.GuardIntended {
		t.Errorf("backend acting: guard %+v, want the intent: the answer and the evidence are kept for the next decision", g)
	}

	b.set(sb.ClusterActive)
	clk.Advance(time.Second)
	o, trig = observe("done", true)
	expect("done", o, trig, false, v1alpha1.OperationSucceeded, ReasonCompleted)
	if g := o.Status.AtProvider.Guard; g == nil || !g.EvidenceSeen || !g.Answered {
		t.Errorf("done: guard %+v, want evidence seen on an answered call, written with the end", g)
	}

	clk.Advance(time.Second)
	o, trig = observe("finished", true)
	expect("finished", o, trig, false, v1alpha1.OperationSucceeded, ReasonCompleted)

	c := getCluster(t, kube)
	if c.Status.AtProvider.ActiveOperation != nil {
		t.Errorf("done: lock %+v, want released", c.Status.AtProvider.ActiveOperation)
	}
	if got := c.Status.AtProvider.Status; got != string(sb.ClusterActive) {
		t.Errorf("done: the released target shows status %q, want %q: what the operation saw after its call, written with the release", got, sb.ClusterActive)
	}
	want := []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-1", Type: "Activate", Phase: v1alpha1.OperationSucceeded, Reason: ReasonCompleted,
		StartedAt: at(time.Second), CompletedAt: at(3 * time.Second), SpecHash: testHash}}
	if diff := cmp.Diff(want, c.Status.AtProvider.OperationHistory, ignoreMessages); diff != "" {
		t.Errorf("done: history: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"activate c1"}, b.sentCalls()); diff != "" {
		t.Errorf("the whole operation sent: -want, +got:\n%s", diff)
	}
}

func TestEngineTrigger(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	answered := func(kind sb.Kind, code int, msg string) error {
		return &sb.Error{Kind: kind, Outcome: sb.OutcomeAnswered, StatusCode: code, Message: msg}
	}
	now := 2 * time.Minute
	intent := func(attempt int64) *v1alpha1.OperationGuard {
		return &v1alpha1.OperationGuard{Step: 0, Attempt: attempt, Outcome: v1alpha1.GuardIntended, IntendedAt: *at(now),
			BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition}
	}
	call := func(code int64, result string, attempt int64) v1alpha1.BackendCall {
		return v1alpha1.BackendCall{Method: "POST", Path: "/clusters/c1/activate", StatusCode: code, Result: result, Attempt: attempt,
			Step: "activate", Time: *at(now)}
	}
	ready := operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Message, st.Progress = "activate: preconditions hold; sending "+testPath, prog(0, 1, "activate")
	}))
	retried := func(attempts int64) *v1alpha1.ClusterOps {
		return operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
			st.Phase, st.Reason, st.Progress = v1alpha1.OperationRunning, ReasonInProgress, prog(0, 1, "activate")
			st.Attempts, st.StepAttempts = attempts, attempts
			st.Calls = []v1alpha1.BackendCall{call(503, "Failed: earlier", 1)}
		}))
	}

	type args struct {
		op      *v1alpha1.ClusterOps
		step    Step
		callErr error
		listErr error
		// concurrent writes the operation object after it was read.
		concurrent bool
		// duringCall writes the operation object while the call runs.
		duringCall bool
	}
	type want struct {
		err     string // substring
		sent    int
		intent  *v1alpha1.OperationGuard // the guard persisted when the call was made
		status  func(st *v1alpha1.OperationStatus)
		message string
		lock    *v1alpha1.OperationReference
		history []v1alpha1.OperationRecord
		// kept: the answer is kept in memory, not written; the status
		// stays as the intent left it.
		kept bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Accepted": {
			reason: "The intent is persisted before the call; an accepted call is recorded as sent, triggered and answered, with an audit entry, kept until the next write.",
			args:   args{op: ready, step: testStep()},
			want: want{sent: 1, intent: intent(1), lock: op1Lock, message: "activate: " + testPath + " accepted", kept: true,
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard = &v1alpha1.OperationGuard{Step: 0, Attempt: 1, Outcome: v1alpha1.GuardSent, IntendedAt: *at(now), ResolvedAt: at(now),
						BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition, Answered: true}
					st.Triggered, st.Attempts, st.StepAttempts = true, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonTriggered
					st.Calls = []v1alpha1.BackendCall{call(200, "Accepted", 1)}
				}},
		},
		"ServiceUnavailableRetries": {
			reason: "A 503 answer was definitely not acted on: the guard is cleared and a retry scheduled after the initial backoff.",
			args:   args{op: ready, step: testStep(), callErr: answered(sb.KindServerError, 503, "Service Unavailable")},
			want: want{sent: 1, intent: intent(1), lock: op1Lock, message: "activate: " + testPath + " failed (attempt 1 of 3): Service Unavailable",
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.NextAttemptAt = 1, 1, at(now+5*time.Second)
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonRetryScheduled
					st.Calls = []v1alpha1.BackendCall{call(503, "Failed: Service Unavailable", 1)}
				}},
		},
		"SecondFailureBacksOffLonger": {
			reason: "The second failure of a step waits twice the initial backoff, and the audit keeps both calls.",
			args:   args{op: retried(1), step: testStep(), callErr: &sb.Error{Kind: sb.KindTransport, Outcome: sb.OutcomeNotSent, Message: "connection refused"}},
			want: want{sent: 1, intent: intent(2), lock: op1Lock, message: "(attempt 2 of 3): connection refused",
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.NextAttemptAt = 2, 2, at(now+10*time.Second)
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonRetryScheduled
					st.Calls = append(st.Calls, call(0, "Failed: connection refused", 2))
				}},
		},
		"RetriesExhausted": {
			reason: "A step whose call failed maxAttempts times fails the operation, releasing the lock and recording it.",
			args:   args{op: retried(2), step: testStep(), callErr: answered(sb.KindServerError, 503, "Service Unavailable")},
			want: want{sent: 1, intent: intent(3), message: "failed 3 times, the last with: Service Unavailable",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonRetriesExhausted, now)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.CompletedAt = 3, 3, at(now)
					st.Phase, st.Reason = v1alpha1.OperationFailed, ReasonRetriesExhausted
					st.Calls = append(st.Calls, call(503, "Failed: Service Unavailable", 3))
				}},
		},
		"MaxAttemptsOne": {
			reason: "With maxAttempts 1 the first definite failure is final.",
			args: args{op: operation(holding(0), withPolicy(func(p *v1alpha1.OperationPolicy) { p.Retry = &v1alpha1.RetryPolicy{MaxAttempts: ptr.To[int64](1)} })),
				step: testStep(), callErr: answered(sb.KindUnauthorized, 401, "token expired")},
			want: want{sent: 1, intent: intent(1), message: "failed 1 times",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonRetriesExhausted, now)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.CompletedAt = 1, 1, at(now)
					st.Phase, st.Reason = v1alpha1.OperationFailed, ReasonRetriesExhausted
					st.Calls = []v1alpha1.BackendCall{call(401, "Failed: token expired", 1)}
				}},
		},
		"ConflictRejected": {
			reason: "A 409 is a definite refusal: the operation fails with the backend's message and is not retried.",
			args:   args{op: ready, step: testStep(), callErr: answered(sb.KindConflict, 409, "cluster is in_activation")},
			want: want{sent: 1, intent: intent(1), message: "activate: the backend refused " + testPath + ": cluster is in_activation",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonBackendRejected, now)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.CompletedAt = 1, 1, at(now)
					st.Phase, st.Reason = v1alpha1.OperationFailed, ReasonBackendRejected
					st.Calls = []v1alpha1.BackendCall{call(409, "Rejected: cluster is in_activation", 1)}
				}},
		},
		"UnknownOutcomeAmbiguous": {
			reason: "A call whose answer was lost leaves an ambiguous guard, to be resolved by evidence.",
			args:   args{op: ready, step: testStep(), callErr: &sb.Error{Kind: sb.KindTransport, Outcome: sb.OutcomeUnknown, Message: "request sent, outcome unknown: EOF"}},
			want: want{sent: 1, intent: intent(1), lock: op1Lock, message: "the answer to " + testPath + " was lost (request sent, outcome unknown: EOF)",
				status: func(st *v1alpha1.OperationStatus) {
					g := intent(1)
					g.Outcome = v1alpha1.GuardAmbiguous
					st.Guard, st.Attempts, st.StepAttempts = g, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonResolving
					st.Calls = []v1alpha1.BackendCall{call(0, "Ambiguous: request sent, outcome unknown: EOF", 1)}
				}},
		},
		"BadGatewayAmbiguous": {
			reason: "A 502 from a proxy may have been forwarded: ambiguous.",
			args:   args{op: ready, step: testStep(), callErr: &sb.Error{Kind: sb.KindServerError, Outcome: sb.OutcomeUnknown, StatusCode: 502, Message: "Bad Gateway"}},
			want: want{sent: 1, intent: intent(1), lock: op1Lock,
				status: func(st *v1alpha1.OperationStatus) {
					g := intent(1)
					g.Outcome = v1alpha1.GuardAmbiguous
					st.Guard, st.Attempts, st.StepAttempts = g, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonResolving
					st.Calls = []v1alpha1.BackendCall{call(502, "Ambiguous: Bad Gateway", 1)}
				}},
		},
		"ServerErrorAmbiguousForSyncCall": {
			reason: "A step that declares 5xx ambiguous (a synchronous call that may have done part of its work) does not retry a 500.",
			args: args{op: ready, step: testStep(func(s *Step) { s.OnServerError = ServerErrorIsAmbiguous }),
				callErr: answered(sb.KindServerError, 500, "Internal Server Error")},
			want: want{sent: 1, intent: intent(1), lock: op1Lock,
				status: func(st *v1alpha1.OperationStatus) {
					g := intent(1)
					g.Outcome = v1alpha1.GuardAmbiguous
					st.Guard, st.Attempts, st.StepAttempts = g, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonResolving
					st.Calls = []v1alpha1.BackendCall{call(500, "Ambiguous: Internal Server Error", 1)}
				}},
		},
		"RefusedForNowWaits": {
			reason: "A refusal the step declares passing (a migration running) makes the operation wait and send again, not fail.",
			args: args{op: ready, step: testStep(func(s *Step) {
				s.RefusedForNow = func(code int, msg string) bool { return code == 409 && strings.Contains(msg, "Migration task found") }
			}), callErr: answered(sb.KindConflict, 409, "Migration task found: t1, cannot shutdown node n1")},
			want: want{sent: 1, intent: intent(1), lock: op1Lock,
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.NextAttemptAt = 1, 1, at(now+5*time.Second)
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonWaitingForPrecond
					st.Calls = []v1alpha1.BackendCall{call(409, "RefusedForNow: Migration task found: t1, cannot shutdown node n1", 1)}
				}},
		},
		"RefusedForNowPastThePreconditionTimeout": {
			reason: "A passing refusal is waited out only within the precondition timeout.",
			args: args{op: operation(holding(0), withPolicy(func(p *v1alpha1.OperationPolicy) { p.PreconditionTimeoutSeconds = ptr.To[int64](60) }),
				withOpStatus(func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") })),
				step:    testStep(func(s *Step) { s.RefusedForNow = func(int, string) bool { return true } }),
				callErr: answered(sb.KindConflict, 409, "Migration task found: t1, cannot shutdown node n1")},
			want: want{sent: 1, intent: intent(1), history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPreconditionTimeout, now)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.CompletedAt = 1, 1, at(now)
					st.Phase, st.Reason = v1alpha1.OperationFailed, ReasonPreconditionTimeout
					st.Calls = []v1alpha1.BackendCall{call(409, "RefusedForNow: Migration task found: t1, cannot shutdown node n1", 1)}
				}},
		},
		"RefusalNotForNowFails": {
			reason: "A refusal the step does not declare passing still fails the operation.",
			args: args{op: ready, step: testStep(func(s *Step) { s.RefusedForNow = func(int, string) bool { return false } }),
				callErr: answered(sb.KindConflict, 409, "Node is in offline state")},
			want: want{sent: 1, intent: intent(1), history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonBackendRejected, now)},
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.CompletedAt = 1, 1, at(now)
					st.Phase, st.Reason = v1alpha1.OperationFailed, ReasonBackendRejected
					st.Calls = []v1alpha1.BackendCall{call(409, "Rejected: Node is in offline state", 1)}
				}},
		},
		"ServerErrorRetryable": {
			reason: "Without that declaration a 500 is a definite failure, retried.",
			args:   args{op: ready, step: testStep(), callErr: answered(sb.KindServerError, 500, "Internal Server Error")},
			want: want{sent: 1, intent: intent(1), lock: op1Lock,
				status: func(st *v1alpha1.OperationStatus) {
					st.Attempts, st.StepAttempts, st.NextAttemptAt = 1, 1, at(now+5*time.Second)
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonRetryScheduled
					st.Calls = []v1alpha1.BackendCall{call(500, "Failed: Internal Server Error", 1)}
				}},
		},
		"ForeignErrorAmbiguous": {
			reason: "An error the client did not classify may have taken effect: ambiguous.",
			args:   args{op: ready, step: testStep(), callErr: errors.New("boom")},
			want: want{sent: 1, intent: intent(1), lock: op1Lock,
				status: func(st *v1alpha1.OperationStatus) {
					g := intent(1)
					g.Outcome = v1alpha1.GuardAmbiguous
					st.Guard, st.Attempts, st.StepAttempts = g, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonResolving
					st.Calls = []v1alpha1.BackendCall{call(0, "Ambiguous: boom", 1)}
				}},
		},
		"AnswerKeptDespiteConcurrentWrite": {
			reason: "When the object changed while the call ran, the kept answer still applies to the newer copy.",
			args:   args{op: ready, step: testStep(), duringCall: true},
			want: want{sent: 1, intent: intent(1), lock: op1Lock, kept: true,
				status: func(st *v1alpha1.OperationStatus) {
					st.Guard = &v1alpha1.OperationGuard{Step: 0, Attempt: 1, Outcome: v1alpha1.GuardSent, IntendedAt: *at(now), ResolvedAt: at(now),
						BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition, Answered: true}
					st.Triggered, st.Attempts, st.StepAttempts = true, 1, 1
					st.Phase, st.Reason = v1alpha1.OperationRunning, ReasonTriggered
					st.Calls = []v1alpha1.BackendCall{call(200, "Accepted", 1)}
				}},
		},
		"StaleCopyNeverSends": {
			reason: "An outdated copy of the operation cannot record its intent, so it never sends.",
			args:   args{op: ready, step: testStep(), concurrent: true},
			want:   want{err: errRecordIntent, lock: op1Lock},
		},
		"BaselineUnreadable": {
			reason: "Without a fresh baseline nothing is recorded and nothing sent.",
			args:   args{op: ready, step: testStep(), listErr: errors.New("connection refused")},
			want:   want{err: errBaseline, lock: op1Lock},
		},
		"GuardPresentNoCall": {
			reason: "A step with a guard already recorded is never sent again by Trigger.",
			args:   args{op: operation(unresolved(v1alpha1.GuardIntended, time.Minute)), step: testStep()},
			want:   want{lock: op1Lock},
		},
		"TriggeredNoCall": {
			reason: "A triggered step is never sent again by Trigger.",
			args:   args{op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Triggered = true })), step: testStep()},
			want:   want{lock: op1Lock},
		},
		"NotStartedNoCall": {
			reason: "An operation that has not left the queue never sends.",
			args:   args{op: operation(), step: testStep()},
			want:   want{lock: op1Lock},
		},
		"WaitOnlyStepNoCall": {
			reason: "A step without a call sends nothing.",
			args:   args{op: ready, step: testStep(func(s *Step) { s.Call = nil })},
			want:   want{lock: op1Lock},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			kube := newKube(t, nil, storageCluster(lockedBy(op1Lock)), tc.args.op)
			b := &backend{status: sb.ClusterUnready, callErr: tc.args.callErr, listErr: tc.args.listErr}
			var gotIntent *v1alpha1.OperationGuard
			var gotPhase string
			b.onCall = func() {
				// The write-ahead record must be durable before the call.
				p := getOp(t, kube, "op1")
				gotIntent = p.Status.AtProvider.Guard.DeepCopy()
				gotPhase = string(p.Status.AtProvider.Phase) + "/" + p.Status.AtProvider.Reason
				if tc.args.duringCall {
					p.SetLabels(map[string]string{"touched": "true"})
					if err := kube.Update(ctx, p); err != nil {
						t.Errorf("cannot update the operation during the call: %v", err)
					}
				}
			}
			o := getOp(t, kube, "op1")
			want := o.Status.AtProvider.OperationStatus.DeepCopy()
			if tc.want.status != nil {
				tc.want.status(want)
			}
			if tc.args.concurrent {
				p := o.DeepCopy()
				p.SetLabels(map[string]string{"touched": "true"})
				if err := kube.Update(ctx, p); err != nil {
					t.Fatal(err)
				}
			}

			e := newEngine(kube, &clock{now: t0.Add(now)})
			err := e.Trigger(ctx, runOf(kube, o, b.api(), tc.args.step))

			if tc.want.err == "" && err != nil || tc.want.err != "" && (err == nil || !strings.Contains(err.Error(), tc.want.err)) {
				t.Fatalf("\n%s\nTrigger(...): error %v, want %q", tc.reason, err, tc.want.err)
			}
			if got := len(b.sentCalls()); got != tc.want.sent {
				t.Errorf("\n%s\nTrigger(...) sent %d calls, want %d", tc.reason, got, tc.want.sent)
			}
			if diff := cmp.Diff(tc.want.intent, gotIntent); diff != "" {
				t.Errorf("\n%s\nTrigger(...): guard persisted before the call: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.intent != nil && gotPhase != "Running/"+ReasonTriggering {
				t.Errorf("\n%s\nTrigger(...): phase persisted before the call %q, want Running/%s", tc.reason, gotPhase, ReasonTriggering)
			}
			persisted := getOp(t, kube, "op1").Status.AtProvider.OperationStatus
			if tc.want.err != "" {
				// Nothing was decided: the stored status is what it was.
				if diff := cmp.Diff(*want, persisted, ignoreMessages); diff != "" {
					t.Errorf("\n%s\nTrigger(...): persisted status: -want, +got:\n%s", tc.reason, diff)
				}
			} else {
				// What the next reconcile decides on: the stored status
				// with the answer the engine kept.
				recorded := persisted.DeepCopy()
				kept := e.answers.restore(o.GetUID(), recorded) != nil
				if kept != tc.want.kept {
					t.Errorf("\n%s\nTrigger(...): answer kept in memory %v, want %v", tc.reason, kept, tc.want.kept)
				}
				if diff := cmp.Diff(*want, *recorded, ignoreMessages); diff != "" {
					t.Errorf("\n%s\nTrigger(...): status: -want, +got:\n%s", tc.reason, diff)
				}
				if diff := cmp.Diff(o.Status.AtProvider.OperationStatus, persisted); diff != "" {
					t.Errorf("\n%s\nTrigger(...): persisted status differs from the returned one: -returned, +persisted:\n%s", tc.reason, diff)
				}
				if !strings.Contains(recorded.Message, tc.want.message) {
					t.Errorf("\n%s\nTrigger(...): message %q, want it to contain %q", tc.reason, recorded.Message, tc.want.message)
				}
			}
			c := getCluster(t, kube)
			if diff := cmp.Diff(tc.want.lock, c.Status.AtProvider.ActiveOperation); diff != "" {
				t.Errorf("\n%s\nTrigger(...): target lock: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.history, c.Status.AtProvider.OperationHistory, ignoreMessages); diff != "" {
				t.Errorf("\n%s\nTrigger(...): target history: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEngineReleased(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.StorageCluster // nil: missing
		target  types.NamespacedName
		op      *v1alpha1.ClusterOps
		want    bool
	}{
		"NoTarget": {
			reason: "An operation without a target object has nothing to release.",
			op:     operation(holding(0)),
			want:   true,
		},
		"TargetGone": {
			reason: "An operation whose target was deleted has nothing to release.",
			target: targetKey,
			op:     operation(holding(0)),
			want:   true,
		},
		"StillHolds": {
			reason:  "An operation that still holds the lock is not released.",
			cluster: storageCluster(lockedBy(op1Lock)),
			target:  targetKey,
			op:      operation(holding(0)),
		},
		"StartedNotRecorded": {
			reason:  "A started, unfinished operation is not released until its deletion is recorded.",
			cluster: storageCluster(),
			target:  targetKey,
			op:      operation(holding(0)),
		},
		"StartedRecorded": {
			reason:  "A started operation with its record and without the lock is released.",
			cluster: storageCluster(withHistory(rec(v1alpha1.OperationFailed, ReasonDeleted, time.Minute))),
			target:  targetKey,
			op:      operation(holding(0)),
			want:    true,
		},
		"NeverStarted": {
			reason:  "An operation that never left the queue needs no record.",
			cluster: storageCluster(),
			target:  targetKey,
			op:      operation(),
			want:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{tc.op}
			if tc.cluster != nil {
				objs = append(objs, tc.cluster)
			}
			kube := newKube(t, nil, objs...)
			r := runOf(kube, getOp(t, kube, "op1"), (&backend{}).api(), testStep())
			r.Target = tc.target
			got, err := newEngine(kube, &clock{now: t0}).Released(context.Background(), r)
			if err != nil {
				t.Fatalf("\n%s\nReleased(...): %v", tc.reason, err)
			}
			if got != tc.want {
				t.Errorf("\n%s\nReleased(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

// TestEngineDecidesOnFreshObservations: skipping a call (or sending it) is
// decided on what the backend showed after the step started (after the
// lock was taken, so after the previous holder's last call), never on an
// older shared observation.
func TestEngineDecidesOnFreshObservations(t *testing.T) {
	skipWhenActive := testStep(func(s *Step) {
		s.Skip = func(snap *Snapshot) (bool, string) {
			return snap.Cluster.Status == sb.ClusterActive, "the cluster is already active"
		}
	})
	cases := map[string]struct {
		reason string
		// seenAt is when the shared observation (the cluster active) was
		// made; the step started at t0+10s, and the backend shows unready
		// since.
		seenAt time.Duration
		// recordSeenAt, when set, is when the shared cluster record was
		// read again after that.
		recordSeenAt time.Duration
		wantTrigger  bool
		wantReason   string
		wantReads    int
	}{
		"StaleSharedObservationIsReadAgain": {
			reason:      "A shared observation made before the step started (here: before the previous operation's call) is read again before deciding: the backend shows unready now, so the call is sent.",
			seenAt:      9 * time.Second,
			wantTrigger: true, wantReason: ReasonWaitingForPrecond, wantReads: 2,
		},
		"OnlyPartsOlderThanTheStepAreReadAgain": {
			reason:       "Of a shared observation, only the parts made before the step started are read again: the cluster record read after it is used, the log from before it is read again.",
			seenAt:       9 * time.Second,
			recordSeenAt: 11500 * time.Millisecond,
			wantReason:   ReasonNothingToDo, wantReads: 1,
		},
		"SharedObservationAfterTheStepStartIsUsed": {
			reason:     "A shared observation made after the step started is recent enough (stored times count as a second later): no extra read.",
			seenAt:     11500 * time.Millisecond,
			wantReason: ReasonNothingToDo, wantReads: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			op := operation(holding(10*time.Second), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") }))
			kube := newKube(t, nil, storageCluster(lockedBy(lockOf(op, v1alpha1.OperationPending))), op)
			clk := &clock{now: t0.Add(tc.seenAt)}
			e := newEngine(kube, clk)
			e.Observer = NewObserver(time.Hour)
			e.Observer.Now = clk.Now
			b := &backend{status: sb.ClusterActive}
			src := Source{Key: "test", API: b.api()}
			if _, err := e.Observer.Snapshot(context.Background(), src, testClusterID, Needs{Events: true}); err != nil {
				t.Fatalf("cannot seed the shared observation: %v", err)
			}
			if tc.recordSeenAt != 0 {
				clk.Advance(tc.recordSeenAt - tc.seenAt)
				if _, err := e.Observer.Fresh(context.Background(), src, testClusterID, Needs{}); err != nil {
					t.Fatalf("cannot read the shared cluster record again: %v", err)
				}
			} else {
				b.set(sb.ClusterUnready)
			}
			b.reads = 0
			clk.Advance(t0.Add(12 * time.Second).Sub(clk.Now()))

			o := getOp(t, kube, op.GetName())
			r := runOf(kube, o, b.api(), skipWhenActive)
			trigger, err := e.Observe(context.Background(), r)
			if err != nil {
				t.Fatalf("\n%s\nObserve(...): %v", tc.reason, err)
			}
			st := o.Status.AtProvider.OperationStatus
			if trigger != tc.wantTrigger || st.Reason != tc.wantReason {
				t.Errorf("\n%s\nObserve(...) = trigger %t, reason %s (%s); want trigger %t, reason %s", tc.reason, trigger, st.Reason, st.Message, tc.wantTrigger, tc.wantReason)
			}
			if b.reads != tc.wantReads {
				t.Errorf("\n%s\nObserve(...) read the backend %d times, want %d", tc.reason, b.reads, tc.wantReads)
			}
		})
	}
}

// TestTriggerBaseline: a call's baseline is the fresh observation Observe
// decided it on in the same reconcile (no second read of the backend); when
// there is none, Trigger reads the backend itself.
func TestTriggerBaseline(t *testing.T) {
	cases := map[string]struct {
		reason string
		// shared seeds a shared observation made after the step started,
		// which Observe then decides on without reading the backend.
		shared bool
		// stale seeds one made before the step started: Observe reads the
		// backend again before deciding.
		stale bool
		// sameReconcile passes Observe's observation on to Trigger.
		sameReconcile bool
		// recordOnly: the step judges by the cluster record alone.
		recordOnly   bool
		wantBaseline sb.ClusterStatus
		wantReads    int // by Trigger
	}{
		"DecidedInTheSameReconcile": {
			reason:        "Observe read the backend and decided the call on it: Trigger reads nothing and judges evidence against what Observe saw.",
			sameReconcile: true,
			wantBaseline:  sb.ClusterUnready, wantReads: 0,
		},
		"NoObservationPassedOn": {
			reason:       "Without Observe's observation (another reconcile), Trigger reads the backend fresh (cluster list, log) for the baseline.",
			wantBaseline: sb.ClusterSuspended, wantReads: 2,
		},
		"NoObservationPassedOnRecordOnly": {
			reason:       "A step that does not judge by the log takes no newest event for its baseline: Trigger reads the cluster list alone.",
			recordOnly:   true,
			wantBaseline: sb.ClusterSuspended, wantReads: 1,
		},
		"DecidedOnAFreshReadAfterAStaleOne": {
			reason:        "The shared observation was older than the step: Observe read the backend again, decided on that, and Trigger uses it.",
			stale:         true,
			sameReconcile: true,
			wantBaseline:  sb.ClusterUnready, wantReads: 0,
		},
		"DecidedOnASharedObservation": {
			reason:        "Observe decided on a shared observation made after the step started: it is the baseline too, and Trigger reads nothing.",
			shared:        true,
			sameReconcile: true,
			wantBaseline:  sb.ClusterUnready, wantReads: 0,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			op := operation(holding(10*time.Second), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") }))
			kube := newKube(t, nil, storageCluster(lockedBy(lockOf(op, v1alpha1.OperationPending))), op)
			clk := &clock{now: t0.Add(12 * time.Second)}
			e := newEngine(kube, clk)
			e.Observer = NewObserver(time.Hour)
			e.Observer.Now = clk.Now
			b := &backend{status: sb.ClusterUnready}
			src := Source{Key: "test", API: b.api()}
			if tc.shared || tc.stale {
				if tc.stale {
					clk.Advance(-3 * time.Second)
				}
				if _, err := e.Observer.Snapshot(ctx, src, testClusterID, Needs{Events: true}); err != nil {
					t.Fatalf("cannot seed the shared observation: %v", err)
				}
				if tc.stale {
					clk.Advance(3 * time.Second)
				}
			}

			o := getOp(t, kube, op.GetName())
			step := testStep()
			if tc.recordOnly {
				step.Needs = Needs{}
			}
			r := runOf(kube, o, b.api(), step)
			r.Decided = &Decided{}
			if due, err := e.Observe(ctx, r); err != nil || !due {
				t.Fatalf("\n%s\nObserve(...) = %t, %v; want the call due", tc.reason, due, err)
			}
			// The backend moves on between Observe and Trigger.
			b.set(sb.ClusterSuspended)
			b.reads = 0
			if !tc.sameReconcile {
				r.Decided = nil
			}
			if err := e.Trigger(ctx, r); err != nil {
				t.Fatalf("\n%s\nTrigger(...): %v", tc.reason, err)
			}
			g := o.Status.AtProvider.Guard
			if g == nil || g.BaselineStatus != string(tc.wantBaseline) {
				t.Errorf("\n%s\nTrigger(...): guard %+v, want baseline status %s", tc.reason, g, tc.wantBaseline)
			}
			if b.reads != tc.wantReads {
				t.Errorf("\n%s\nTrigger(...) read the backend %d times, want %d", tc.reason, b.reads, tc.wantReads)
			}
			if diff := cmp.Diff([]string{"activate " + testClusterID}, b.sentCalls()); diff != "" {
				t.Errorf("\n%s\nTrigger(...): -want, +got calls:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEngineStaleCopy: a copy of an operation older than the API server's
// (the cache lagging behind the operation's own last write, which finished
// it) takes neither the lock nor a disruption slot.
func TestEngineStaleCopy(t *testing.T) {
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.StorageCluster
		op      *v1alpha1.ClusterOps
		others  []client.Object
	}{
		"NoLock": {
			reason:  "A stale copy first in line does not take the free lock.",
			cluster: storageCluster(),
			op:      operation(),
		},
		"NoSlot": {
			reason:  "A stale copy that holds the lock in a stale cluster does not take a free slot.",
			cluster: storageCluster(labelled("prod"), lockedBy(lockOf(operation(), v1alpha1.OperationPending))),
			op:      operation(holding(0)),
			others:  []client.Object{budget("prod", 1, nil, nil)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newKube(t, nil, append([]client.Object{tc.op, tc.cluster}, tc.others...)...)
			o := getOp(t, kube, tc.op.GetName())
			o.SetResourceVersion("1") // older than the stored one
			r := runOf(kube, o, (&backend{status: sb.ClusterActive}).api(), testStep())
			r.Disruptive = true
			trigger, err := newEngine(kube, &clock{now: t0.Add(time.Minute)}).Observe(context.Background(), r)
			if err != nil {
				t.Fatalf("\n%s\nObserve(...): %v", tc.reason, err)
			}
			if trigger {
				t.Errorf("\n%s\nObserve(...) asked for a call", tc.reason)
			}
			if c := getCluster(t, kube); tc.cluster.Status.AtProvider.ActiveOperation == nil && c.Status.AtProvider.ActiveOperation != nil {
				t.Errorf("\n%s\nthe lock was taken: %+v", tc.reason, c.Status.AtProvider.ActiveOperation)
			}
			l := &v1alpha1.DisruptionBudgetList{}
			if err := kube.List(context.Background(), l); err != nil {
				t.Fatal(err)
			}
			for _, d := range l.Items {
				if len(d.Status.Disrupting)+len(d.Status.Waiting) != 0 {
					t.Errorf("\n%s\nDisruptionBudget %s lists %+v", tc.reason, d.Name, d.Status)
				}
			}
		})
	}
}

// TestEngineObserveEvents: each event is an API write, so Observe records
// only those that tell something the status does not: Started for an
// operation that took the lock and does not send its first call in the same
// pass (its Triggered event says it started); none for one that waits for
// its turn (its status names the queue position and what it waits for).
func TestEngineObserveEvents(t *testing.T) {
	holder := operation(named("op0", "uid-0"), ofType(v1alpha1.ClusterRestart), createdAt(-time.Hour), withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.StartedAt = v1alpha1.OperationRunning, ReasonInProgress, at(-time.Hour)
	}))
	waits := testStep(func(s *Step) {
		s.Gate = func(*Snapshot) (string, string) { return "the cluster is in_expansion", "" }
	})
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.StorageCluster
		others  []client.Object
		steps   []Step
		want    []string
	}{
		"TakesTheLockAndSends": {
			reason:  "A new operation that takes the free lock and whose call is due records nothing yet: its Triggered event follows.",
			cluster: storageCluster(),
			want:    nil,
		},
		"TakesTheLockAndWaits": {
			reason:  "A new operation that takes the lock and waits at its gate records that it started, not that it was queued.",
			cluster: storageCluster(), steps: []Step{waits},
			want: []string{"Started"},
		},
		"WaitsForItsTurn": {
			reason:  "A new operation behind a running one records no event: its status says that it is queued and behind what.",
			cluster: storageCluster(lockedBy(lockOf(holder, v1alpha1.OperationRunning))), others: []client.Object{holder},
			want: nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newKube(t, nil, append([]client.Object{operation(), tc.cluster}, tc.others...)...)
			e := newEngine(kube, &clock{now: t0.Add(10 * time.Second)})
			rec := &events{}
			e.Recorder = rec
			steps := tc.steps
			if steps == nil {
				steps = []Step{testStep()}
			}
			b := &backend{status: sb.ClusterUnready}
			if _, err := e.Observe(context.Background(), runOf(kube, getOp(t, kube, "op1"), b.api(), steps...)); err != nil {
				t.Fatalf("\n%s\nObserve(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, rec.reasons, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nevents: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestEngineWatchPace: an operation asks the watcher for the slow pace only
// once its step's call was answered and the step's end shows in the cluster
// record, and to watch only what its step reads.
func TestEngineWatchPace(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	type want struct {
		endInRecord bool
		need        Needs
	}
	cases := map[string]struct {
		reason      string
		op          *v1alpha1.ClusterOps
		endInRecord bool
		needs       *Needs
		watches     *Needs
		want        want
	}{
		"AnsweredEndInRecord": {reason: "An answered call whose end shows in the record is watched at the slow pace.",
			op: operation(sent(time.Minute)), endInRecord: true, want: want{endInRecord: true, need: Needs{Events: true}}},
		"AnsweredEndNotInRecord": {reason: "An answered call whose end only the log or node list shows is watched promptly.",
			op: operation(sent(time.Minute)), want: want{need: Needs{Events: true}}},
		"UnansweredEndInRecord": {reason: "A call whose answer is not known yet is watched promptly: its evidence is looked for.",
			op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), endInRecord: true, want: want{need: Needs{Events: true}}},
		"AnsweredOnTasksAlone": {reason: "A step whose evidence and check read the tasks, not the log (a rebalance), is not watched for new events: the log would be probed for nothing.",
			op: operation(sent(time.Minute)), needs: &Needs{Tasks: true}, want: want{need: Needs{Tasks: true}}},
		"UnansweredOnTasksAlone": {reason: "Nor while its answer is not known: its evidence is in the tasks and the record.",
			op: operation(unresolved(v1alpha1.GuardAmbiguous, time.Minute)), needs: &Needs{Tasks: true}, want: want{need: Needs{Tasks: true}}},
		"SentWatchesWhatItsCheckReads": {reason: "Once its call was sent, a step is watched for what its evidence and check read (Step.Watches), not for what its gate read.",
			op: operation(sent(time.Minute)), needs: &Needs{Nodes: true, Events: true}, watches: &Needs{Events: true}, want: want{need: Needs{Events: true}}},
		"UnsentWatchesWhatItsGateReads": {reason: "Before its call, a step is watched for what its gate reads (Step.Needs).",
			op: operation(holding(0)), needs: &Needs{Nodes: true, Events: true}, watches: &Needs{Events: true}, want: want{need: Needs{Nodes: true, Events: true}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newKube(t, nil, tc.op, storageCluster(lockedBy(op1Lock)))
			e := newEngine(kube, &clock{now: t0.Add(time.Minute + 100*time.Millisecond)})
			w, _, _ := newTestWatcher(time.Minute)
			e.Watcher = w
			b := &backend{status: sb.ClusterInActivation}
			step := testStep(func(s *Step) {
				s.EndInRecord = tc.endInRecord
				if tc.needs != nil {
					s.Needs = *tc.needs
				}
				s.Watches = tc.watches
			})
			if _, err := e.Observe(context.Background(), runOf(kube, getOp(t, kube, "op1"), b.api(), step)); err != nil {
				t.Fatalf("\n%s\nObserve(...): %v", tc.reason, err)
			}
			var got want
			watched := 0
			for _, cw := range w.clusters {
				for _, wt := range cw.waiters {
					got, watched = want{endInRecord: wt.endInRecord, need: wt.need}, watched+1
				}
			}
			if watched != 1 {
				t.Fatalf("\n%s\nthe operation asked to be watched %d times, want once", tc.reason, watched)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nwatched with: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
