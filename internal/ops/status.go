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
	"fmt"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Reasons an operation gives for its phase.
const (
	ReasonQueued              = "Queued"
	ReasonWaitingForTarget    = "WaitingForTarget"
	ReasonTargetNotFound      = "TargetNotFound"
	ReasonWaitingForPrecond   = "WaitingForPrecondition"
	ReasonTriggering          = "Triggering"
	ReasonTriggered           = "Triggered"
	ReasonInProgress          = "InProgress"
	ReasonResolving           = "ResolvingOutcome"
	ReasonRetryScheduled      = "RetryScheduled"
	ReasonCompleted           = "Completed"
	ReasonNothingToDo         = "NothingToDo"
	ReasonDeadlineExceeded    = "DeadlineExceeded"
	ReasonPreconditionTimeout = "PreconditionTimeout"
	ReasonPreconditionFailed  = "PreconditionFailed"
	ReasonCancelled           = "Cancelled"
	ReasonBackendRejected     = "BackendRejected"
	ReasonRetriesExhausted    = "RetriesExhausted"
	ReasonOutcomeUnknown      = "OutcomeUnknown"
	ReasonNoEffect            = "NoEffect"
	ReasonAlreadyCompleted    = "AlreadyCompleted"
	ReasonDeleted             = "Deleted"
	ReasonDeletedWhileRunning = "DeletedWhileRunning"
	// ReasonAwaitingConfirmation: a call's answer was lost and re-sending
	// it needs the user's confirmation (confirmResend) or cancel.
	ReasonAwaitingConfirmation = "AwaitingConfirmation"
	ReasonResendConfirmed      = "ResendConfirmed"
	// ReasonRefusedForNow: the backend refused the call for a reason that
	// passes (a migration, a peer restarting); it is sent again later.
	ReasonRefusedForNow = "RefusedForNow"
	// ReasonStopping (an event): the operation was deleted and stops at
	// its next safe point.
	ReasonStopping = "Stopping"
	// ReasonAwaitingApproval: the operation shows its plan and waits for
	// approved: true; ReasonApproved (an event) says it was approved,
	// ReasonPlanChanged that the plan computed again at approval differs,
	// and ReasonApprovalExpired that no approval came within its bound.
	ReasonAwaitingApproval = "AwaitingApproval"
	ReasonApproved         = "Approved"
	ReasonPlanChanged      = "PlanChanged"
	ReasonApprovalExpired  = "ApprovalExpired"
	// ReasonWaitingForWindow: the operation waits for its maintenance
	// window to open; ReasonInvalidWindow: the window cannot be read.
	ReasonWaitingForWindow = "WaitingForWindow"
	ReasonInvalidWindow    = "InvalidWindow"
	// ReasonWaitingForSlot: a disruptive operation waits for a slot of a
	// DisruptionBudget; ReasonDisrupting (an event) says it took its slots.
	ReasonWaitingForSlot = "WaitingForConcurrencySlot"
	ReasonDisrupting     = "Disrupting"
)

func isTerminal(p v1alpha1.OperationPhase) bool {
	return p == v1alpha1.OperationSucceeded || p == v1alpha1.OperationFailed
}

// IsTerminal reports whether o has finished (Succeeded or Failed).
func IsTerminal(o Object) bool { return isTerminal(o.GetOperationStatus().Phase) }

// IsRunning reports whether o started (took its lock) and did not finish.
func IsRunning(o Object) bool { return running(o.GetOperationStatus()) }

// StatusWriteOf names what a status write of o records, for the metric
// of status writes: "finished", "intent" (a call about to be sent),
// "queued" (waiting to start) or "progress" (anything else).
func StatusWriteOf(o Object) string {
	st := o.GetOperationStatus()
	switch {
	case isTerminal(st.Phase):
		return "finished"
	case st.Guard != nil && st.Guard.Outcome == v1alpha1.GuardIntended:
		return "intent"
	case st.StartedAt == nil:
		return "queued"
	default:
		return "progress"
	}
}

// WaitShownAfter is how long after its creation an operation that only
// waits to start (queued, waiting for its target or its window) first
// writes that it waits: one that starts within it goes straight to its
// intent, and its wait is never written (docs/operations-engine.md, "What
// an operation costs the API server").
const WaitShownAfter = 5 * time.Second

// WaitNotShownYet reports whether o only waits to start and was created
// less than WaitShownAfter before now.
func WaitNotShownYet(o Object, now time.Time) bool {
	st := o.GetOperationStatus()
	return st.Phase == v1alpha1.OperationPending && st.StartedAt == nil && st.Guard == nil && st.Attempts == 0 &&
		now.Sub(o.GetCreationTimestamp().Time) < WaitShownAfter
}

// setPhase sets phase, reason and message.
func setPhase(st *v1alpha1.OperationStatus, p v1alpha1.OperationPhase, reason, format string, args ...any) {
	st.Phase, st.Reason, st.Message = p, reason, fmt.Sprintf(format, args...)
}

// conditionFor maps the phase onto Crossplane's Ready condition: True only
// when Succeeded; a Failed operation is Ready=False with its reason.
// SetReady sets o's Ready condition from its phase: the engine owns an
// operation's Ready condition, whatever the managed reconciler marks (it
// marks Creating after every Create).
func SetReady(o Object) {
	o.SetConditions(withTime(conditionFor(o.GetOperationStatus())))
}

func conditionFor(st *v1alpha1.OperationStatus) xpv2.Condition {
	switch st.Phase {
	case v1alpha1.OperationSucceeded:
		c := xpv2.Available()
		c.Message = st.Message
		return c
	default:
		reason := st.Reason
		if reason == "" {
			reason = ReasonQueued
		}
		return xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse,
			Reason: xpv2.ConditionReason(reason), Message: st.Message}
	}
}
