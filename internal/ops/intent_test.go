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
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestApplyCarriedIntent(t *testing.T) {
	carrying := func(attempts int64) opModifier {
		return func(o *v1alpha1.ClusterOps) {
			st := v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, Reason: ReasonTriggering, Attempts: attempts}
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			o.SetAnnotations(map[string]string{v1alpha1.AnnotationOperationIntent: string(b)})
		}
	}
	written := func(attempts int64) opModifier {
		return withOpStatus(func(st *v1alpha1.OperationStatus) {
			st.Phase, st.Reason, st.Attempts = v1alpha1.OperationSucceeded, ReasonCompleted, attempts
		})
	}
	cases := map[string]struct {
		reason  string
		op      *v1alpha1.ClusterOps
		applied bool
		want    v1alpha1.OperationStatus
	}{
		"NoAnnotation": {
			reason: "An operation whose first intent is in its status keeps its status.",
			op:     operation(written(1)),
			want:   v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded, Reason: ReasonCompleted, Attempts: 1},
		},
		"StatusNotWrittenSince": {
			reason:  "A status from before the intent (fewer attempts) gives way to the status the annotation carries.",
			op:      operation(carrying(1)),
			applied: true,
			want:    v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, Reason: ReasonTriggering, Attempts: 1},
		},
		"StatusWrittenSince": {
			reason: "A status written after the intent (as many attempts or more) is newer than the annotation.",
			op:     operation(carrying(1), written(1)),
			want:   v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded, Reason: ReasonCompleted, Attempts: 1},
		},
		"Unreadable": {
			reason: "An annotation that is not a status changes nothing.",
			op: operation(func(o *v1alpha1.ClusterOps) {
				o.SetAnnotations(map[string]string{v1alpha1.AnnotationOperationIntent: "{"})
			}),
			want: v1alpha1.OperationStatus{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := ApplyCarriedIntent(tc.op); got != tc.applied {
				t.Errorf("\n%s\nApplyCarriedIntent(...) = %v, want %v", tc.reason, got, tc.applied)
			}
			if diff := cmp.Diff(tc.want, tc.op.Status.AtProvider.OperationStatus); diff != "" {
				t.Errorf("\n%s\nApplyCarriedIntent(...): status: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCarriedIntent runs the reconcile of an operation whose first call is
// due: Observe carries the intent, the reconciler's finalizer update writes
// it, and Create sends the call without a status write of its own.
func TestCarriedIntent(t *testing.T) {
	now := 2 * time.Minute
	ready := func() *v1alpha1.ClusterOps {
		return operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) {
			st.Progress = prog(0, 1, "activate")
		}))
	}
	type want struct {
		sent int
		// annotated: the guard the annotation on the server carries when
		// the call is sent; nil: none.
		annotated *v1alpha1.OperationGuard
		// status: the guard the server's status has then.
		status *v1alpha1.OperationGuard
	}
	cases := map[string]struct {
		reason    string
		op        *v1alpha1.ClusterOps
		listErr   error
		finalizer bool // the reconciler's finalizer update is made
		want      want
	}{
		"WrittenWithTheFinalizer": {
			reason:    "The intent goes out with the finalizer; the status is not written before the call.",
			op:        ready(),
			finalizer: true,
			want: want{sent: 1, annotated: &v1alpha1.OperationGuard{Step: 0, Attempt: 1, Outcome: v1alpha1.GuardIntended, IntendedAt: *at(now),
				BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition}},
		},
		"FinalizerUpdateNotMade": {
			reason: "An intent carried in memory but never written sends nothing.",
			op:     ready(),
		},
		"BaselineUnreadable": {
			reason:    "Without a baseline nothing is carried; Create reads the backend again, and sends nothing without one.",
			op:        ready(),
			listErr:   errors.New("connection refused"),
			finalizer: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			kube := newKube(t, nil, storageCluster(lockedBy(lockOf(operation(), v1alpha1.OperationPending))), tc.op)
			b := &backend{status: sb.ClusterUnready, listErr: tc.listErr}
			var annotated, status *v1alpha1.OperationGuard
			b.onCall = func() {
				p := getOp(t, kube, "op1")
				status = p.Status.AtProvider.Guard.DeepCopy()
				if c := carriedIntent(p); c != nil && meta.FinalizerExists(p, managed.FinalizerName) {
					annotated = c.Guard
				}
			}
			o := getOp(t, kube, "op1")
			e := newEngine(kube, &clock{now: t0.Add(now)})
			r := runOf(kube, o, b.api(), testStep())
			r.Decided = &Decided{}

			e.CarryIntent(ctx, r)
			if tc.finalizer {
				saved := o.Status.DeepCopy()
				meta.AddFinalizer(o, managed.FinalizerName)
				if err := kube.Update(ctx, o); err != nil {
					t.Fatal(err)
				}
				o.Status = *saved
			}
			_ = e.Trigger(ctx, r)

			if got := len(b.sentCalls()); got != tc.want.sent {
				t.Errorf("\n%s\nsent %d calls, want %d", tc.reason, got, tc.want.sent)
			}
			if diff := cmp.Diff(tc.want.annotated, annotated); diff != "" {
				t.Errorf("\n%s\nguard the annotation carried at the call: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.status, status); diff != "" {
				t.Errorf("\n%s\nguard the status had at the call: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNeedsFinalizer(t *testing.T) {
	cases := map[string]struct {
		op   *v1alpha1.ClusterOps
		want bool
	}{
		"Queued":                 {op: operation(), want: false},
		"HoldingNothingIntended": {op: operation(holding(0)), want: true},
		"HoldingIntended":        {op: operation(holding(0), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Attempts = 1 })), want: true},
		"Finished":               {op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute)), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := NeedsFinalizer(tc.op); got != tc.want {
				t.Errorf("NeedsFinalizer(%s) = %v, want %v", name, got, tc.want)
			}
		})
	}
}

func TestCachedWithIntent(t *testing.T) {
	intent := func(attempts int64) string {
		b, err := json.Marshal(v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, Reason: ReasonTriggering, Attempts: attempts})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := map[string]struct {
		reason     string
		op         *v1alpha1.ClusterOps
		phase      v1alpha1.OperationPhase
		annotation bool
	}{
		"NewerThanTheStatus": {
			reason: "A cached operation whose status is older than its intent shows the intent, and keeps the annotation.",
			op: operation(func(o *v1alpha1.ClusterOps) {
				o.SetAnnotations(map[string]string{v1alpha1.AnnotationOperationIntent: intent(1)})
			}),
			phase:      v1alpha1.OperationRunning,
			annotation: true,
		},
		"Superseded": {
			reason: "A cached operation whose status has as many attempts keeps its status and drops the annotation.",
			op: operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.Attempts = 1 }),
				func(o *v1alpha1.ClusterOps) {
					o.SetAnnotations(map[string]string{v1alpha1.AnnotationOperationIntent: intent(1)})
				}),
			phase: v1alpha1.OperationSucceeded,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := CachedWithIntent(func(in any) (any, error) { return in, nil })(tc.op)
			if err != nil {
				t.Fatal(err)
			}
			o := out.(*v1alpha1.ClusterOps) //nolint:forcetypeassert // what went in.
			if got := o.Status.AtProvider.Phase; got != tc.phase {
				t.Errorf("\n%s\ncached phase %q, want %q", tc.reason, got, tc.phase)
			}
			if _, got := o.GetAnnotations()[v1alpha1.AnnotationOperationIntent]; got != tc.annotation {
				t.Errorf("\n%s\ncached annotation present %v, want %v", tc.reason, got, tc.annotation)
			}
		})
	}
}
