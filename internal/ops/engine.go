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
	"strings"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/window"
)

const (
	errListQueue  = "cannot list the operations queued on the target"
	errAcquire    = "cannot take the target's lock"
	errFinish     = "cannot record the finished operation on its target"
	errDeleteTTL  = "cannot delete the operation after its TTL"
	errObserveMsg = "cannot observe the backend (%s); the operation keeps waiting and retries"
)

// An Engine runs operations of one kind. It is shared by all reconciles of
// that kind. Everything it knows about an operation is in the operation's
// status and its target's status, but for the answer to an accepted call,
// which it keeps until the next status write that carries a decision
// (answers).
type Engine struct {
	// Kind is the operation kind, e.g. ClusterOps, for metrics and logs.
	Kind string
	// Kube reads through the cache and writes the operation's status.
	Kube client.Client
	// Lock is the queue's durable lock and history on the target.
	Lock *Lock
	// Observer shares backend observations between operations.
	Observer *Observer
	// Watcher wakes running operations when the backend's view of their
	// cluster changes; nil when they poll on their own.
	Watcher *Watcher
	// Recorder emits Kubernetes events.
	Recorder event.Recorder
	// Metrics are the Prometheus metrics; DefaultMetrics when nil.
	Metrics *Metrics
	// Log is the engine's logger.
	Log logging.Logger
	// EvidenceGrace is how long the engine looks for evidence that an
	// accepted or ambiguous call took effect before judging it.
	EvidenceGrace time.Duration
	// HoldLimit is how long the backend may hold a request and still apply
	// it: a step that may re-send a call whose answer was lost first looks
	// for evidence this long (at least EvidenceGrace).
	HoldLimit time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// WindowNow is the clock maintenance windows are read on; Now when nil
	// (tests move it to open and close windows).
	WindowNow func() time.Time
	// Budgets hands out the slots of DisruptionBudgets; nil: none apply.
	Budgets *Budgets
	// Ledger keeps the record of every operation that ran, beyond the
	// target's status history; nil: the status history only (unit tests).
	Ledger *Ledger

	answers answers
	// ledgerChecked holds the operations whose own record this process
	// looked for in the ledger and did not find (ownLedgerRecord).
	ledgerChecked sync.Map
}

// A Run is one reconcile's view of one operation.
type Run struct {
	// Object is the operation.
	Object Object
	// Target is the key of the object holding the lock and history (a
	// StorageCluster); an empty name when no such object exists.
	Target types.NamespacedName
	// History is the key of the object keeping the operation's history
	// when that is not Target (a StorageNodeOps locks its cluster and keeps
	// its history on its node); empty means Target.
	History types.NamespacedName
	// TargetDescription names the target in messages, e.g.
	// "StorageCluster demo".
	TargetDescription string
	// ClusterID is the backend cluster the operation works on.
	ClusterID string
	// HistoryID is the backend id of the object keeping the history (the
	// cluster, or the node of a StorageNodeOps); it names the ledger.
	HistoryID string
	// Source is the backend.
	Source Source
	// SpecHash identifies the operation's spec, for run-once protection.
	SpecHash string
	// Plan returns the operation's steps; it may depend on the targets
	// fixed when it started.
	Plan func(targets []string) []Step
	// ChooseTargets fixes status.targets when the operation starts; nil
	// when the plan needs none.
	ChooseTargets func(s *Snapshot) []string
	// Queue lists the operations competing for the same target.
	Queue func(ctx context.Context) ([]Object, error)
	// Disruptive says the operation takes a slot of the DisruptionBudgets
	// selecting its target before its first call.
	Disruptive bool
	// Decided carries, within one reconcile, the observation Observe
	// decided a call on (made after the step started and after its last
	// call) to Trigger, as the call's baseline; nil: Trigger reads the
	// backend itself.
	Decided *Decided
}

// A Decided is the observation a call was decided on, kept for the rest of
// one reconcile (the managed reconciler's Observe, then Create or Delete).
type Decided struct {
	snap *Snapshot
	need Needs
	// carried says Observe put the call's intent on the object for the
	// finalizer's update to write (CarryIntent).
	carried bool
}

// For returns the kept observation when it covers need, else nil.
func (d *Decided) For(need Needs) *Snapshot {
	if d == nil || d.snap == nil || need.or(d.need) != d.need {
		return nil
	}
	return d.snap
}

func (d *Decided) keep(s *Snapshot, need Needs) {
	if d != nil {
		d.snap, d.need = s, need
	}
}

func (r Run) historyKey() types.NamespacedName {
	if r.History.Name == "" {
		return r.Target
	}
	return r.History
}

// history reads the object keeping r's history: t itself, or another one
// (nil when it does not exist).
func (e *Engine) history(ctx context.Context, r Run, t Target) (Target, error) {
	if r.historyKey() == r.Target {
		return t, nil
	}
	h := e.Lock.newHistory()
	if err := e.Kube.Get(ctx, r.historyKey(), h); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, errors.Wrap(err, errGetTarget)
	}
	return h, nil
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) metrics() *Metrics {
	if e.Metrics != nil {
		return e.Metrics
	}
	return DefaultMetrics()
}

// record emits ev for o. An accepted call's Triggered event that was not
// recorded yet (its answer is still unwritten) is told in ev instead of in
// an event of its own: "activate: POST … accepted; activate done".
func (e *Engine) record(o Object, ev event.Event) {
	if msg, due := e.answers.takeEvent(o.GetUID()); due {
		ev.Message = msg + "; " + ev.Message
	}
	e.emit(o, ev)
}

// emit sends ev for o as it is, without a pending Triggered event.
func (e *Engine) emit(o Object, ev event.Event) {
	if e.Recorder != nil {
		e.Recorder.Event(o, ev)
	}
}

func (e *Engine) log(o Object) logging.Logger {
	l := e.Log
	if l == nil {
		l = logging.NewNopLogger()
	}
	return l.WithValues("kind", e.Kind, "operation", o.GetNamespace()+"/"+o.GetName(), "type", o.GetOperationType())
}

// Observe advances the operation as far as it can without sending a
// backend call, and reports whether the current step's call should be
// sent now (by Trigger, the managed reconciler's Create). Its status
// changes are written by the reconciler, or, when a call is due, with the
// intent (the reconciler's client keeps them on the way to Create:
// managedcontroller.OperationClient).
func (e *Engine) Observe(ctx context.Context, r Run) (bool, error) {
	o := r.Object
	st := o.GetOperationStatus()
	before := st.DeepCopy()
	ans := e.answers.restore(o.GetUID(), st)
	trigger, err := e.observe(ctx, r)
	if err != nil {
		*st = *before
		return false, err
	}
	if ans != nil && ans.unwritten(before, st, e.now()) {
		if st.Guard != nil && st.Guard.EvidenceSeen {
			e.answers.evidenceSeen(o.GetUID())
		}
		withhold(before, st)
	} else if ans != nil {
		// The answer goes out with this pass's write, and its event with it
		// unless an event of this pass carried it (record).
		if msg, due := e.answers.takeEvent(o.GetUID()); due {
			e.emit(o, event.Normal(ReasonTriggered, msg))
		}
	}
	o.SetConditions(withTime(conditionFor(st)))
	if !kerrors.Semantic.DeepEqual(before.Phase, st.Phase) || before.Reason != st.Reason {
		e.log(o).Debug("Operation changed phase", "phase", st.Phase, "reason", st.Reason, "message", st.Message)
	}
	return trigger, nil
}

func withTime(c xpv2.Condition) xpv2.Condition {
	c.LastTransitionTime = metav1.Now()
	return c
}

//nolint:gocyclo // one linear walk through the lifecycle reads better split only by phase.
func (e *Engine) observe(ctx context.Context, r Run) (bool, error) {
	o := r.Object
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
	now := e.now()

	if isTerminal(st.Phase) {
		return false, e.observeFinished(ctx, r)
	}
	deleted, before := meta.WasDeleted(o), st.Message
	if st.SpecHash == "" {
		st.SpecHash = r.SpecHash
	}
	if st.Phase == "" {
		// No event says that an operation is queued: its status says so and
		// names what it waits for, and each event is an API write.
		setPhase(st, v1alpha1.OperationPending, ReasonQueued, "waiting for its turn on %s", r.TargetDescription)
	}

	var t Target
	if r.Target.Name != "" {
		tt := e.Lock.NewTarget()
		err := e.Kube.Get(ctx, r.Target, tt)
		if err != nil && !apierrors.IsNotFound(err) {
			return false, errors.Wrap(err, errGetTarget)
		}
		if err == nil {
			t = tt
		}
	}
	if t == nil {
		if deleted {
			return false, nil // nothing to release or record: Released lets it go
		}
		if limit := preconditionTimeout(pol); now.Sub(o.GetCreationTimestamp().Time) > limit {
			return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonTargetNotFound,
				fmt.Sprintf("%s does not exist %s after the operation was created (preconditionTimeoutSeconds); nothing was sent to the backend", r.TargetDescription, limit))
		}
		setPhase(st, v1alpha1.OperationPending, ReasonWaitingForTarget, "waiting for %s to exist", r.TargetDescription)
		return false, nil
	}

	hist, err := e.history(ctx, r, t)
	if err != nil {
		return false, err
	}
	// A record of this very operation means it finished, and a crash or a
	// failed write came before its own status was written. The lock (kept
	// on another object than the record, for a StorageNodeOps) and its
	// disruption slots may still be held: they are given back now.
	if hist != nil {
		if rec := RecordOf(hist, o.GetUID()); rec != nil {
			st.Phase, st.Reason, st.Message, st.CompletedAt = rec.Phase, rec.Reason, rec.Message, rec.CompletedAt
			if Holds(t, o) {
				if err := e.Lock.FinishIn(ctx, r.Target, r.Target, o, nil, e.successor(ctx, r), nil); err != nil {
					return false, errors.Wrap(err, errFinish)
				}
			}
			return false, errors.Wrap(e.releaseSlots(ctx, r), errFinish)
		}
	}
	// A record of it only in the ledger: its finish crashed between the
	// ledger write and the lock's release. Looked for once per process.
	if rec, err := e.ownLedgerRecord(ctx, r, t); err != nil || rec != nil {
		if err != nil {
			return false, err
		}
		st.Phase, st.Reason, st.Message, st.CompletedAt = rec.Phase, rec.Reason, rec.Message, rec.CompletedAt
		if err := e.Lock.FinishIn(ctx, r.Target, r.historyKey(), o, rec, e.successor(ctx, r), nil); err != nil {
			return false, errors.Wrap(err, errFinish)
		}
		return false, errors.Wrap(e.releaseSlots(ctx, r), errFinish)
	}
	holds := Holds(t, o)
	// An operation handed the lock by the one before it (Lock.FinishIn) holds
	// it before it started: until it starts, it is still queued.
	queued := !holds || st.StartedAt == nil
	if queued && st.StartedAt == nil {
		twin, err := e.twin(ctx, r, hist)
		if err != nil {
			return false, err
		}
		if twin != nil {
			st.CompletedAt = &metav1.Time{Time: now}
			setPhase(st, twin.Phase, ReasonAlreadyCompleted,
				"an operation with this name and spec already ran (%s); it is not run again, use a new name to run it again", twinOf(twin))
			e.record(o, event.Normal(ReasonAlreadyCompleted, st.Message))
			return false, e.passOn(ctx, r, holds)
		}
	}
	if !holds && st.StartedAt != nil {
		if st.Guard != nil || st.Triggered || st.Attempts > 0 {
			return false, e.finish(ctx, r, v1alpha1.OperationFailed, "LockLost",
				fmt.Sprintf("the lock on %s was taken by %s while this operation was running; check the target before running it again",
					r.TargetDescription, holderName(t)))
		}
		st.StartedAt = nil // lost the lock before doing anything: queue again
	}

	if deleted && queued {
		return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeleted, "deleted while queued; nothing was sent to the backend")
	}
	if pol.Cancel && queued {
		return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonCancelled, "cancelled while queued; nothing was sent to the backend")
	}

	started := queued // leaves the queue in this pass
	if !holds {
		if waiting, err := e.waitForWindowToStart(ctx, r); waiting || err != nil {
			return false, err
		}
		acquired, err := e.queue(ctx, r, t)
		if err != nil || !acquired {
			return false, err
		}
	}
	if hist != nil && r.historyKey() != r.Target {
		if err := e.Lock.Show(ctx, hist, o); err != nil && !apierrors.IsConflict(err) {
			return false, err
		}
	}
	if st.StartedAt == nil {
		// The lock is taken: the preconditions are checked in this same
		// pass, and the first call sent if they hold. The time is read
		// after taking the lock, so it is later than the previous holder's
		// last call (decisions are taken on observations made after it).
		st.StartedAt = &metav1.Time{Time: e.now()}
		st.StepStartedAt = st.StartedAt.DeepCopy()
		st.QueuePosition = nil
		setPhase(st, v1alpha1.OperationPending, ReasonWaitingForPrecond, "holds the lock on %s; checking preconditions", r.TargetDescription)
	}
	due, err := e.run(ctx, r, t, now)
	if err == nil && deleted && !isTerminal(st.Phase) {
		e.noteStopping(r, before)
	}
	// An operation whose first call is due in this same pass is announced
	// by its Triggered event instead: each event is an API write.
	if started && err == nil && !due {
		e.record(o, event.Normal("Started", "left the queue and holds the lock on "+r.TargetDescription))
	}
	return due, err
}

// queue computes the operation's place in its target's queue and takes the
// lock when it is first. It returns whether the operation holds the lock.
func (e *Engine) queue(ctx context.Context, r Run, t Target) (bool, error) {
	o := r.Object
	st := o.GetOperationStatus()
	all, err := r.Queue(ctx)
	if err != nil {
		return false, errors.Wrap(err, errListQueue)
	}
	waiting := QueueOf(all, t.GetActiveOperation(), o)
	e.metrics().QueueDepth.WithLabelValues(e.Kind, r.Target.String()).Set(float64(len(waiting)))
	pos := waiting.Position(o)
	takeable := false
	if pos == 1 {
		if takeable, err = e.Lock.takeable(ctx, t, o); err != nil {
			return false, errors.Wrap(err, errAcquire)
		}
	}
	if takeable {
		if current, err := e.isCurrent(ctx, o); err != nil || !current {
			return false, err
		}
		acquired, takenOver, err := e.Lock.Acquire(ctx, t, o)
		if err != nil {
			return false, errors.Wrap(err, errAcquire)
		}
		if acquired {
			if takenOver != "" {
				e.record(o, event.Normal("LockTakenOver", fmt.Sprintf("took over the lock on %s from %s, which no longer runs", r.TargetDescription, takenOver)))
			}
			e.metrics().QueueDepth.WithLabelValues(e.Kind, r.Target.String()).Set(float64(len(waiting) - 1))
			return true, nil
		}
	}
	st.QueuePosition = &pos
	free, known := e.now(), true
	by := ""
	if h := t.GetActiveOperation(); h != nil {
		if free, known = holdsUntil(all, h); known {
			by = " by " + free.UTC().Format(time.RFC3339) + " at most"
		}
		setPhase(st, v1alpha1.OperationPending, ReasonQueued, "waiting for %s (%s) to finish on %s%s; queue position %d",
			h.Name, h.Type, r.TargetDescription, by, pos)
	} else {
		setPhase(st, v1alpha1.OperationPending, ReasonQueued, "waiting for its turn on %s; queue position %d", r.TargetDescription, pos)
	}
	if known && pos > 1 {
		budgets, err := e.budgetsOn(ctx, t)
		if err != nil {
			return false, err
		}
		st.Message += fmt.Sprintf("; its turn comes by %s at most (the %d ahead of it each within its timeouts)",
			turnBy(waiting, o, free, budgets).UTC().Format(time.RFC3339), pos-1)
	}
	return false, nil
}

// budgetsOn reports whether a DisruptionBudget selects t: an operation
// there may wait for a slot.
func (e *Engine) budgetsOn(ctx context.Context, t Target) (bool, error) {
	if e.Budgets == nil {
		return false, nil
	}
	names, err := e.Budgets.matching(ctx, t.GetLabels())
	return len(names) > 0, err
}

// isCurrent reports whether o is the operation as the API server has it
// now. A copy from the cache can be older than the operation's own last
// write: a stale copy of an operation that finished since must not take a
// lock or a slot again (its guard would stop it from sending, but the lock
// would show a finished operation as running).
func (e *Engine) isCurrent(ctx context.Context, o Object) (bool, error) {
	if e.Lock.Reader == nil {
		return true, nil
	}
	cur := newOperation(e.Lock.Kind)
	if err := e.Lock.Reader.Get(ctx, types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}, cur); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return cur.GetResourceVersion() == o.GetResourceVersion(), nil
}

func holderName(t Target) string {
	if h := t.GetActiveOperation(); h != nil {
		return h.Name
	}
	return "nobody"
}

// run works on the current step of an operation holding the lock.
//
//nolint:gocyclo // the guard's cases are easiest to audit side by side.
func (e *Engine) run(ctx context.Context, r Run, t Target, now time.Time) (bool, error) {
	o := r.Object
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()

	since := runningSince(st, pol)
	expired := since != nil && now.Sub(since.Time) > timeout(pol)
	steps := r.Plan(st.Targets)
	// Approval and the window hold a step whose call was not sent, without
	// watching the backend.
	if int(st.Step) < len(steps) && st.Guard == nil && !stopRequested(o) {
		if nothingTookEffect(st) && pol.Approval == v1alpha1.ApprovalRequired && st.ApprovedAt == nil {
			if waiting, err := e.awaitApproval(ctx, r, now); waiting || err != nil {
				return false, err
			}
			steps = r.Plan(st.Targets)
		}
		if waiting, err := e.holdForWindow(ctx, r, steps[st.Step], len(steps), expired); waiting || err != nil {
			return false, err
		}
		if r.Disruptive && e.Budgets != nil && nothingTookEffect(st) && (st.Disruption == nil || st.Disruption.AcquiredAt == nil) {
			if until, ok := slotDeadline(st, pol); ok && now.After(until) {
				return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeadlineExceeded, fmt.Sprintf(
					"no slot of DisruptionBudget %s became free within %s (timeoutSeconds) after it started; nothing was sent to the backend",
					strings.Join(st.Disruption.Budgets, ", "), timeout(pol)))
			}
			if waiting, err := e.takeSlots(ctx, r, t, now); waiting || err != nil {
				return false, err
			}
		}
	}
	// What the step reads: before its call what its skip and gate read,
	// after it what its evidence and check read (a rebalance's are the
	// tasks and the record, not the log, so it is not probed for).
	need := Needs{}
	if int(st.Step) < len(steps) {
		need = steps[st.Step].Needs
		if g := st.Guard; g != nil && g.Step == st.Step {
			need = steps[st.Step].watches()
		}
	}
	if r.ChooseTargets != nil && len(st.Targets) == 0 {
		need.Nodes = true
	}
	// Skipping the call or sending it is decided on what the backend shows
	// now: a shared observation older than this step (and so, possibly,
	// than the previous operation's last call) is not enough, and the
	// parts that are newer are not read again.
	observedAfter := time.Time{}
	if deciding(st, now) {
		observedAfter = decideAfter(st)
	}
	snap, err := e.Observer.Since(ctx, r.Source, r.ClusterID, need, observedAfter)
	if err != nil {
		if expired {
			return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeadlineExceeded,
				fmt.Sprintf("did not finish within %s%s; last seen: %s", timeout(pol), e.where(r), st.Message))
		}
		// A backend that cannot be read does not fail the operation; the
		// deadline bounds the wait.
		st.Message = truncate(fmt.Sprintf(errObserveMsg, err), 1000)
		return false, nil
	}
	if r.ChooseTargets != nil && len(st.Targets) == 0 {
		st.Targets = r.ChooseTargets(snap)
		if len(st.Targets) == 0 {
			return false, e.finish(ctx, r, v1alpha1.OperationSucceeded, ReasonNothingToDo, "there is nothing to work on")
		}
		return false, nil
	}
	// An answered call whose end the cluster record shows may be watched
	// at the slow pace (Step.EndInRecord).
	endInRecord := st.Guard != nil && st.Guard.Answered && int(st.Step) < len(steps) && steps[st.Step].EndInRecord
	e.Watcher.Watch(e.Kind, r.Source, r.ClusterID, need, endInRecord, snap, types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
	if int(st.Step) >= len(steps) {
		return false, e.finish(ctx, r, v1alpha1.OperationSucceeded, ReasonCompleted, "all steps done")
	}
	step := steps[st.Step]
	setProgress(st, step, len(steps))

	stepExpired := step.Timeout > 0 && st.StepStartedAt != nil && now.Sub(st.StepStartedAt.Time) > step.Timeout
	if expired || stepExpired {
		what := fmt.Sprintf("did not finish within %s", timeout(pol))
		if !expired {
			what = fmt.Sprintf("%s did not finish within %s", step.Name, step.Timeout)
		}
		return false, e.expire(ctx, r, step, snap, len(steps), now, what)
	}

	if g := st.Guard; g != nil && g.Step == st.Step {
		return false, e.watch(ctx, r, step, snap, len(steps), now)
	}

	// The step's call has not been sent.
	if stopRequested(o) && (nothingTookEffect(st) || step.SafePoint) {
		return false, e.stop(ctx, r, step)
	}
	if st.NextAttemptAt != nil {
		if now.Before(st.NextAttemptAt.Time) {
			return false, nil
		}
		st.NextAttemptAt = nil
	}
	if step.Skip != nil {
		if skip, why := step.Skip(snap); skip {
			return false, e.advance(ctx, r, len(steps), ReasonNothingToDo, why)
		}
	}
	if step.Gate != nil {
		waiting, refusal := step.Gate(snap)
		if refusal != "" {
			return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonPreconditionFailed, step.Name+": "+refusal)
		}
		if waiting != "" {
			if limit, since := gateLimit(st, step, pol); limit > 0 && since != nil && now.Sub(since.Time) > limit {
				return false, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonPreconditionTimeout,
					fmt.Sprintf("%s: still waiting after %s: %s", step.Name, limit, waiting))
			}
			phase := v1alpha1.OperationRunning
			if st.Attempts == 0 && st.Step == 0 {
				phase = v1alpha1.OperationPending
			}
			setPhase(st, phase, ReasonWaitingForPrecond, "%s: waiting: %s", step.Name, waiting)
			return false, nil
		}
	}
	if step.Call == nil {
		// A step that only waits starts watching now.
		st.Guard = &v1alpha1.OperationGuard{Step: st.Step, Outcome: v1alpha1.GuardSent, IntendedAt: metav1.NewTime(now),
			ResolvedAt: &metav1.Time{Time: now}, BaselineStatus: step.baseline(snap), BaselineEvent: snap.LogPosition()}
		st.Triggered = true
		setPhase(st, v1alpha1.OperationRunning, ReasonInProgress, "%s", step.Name)
		return false, nil
	}
	if st.Attempts == 0 {
		setPhase(st, v1alpha1.OperationPending, ReasonWaitingForPrecond, "%s: preconditions hold; sending %s", step.Name, step.Path)
	} else {
		setPhase(st, v1alpha1.OperationRunning, ReasonInProgress, "%s: sending %s", step.Name, step.Path)
	}
	// The call is decided on snap, made after the step started and after
	// its last call: it is the call's baseline.
	r.Decided.keep(snap, need)
	return true, nil
}

// watch follows a step whose call was intended, sent or ambiguous.
func (e *Engine) watch(ctx context.Context, r Run, step Step, snap *Snapshot, total int, now time.Time) error {
	o := r.Object
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
	g := st.Guard
	b := Baseline{Status: g.BaselineStatus, Event: g.BaselineEvent, At: g.IntendedAt.Time, Sent: g.Answered, EvidenceSeen: g.EvidenceSeen}
	if !g.EvidenceSeen && step.Evidence != nil && step.Evidence(b, snap) {
		g.EvidenceSeen, b.EvidenceSeen = true, true
	}

	switch g.Outcome {
	case v1alpha1.GuardIntended, v1alpha1.GuardAmbiguous:
		if g.EvidenceSeen {
			g.Outcome, g.ResolvedAt, st.Triggered = v1alpha1.GuardSent, &metav1.Time{Time: now}, true
			e.metrics().GuardResolutions.WithLabelValues("evidence").Inc()
			setPhase(st, v1alpha1.OperationRunning, ReasonTriggered, "%s: the backend shows that %s took effect", step.Name, step.Path)
			e.record(o, event.Normal(ReasonTriggered, st.Message))
			return nil
		}
		what := "its answer was lost"
		if g.Outcome == v1alpha1.GuardIntended {
			what = "the provider stopped between recording the intent and the answer"
		}
		grace := e.EvidenceGrace
		if step.OnLostAnswer != LostAnswerFails {
			grace = max(grace, e.HoldLimit)
		}
		if now.Sub(g.IntendedAt.Time) < grace {
			setPhase(st, v1alpha1.OperationRunning, ReasonResolving,
				"%s: %s may have been sent (%s); looking for evidence that it took effect", step.Name, step.Path, what)
			return nil
		}
		switch step.OnLostAnswer {
		case LostAnswerResends:
			if st.StepAttempts < maxAttempts(pol) {
				e.metrics().GuardResolutions.WithLabelValues("resent").Inc()
				st.Guard = nil
				setPhase(st, v1alpha1.OperationRunning, ReasonInProgress,
					"%s: no evidence that %s took effect within %s, and the backend can no longer apply it; sending it again is harmless", step.Name, step.Path, grace)
				return nil
			}
		case LostAnswerAsks:
			return e.ask(ctx, r, step, what, grace)
		case LostAnswerFails:
		}
		e.metrics().GuardResolutions.WithLabelValues("unknown").Inc()
		return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonOutcomeUnknown, fmt.Sprintf(
			"%s: %s may or may not have reached the backend (%s) and it showed no evidence within %s. Sending it again could be harmful, so the operation stops; check %s before creating a new operation",
			step.Name, step.Path, what, grace, checkHint(step)))
	}

	// Sent: judge the backend's progress.
	if step.WithoutEvidence != AnswerSuffices && !g.EvidenceSeen {
		since := g.IntendedAt.Time
		if g.ResolvedAt != nil {
			since = g.ResolvedAt.Time
		}
		if now.Sub(since) < e.EvidenceGrace {
			setPhase(st, v1alpha1.OperationRunning, ReasonTriggered, "%s: waiting for the backend to act on %s", step.Name, step.Path)
			return nil
		}
		if step.WithoutEvidence == NoEvidenceMeansDone {
			return e.advance(ctx, r, total, ReasonCompleted, step.DoneWithoutEvidence)
		}
		if limit, since := gateLimit(st, step, pol); step.WithoutEvidence == NoEvidenceSendsAgain && (limit == 0 || since == nil || now.Sub(since.Time) <= limit) {
			next := metav1.NewTime(now.Add(min(backoff(pol, st.StepAttempts), refusedForNowBackoff)))
			st.Guard, st.Triggered, st.NextAttemptAt = nil, false, &next
			setPhase(st, v1alpha1.OperationRunning, ReasonWaitingForPrecond,
				"%s: waiting: the backend accepted %s but did not act on it within %s (it refuses silently for now, e.g. while an lvol migration runs); sending it again at %s",
				step.Name, step.Path, e.EvidenceGrace, next.UTC().Format("15:04:05"))
			e.record(o, event.Normal(ReasonRefusedForNow, st.Message))
			return nil
		}
		return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonNoEffect, fmt.Sprintf(
			"%s: the backend accepted %s but showed no sign of acting on it within %s (it refuses some requests silently after accepting them); check %s%s",
			step.Name, step.Path, e.EvidenceGrace, orDefault(step.CheckHint, "the cluster's logs"), step.now(snap)))
	}
	v := step.Check(b, snap)
	switch {
	case v.Failure != "":
		return e.finish(ctx, r, v1alpha1.OperationFailed, orDefault(v.Reason, "Failed"), step.Name+": "+v.Failure+step.now(snap))
	case v.Done:
		return e.advance(ctx, r, total, ReasonCompleted, step.Name+" done")
	default:
		if pol.Cancel && !meta.WasDeleted(o) {
			setPhase(st, v1alpha1.OperationRunning, ReasonInProgress,
				"%s: %s (cancel requested: the backend call was already sent and cannot be stopped; the operation stops before its next cancellable step)", step.Name, v.Progress)
			return nil
		}
		setPhase(st, v1alpha1.OperationRunning, ReasonInProgress, "%s: %s", step.Name, v.Progress)
		return nil
	}
}

// expire ends an operation past a deadline. A step whose call was sent is
// judged once more on the fresh snapshot first, so a step that finished or
// failed right at the deadline is reported as such, and the message names
// what the backend shows now rather than at the previous reconcile.
func (e *Engine) expire(ctx context.Context, r Run, step Step, snap *Snapshot, total int, now time.Time, what string) error {
	st := r.Object.GetOperationStatus()
	where := e.where(r)
	if g := st.Guard; g != nil && g.Step == st.Step && g.Outcome == v1alpha1.GuardSent {
		before := st.Step
		if err := e.watch(ctx, r, step, snap, total, now); err != nil || st.CompletedAt != nil || st.Step != before {
			return err
		}
	}
	return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeadlineExceeded,
		fmt.Sprintf("%s%s; last seen: %s%s", what, where, st.Message, step.now(snap)))
}

// ask waits for the user's decision about a call whose answer was lost: a
// re-send confirmed with the guard's token, or cancel to give up.
func (e *Engine) ask(ctx context.Context, r Run, step Step, what string, grace time.Duration) error {
	st, pol := r.Object.GetOperationStatus(), r.Object.GetOperationPolicy()
	token := ResendToken(st.Guard)
	switch {
	case pol.ConfirmResend == token:
		e.metrics().GuardResolutions.WithLabelValues("confirmed").Inc()
		st.Guard = nil
		setPhase(st, v1alpha1.OperationRunning, ReasonInProgress, "%s: re-sending %s as confirmed (confirmResend %s)", step.Name, step.Path, token)
		e.record(r.Object, event.Normal(ReasonResendConfirmed, st.Message))
		return nil
	case stopRequested(r.Object):
		e.metrics().GuardResolutions.WithLabelValues("unknown").Inc()
		how := "cancelled"
		if meta.WasDeleted(r.Object) {
			how = "deleted"
		}
		return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonOutcomeUnknown, fmt.Sprintf(
			"%s: %s while waiting for a decision: %s may or may not have reached the backend (%s); check %s", step.Name, how, step.Path, what, checkHint(step)))
	}
	before := st.Reason
	setPhase(st, v1alpha1.OperationRunning, ReasonAwaitingConfirmation,
		"%s: %s may or may not have reached the backend (%s) and it showed no evidence within %s. Sending it again is harmless now, but a late original would not be once the operation moves on, so it waits for you: check %s, then set spec.forProvider.confirmResend to %q to send it again, or cancel: true to give up",
		step.Name, step.Path, what, grace, checkHint(step), token)
	if before != ReasonAwaitingConfirmation {
		e.record(r.Object, event.Warning(ReasonAwaitingConfirmation, errors.New(st.Message)))
	}
	return nil
}

// ResendToken is the value of confirmResend that confirms re-sending the
// call guarded by g: its step and attempt.
func ResendToken(g *v1alpha1.OperationGuard) string {
	return fmt.Sprintf("%d/%d", g.Step, g.Attempt)
}

func checkHint(step Step) string {
	return orDefault(step.CheckHint, "the cluster's status and logs")
}

// gateLimit bounds the wait for a step's gate (and for refusals that hold
// only for now): the precondition timeout from the start for the first
// step, the step's GateTimeout from its start for later ones (0: none).
func gateLimit(st *v1alpha1.OperationStatus, step Step, pol v1alpha1.OperationPolicy) (time.Duration, *metav1.Time) {
	if st.Step == 0 && step.GateTimeout == 0 {
		return preconditionTimeout(pol), runningSince(st, pol)
	}
	return step.GateTimeout, st.StepStartedAt
}

// deciding reports whether a reconcile at now may skip or send the current
// step's call: it was not sent, and no backoff holds it.
func deciding(st *v1alpha1.OperationStatus, now time.Time) bool {
	if g := st.Guard; g != nil && g.Step == st.Step {
		return false
	}
	return st.NextAttemptAt == nil || !now.Before(st.NextAttemptAt.Time)
}

// decideAfter is the time an observation must be newer than for the
// current step's decisions: the step's start and its last call. Status
// times are stored to the second, so a truncated one counts as a second
// later.
func decideAfter(st *v1alpha1.OperationStatus) time.Time {
	var t time.Time
	if st.StepStartedAt != nil {
		t = st.StepStartedAt.Time
	}
	if n := len(st.Calls); n > 0 && st.Calls[n-1].Time.After(t) {
		t = st.Calls[n-1].Time.Time
	}
	if t.Nanosecond() == 0 && !t.IsZero() {
		t = t.Add(time.Second)
	}
	return t
}

// nothingTookEffect reports that the operation is at its first step and
// every call it sent was refused or failed before the backend acted (for
// example refused for now while a migration runs): cancelling it leaves the
// target as it was.
func nothingTookEffect(st *v1alpha1.OperationStatus) bool {
	if st.Step != 0 || st.Guard != nil || int64(len(st.Calls)) != st.Attempts {
		return st.Attempts == 0
	}
	for _, c := range st.Calls {
		if r, _, _ := strings.Cut(c.Result, ":"); r != callRetryable.String() && r != callRejected.String() && r != callRefusedForNow.String() {
			return false
		}
	}
	return true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// advance finishes the current step and moves to the next, or finishes
// the operation after the last.
func (e *Engine) advance(ctx context.Context, r Run, total int, reason, msg string) error {
	st := r.Object.GetOperationStatus()
	if int(st.Step)+1 >= total {
		if st.Progress != nil {
			st.Progress.Done = st.Progress.Total
			st.Progress.Current = ""
		}
		return e.finish(ctx, r, v1alpha1.OperationSucceeded, reason, msg)
	}
	st.Step++
	st.Guard, st.Triggered, st.StepAttempts, st.NextAttemptAt = nil, false, 0, nil
	st.StepStartedAt = &metav1.Time{Time: e.now()}
	setPhase(st, v1alpha1.OperationRunning, ReasonInProgress, "%s", msg)
	e.record(r.Object, event.Normal("StepDone", msg))
	return nil
}

func setProgress(st *v1alpha1.OperationStatus, s Step, total int) {
	p := &v1alpha1.OperationProgress{Done: st.Step, Total: int64(total), Current: s.Name}
	if s.ProgressTotal > 0 {
		p.Done, p.Total, p.Unit = s.ProgressDone, s.ProgressTotal, s.ProgressUnit
	}
	st.Progress = p
}

// where describes the current step for deadline messages.
func (e *Engine) where(r Run) string {
	st := r.Object.GetOperationStatus()
	s := ""
	if st.Progress != nil && st.Progress.Current != "" {
		s = fmt.Sprintf(" (at %s)", st.Progress.Current)
	}
	if st.Guard != nil && st.Guard.Outcome != v1alpha1.GuardSent {
		s += "; the outcome of its last backend call is unknown"
	}
	return s
}

// finish ends the operation: the target's lock is released and the
// history record written first, in one write, then the operation's own
// status (persisted by the reconciler). A crash in between is repaired by
// Observe, which finds the record.
func (e *Engine) finish(ctx context.Context, r Run, phase v1alpha1.OperationPhase, reason, msg string) error {
	o := r.Object
	st := o.GetOperationStatus()
	reason, msg = e.deletedOutcome(ctx, r, phase, reason, msg)
	now := metav1.NewTime(e.now())
	st.CompletedAt = &now
	st.QueuePosition, st.NextAttemptAt = nil, nil
	e.ledgerChecked.Delete(o.GetUID())
	setPhase(st, phase, reason, "%s", truncate(msg, 2000))
	e.Watcher.Unwatch(e.Kind, r.Source, r.ClusterID, types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
	if st.StartedAt != nil {
		rec, err := e.toLedger(ctx, r)
		if err != nil {
			return err
		}
		phase, reason = st.Phase, st.Reason // the ledger's, when an earlier finish wrote it
		CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterLedger, 0)
		if err := e.Lock.FinishIn(ctx, r.Target, r.historyKey(), o, &rec, e.successor(ctx, r), e.seenAfterCalls(r)); err != nil {
			return errors.Wrap(err, errFinish)
		}
		CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterRelease, 0)
	} else if err := e.passOn(ctx, r, e.heldInCache(ctx, r)); err != nil {
		return err
	}
	if err := e.releaseSlots(ctx, r); err != nil {
		return errors.Wrap(err, errFinish)
	}
	m := e.metrics()
	m.Finished.WithLabelValues(e.Kind, o.GetOperationType(), string(phase), reason).Inc()
	if st.StartedAt != nil {
		m.Duration.WithLabelValues(e.Kind, o.GetOperationType(), string(phase)).Observe(now.Sub(st.StartedAt.Time).Seconds())
	}
	if phase == v1alpha1.OperationSucceeded {
		e.record(o, event.Normal(event.Reason(reason), st.Message))
	} else {
		e.record(o, event.Warning(event.Reason(reason), errors.New(st.Message)))
	}
	return nil
}

// seenAfterCalls is the newest shared observation of r's cluster made
// after the operation's last call, for the finishing write to show; nil
// when it sent none (its target is as it was) or there is no such
// observation.
func (e *Engine) seenAfterCalls(r Run) *Snapshot {
	st := r.Object.GetOperationStatus()
	if len(st.Calls) == 0 || e.Observer == nil {
		return nil
	}
	return e.Observer.Seen(r.Source, r.ClusterID, decideAfter(st))
}

// successor returns the operation r's lock passes to when r's operation
// gives it up (docs/operations-engine.md, "Handing the lock over"): the
// first in its target's queue that would take it now, passing over those
// that end or wait without it (cancelled, or with a maintenance window that
// is closed or cannot be read). Nobody when the queue cannot be read.
func (e *Engine) successor(ctx context.Context, r Run) Object {
	if r.Queue == nil {
		return nil
	}
	all, err := r.Queue(ctx)
	if err != nil {
		return nil
	}
	for _, next := range QueueOf(all, e.Lock.refTo(r.Object), nil) {
		pol := next.GetOperationPolicy()
		if pol.Cancel {
			continue
		}
		if pol.Window != nil {
			w, err := window.Parse(*pol.Window)
			if err != nil {
				continue
			}
			if open, _ := w.Open(e.windowNow()); !open {
				continue
			}
		}
		return next
	}
	return nil
}

// heldInCache reports whether the cached target shows r's operation
// holding its lock.
func (e *Engine) heldInCache(ctx context.Context, r Run) bool {
	if r.Target.Name == "" {
		return false
	}
	t, err := e.Lock.getTarget(ctx, r.Target)
	return err == nil && Holds(t, r.Object)
}

// passOn gives the lock of an operation that was handed it and ends before
// it started (a twin, cancelled, deleted) to the next in line.
func (e *Engine) passOn(ctx context.Context, r Run, holds bool) error {
	if !holds {
		return nil
	}
	return errors.Wrap(e.Lock.FinishIn(ctx, r.Target, r.historyKey(), r.Object, nil, e.successor(ctx, r), nil), errFinish)
}

func recordFor(o Object) v1alpha1.OperationRecord {
	st := o.GetOperationStatus()
	return v1alpha1.OperationRecord{Name: o.GetName(), UID: o.GetUID(), Type: o.GetOperationType(), Phase: st.Phase,
		Reason: st.Reason, Message: truncate(st.Message, 500), StartedAt: st.StartedAt, CompletedAt: st.CompletedAt, SpecHash: st.SpecHash}
}

// observeFinished releases a lock a finished operation may still hold and
// deletes the object once its TTL passed. It never calls the backend, and
// reads only through Kube: finish released the lock, confirmed, before the
// finished status it reads was written.
func (e *Engine) observeFinished(ctx context.Context, r Run) error {
	o := r.Object
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
	if e.heldInCache(ctx, r) {
		if err := e.Lock.Release(ctx, r.Target, o, e.successor(ctx, r)); err != nil {
			return errors.Wrap(err, errFinish)
		}
	}
	if err := e.releaseSlots(ctx, r); err != nil {
		return errors.Wrap(err, errFinish)
	}
	if pol.TTLSecondsAfterFinished == nil || st.CompletedAt == nil || o.GetDeletionTimestamp() != nil {
		return nil
	}
	if e.now().Before(st.CompletedAt.Add(Seconds(*pol.TTLSecondsAfterFinished))) {
		return nil
	}
	if err := e.Kube.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
		return errors.Wrap(err, errDeleteTTL)
	}
	e.log(o).Debug("Deleted finished operation after its TTL")
	return nil
}

// Released reports whether a deleted operation has given up its lock and
// left its record, so its finalizer may go.
func (e *Engine) Released(ctx context.Context, r Run) (bool, error) {
	if r.Target.Name == "" {
		return true, nil
	}
	t := e.Lock.NewTarget()
	if err := e.Kube.Get(ctx, r.Target, t); err != nil {
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	st := r.Object.GetOperationStatus()
	hist, err := e.history(ctx, r, t)
	if err != nil {
		return false, err
	}
	recorded := st.StartedAt == nil || isTerminal(st.Phase) || hist == nil || RecordOf(hist, r.Object.GetUID()) != nil
	return !Holds(t, r.Object) && recorded, nil
}

// outcomeOf summarizes a history record: "Failed: DeletedWhileRunning: …".
// twinOf names a twin's record in a message: its uid and outcome, or, for
// a compacted ledger record, its phase.
func twinOf(r *v1alpha1.OperationRecord) string {
	if r.UID == "" {
		return fmt.Sprintf("the ledger's compacted record says %s", r.Phase)
	}
	return fmt.Sprintf("uid %s, %s", r.UID, outcomeOf(r))
}

func outcomeOf(r *v1alpha1.OperationRecord) string {
	s := fmt.Sprintf("%s: %s", r.Phase, r.Reason)
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s
}

func currentOf(st *v1alpha1.OperationStatus) string {
	if st.Progress == nil {
		return ""
	}
	return st.Progress.Current
}
