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
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Disruption budgets: a disruptive operation takes a slot of every
// DisruptionBudget selecting its cluster before its first call, in the
// order of the budgets' names (so two operations never wait for each
// other), and gives them back when it finished. docs/operations-engine.md,
// "Disruption budgets".

const (
	errListBudgets  = "cannot list the DisruptionBudgets"
	errUpdateBudget = "cannot update the DisruptionBudget's status"
	errGetBudget    = "cannot get the DisruptionBudget"
)

// Budgets takes and gives back slots of DisruptionBudgets. Slots live in
// the budgets' status and are taken with optimistic concurrency, so two
// operations never both take the last one.
type Budgets struct {
	// Kube reads budgets and waiting operations through the cache, and
	// writes budget status.
	Kube client.Client
	// Reader reads from the API server, to confirm that a slot's holder is
	// gone before freeing its slot.
	Reader client.Reader
}

// A slotRequest is an operation asking for a slot.
type slotRequest struct {
	op      v1alpha1.BudgetedOperation
	cluster map[string]string // the cluster's labels
}

// matching returns the names of the budgets selecting a cluster with
// labels, sorted.
func (b *Budgets) matching(ctx context.Context, lbls map[string]string) ([]string, error) {
	l := &v1alpha1.DisruptionBudgetList{}
	if err := b.Kube.List(ctx, l); err != nil {
		return nil, errors.Wrap(err, errListBudgets)
	}
	var out []string
	for _, d := range l.Items {
		sel, err := metav1.LabelSelectorAsSelector(&d.Spec.ClusterSelector)
		if err != nil {
			continue // the API server's label rules admit no such selector
		}
		if sel.Matches(labels.Set(lbls)) {
			out = append(out, d.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// A slotWait says why an operation has no slot yet.
type slotWait struct {
	budget     *v1alpha1.DisruptionBudget
	position   int64
	disrupting []v1alpha1.BudgetedOperation
}

// take takes a slot of each budget named, in order, for req. It returns
// nil once req holds all of them, or the budget it waits for.
func (b *Budgets) take(ctx context.Context, names []string, req slotRequest) (*slotWait, error) {
	for _, name := range names {
		d := &v1alpha1.DisruptionBudget{}
		if err := b.Kube.Get(ctx, types.NamespacedName{Name: name}, d); err != nil {
			if kerrors.IsNotFound(err) {
				continue // deleted since it was listed: it bounds nothing
			}
			return nil, errors.Wrap(err, errGetBudget)
		}
		if holds(d.Status.Disrupting, req.op.UID) {
			continue
		}
		changed, err := b.prune(ctx, d)
		if err != nil {
			return nil, err
		}
		at := slices.IndexFunc(d.Status.Waiting, func(w v1alpha1.BudgetedOperation) bool { return w.UID == req.op.UID })
		if at < 0 {
			d.Status.Waiting = append(d.Status.Waiting, req.op)
			at, changed = len(d.Status.Waiting)-1, true
		}
		free := int(d.Spec.MaxDisrupted) - len(d.Status.Disrupting)
		granted := at < free
		if granted {
			d.Status.Waiting = slices.Delete(d.Status.Waiting, at, at+1)
			d.Status.Disrupting = append(d.Status.Disrupting, req.op)
			changed = true
		}
		if changed {
			if err := b.Kube.Status().Update(ctx, d); err != nil {
				if kerrors.IsConflict(err) {
					return &slotWait{budget: d, position: int64(at + 1), disrupting: d.Status.Disrupting}, nil // look again next time
				}
				return nil, errors.Wrap(err, errUpdateBudget)
			}
		}
		if !granted {
			return &slotWait{budget: d, position: int64(at + 1), disrupting: d.Status.Disrupting}, nil
		}
	}
	return nil, nil
}

// prune drops holders that finished or are gone (confirmed with the API
// server) and waiters the cache no longer shows running.
func (b *Budgets) prune(ctx context.Context, d *v1alpha1.DisruptionBudget) (bool, error) {
	disrupting, err := live(ctx, b.Reader, d.Status.Disrupting)
	if err != nil {
		return false, err
	}
	waiting, err := live(ctx, b.Kube, d.Status.Waiting)
	if err != nil {
		return false, err
	}
	changed := len(disrupting) != len(d.Status.Disrupting) || len(waiting) != len(d.Status.Waiting)
	d.Status.Disrupting, d.Status.Waiting = disrupting, waiting
	return changed, nil
}

// live returns the entries of ops whose operation, read through r, still
// runs.
func live(ctx context.Context, r client.Reader, ops []v1alpha1.BudgetedOperation) ([]v1alpha1.BudgetedOperation, error) {
	out := make([]v1alpha1.BudgetedOperation, 0, len(ops))
	for _, o := range ops {
		gone, err := holderGone(ctx, r, o.Namespace, &v1alpha1.OperationReference{Name: o.Name, UID: o.UID, Kind: o.Kind}, o.Kind)
		if err != nil {
			return nil, err
		}
		if !gone {
			out = append(out, o)
		}
	}
	return out, nil
}

// release gives back uid's slots of the budgets named and leaves their
// queues. A budget the cache shows without uid is read again from the API
// server: a slot taken moments ago may not show yet.
func (b *Budgets) release(ctx context.Context, names []string, uid types.UID) error {
	for _, name := range names {
		d := &v1alpha1.DisruptionBudget{}
		err := b.Kube.Get(ctx, types.NamespacedName{Name: name}, d)
		if err == nil && !listed(d, uid) && b.Reader != nil {
			err = b.Reader.Get(ctx, types.NamespacedName{Name: name}, d)
		}
		if kerrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return errors.Wrap(err, errGetBudget)
		}
		if !listed(d, uid) {
			continue
		}
		other := func(o v1alpha1.BudgetedOperation) bool { return o.UID == uid }
		d.Status.Disrupting = slices.DeleteFunc(d.Status.Disrupting, other)
		d.Status.Waiting = slices.DeleteFunc(d.Status.Waiting, other)
		if err := b.Kube.Status().Update(ctx, d); err != nil {
			return errors.Wrap(err, errUpdateBudget)
		}
	}
	return nil
}

func holds(ops []v1alpha1.BudgetedOperation, uid types.UID) bool {
	return slices.ContainsFunc(ops, func(o v1alpha1.BudgetedOperation) bool { return o.UID == uid })
}

func listed(d *v1alpha1.DisruptionBudget, uid types.UID) bool {
	return holds(d.Status.Disrupting, uid) || holds(d.Status.Waiting, uid)
}

// describeDisrupting names the operations holding a budget's slots.
func describeDisrupting(ops []v1alpha1.BudgetedOperation) string {
	if len(ops) == 0 {
		return "none yet (a slot was just given back)"
	}
	parts := make([]string, 0, len(ops))
	for _, o := range ops {
		parts = append(parts, fmt.Sprintf("%s %s/%s (%s) on %s", o.Kind, o.Namespace, o.Name, o.Type, o.Cluster))
	}
	return strings.Join(parts, ", ")
}

// takeSlots takes a slot of every DisruptionBudget selecting t for a
// disruptive operation about to make its first call. It reports whether
// the operation waits.
func (e *Engine) takeSlots(ctx context.Context, r Run, t Target, now time.Time) (bool, error) {
	o := r.Object
	st := o.GetOperationStatus()
	names, err := e.Budgets.matching(ctx, t.GetLabels())
	if err != nil {
		return true, err
	}
	if st.Disruption != nil {
		// A budget that no longer selects the cluster is left.
		gone := slices.DeleteFunc(slices.Clone(st.Disruption.Budgets), func(n string) bool { return slices.Contains(names, n) })
		if err := e.Budgets.release(ctx, gone, o.GetUID()); err != nil {
			return true, err
		}
	}
	if len(names) == 0 {
		st.Disruption = nil
		return false, nil
	}
	if current, err := e.isCurrent(ctx, o); err != nil || !current {
		return true, err
	}
	req := slotRequest{op: v1alpha1.BudgetedOperation{Kind: e.Kind, Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(),
		Type: o.GetOperationType(), Cluster: t.GetNamespace() + "/" + t.GetName(), Since: metav1.NewTime(now)}}
	wait, err := e.Budgets.take(ctx, names, req)
	if err != nil {
		return true, err
	}
	st.Disruption = &v1alpha1.DisruptionSlot{Budgets: names}
	if wait == nil {
		// The step starts now: its own timeout counts from here.
		st.Disruption.AcquiredAt = &metav1.Time{Time: now}
		st.StepStartedAt = st.Disruption.AcquiredAt.DeepCopy()
		st.QueuePosition = nil
		e.record(o, event.Normal(ReasonDisrupting, fmt.Sprintf("took a slot of DisruptionBudget %s for %s", strings.Join(names, ", "), r.TargetDescription)))
		return false, nil
	}
	before := st.Reason
	st.QueuePosition = &wait.position
	until, _ := slotDeadline(st, o.GetOperationPolicy())
	setPhase(st, v1alpha1.OperationPending, ReasonWaitingForSlot,
		"waits for a slot of DisruptionBudget %s (at most %d of the clusters it selects may run a disruptive operation at once; disrupting now: %s); queue position %d; it holds the lock on %s until %s at most, then fails DeadlineExceeded",
		wait.budget.Name, wait.budget.Spec.MaxDisrupted, describeDisrupting(wait.disrupting), wait.position, r.TargetDescription, until.UTC().Format(time.RFC3339))
	if before != ReasonWaitingForSlot {
		e.record(o, event.Normal(ReasonWaitingForSlot, st.Message))
	}
	return true, nil
}

// releaseSlots gives back an operation's disruption slots.
func (e *Engine) releaseSlots(ctx context.Context, r Run) error {
	st := r.Object.GetOperationStatus()
	if e.Budgets == nil || st.Disruption == nil {
		return nil
	}
	return e.Budgets.release(ctx, st.Disruption.Budgets, r.Object.GetUID())
}

// BudgetWaiters maps a DisruptionBudget to its waiting operations of kind,
// so a slot given back wakes them.
func BudgetWaiters(kind string) handler.MapFunc {
	return func(_ context.Context, obj client.Object) []reconcile.Request {
		d, ok := obj.(*v1alpha1.DisruptionBudget)
		if !ok {
			return nil
		}
		var out []reconcile.Request
		for _, w := range d.Status.Waiting {
			if w.Kind == kind {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: w.Namespace, Name: w.Name}})
			}
		}
		return out
	}
}
