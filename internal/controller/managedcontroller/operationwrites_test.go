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

package managedcontroller

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// queuePositionChangedAfter writes a queued operation's status, and again
// d later with only its queue position's message changed.
func queuePositionChangedAfter(d time.Duration) func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, clk *clocktesting.FakeClock) error {
	return func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, clk *clocktesting.FakeClock) error {
		op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationPending, "Queued"
		op.Status.AtProvider.Message = "queue position 3"
		if err := c.Status().Update(ctx, op); err != nil {
			return err
		}
		clk.Step(d)
		op.Status.AtProvider.Message = "queue position 2"
		return c.Status().Update(ctx, op)
	}
}

// waits writes the status of an operation waiting in its queue, started at
// startedAt (nil: not started).
func waits(startedAt *metav1.Time) func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
	return func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
		op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationPending, "Queued"
		op.Status.AtProvider.StartedAt = startedAt
		return c.Status().Update(ctx, op)
	}
}

func TestOperationClient(t *testing.T) {
	type want struct {
		updates, statusWrites int
		// reads: reads of the operation by the client under test.
		reads       int
		readyReason xpv2.ConditionReason
	}
	cases := map[string]struct {
		reason string
		// write makes the writes through the operation client; the cache
		// stays at the object as it was created.
		write func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, clk *clocktesting.FakeClock) error
		// createdAgo is the operation's age when written; an hour if zero.
		createdAgo time.Duration
		want       want
	}{
		"CreatePendingOnly": {
			reason: "The reconciler's create-pending annotation alone is not written.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				meta.SetExternalCreatePending(op, metav1.Now().Time)
				return c.Update(ctx, op)
			},
			want: want{updates: 0, reads: 1},
		},
		"CreatePendingAndAnotherChange": {
			reason: "An Update that changes more than the annotation is sent.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				meta.SetExternalCreatePending(op, metav1.Now().Time)
				meta.AddFinalizer(op, "example.org/f")
				return c.Update(ctx, op)
			},
			want: want{updates: 1, reads: 1},
		},
		"CreatePendingAfterOwnFinalizerUpdate": {
			reason: "The create-pending update right after the client's own finalizer update (the cache still behind it) is not sent.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				meta.AddFinalizer(op, "example.org/f")
				op.Spec.ForProvider.ClusterID = "resolved-id"
				if err := c.Update(ctx, op); err != nil {
					return err
				}
				meta.SetExternalCreatePending(op, metav1.Now().Time)
				return c.Update(ctx, op)
			},
			want: want{updates: 1},
		},
		"ChangeAfterOwnUpdate": {
			reason: "An update that changes more than the annotation after the client's own update is sent.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				meta.AddFinalizer(op, "example.org/f")
				if err := c.Update(ctx, op); err != nil {
					return err
				}
				meta.SetExternalCreatePending(op, metav1.Now().Time)
				op.Spec.ForProvider.Cancel = true
				return c.Update(ctx, op)
			},
			want: want{updates: 2, reads: 1},
		},
		"StatusCarriedByTheFinalizerUpdate": {
			reason: "After the finalizer update that carried the first intent (ops.CarriesStatus), the reconciler's status write of that same status is not sent.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason, op.Status.AtProvider.Attempts = v1alpha1.OperationRunning, "Triggering", 1
				b, err := json.Marshal(op.Status.AtProvider.OperationStatus)
				if err != nil {
					return err
				}
				meta.AddAnnotations(op, map[string]string{v1alpha1.AnnotationOperationIntent: string(b)})
				meta.AddFinalizer(op, "example.org/f")
				saved := op.Status.DeepCopy()
				if err := c.Update(ctx, op); err != nil {
					return err
				}
				op.Status = *saved
				return c.Status().Update(ctx, op)
			},
			want: want{updates: 1, statusWrites: 0},
		},
		"StatusNotCarriedByTheUpdate": {
			reason: "A finalizer update whose annotation carries another status than the one in memory writes none: the status write after it is sent.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				meta.AddAnnotations(op, map[string]string{v1alpha1.AnnotationOperationIntent: `{"attempts":1}`})
				meta.AddFinalizer(op, "example.org/f")
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason, op.Status.AtProvider.Attempts = v1alpha1.OperationRunning, "Triggering", 2
				saved := op.Status.DeepCopy()
				if err := c.Update(ctx, op); err != nil {
					return err
				}
				op.Status = *saved
				return c.Status().Update(ctx, op)
			},
			want: want{updates: 1, statusWrites: 1, reads: 1},
		},
		"ReconcilerWriteAfterCreate": {
			reason: "After the engine's outcome write, the reconciler's own write (Creating, with the cache still behind) changes nothing and is not sent; Ready stays the engine's.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationRunning, "Triggered"
				op.SetConditions(xpv2.ReconcileSuccess())
				if err := c.Status().Update(ctx, op); err != nil {
					return err
				}
				op.SetConditions(xpv2.Creating(), xpv2.ReconcileSuccess())
				return c.Status().Update(ctx, op)
			},
			want: want{statusWrites: 1, reads: 1, readyReason: "Triggered"},
		},
		"MessageOnlyWithinWindow": {
			reason: "A write that changes only the message soon after the last one is left for the next write that carries a decision.",
			write:  queuePositionChangedAfter(time.Second),
			want:   want{statusWrites: 1, reads: 1, readyReason: "Queued"},
		},
		"MessageOnlyAfterWindow": {
			reason: "Past the coalescing window, a changed message is written.",
			write:  queuePositionChangedAfter(coalesceWindow),
			want:   want{statusWrites: 2, reads: 1, readyReason: "Queued"},
		},
		"WaitNotShownSoonAfterCreation": {
			reason:     "An operation that only waits to start does not write so within ops.WaitShownAfter of its creation: one handed the lock within it goes straight to its intent.",
			write:      waits(nil),
			createdAgo: time.Second,
			want:       want{statusWrites: 0, readyReason: "Queued"},
		},
		"WaitShownOnceWaitShownAfterPassed": {
			reason:     "Past ops.WaitShownAfter the wait is written.",
			write:      waits(nil),
			createdAgo: ops.WaitShownAfter,
			want:       want{statusWrites: 1, reads: 1, readyReason: "Queued"},
		},
		"StartSoonAfterCreation": {
			reason:     "An operation that started (took its lock) writes so at once, however young.",
			write:      waits(&metav1.Time{Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}),
			createdAgo: time.Second,
			want:       want{statusWrites: 1, reads: 1, readyReason: "Queued"},
		},
		"ChangedStatus": {
			reason: "A status that changed since the client's last write is sent without reading the object first: the client knows what it wrote.",
			write: func(ctx context.Context, c client.Client, op *v1alpha1.ClusterOps, _ *clocktesting.FakeClock) error {
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationRunning, "Triggered"
				if err := c.Status().Update(ctx, op); err != nil {
					return err
				}
				op.Status.AtProvider.Reason = "InProgress"
				return c.Status().Update(ctx, op)
			},
			want: want{statusWrites: 2, reads: 1, readyReason: "InProgress"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			if tc.createdAgo == 0 {
				tc.createdAgo = time.Hour
			}
			created := &v1alpha1.ClusterOps{ObjectMeta: metav1.ObjectMeta{Name: "op", Namespace: "ns", UID: "uid-1",
				CreationTimestamp: metav1.NewTime(start.Add(-tc.createdAgo))}}
			created.Spec.ForProvider.Type = v1alpha1.ClusterActivate
			var cached client.Object
			got := want{}
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(created).WithStatusSubresource(created).
				WithInterceptorFuncs(interceptor.Funcs{
					Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
						if cached == nil {
							return c.Get(ctx, key, obj, opts...)
						}
						got.reads++
						cached.(*v1alpha1.ClusterOps).DeepCopyInto(obj.(*v1alpha1.ClusterOps)) //nolint:forcetypeassert // only operations here.
						return nil
					},
					Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
						got.updates++
						return c.Update(ctx, obj, opts...)
					},
					SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
						got.statusWrites++
						return c.SubResource(sub).Update(ctx, obj, opts...)
					},
				}).Build()
			op := &v1alpha1.ClusterOps{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(created), op); err != nil {
				t.Fatal(err)
			}
			cached = op.DeepCopy()
			clk := clocktesting.NewFakeClock(start)
			if err := tc.write(context.Background(), newOperationClient(name, kube, clk.Now), op, clk); err != nil {
				t.Fatal(err)
			}
			if counted := countedStatusWrites(name); counted != float64(got.statusWrites) {
				t.Errorf("\n%s\nsimplyblock_operation_status_writes_total{kind=%q} counts %v writes, %d were sent", tc.reason, name, counted, got.statusWrites)
			}
			if r := op.GetCondition(xpv2.TypeReady); tc.want.readyReason != "" {
				got.readyReason = r.Reason
				if r.Status != corev1.ConditionFalse {
					t.Errorf("\n%s\nReady is %s, want False", tc.reason, r.Status)
				}
			}
			if got != tc.want {
				t.Errorf("\n%s\nwrites: got %+v, want %+v", tc.reason, got, tc.want)
			}
		})
	}
}

// countedStatusWrites sums the status writes counted for kind.
func countedStatusWrites(kind string) float64 {
	n := 0.0
	for _, w := range []string{"queued", "intent", "progress", "finished"} {
		n += testutil.ToFloat64(ops.DefaultMetrics().StatusWrites.WithLabelValues(kind, w))
	}
	return n
}

func TestNotOwnWrites(t *testing.T) {
	started := &metav1.Time{Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	// writeStatus writes phase/reason (started or not) through c and
	// returns the event the cache would deliver for it.
	writeStatus := func(phase v1alpha1.OperationPhase, reason string, startedAt *metav1.Time) func(ctx context.Context, c, _ client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error) {
		return func(ctx context.Context, c, _ client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error) {
			old := op.DeepCopy()
			op.Status.AtProvider.Phase, op.Status.AtProvider.Reason, op.Status.AtProvider.StartedAt = phase, reason, startedAt
			return event.UpdateEvent{ObjectOld: old, ObjectNew: op}, c.Status().Update(ctx, op)
		}
	}
	cases := map[string]struct {
		reason string
		// write makes writes through the operation client (c) or another
		// writer and returns the update event the cache would deliver next.
		write func(ctx context.Context, c, other client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error)
		want  bool
	}{
		"OwnQueuedStatus": {
			reason: "The client's own write of a queued operation's status is dropped: a lock change wakes it.",
			write:  writeStatus(v1alpha1.OperationPending, "Queued", nil),
			want:   false,
		},
		"OwnFinishedStatus": {
			reason: "The client's own write of a finished operation's status is dropped: it asked for its TTL itself.",
			write:  writeStatus(v1alpha1.OperationSucceeded, "Completed", started),
			want:   false,
		},
		"OwnRunningStatus": {
			reason: "The client's own write of a running operation's status passes: the pass that wrote it may leave the next decision to the next pass.",
			write:  writeStatus(v1alpha1.OperationRunning, "Triggered", started),
			want:   true,
		},
		"OwnFinalizerUpdate": {
			reason: "The event of the client's own finalizer update is dropped: the reconcile that made it goes on.",
			write: func(ctx context.Context, c, _ client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error) {
				old := op.DeepCopy()
				meta.AddFinalizer(op, "example.org/f")
				return event.UpdateEvent{ObjectOld: old, ObjectNew: op}, c.Update(ctx, op)
			},
			want: false,
		},
		"AnotherWriterAfterOwnWrite": {
			reason: "A change by another writer (a user's cancel) after the client's own write passes.",
			write: func(ctx context.Context, c, other client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error) {
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationPending, "Queued"
				if err := c.Status().Update(ctx, op); err != nil {
					return event.UpdateEvent{}, err
				}
				old := op.DeepCopy()
				op.Spec.ForProvider.Cancel = true
				return event.UpdateEvent{ObjectOld: old, ObjectNew: op}, other.Update(ctx, op)
			},
			want: true,
		},
		"ResyncOfOwnWrite": {
			reason: "A resync (the same version again) passes, even of the client's own write.",
			write: func(ctx context.Context, c, _ client.Client, op *v1alpha1.ClusterOps) (event.UpdateEvent, error) {
				op.Status.AtProvider.Phase, op.Status.AtProvider.Reason = v1alpha1.OperationPending, "Queued"
				err := c.Status().Update(ctx, op)
				return event.UpdateEvent{ObjectOld: op.DeepCopy(), ObjectNew: op}, err
			},
			want: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			created := &v1alpha1.ClusterOps{ObjectMeta: metav1.ObjectMeta{Name: "op", Namespace: "ns", UID: "uid-1",
				CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))}}
			created.Spec.ForProvider.Type = v1alpha1.ClusterActivate
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(created).WithStatusSubresource(created).Build()
			op := &v1alpha1.ClusterOps{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(created), op); err != nil {
				t.Fatal(err)
			}
			c := OperationClient("ClusterOps", kube)
			e, err := tc.write(context.Background(), c, kube, op)
			if err != nil {
				t.Fatal(err)
			}
			if got := NotOwnWrites(c).Update(e); got != tc.want {
				t.Errorf("\n%s\nNotOwnWrites: got %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
