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
	"testing"
	"time"

	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis"
	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestWithPriority(t *testing.T) {
	cases := map[string]struct {
		reason string
		send   func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request])
	}{
		"Generic": {
			reason: "A watcher wake-up (a generic event) is enqueued at the handler's priority.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Generic(context.Background(), event.GenericEvent{Object: operation()}, q)
			},
		},
		"UnchangedUpdate": {
			reason: "An update event is enqueued at the handler's priority, even one controller-runtime would enqueue low (unchanged resource version).",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				o := operation()
				o.SetResourceVersion("7")
				h.Update(context.Background(), event.UpdateEvent{ObjectOld: o, ObjectNew: o}, q)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q := priorityqueue.New[reconcile.Request]("test")
			defer q.ShutDown()
			low := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: "queued"}}
			q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(PriorityIdle)}, low)
			tc.send(WithPriority(&handler.EnqueueRequestForObject{}, PriorityActive), q)

			got, p, _ := q.GetWithPriority()
			if got.Name != "op1" || p != PriorityActive {
				t.Errorf("\n%s\nfirst out of the queue: %s at priority %d, want op1 at %d (before the idle one added earlier)", tc.reason, got.Name, p, PriorityActive)
			}
		})
	}
}

// TestWakeUpsGoFirst: a watcher wake-up (the backend changed for an
// operation holding its lock, most often its end) leaves the work queue
// before the other active reconciles, a burst's lock handovers among them.
func TestWakeUpsGoFirst(t *testing.T) {
	w, _, _ := newTestWatcher(time.Minute)
	q := priorityqueue.New[reconcile.Request]("test")
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := w.wakeUps(v1alpha1.ClusterOpsKind, func() client.Object { return &v1alpha1.ClusterOps{} }).Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	handover := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: "next"}}
	q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(PriorityActive)}, handover)
	w.Wake(v1alpha1.ClusterOpsKind, types.NamespacedName{Namespace: testNS, Name: "op1"})
	// The source hands the wake-up to the queue in its own goroutine.
	if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return q.Len() == 2, nil
	}); err != nil {
		t.Fatalf("the wake-up did not reach the queue: %v", err)
	}
	got, p, _ := q.GetWithPriority()
	if got.Name != "op1" || p != PriorityChanged {
		t.Errorf("first out of the queue: %s at priority %d, want the woken op1 at %d (before the handover added earlier at %d)",
			got.Name, p, PriorityChanged, PriorityActive)
	}
}

func TestPrioritized(t *testing.T) {
	type want struct {
		priority *int
		err      bool
	}
	cases := map[string]struct {
		reason string
		op     *v1alpha1.ClusterOps // nil: gone
		err    error
		want   want
	}{
		"Queued": {
			reason: "A queued operation re-polls at idle priority.",
			op:     operation(withOpStatus(func(st *v1alpha1.OperationStatus) { st.Phase, st.Reason = v1alpha1.OperationPending, ReasonQueued })),
			want:   want{priority: ptr.To(PriorityIdle)},
		},
		"HoldingTheLock": {
			reason: "An operation that started and did not finish re-polls at active priority.",
			op:     operation(holding(0)),
			want:   want{priority: ptr.To(PriorityActive)},
		},
		"Finished": {
			reason: "A finished operation re-polls at idle priority.",
			op:     operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute)),
			want:   want{priority: ptr.To(PriorityIdle)},
		},
		"ErrorKeepsPriority": {
			reason: "A failed reconcile of a running operation is retried at active priority, its error returned.",
			op:     operation(holding(0)),
			err:    errors.New("boom"),
			want:   want{priority: ptr.To(PriorityActive), err: true},
		},
		"Gone": {
			reason: "A deleted operation's result is passed on unchanged.",
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.op != nil {
				objs = append(objs, tc.op)
			}
			kube := newKube(t, nil, objs...)
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				return reconcile.Result{RequeueAfter: time.Second}, tc.err
			})
			r := Prioritized(inner, kube, func() Object { return &v1alpha1.ClusterOps{} })
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: "op1"}})
			if (err != nil) != tc.want.err {
				t.Errorf("\n%s\nReconcile(...): error %v, want error %t", tc.reason, err, tc.want.err)
			}
			if res.RequeueAfter != time.Second {
				t.Errorf("\n%s\nReconcile(...): requeue after %s, want the inner reconciler's 1s", tc.reason, res.RequeueAfter)
			}
			if got, want := ptr.Deref(res.Priority, -1), ptr.Deref(tc.want.priority, -1); got != want || (res.Priority == nil) != (tc.want.priority == nil) {
				t.Errorf("\n%s\nReconcile(...): priority %v, want %v", tc.reason, res.Priority, tc.want.priority)
			}
		})
	}
}

func TestOperationEvents(t *testing.T) {
	first := operation(named("first", "uid-first"), createdAt(0))
	second := operation(named("second", "uid-second"), createdAt(time.Second))
	running := operation(named("running", "uid-running"), holding(0))
	done := operation(named("done", "uid-done"), finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute))
	withRV := func(o *v1alpha1.ClusterOps, rv string) *v1alpha1.ClusterOps {
		o = o.DeepCopy()
		o.SetResourceVersion(rv)
		return o
	}
	cases := map[string]struct {
		reason string
		send   func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request])
		want   int
	}{
		"CreatedFirstInLine": {
			reason: "A new operation first in line on its target is served ahead of the rest.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Create(context.Background(), event.CreateEvent{Object: first}, q)
			},
			want: PriorityActive,
		},
		"CreatedBehindAnother": {
			reason: "A new operation queued behind an older one waits at idle priority.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Create(context.Background(), event.CreateEvent{Object: second}, q)
			},
			want: PriorityIdle,
		},
		"InitialListRunning": {
			reason: "After a restart an operation that holds its lock is served ahead of the rest.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Create(context.Background(), event.CreateEvent{Object: running, IsInInitialList: true}, q)
			},
			want: PriorityActive,
		},
		"InitialListWaiting": {
			reason: "After a restart a waiting operation is listed at idle priority.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Create(context.Background(), event.CreateEvent{Object: first, IsInInitialList: true}, q)
			},
			want: PriorityIdle,
		},
		"CreatedFinished": {
			reason: "A finished operation is never urgent.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Create(context.Background(), event.CreateEvent{Object: done}, q)
			},
			want: PriorityIdle,
		},
		"UpdatedRunning": {
			reason: "A running operation's own status write is served ahead of the rest.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Update(context.Background(), event.UpdateEvent{ObjectOld: withRV(running, "1"), ObjectNew: withRV(running, "2")}, q)
			},
			want: PriorityActive,
		},
		"UpdatedWaiting": {
			reason: "A change of a waiting operation (e.g. cancel) keeps the default priority.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Update(context.Background(), event.UpdateEvent{ObjectOld: withRV(second, "1"), ObjectNew: withRV(second, "2")}, q)
			},
			want: 0,
		},
		"UpdatedFinished": {
			reason: "A finished operation's change waits at idle priority.",
			send: func(h handler.EventHandler, q priorityqueue.PriorityQueue[reconcile.Request]) {
				h.Update(context.Background(), event.UpdateEvent{ObjectOld: withRV(done, "1"), ObjectNew: withRV(done, "2")}, q)
			},
			want: PriorityIdle,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := apis.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			kube := crfake.NewClientBuilder().WithScheme(s).WithObjects(first, second, running, done).
				WithIndex(&v1alpha1.ClusterOps{}, IndexClusterOpsCluster, ClusterOpsKeys).Build()
			q := priorityqueue.New[reconcile.Request]("test")
			defer q.ShutDown()
			tc.send(OperationEvents(kube), q)
			_, p, _ := q.GetWithPriority()
			if p != tc.want {
				t.Errorf("\n%s\nenqueued at priority %d, want %d", tc.reason, p, tc.want)
			}
		})
	}
}

// exhausted is a reconcile budget with nothing left: every request waits.
type exhausted struct{}

func (exhausted) When(string) time.Duration { return time.Minute }
func (exhausted) Forget(string)             {}
func (exhausted) NumRequeues(string) int    { return 0 }

func TestBudgeted(t *testing.T) {
	first := operation(named("first", "uid-first"), createdAt(0))
	second := operation(named("second", "uid-second"), createdAt(time.Second))
	running := operation(named("running", "uid-running"), holding(0))
	done := operation(named("done", "uid-done"), finished(v1alpha1.OperationSucceeded, ReasonCompleted, time.Minute))
	cases := map[string]struct {
		reason string
		objs   []client.Object
		name   string
		want   bool // the inner reconciler runs although the budget is spent
	}{
		"HoldingTheLock": {
			reason: "An operation holding its lock is reconciled outside the budget.",
			objs:   []client.Object{running, second}, name: "running", want: true,
		},
		"NextInLine": {
			reason: "The operation first in line on a free lock is reconciled outside the budget.",
			objs:   []client.Object{first, second}, name: "first", want: true,
		},
		"QueuedBehindAnother": {
			reason: "An operation queued behind another waits for the budget.",
			objs:   []client.Object{first, second}, name: "second",
		},
		"NextWhileTheLockIsHeld": {
			reason: "The next in line is reconciled outside the budget while the lock is held too: there is one per target, and the release must reach it at once.",
			objs:   []client.Object{running, first}, name: "first", want: true,
		},
		"Finished": {
			reason: "A finished operation waits for the budget.",
			objs:   []client.Object{done}, name: "done",
		},
		"Gone": {
			reason: "A request for an operation that is gone waits for the budget.",
			name:   "gone",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := apis.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			kube := crfake.NewClientBuilder().WithScheme(s).WithObjects(tc.objs...).
				WithIndex(&v1alpha1.ClusterOps{}, IndexClusterOpsCluster, ClusterOpsKeys).Build()
			ran := false
			inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				ran = true
				return reconcile.Result{}, nil
			})
			r := Budgeted("test", inner, exhausted{}, kube, func() Object { return &v1alpha1.ClusterOps{} })
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: tc.name}})
			if err != nil {
				t.Fatalf("\n%s\nReconcile(...): %v", tc.reason, err)
			}
			if ran != tc.want {
				t.Errorf("\n%s\nReconcile(...): inner reconciler ran %t, want %t", tc.reason, ran, tc.want)
			}
			if !tc.want && res.RequeueAfter != time.Minute {
				t.Errorf("\n%s\nReconcile(...): requeue after %s, want the budget's 1m", tc.reason, res.RequeueAfter)
			}
		})
	}
}
