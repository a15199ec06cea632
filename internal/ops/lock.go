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
	"sort"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

const (
	errGetTarget    = "cannot get the operation's target"
	errUpdateTarget = "cannot update the operation's target status"
	errGetHolder    = "cannot get the operation holding the lock"
)

// A Target is the object whose status holds an operation's lock and
// history: a StorageCluster for ClusterOps, a StorageNode for
// StorageNodeOps.
type Target interface {
	client.Object
	GetActiveOperation() *v1alpha1.OperationReference
	SetActiveOperation(r *v1alpha1.OperationReference)
	GetOperationHistory() []v1alpha1.OperationRecord
	SetOperationHistory(h []v1alpha1.OperationRecord)
}

// A Lock is the durable, per-target lock of the operation queue. The lock
// lives in the target's status (activeOperation), so it survives provider
// restarts, is visible to users, and is taken and released with optimistic
// concurrency: two operations can never both hold it.
type Lock struct {
	// Kube writes target status and reads through the informer cache.
	Kube client.Client
	// Reader reads from the API server directly, to confirm that a lock
	// holder is really gone before taking its lock over.
	Reader client.Reader
	// NewTarget returns an empty target object (the object holding the
	// lock).
	NewTarget func() Target
	// NewHistory returns an empty object of the kind that keeps the
	// history, when that is not the lock's target (StorageNodeOps lock
	// their cluster and keep their history on their node).
	NewHistory func() Target
	// Kind is the kind of the operations taking this lock, recorded in it.
	Kind string
	// ObserveTarget and ObserveHistory write what a snapshot shows of the
	// target, or of the object keeping the history, into its status (the
	// steady-state controller's view of it), so that the write finishing
	// an operation also shows its effect (docs/operations-engine.md,
	// "After an operation"). Nil: that object's status waits for its
	// controller's next poll.
	ObserveTarget  func(t Target, s *Snapshot)
	ObserveHistory func(h Target, s *Snapshot)
}

// refTo is the lock reference of o, an operation of the lock's kind or, when
// the lock is handed over, of the other kind taking the same lock.
func (l *Lock) refTo(o Object) *v1alpha1.OperationReference {
	kind := l.Kind
	if k := kindOf(o); k != kindOf(newOperation(l.Kind)) {
		kind = k
	}
	return &v1alpha1.OperationReference{Name: o.GetName(), UID: o.GetUID(), Type: o.GetOperationType(), Kind: kind,
		Phase: o.GetOperationStatus().Phase}
}

// handOver is the lock reference of next, the operation a released lock
// passes to; nil (the lock is free) when there is none.
func (l *Lock) handOver(next Object) *v1alpha1.OperationReference {
	if next == nil {
		return nil
	}
	return l.refTo(next)
}

func (l *Lock) newHistory() Target {
	if l.NewHistory != nil {
		return l.NewHistory()
	}
	return l.NewTarget()
}

// newOperation returns an empty operation of kind: a StorageNodeOps, or
// else a ClusterOps (the kinds that take a StorageCluster's lock).
func newOperation(kind string) Object {
	if kind == v1alpha1.StorageNodeOpsKind {
		return &v1alpha1.StorageNodeOps{}
	}
	return &v1alpha1.ClusterOps{}
}

// kindOf is the kind of operation o.
func kindOf(o Object) string {
	if _, ok := o.(*v1alpha1.StorageNodeOps); ok {
		return v1alpha1.StorageNodeOpsKind
	}
	return v1alpha1.ClusterOpsKind
}

// getTarget reads the target through the cache.
func (l *Lock) getTarget(ctx context.Context, key types.NamespacedName) (Target, error) {
	t := l.NewTarget()
	if err := l.Kube.Get(ctx, key, t); err != nil {
		return nil, err
	}
	return t, nil
}

// Holds reports whether o holds the lock of target t.
func Holds(t Target, o Object) bool {
	a := t.GetActiveOperation()
	return a != nil && a.UID == o.GetUID()
}

// holderGone reports whether the operation named in a lock no longer needs
// it: it was deleted (or re-created under a new UID), or it finished
// without releasing (a crash between finishing and releasing). A lock
// written before locks named their kind is of defaultKind.
func holderGone(ctx context.Context, r client.Reader, ns string, ref *v1alpha1.OperationReference, defaultKind string) (bool, error) {
	kind := ref.Kind
	if kind == "" {
		kind = defaultKind
	}
	h := newOperation(kind)
	err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, h)
	if kerrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, errors.Wrap(err, errGetHolder)
	}
	return h.GetUID() != ref.UID || IsTerminal(h), nil
}

// takeable reports whether o may take target's lock: it is free, o holds
// it, or its holder is gone. A holder the cache shows running is taken as
// running without asking the API server: when it finishes, its release
// changes the target and wakes o. Only a holder the cache shows gone is
// confirmed with the API server.
func (l *Lock) takeable(ctx context.Context, t Target, o Object) (bool, error) {
	cur := t.GetActiveOperation()
	if cur == nil || cur.UID == o.GetUID() {
		return true, nil
	}
	if l.Kube != nil {
		if gone, err := holderGone(ctx, l.Kube, t.GetNamespace(), cur, l.Kind); err != nil || !gone {
			return false, err
		}
	}
	return holderGone(ctx, l.Reader, t.GetNamespace(), cur, l.Kind)
}

// Acquire takes target's lock for o when it is free or its holder is gone.
// It returns whether o holds the lock, and the name of a previous holder
// whose stale lock was taken over.
func (l *Lock) Acquire(ctx context.Context, t Target, o Object) (bool, string, error) {
	cur := t.GetActiveOperation()
	if cur != nil && cur.UID == o.GetUID() {
		return true, "", nil
	}
	takenOver := ""
	if cur != nil {
		takeable, err := l.takeable(ctx, t, o)
		if err != nil || !takeable {
			return false, "", err
		}
		takenOver = cur.Name
	}
	t.SetActiveOperation(l.refTo(o))
	if err := l.Kube.Status().Update(ctx, t); err != nil {
		t.SetActiveOperation(cur)
		if kerrors.IsConflict(err) {
			return false, "", nil // someone else wrote first; look again next time
		}
		return false, "", errors.Wrap(err, errUpdateTarget)
	}
	return true, takenOver, nil
}

// RunningHolder returns the operation holding t's lock while it still
// runs; nil when the lock is free or its holder is gone (a stale lock the
// next operation takes over). r should read from the API server.
func RunningHolder(ctx context.Context, r client.Reader, t Target) (*v1alpha1.OperationReference, error) {
	a := t.GetActiveOperation()
	if a == nil {
		return nil, nil
	}
	gone, err := holderGone(ctx, r, t.GetNamespace(), a, v1alpha1.ClusterOpsKind)
	if err != nil || gone {
		return nil, err
	}
	return a, nil
}

// Release releases o's lock on the target, handing it over to next (nil:
// nobody), when the copy read through Kube shows o holding it, without
// confirming with Reader: it is for an operation whose finished status was
// read, which FinishIn (confirming with the API server) preceded.
func (l *Lock) Release(ctx context.Context, key types.NamespacedName, o, next Object) error {
	t, err := l.getTarget(ctx, key)
	switch {
	case kerrors.IsNotFound(err):
		return nil
	case err != nil:
		return errors.Wrap(err, errGetTarget)
	case !Holds(t, o):
		return nil
	}
	t.SetActiveOperation(l.handOver(next))
	return errors.Wrap(l.Kube.Status().Update(ctx, t), errUpdateTarget)
}

// FinishIn releases o's lock on the target at lockKey (if o holds it),
// handing it over to next when not nil (docs/operations-engine.md,
// "Handing the lock over"), and appends rec to the bounded history at
// historyKey (unless a record of o is already there). When both are one
// object that is one write; otherwise the record is written first, then
// the lock released, so a crash in between leaves a lock whose holder is
// finished, and is taken over. A write it makes also shows seen (nil: no
// observation made after o's last call) through ObserveTarget and
// ObserveHistory. A missing target is not an error: there is nothing to
// keep.
func (l *Lock) FinishIn(ctx context.Context, lockKey, historyKey types.NamespacedName, o Object, rec *v1alpha1.OperationRecord, next Object, seen *Snapshot) error {
	// Another writer of the target's status (its own controller's drift
	// check) makes a write conflict now and then: it is tried again at
	// once on a copy read from the API server, rather than left to the
	// operation's next reconcile, which a deleted operation's growing
	// requeue backoff can put a minute away.
	fresh := false
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := l.finishIn(ctx, lockKey, historyKey, o, rec, next, seen, fresh)
		fresh = true
		return err
	})
}

// finishIn is one attempt of FinishIn; fresh reads the objects from the
// API server instead of the cache.
func (l *Lock) finishIn(ctx context.Context, lockKey, historyKey types.NamespacedName, o Object, rec *v1alpha1.OperationRecord, next Object, seen *Snapshot, fresh bool) error {
	read, fromAPI := client.Reader(l.Kube), fresh && l.Reader != nil
	if fromAPI {
		read = l.Reader
	}
	if historyKey != lockKey && historyKey.Name != "" {
		h := l.newHistory()
		err := read.Get(ctx, historyKey, h)
		switch {
		case kerrors.IsNotFound(err):
		case err != nil:
			return errors.Wrap(err, errGetTarget)
		default:
			changed := rec != nil && appendRecord(h, o, rec)
			if Holds(h, o) {
				h.SetActiveOperation(nil)
				changed = true
			}
			if changed {
				observe(l.ObserveHistory, h, seen)
				if err := l.Kube.Status().Update(ctx, h); err != nil {
					return errors.Wrap(err, errUpdateTarget)
				}
			}
		}
		rec = nil
	}
	t := l.NewTarget()
	err := read.Get(ctx, lockKey, t)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return errors.Wrap(err, errGetTarget)
	}
	// A cached copy that has o's record shows the write that released o's
	// lock (release and record are one write when they share an object).
	released := historyKey == lockKey && RecordOf(t, o.GetUID()) != nil
	if !Holds(t, o) && l.Reader != nil && !released && !fromAPI {
		// The cache may not show a lock taken moments ago (an operation
		// whose only call is answered at once finishes right after taking
		// it): confirm with the API server before concluding there is
		// nothing to release, or the operation would end with its lock
		// still held.
		current := l.NewTarget()
		switch err := l.Reader.Get(ctx, lockKey, current); {
		case kerrors.IsNotFound(err):
			return nil
		case err != nil:
			return errors.Wrap(err, errGetTarget)
		}
		t = current
	}
	changed := false
	if Holds(t, o) {
		t.SetActiveOperation(l.handOver(next))
		changed = true
	}
	if rec != nil && appendRecord(t, o, rec) {
		changed = true
	}
	if !changed {
		return nil
	}
	observe(l.ObserveTarget, t, seen)
	return errors.Wrap(l.Kube.Status().Update(ctx, t), errUpdateTarget)
}

// observe shows seen in t through f, when both are set and t is not being
// deleted: a target being deleted shows its deletion (its controller's
// Deleting condition), not what an operation saw before it.
func observe(f func(Target, *Snapshot), t Target, seen *Snapshot) {
	if f != nil && seen != nil && !meta.WasDeleted(t) {
		f(t, seen)
	}
}

// appendRecord adds rec to t's bounded history unless a record of o is
// already there, and reports whether it did.
func appendRecord(t Target, o Object, rec *v1alpha1.OperationRecord) bool {
	if RecordOf(t, o.GetUID()) != nil {
		return false
	}
	h := append(t.GetOperationHistory(), *rec)
	if len(h) > v1alpha1.MaxOperationHistory {
		h = h[len(h)-v1alpha1.MaxOperationHistory:]
	}
	t.SetOperationHistory(h)
	return true
}

// Show records o as the active operation of h, an object that keeps its
// history but not its lock (the StorageNode of a StorageNodeOps), so users
// see it there too. FinishIn clears it.
func (l *Lock) Show(ctx context.Context, h Target, o Object) error {
	if Holds(h, o) {
		return nil
	}
	h.SetActiveOperation(l.refTo(o))
	return errors.Wrap(l.Kube.Status().Update(ctx, h), errUpdateTarget)
}

// RecordOf returns the history record of the operation with uid, if any.
func RecordOf(t Target, uid types.UID) *v1alpha1.OperationRecord {
	h := t.GetOperationHistory()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].UID == uid {
			return &h[i]
		}
	}
	return nil
}

// TwinOf returns the record of an earlier operation with the same name,
// type and spec as o but another UID: o is a re-creation of it (for
// example by Argo CD after a TTL deletion) and must not run again.
func TwinOf(t Target, o Object, specHash string) *v1alpha1.OperationRecord {
	h := t.GetOperationHistory()
	for i := len(h) - 1; i >= 0; i-- {
		r := h[i]
		if r.Name == o.GetName() && r.UID != o.GetUID() && r.Type == o.GetOperationType() && r.SpecHash == specHash && r.Reason != ReasonDeleted {
			return &h[i]
		}
	}
	return nil
}

// QueueOrder sorts waiting operations first come, first served: by
// creation time, then name (creation times have one-second resolution).
func QueueOrder(waiting []Object) {
	sort.SliceStable(waiting, func(i, j int) bool {
		a, b := waiting[i].GetCreationTimestamp(), waiting[j].GetCreationTimestamp()
		if !a.Equal(&b) {
			return a.Before(&b)
		}
		return waiting[i].GetName() < waiting[j].GetName()
	})
}
