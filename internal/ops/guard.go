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
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

const (
	errRecordIntent  = "cannot record the intent to call the backend; nothing was sent"
	errRecordOutcome = "cannot record the outcome of the backend call"
	errBaseline      = "cannot observe the backend before the call; nothing was sent"
)

// A callResult classifies a backend call's error.
type callResult int

const (
	callAccepted      callResult = iota // 2xx
	callAmbiguous                       // may have taken effect
	callRetryable                       // definitely not acted on; may be sent again
	callRejected                        // the backend refused it; sending again would not help
	callRefusedForNow                   // the backend refused it for now; it is sent again later
)

func classify(err error, s Step) callResult {
	res := classifyError(err, s)
	if res == callRejected && s.RefusedForNow != nil {
		var se *sb.Error
		if errors.As(err, &se) && s.RefusedForNow(se.StatusCode, se.Message) {
			return callRefusedForNow
		}
	}
	return res
}

func classifyError(err error, s Step) callResult {
	switch {
	case err == nil:
		return callAccepted
	case sb.MayHaveTakenEffect(err):
		return callAmbiguous
	case s.OnServerError == ServerErrorIsAmbiguous && sb.IsServerError(err):
		return callAmbiguous
	case s.OnServerError == ServerErrorIsRefusal && statusOf(err) == http.StatusInternalServerError:
		return callRejected
	case sb.NotSent(err), sb.IsServerError(err), sb.IsUnauthorized(err):
		return callRetryable
	default:
		return callRejected
	}
}

func statusOf(err error) int {
	var se *sb.Error
	if errors.As(err, &se) {
		return se.StatusCode
	}
	return 0
}

func (r callResult) String() string {
	return [...]string{"Accepted", "Ambiguous", "Failed", "Rejected", "RefusedForNow"}[r]
}

// Trigger sends the current step's call under the write-ahead guard:
//
//  1. observe the backend, for the baseline evidence is judged against: the
//     observation Observe decided the call on in the same reconcile (made
//     after the step started and after its last call), else a fresh one;
//  2. persist the intent (guard outcome Intended) with optimistic
//     concurrency, so a stale copy of the object can never send: in the
//     status, or, for an operation's first call, with its finalizer
//     (CarryIntent);
//  3. send the call;
//  4. persist the outcome (Ambiguous, or cleared for a retry); an accepted
//     call's answer (Sent) is kept in memory and written with the next
//     decision, at most AnswerHold later (answers).
//
// A crash after 2 leaves the intent behind, which Observe resolves by
// evidence and never by sending again blindly. Trigger is the managed
// reconciler's Create; it returns an error only when nothing was decided.
func (e *Engine) Trigger(ctx context.Context, r Run) error {
	o := r.Object
	st := o.GetOperationStatus()
	// The intent of an operation's first call went out with its finalizer
	// (CarryIntent); any other is written here.
	if !intentWritten(r) {
		due, err := e.intend(ctx, r)
		if err != nil || !due {
			return err
		}
		if err := e.Kube.Status().Update(ctx, o); err != nil {
			return errors.Wrap(err, errRecordIntent)
		}
	}
	steps := r.Plan(st.Targets)
	step := steps[st.Step]
	deleted := meta.WasDeleted(o)
	CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterIntent, st.Step)
	written := st.DeepCopy()

	callErr := step.Call(ctx, r.Source.API)
	CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterCall, st.Step)

	finished := e.applyOutcome(o, step, callErr)
	switch {
	case finished:
		// A refusal ends the operation. Releasing the lock may fail here;
		// Observe of the finished operation releases it then.
		_ = e.finish(ctx, r, st.Phase, st.Reason, st.Message)
	case deleted:
		if st.Guard != nil && st.Guard.Outcome == v1alpha1.GuardSent {
			e.record(o, event.Normal(ReasonTriggered, st.Message))
		}
		markStopping(st, steps)
	case st.Guard != nil && st.Guard.Outcome == v1alpha1.GuardSent:
		// An accepted call: its answer goes out with the next write that
		// carries a decision (answers). Many calls take effect within
		// milliseconds: the watcher looks at the backend again at its next
		// poll, and wakes the operation once it shows a change.
		e.answers.keep(o.GetUID(), st, e.now())
		*st = *written
		e.Watcher.Answered(e.Kind, r.Source, r.ClusterID, step.watches(), step.EndInRecord, r.Decided.For(step.Needs),
			types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()})
		CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterOutcome, st.Step)
		return nil
	}
	if err := e.persistStatus(ctx, o); err != nil {
		return errors.Wrap(err, errRecordOutcome)
	}
	CrashPoint(o.GetNamespace(), o.GetName(), CrashAfterOutcome, st.Step)
	return nil
}

// intend records, in memory, the intent of the current step's call: the
// baseline evidence is judged against (the observation Observe decided the
// call on, else a fresh one), the attempt, and the guard outcome Intended.
// It reports false, changing nothing, when Observe did not ask for a call.
func (e *Engine) intend(ctx context.Context, r Run) (bool, error) {
	o := r.Object
	st := o.GetOperationStatus()
	steps := r.Plan(st.Targets)
	if st.StartedAt == nil || st.Guard != nil || st.Triggered || st.Step >= int64(len(steps)) || steps[st.Step].Call == nil {
		return false, nil // Observe did not ask for this; it will look again.
	}
	step := steps[st.Step]
	CrashPoint(o.GetNamespace(), o.GetName(), CrashBeforeIntent, st.Step)

	// The baseline is what the step reads: its newest event only when it
	// judges by the log.
	need := step.Needs
	snap := r.Decided.For(need)
	if snap == nil {
		var err error
		if snap, err = e.Observer.Fresh(ctx, r.Source, r.ClusterID, need); err != nil {
			return false, errors.Wrap(err, errBaseline)
		}
		r.Decided.keep(snap, need)
	}
	now := metav1.NewTime(e.now())
	// Attempts count intents, so they survive a crash between intent and
	// outcome: they bound how often the backend can have been called.
	st.Attempts++
	st.StepAttempts++
	st.Guard = &v1alpha1.OperationGuard{
		Step: st.Step, Attempt: st.StepAttempts, Outcome: v1alpha1.GuardIntended, IntendedAt: now,
		BaselineStatus: step.baseline(snap), BaselineEvent: snap.LogPosition(),
	}
	setPhase(st, v1alpha1.OperationRunning, ReasonTriggering, "sending %s", step.Path)
	if meta.WasDeleted(o) {
		markStopping(st, steps)
	}
	// The reconcile got as far as the call: Synced is marked here rather
	// than in a write of its own after Create.
	o.SetConditions(withTime(conditionFor(st)), xpv2.ReconcileSuccess())
	return true, nil
}

// applyOutcome records a call's result in the status. It returns true when
// the result ends the operation.
func (e *Engine) applyOutcome(o Object, step Step, callErr error) bool {
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
	now := metav1.NewTime(e.now())
	res := classify(callErr, step)

	code := int64(0)
	msg := ""
	var se *sb.Error
	if errors.As(callErr, &se) {
		code = int64(se.StatusCode)
		msg = se.Message
	} else if callErr == nil {
		code = 200
	}
	if callErr != nil && msg == "" {
		msg = callErr.Error()
	}
	result := res.String()
	if msg != "" {
		result += ": " + msg
	}
	st.Calls = append(st.Calls, v1alpha1.BackendCall{Method: methodOf(step.Path), Path: pathOf(step.Path),
		StatusCode: code, Result: truncate(result, 300), Attempt: st.StepAttempts, Step: step.Name, Time: st.Guard.IntendedAt})
	if len(st.Calls) > v1alpha1.MaxOperationCalls {
		st.Calls = st.Calls[len(st.Calls)-v1alpha1.MaxOperationCalls:]
	}
	e.metrics().BackendCalls.WithLabelValues(step.Endpoint, codeLabel(code)).Inc()

	switch res {
	case callAccepted:
		st.Guard.Outcome, st.Guard.ResolvedAt, st.Guard.Answered, st.Triggered = v1alpha1.GuardSent, &now, true, true
		// Its Triggered event goes out with the answer (Trigger, answers).
		setPhase(st, v1alpha1.OperationRunning, ReasonTriggered, "%s: %s accepted", step.Name, step.Path)
	case callAmbiguous:
		st.Guard.Outcome = v1alpha1.GuardAmbiguous
		setPhase(st, v1alpha1.OperationRunning, ReasonResolving,
			"%s: the answer to %s was lost (%s); looking for evidence that it took effect", step.Name, step.Path, msg)
		e.record(o, event.Warning(ReasonResolving, errors.New(st.Message)))
	case callRetryable:
		st.Guard = nil
		if st.StepAttempts >= maxAttempts(pol) {
			setPhase(st, v1alpha1.OperationFailed, ReasonRetriesExhausted, "%s: %s failed %d times, the last with: %s",
				step.Name, step.Path, st.StepAttempts, msg)
			st.Message = truncate(st.Message, 1000)
			return true
		}
		next := metav1.NewTime(now.Add(backoff(pol, st.StepAttempts)))
		st.NextAttemptAt = &next
		setPhase(st, v1alpha1.OperationRunning, ReasonRetryScheduled, "%s: %s failed (attempt %d of %d): %s; retrying at %s",
			step.Name, step.Path, st.StepAttempts, maxAttempts(pol), msg, next.UTC().Format("15:04:05"))
		e.record(o, event.Warning(ReasonRetryScheduled, errors.New(st.Message)))
	case callRejected:
		st.Guard = nil
		setPhase(st, v1alpha1.OperationFailed, ReasonBackendRejected, "%s: the backend refused %s: %s", step.Name, step.Path, msg)
		return true
	case callRefusedForNow:
		st.Guard = nil
		if limit, since := gateLimit(st, step, pol); limit > 0 && since != nil && now.Sub(since.Time) > limit {
			setPhase(st, v1alpha1.OperationFailed, ReasonPreconditionTimeout, "%s: still refused after %s: the backend refused %s: %s",
				step.Name, limit, step.Path, msg)
			st.Message = truncate(st.Message, 1000)
			return true
		}
		next := metav1.NewTime(now.Add(min(backoff(pol, st.StepAttempts), refusedForNowBackoff)))
		st.NextAttemptAt = &next
		setPhase(st, v1alpha1.OperationRunning, ReasonWaitingForPrecond, "%s: waiting: the backend refused %s for now: %s; sending it again at %s",
			step.Name, step.Path, msg, next.UTC().Format("15:04:05"))
		st.Message = truncate(st.Message, 1000)
		e.record(o, event.Normal(ReasonRefusedForNow, st.Message))
	}
	return false
}

// refusedForNowBackoff caps the wait before a call refused for now is sent
// again: the reason may pass at any moment.
const refusedForNowBackoff = 30 * time.Second

// persistStatus writes o's status, re-applying it on a newer copy of the
// object after a conflict.
func (e *Engine) persistStatus(ctx context.Context, o Object) error {
	want := o.GetOperationStatus().DeepCopy()
	conds := o.GetCondition("Ready")
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		err := e.Kube.Status().Update(ctx, o)
		if !kerrors.IsConflict(err) {
			return err
		}
		if gerr := e.Kube.Get(ctx, client.ObjectKeyFromObject(o), o); gerr != nil {
			return gerr
		}
		*o.GetOperationStatus() = *want
		o.SetConditions(conds)
		return err
	})
}

func methodOf(call string) string {
	m, _, _ := strings.Cut(call, " ")
	return m
}

func pathOf(call string) string {
	_, p, _ := strings.Cut(call, " ")
	return p
}

func codeLabel(code int64) string {
	if code == 0 {
		return "none"
	}
	return strconv.FormatInt(code, 10)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
