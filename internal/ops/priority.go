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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Reconcile priorities of operations. When hundreds of operations are
// created at once, or hundreds of queued ones poll together, the ones
// holding a lock must not wait behind them: their reconciles decide how
// soon a finished backend action is seen and the next operation starts.
const (
	// PriorityChanged: a watcher wake-up, a change the backend shows to an
	// operation holding its lock (most often its end). It goes before the
	// other active reconciles, the lock handovers of a burst among them, so
	// that a finished action is recorded first.
	PriorityChanged = 200
	// PriorityActive: an operation holding its lock, and the next in line
	// when a lock is released.
	PriorityActive = 100
	// PriorityIdle: a queued or finished operation's own re-poll (the same
	// as controller-runtime's priority for unchanged objects).
	PriorityIdle = handler.LowPriority
)

// OperationEvents enqueues an operation kind's own events at the priority
// of the operation's state: one holding its lock, or new and first in line
// on its target, at PriorityActive; a finished one, one queued behind
// others, and the initial list or a resync at PriorityIdle; any other change
// (a spec edit such as cancel) at the default priority. When hundreds of
// operations are created at once, the first of each queue no longer waits
// behind the first reconciles of all the others.
func OperationEvents(kube client.Reader) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object, createdPriority(ctx, kube, e.Object, e.IsInInitialList))
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.ObjectNew, updatedPriority(e.ObjectOld, e.ObjectNew))
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object, nil)
		},
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue(q, e.Object, nil)
		},
	}
}

// enqueue adds o's request at priority p (nil: the default).
func enqueue(q workqueue.TypedRateLimitingInterface[reconcile.Request], o client.Object, p *int) {
	if o == nil {
		return
	}
	r := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok && p != nil {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: p}, r)
		return
	}
	q.Add(r)
}

func createdPriority(ctx context.Context, kube client.Reader, obj client.Object, initialList bool) *int {
	o, ok := obj.(Object)
	if !ok {
		return nil
	}
	active, idle := PriorityActive, PriorityIdle
	st := o.GetOperationStatus()
	switch {
	case isTerminal(st.Phase):
		return &idle
	case st.StartedAt != nil:
		return &active
	case initialList:
		return &idle
	}
	same, err := SameTarget(ctx, kube, o)
	if err != nil {
		return nil
	}
	if next := NextWaiting(same, nil); next != nil && next.GetUID() == o.GetUID() {
		return &active
	}
	return &idle
}

func updatedPriority(oldObj, newObj client.Object) *int {
	o, ok := newObj.(Object)
	if !ok {
		return nil
	}
	active, idle := PriorityActive, PriorityIdle
	st := o.GetOperationStatus()
	switch {
	case running(st):
		return &active
	case isTerminal(st.Phase), oldObj != nil && oldObj.GetResourceVersion() == newObj.GetResourceVersion():
		return &idle
	}
	return nil
}

// WithPriority makes h enqueue its requests at priority p when the
// controller's queue is a priority queue (controller-runtime's default).
func WithPriority(h handler.EventHandler, p int) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Create(ctx, e, atPriority(q, p))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Update(ctx, e, atPriority(q, p))
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Delete(ctx, e, atPriority(q, p))
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			h.Generic(ctx, e, atPriority(q, p))
		},
	}
}

func atPriority(q workqueue.TypedRateLimitingInterface[reconcile.Request], p int) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok {
		return priorityQueue{PriorityQueue: pq, priority: p}
	}
	return q
}

// priorityQueue adds every item at one priority.
type priorityQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	priority int
}

func (q priorityQueue) Add(r reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, r)
}

func (q priorityQueue) AddRateLimited(r reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, r)
}

func (q priorityQueue) AddAfter(r reconcile.Request, d time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: d}, r)
}

func (q priorityQueue) AddWithOpts(o priorityqueue.AddOpts, rs ...reconcile.Request) {
	o.Priority = &q.priority
	q.PriorityQueue.AddWithOpts(o, rs...)
}

// Prioritized wraps an operation kind's reconciler: the re-poll an
// operation asks for is made at PriorityActive while it holds its lock
// (it started and did not finish), else at PriorityIdle.
func Prioritized(r reconcile.Reconciler, kube client.Reader, newObject func() Object) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		res, err := r.Reconcile(ctx, req)
		o := newObject()
		if kube.Get(ctx, req.NamespacedName, o) != nil {
			return res, err
		}
		p := PriorityIdle
		if running(o.GetOperationStatus()) {
			p = PriorityActive
		}
		res.Priority = &p
		return res, err
	})
}

// Budgeted wraps an operation kind's reconciler in its reconcile budget
// (limit, as crossplane-runtime's rate-limited reconciler does), except for
// an operation that holds its lock or is next in line for it: their
// reconciles decide how soon a finished action is seen and the next one
// sent, and there is at most one of each per target. The budget holds back
// the rest: queued operations' re-polls, finished ones, a burst of new ones.
func Budgeted(name string, r reconcile.Reconciler, limit ratelimiter.RateLimiter, kube client.Reader, newObject func() Object) reconcile.Reconciler {
	limited := ratelimiter.NewReconciler(name, r, limit)
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		o := newObject()
		if kube.Get(ctx, req.NamespacedName, o) == nil && exempt(ctx, kube, o) {
			return r.Reconcile(ctx, req)
		}
		return limited.Reconcile(ctx, req)
	})
}

// exempt reports whether o's reconcile is outside the budget: it holds its
// lock, or it is the next in line on its target (held or free).
func exempt(ctx context.Context, kube client.Reader, o Object) bool {
	st := o.GetOperationStatus()
	switch {
	case running(st):
		return true
	case isTerminal(st.Phase), o.GetDeletionTimestamp() != nil:
		return false
	}
	same, err := SameTarget(ctx, kube, o)
	if err != nil {
		return false
	}
	next := NextWaiting(same, nil)
	return next != nil && next.GetUID() == o.GetUID()
}

// running reports whether an operation started and did not finish: it holds
// (or is about to release) its lock.
func running(st *v1alpha1.OperationStatus) bool {
	return st.StartedAt != nil && !isTerminal(st.Phase)
}
