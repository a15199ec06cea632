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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestEngineKeepsTheAnswer: the answer to an accepted call, and evidence
// that it took effect, are kept in memory and acted on, and go out with the
// next status write that carries a decision, or past AnswerHold; so does
// the call's Triggered event, told inside the event of that decision when
// there is one. An engine that does not have the answer (another process,
// after a crash) resolves the intent by evidence.
func TestEngineKeepsTheAnswer(t *testing.T) {
	// An observation is the backend's cluster status at an Observe, after
	// the previous one (or the call).
	type observation struct {
		status sb.ClusterStatus
		after  time.Duration
	}
	type want struct {
		// outcome is the guard's outcome in the status the reconciler
		// writes after the last Observe: Intended means the answer is not
		// written.
		outcome      v1alpha1.GuardOutcome
		evidenceSeen bool
		reason       string
		message      string // substring
		events       []string
		eventMessage string // substring of the last event's message
	}
	cases := map[string]struct {
		reason string
		seen   []observation
		// otherEngine observes with an engine that did not send the call.
		otherEngine bool
		want        want
	}{
		"NothingDecidedYet": {
			reason: "While the backend shows nothing new, the engine acts on the kept answer (it judges the backend's progress, rather than looking for evidence that the call was sent), and the status it leaves to write shows the intent: the answer is not written alone, nor its event sent.",
			seen:   []observation{{sb.ClusterUnready, 500 * time.Millisecond}},
			want:   want{outcome: v1alpha1.GuardIntended, reason: ReasonTriggering, message: "activate: the cluster is unready"},
		},
		"EvidenceIsKeptWithIt": {
			reason: "Evidence that the call took effect decides nothing the answer did not: it is kept with the answer, not written.",
			seen:   []observation{{sb.ClusterInActivation, time.Second}},
			want:   want{outcome: v1alpha1.GuardIntended, reason: ReasonTriggering, message: "the cluster is in_activation"},
		},
		"CompletionWritesIt": {
			reason: "The end of the operation is written with the answer, and its event tells of the call.",
			seen:   []observation{{sb.ClusterActive, time.Second}},
			want: want{outcome: v1alpha1.GuardSent, evidenceSeen: true, reason: ReasonCompleted,
				events: []string{ReasonCompleted}, eventMessage: "activate: " + testPath + " accepted; activate done"},
		},
		"EvidenceThenCompletion": {
			reason: "Evidence kept in one reconcile goes out with the end, in the next.",
			seen:   []observation{{sb.ClusterInActivation, time.Second}, {sb.ClusterActive, time.Second}},
			want: want{outcome: v1alpha1.GuardSent, evidenceSeen: true, reason: ReasonCompleted,
				events: []string{ReasonCompleted}, eventMessage: "accepted; activate done"},
		},
		"EvidenceOutlivesWhatShowedIt": {
			reason: "Evidence kept in memory is written past AnswerHold even when the backend no longer shows it: it is not looked for again.",
			seen:   []observation{{sb.ClusterInActivation, time.Second}, {sb.ClusterUnready, AnswerHold}},
			want: want{outcome: v1alpha1.GuardSent, evidenceSeen: true, reason: ReasonInProgress, message: "activate: the cluster is unready",
				events: []string{ReasonTriggered}, eventMessage: "activate: " + testPath + " accepted"},
		},
		"PastTheHold": {
			reason: "Past AnswerHold the answer is written even when nothing else was decided, with its Triggered event.",
			seen:   []observation{{sb.ClusterUnready, AnswerHold}},
			want: want{outcome: v1alpha1.GuardSent, reason: ReasonInProgress, message: "activate: the cluster is unready",
				events: []string{ReasonTriggered}, eventMessage: "accepted"},
		},
		"AnotherEngine": {
			reason: "An engine that did not send the call (a restarted provider) finds only the intent and resolves it by evidence, as after a crash.",
			seen:   []observation{{sb.ClusterUnready, 500 * time.Millisecond}}, otherEngine: true,
			want: want{outcome: v1alpha1.GuardIntended, reason: ReasonResolving, message: "looking for evidence"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			op := operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Message, st.Progress = "activate: preconditions hold; sending "+testPath, prog(0, 1, "activate")
			}))
			kube := newKube(t, nil, storageCluster(lockedBy(lockOf(op, v1alpha1.OperationPending))), op)
			clk := &clock{now: t0.Add(2 * time.Minute)}
			e := newEngine(kube, clk)
			rec := &events{}
			e.Recorder = rec
			w, _, woken := newTestWatcher(time.Minute)
			e.Watcher = w
			b := &backend{status: sb.ClusterUnready}
			r := runOf(kube, getOp(t, kube, "op1"), b.api(), testStep())
			r.Decided = &Decided{}
			if err := e.Trigger(ctx, r); err != nil {
				t.Fatalf("Trigger(...): %v", err)
			}
			// No write of the answer wakes the operation: the watcher looks
			// at the backend at its next poll, on a read made after the call.
			if got := drain(woken); len(got) != 0 {
				t.Errorf("Trigger(...): wake-ups %v, want none", got)
			}
			cw := w.clusters["test|"+testClusterID]
			if cw == nil || cw.waiters[waiterKey{kind: v1alpha1.ClusterOpsKind, op: types.NamespacedName{Namespace: testNS, Name: "op1"}}] == nil ||
				cw.answeredAt.IsZero() {
				t.Errorf("Trigger(...): the watcher does not wait on the cluster for op1 with a probe after its call")
			}
			if tc.otherEngine {
				e = newEngine(kube, clk)
				e.Recorder = rec
			}

			var st v1alpha1.OperationStatus
			for i, seen := range tc.seen {
				b.set(seen.status)
				clk.Advance(seen.after)
				o := getOp(t, kube, "op1")
				if _, err := e.Observe(ctx, runOf(kube, o, b.api(), testStep())); err != nil {
					t.Fatalf("\n%s\nObserve(...) %d: %v", tc.reason, i+1, err)
				}
				st = o.Status.AtProvider.OperationStatus
				if i < len(tc.seen)-1 {
					if err := kube.Status().Update(ctx, o); err != nil {
						t.Fatalf("cannot write the status of Observe %d: %v", i+1, err)
					}
				}
			}
			got := want{outcome: outcomeOfGuard(st.Guard), reason: st.Reason, message: tc.want.message, events: rec.reasons,
				eventMessage: tc.want.eventMessage}
			if st.Guard != nil {
				got.evidenceSeen = st.Guard.EvidenceSeen
			}
			if !strings.Contains(st.Message, tc.want.message) {
				got.message = st.Message
			}
			if n := len(rec.messages); n > 0 && !strings.Contains(rec.messages[n-1], tc.want.eventMessage) {
				got.eventMessage = rec.messages[n-1]
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nObserve(...): status to write and events: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.outcome == v1alpha1.GuardSent && (!st.Triggered || len(st.Calls) != 1) {
				t.Errorf("\n%s\nObserve(...): status to write: triggered %t with %d calls audited, want the answer's (triggered, 1 call)", tc.reason, st.Triggered, len(st.Calls))
			}
		})
	}
}

func outcomeOfGuard(g *v1alpha1.OperationGuard) v1alpha1.GuardOutcome {
	if g == nil {
		return ""
	}
	return g.Outcome
}
