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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestEngineWindow(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	// t0 is 12:00 UTC: the window at noon is open for an hour, the one at
	// 14:00 closed.
	closed, open := inWindow("0 14 * * *"), inWindow("0 12 * * *")
	// second is a two-step operation that finished its first step.
	second := withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.Message = v1alpha1.OperationRunning, ReasonInProgress, "first done"
		st.StartedAt, st.StepStartedAt, st.SpecHash = at(0), at(30*time.Second), testHash
		st.Step, st.Attempts = 1, 1
		st.Calls = []v1alpha1.BackendCall{{Method: "POST", Path: "/clusters/c1/activate", Result: "Accepted", Attempt: 1, Time: metav1.Time{Time: t0}}}
	})
	first := testStep(func(s *Step) { s.Name = "first" })
	// aDay gives a deadline past the next opening of the 14:00 window.
	aDay := withPolicy(func(p *v1alpha1.OperationPolicy) { p.TimeoutSeconds = ptr.To[int64](24 * 3600) })
	safePoint := testStep(func(s *Step) { s.SafePoint = true })

	cases := map[string]observeCase{
		"ClosedKeepsItOutOfTheQueue": {
			reason: "A new operation whose window is closed does not take its turn: it waits, Pending, without a queue position or the lock, and reads nothing.",
			args:   observeArgs{cluster: storageCluster(), op: operation(closed), now: time.Minute},
			want: observeWant{noBackend: true, message: `waits for its maintenance window "0 14 * * *" for 1h0m0s (UTC), which opens at 2026-03-01 14:00 UTC`,
				status: func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash = v1alpha1.OperationPending, ReasonWaitingForWindow, testHash
				}},
		},
		"OpenTakesItsTurn": {
			reason: "An operation whose window is open takes the lock and sends its first call as any other.",
			args:   observeArgs{cluster: storageCluster(), op: operation(open), now: time.Minute},
			want: observeWant{trigger: true, lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				st.Phase, st.Reason, st.SpecHash = v1alpha1.OperationPending, ReasonWaitingForPrecond, testHash
				st.StartedAt, st.StepStartedAt, st.Progress = at(time.Minute), at(time.Minute), prog(0, 1, "activate")
			}},
		},
		"OpenedTakesItsTurn": {
			reason: "An operation that waited for its window to open takes its place in the queue again, by its creation time, ahead of one queued while it waited.",
			args: observeArgs{cluster: storageCluster(), now: time.Minute, others: []client.Object{queuedOp("op2", "uid-2", time.Second)},
				op: operation(open, withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason, st.SpecHash = v1alpha1.OperationPending, ReasonWaitingForWindow, testHash
				}))},
			want: observeWant{trigger: true, lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				st.Reason, st.StartedAt, st.StepStartedAt, st.Progress = ReasonWaitingForPrecond, at(time.Minute), at(time.Minute), prog(0, 1, "activate")
			}},
		},
		"ClosedBeforeTheFirstCall": {
			reason: "An operation holding the lock that has sent nothing waits for its window, Pending, keeping the lock.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), closed, aDay), now: time.Minute},
			want: observeWant{lock: op1Lock, noBackend: true, message: "activate: waits for its maintenance window",
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.Progress = ReasonWaitingForWindow, prog(0, 1, "activate")
				}},
		},
		"ClosedAtASafePoint": {
			reason: "After the window closed, an operation does not start a step that follows a safe point: it waits, Running, with its lock and its progress, which counts the steps done and names the step it waits to start (#48).",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), op: operation(second, closed, aDay), now: time.Minute,
				steps: []Step{first, safePoint}},
			want: observeWant{lock: lockOf(operation(), v1alpha1.OperationRunning), noBackend: true,
				message: `its maintenance window "0 14 * * *" for 1h0m0s (UTC) closed: it starts activate when the window opens again at 2026-03-01 14:00 UTC (1 of 2 steps done`,
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.Progress = ReasonWaitingForWindow, prog(1, 2, "activate")
				}},
		},
		"NextOpeningAfterTheDeadline": {
			reason: "A held operation keeps the lock only while its window opens again before its deadline: otherwise it stops now, at the safe point, and hands the lock on (#48).",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), op: operation(second, closed), now: time.Minute,
				steps: []Step{first, safePoint}},
			want: observeWant{noBackend: true,
				message: `cannot finish within 1h0m0s: its maintenance window "0 14 * * *" for 1h0m0s (UTC) opens again at 2026-03-01 14:00 UTC, after its deadline; it stops before activate (1 of 2 steps done) and releases the lock on StorageCluster demo`,
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Minute, withProgress(prog(1, 2, "activate"))),
				history: []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-1", Type: string(v1alpha1.ClusterActivate), Phase: v1alpha1.OperationFailed,
					Reason: ReasonDeadlineExceeded, StartedAt: at(0), CompletedAt: at(time.Minute), SpecHash: testHash}}},
		},
		"ClosedBetweenStepsThatBelongTogether": {
			reason: "A step that is no safe point runs after the window closed: the target is not whole until it did.",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), op: operation(second, closed), now: time.Minute,
				steps: []Step{first, testStep()}},
			want: observeWant{trigger: true, lock: lockOf(operation(), v1alpha1.OperationRunning),
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.Progress = ReasonInProgress, prog(1, 2, "activate")
				}},
		},
		"DeadlinePassesWhileWaiting": {
			reason: "timeoutSeconds counts while an operation waits for its window to open again.",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), op: operation(second, closed), now: time.Hour + time.Second,
				steps: []Step{first, safePoint}},
			want: observeWant{message: "did not finish within 1h0m0s; it was waiting for its maintenance window",
				status: finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second, withProgress(prog(1, 2, "activate"))),
				history: []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-1", Type: string(v1alpha1.ClusterActivate), Phase: v1alpha1.OperationFailed,
					Reason: ReasonDeadlineExceeded, StartedAt: at(0), CompletedAt: at(time.Hour + time.Second), SpecHash: testHash}}},
		},
		"ReopenedStepStartsNow": {
			reason: "When the window opens again the held step starts: its own timeout counts from now, not from when it first waited.",
			args: observeArgs{cluster: storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), now: 7 * 24 * time.Hour,
				op: operation(second, inWindow("0 12 * * *"), withPolicy(func(p *v1alpha1.OperationPolicy) { p.TimeoutSeconds = ptr.To[int64](30 * 24 * 3600) }),
					withOpStatus(func(st *v1alpha1.OperationStatus) { st.Reason = ReasonWaitingForWindow })),
				steps: []Step{first, testStep(func(s *Step) { s.SafePoint, s.Timeout = true, 10*time.Minute })}},
			want: observeWant{trigger: true, lock: lockOf(operation(), v1alpha1.OperationRunning),
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.StepStartedAt, st.Progress = ReasonInProgress, at(7*24*time.Hour), prog(1, 2, "activate")
				}},
		},
		"InvalidWindow": {
			reason: "A window that cannot be read fails the operation before it queues, with the parser's message.",
			args:   observeArgs{cluster: storageCluster(), op: operation(inWindow("0 25 * * *")), now: time.Minute},
			want: observeWant{noBackend: true, message: `window.schedule "0 25 * * *" is not a cron schedule`,
				status: func(st *v1alpha1.OperationStatus) {
					finishedAs(v1alpha1.OperationFailed, ReasonInvalidWindow, time.Minute)(st)
					st.SpecHash = testHash
				}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.run(t) })
	}
}
