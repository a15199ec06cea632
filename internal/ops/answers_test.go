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
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestEngineKeepsTheAnswer: the answer to an accepted call is kept in
// memory and acted on, and goes out with the next status write that
// carries a decision, or past AnswerHold; an engine that does not have it
// (another process, after a crash) resolves the intent by evidence.
func TestEngineKeepsTheAnswer(t *testing.T) {
	type want struct {
		// outcome is the guard's outcome in the status the reconciler
		// writes after Observe: Intended means the answer is not written.
		outcome v1alpha1.GuardOutcome
		reason  string
		message string // substring
	}
	cases := map[string]struct {
		reason string
		// status is the backend cluster's status at the next Observe, after.
		status sb.ClusterStatus
		after  time.Duration
		// otherEngine observes with an engine that did not send the call.
		otherEngine bool
		want        want
	}{
		"NothingDecidedYet": {
			reason: "While the backend shows nothing new, the engine acts on the kept answer (it judges the backend's progress, rather than looking for evidence that the call was sent), and the status it leaves to write shows the intent: the answer is not written alone.",
			status: sb.ClusterUnready, after: 500 * time.Millisecond,
			want: want{outcome: v1alpha1.GuardIntended, reason: ReasonTriggering, message: "activate: the cluster is unready"},
		},
		"EvidenceWritesIt": {
			reason: "Evidence that the call took effect is a decision: the status to write carries it and the answer.",
			status: sb.ClusterInActivation, after: time.Second,
			want: want{outcome: v1alpha1.GuardSent, reason: ReasonInProgress, message: "the cluster is in_activation"},
		},
		"CompletionWritesIt": {
			reason: "The end of the operation is written with the answer.",
			status: sb.ClusterActive, after: time.Second,
			want: want{outcome: v1alpha1.GuardSent, reason: ReasonCompleted},
		},
		"PastTheHold": {
			reason: "Past AnswerHold the answer is written even when nothing else was decided.",
			status: sb.ClusterUnready, after: AnswerHold,
			want: want{outcome: v1alpha1.GuardSent, reason: ReasonInProgress, message: "activate: the cluster is unready"},
		},
		"AnotherEngine": {
			reason: "An engine that did not send the call (a restarted provider) finds only the intent and resolves it by evidence, as after a crash.",
			status: sb.ClusterUnready, after: 500 * time.Millisecond, otherEngine: true,
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
			w, _, woken := newTestWatcher(time.Minute)
			e.Watcher = w
			b := &backend{status: sb.ClusterUnready}
			if err := e.Trigger(ctx, runOf(kube, getOp(t, kube, "op1"), b.api(), testStep())); err != nil {
				t.Fatalf("Trigger(...): %v", err)
			}
			// No write of the answer wakes the operation: the engine does.
			if diff := cmp.Diff([]types.NamespacedName{{Namespace: testNS, Name: "op1"}}, drain(woken)); diff != "" {
				t.Errorf("Trigger(...): wake-ups: -want, +got:\n%s", diff)
			}
			b.set(tc.status)
			clk.Advance(tc.after)
			if tc.otherEngine {
				e = newEngine(kube, clk)
			}

			o := getOp(t, kube, "op1")
			if _, err := e.Observe(ctx, runOf(kube, o, b.api(), testStep())); err != nil {
				t.Fatalf("\n%s\nObserve(...): %v", tc.reason, err)
			}
			st := o.Status.AtProvider.OperationStatus
			if got := outcomeOfGuard(st.Guard); got != tc.want.outcome || st.Reason != tc.want.reason || !strings.Contains(st.Message, tc.want.message) {
				t.Errorf("\n%s\nObserve(...): status to write: guard %s, %s (%s); want guard %s, %s (%q)", tc.reason,
					got, st.Reason, st.Message, tc.want.outcome, tc.want.reason, tc.want.message)
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
