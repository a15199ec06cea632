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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxOperationCalls is the number of backend calls an operation keeps in
// status.atProvider.calls, its audit of what it sent.
const MaxOperationCalls = 20

// A RetryPolicy says how often an operation re-sends a backend call that
// failed definitely (the backend refused it before acting, or the request
// never left), and how long it waits in between.
type RetryPolicy struct {
	// MaxAttempts is the number of times a call is sent at most, the first
	// included.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	MaxAttempts *int64 `json:"maxAttempts,omitempty"`

	// InitialBackoffSeconds is the wait before the first retry; each further
	// retry waits twice as long, up to maxBackoffSeconds. At most a day.
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	InitialBackoffSeconds *int64 `json:"initialBackoffSeconds,omitempty"`

	// MaxBackoffSeconds caps the wait between two attempts. At most a day.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	MaxBackoffSeconds *int64 `json:"maxBackoffSeconds,omitempty"`
}

// An OperationPolicy holds the settings every operation kind shares: its
// deadlines, retries, lifetime after it finished, and the cancel switch.
type OperationPolicy struct {
	// TimeoutSeconds bounds the whole operation, from the moment it leaves
	// the queue. An operation still running then fails with reason
	// DeadlineExceeded. At most 30 days.
	// +optional
	// +kubebuilder:default=3600
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2592000
	TimeoutSeconds *int64 `json:"timeoutSeconds,omitempty"`

	// PreconditionTimeoutSeconds bounds how long the operation waits, after
	// leaving the queue, for the target to reach a state the operation may
	// start from. It then fails with reason PreconditionTimeout. At most 30
	// days.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2592000
	PreconditionTimeoutSeconds *int64 `json:"preconditionTimeoutSeconds,omitempty"`

	// Retry is the policy for backend calls that failed definitely.
	// +optional
	Retry *RetryPolicy `json:"retry,omitempty"`

	// TTLSecondsAfterFinished deletes the operation object this many seconds
	// after it succeeded or failed. Its record stays in the target's
	// operation history, and a re-created object with the same name and
	// spec does not run again. At most a year.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=31536000
	TTLSecondsAfterFinished *int64 `json:"ttlSecondsAfterFinished,omitempty"`

	// Cancel stops the operation. A Pending operation fails with reason
	// Cancelled and sends nothing; a running NodeRollingRestart stops before
	// its next node; other types cannot be stopped once their backend call
	// was sent. An operation waiting for a decision about a call whose
	// answer was lost (reason AwaitingConfirmation) gives up with it.
	// +optional
	Cancel bool `json:"cancel,omitempty"`

	// ConfirmResend lets an operation waiting with reason
	// AwaitingConfirmation send its call again: set it to the token its
	// status message names ("<step>/<attempt>", e.g. "3/1") once you
	// checked the target. A token confirms that one call only. With cancel,
	// it is the only field that may change after creation.
	// +optional
	// +kubebuilder:validation:MaxLength=24
	// +kubebuilder:validation:Pattern=`^[0-9]{1,10}/[0-9]{1,10}$`
	ConfirmResend string `json:"confirmResend,omitempty"`

	// Approval is Automatic (when unset: the operation runs when its turn
	// comes) or Required: when its turn comes it computes its plan, shows
	// it in status.atProvider.plan and waits, with reason AwaitingApproval,
	// for approved: true. docs/operations-engine.md, "Approval".
	// +optional
	Approval ApprovalPolicy `json:"approval,omitempty"`

	// ApprovalTimeoutSeconds bounds how long an operation with approval
	// Required waits for approved: true after showing its plan, holding its
	// cluster's lock: it then fails with reason ApprovalExpired, sends
	// nothing and releases the lock. Default a day, at most 30 days.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2592000
	ApprovalTimeoutSeconds *int64 `json:"approvalTimeoutSeconds,omitempty"`

	// Approved lets an operation with approval Required run the plan it
	// shows. The plan is computed again at approval; one that changed (new
	// targets) is not run: the operation fails with reason PlanChanged and
	// sends nothing. It cannot be undone.
	// +optional
	Approved bool `json:"approved,omitempty"`

	// Window is when the operation may run: it starts only while the
	// window is open, and a NodeRollingRestart starts no new node after it
	// closed (it waits for the next opening, keeping its lock and progress).
	// A step that has started is always finished. timeoutSeconds counts
	// from leaving the queue, waits for the window included.
	// +optional
	Window *MaintenanceWindow `json:"window,omitempty"`
}

// An OperationProgress says how far a multi-step operation got.
type OperationProgress struct {
	// Done is the number of finished steps (nodes for NodeRollingRestart).
	Done int64 `json:"done"`

	// Total is the number of steps.
	Total int64 `json:"total"`

	// Current names what the operation is working on, for example a node id
	// or a step such as "start".
	// +optional
	Current string `json:"current,omitempty"`

	// Unit is what done and total count: empty for steps, "nodes" for an
	// operation that works node by node (NodeRollingRestart).
	// +optional
	// +kubebuilder:validation:MaxLength=16
	Unit string `json:"unit,omitempty"`
}

// A GuardOutcome is what the operation knows about a backend call it
// intended to send.
// +kubebuilder:validation:Enum=Intended;Sent;Ambiguous
type GuardOutcome string

// Guard outcomes.
const (
	// GuardIntended is written before the call. Found after a restart, it
	// means the call may or may not have been sent.
	GuardIntended GuardOutcome = "Intended"
	// GuardSent means the backend accepted the call.
	GuardSent GuardOutcome = "Sent"
	// GuardAmbiguous means the call was sent but its answer was lost; the
	// backend may have acted.
	GuardAmbiguous GuardOutcome = "Ambiguous"
)

// An OperationGuard is the write-ahead record of the state-changing backend
// call of the current step. It is persisted before the call is made, so a
// crash at any point can never lead to the call being sent twice.
type OperationGuard struct {
	// Step is the index of the step the call belongs to.
	Step int64 `json:"step"`

	// Attempt is the attempt number of the call, from 1.
	Attempt int64 `json:"attempt"`

	// Outcome is what is known about the call.
	Outcome GuardOutcome `json:"outcome"`

	// IntendedAt is when the intent was recorded, just before the call.
	IntendedAt metav1.Time `json:"intendedAt"`

	// ResolvedAt is when the outcome became known.
	// +optional
	ResolvedAt *metav1.Time `json:"resolvedAt,omitempty"`

	// BaselineStatus is the target's status just before the call.
	// +optional
	BaselineStatus string `json:"baselineStatus,omitempty"`

	// BaselineEvent is the position in the cluster's log just before the
	// call (the newest entry's date and the entries at that date); events
	// after it are evidence of what the call did.
	// +optional
	BaselineEvent string `json:"baselineEvent,omitempty"`

	// Answered is true when the backend answered the call with success
	// (rather than the outcome being resolved by evidence).
	// +optional
	Answered bool `json:"answered,omitempty"`

	// EvidenceSeen is set once the backend showed that the call took effect.
	// +optional
	EvidenceSeen bool `json:"evidenceSeen,omitempty"`
}

// A BackendCall is one entry of an operation's audit of the state-changing
// calls it sent.
type BackendCall struct {
	// Method is the HTTP method.
	Method string `json:"method"`

	// Path is the request path below the API root.
	Path string `json:"path"`

	// StatusCode is the HTTP status of the answer; 0 when none arrived.
	// +optional
	StatusCode int64 `json:"statusCode,omitempty"`

	// Result summarises the outcome: Accepted, Rejected, Failed or
	// Ambiguous, and the backend's message where there was one.
	Result string `json:"result"`

	// Attempt is the attempt number of the call, from 1.
	Attempt int64 `json:"attempt"`

	// Step is the step the call belongs to.
	// +optional
	Step string `json:"step,omitempty"`

	// Time is when the call was sent.
	Time metav1.Time `json:"time"`
}

// An OperationStatus is the observed state every operation kind shares.
type OperationStatus struct {
	// Phase is Pending (queued or waiting for a precondition), Running (a
	// backend call was sent), Succeeded or Failed.
	// +optional
	Phase OperationPhase `json:"phase,omitempty"`

	// Reason is a CamelCase word for why the operation is in its phase, for
	// example Queued, WaitingForPrecondition, Triggered, DeadlineExceeded,
	// Cancelled, BackendRejected, OutcomeUnknown or AlreadyCompleted.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Message is a human-readable account of the reason.
	// +optional
	Message string `json:"message,omitempty"`

	// Triggered is true once the current step's backend call was sent (or
	// the backend showed that it took effect). The engine never sends a
	// step's call while Triggered is true or a guard is recorded.
	// +optional
	Triggered bool `json:"triggered,omitempty"`

	// QueuePosition is the operation's place in its target's queue while it
	// waits: 1 is next. It is unset once the operation holds the lock.
	// +optional
	QueuePosition *int64 `json:"queuePosition,omitempty"`

	// Attempts counts the backend calls intended (recorded before they were
	// sent), over all steps: the backend has received at most this many.
	// +optional
	Attempts int64 `json:"attempts,omitempty"`

	// StartedAt is when the operation left the queue.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// CompletedAt is when the operation reached Succeeded or Failed.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`

	// Step is the index of the current step.
	// +optional
	Step int64 `json:"step,omitempty"`

	// StepStartedAt is when the current step began.
	// +optional
	StepStartedAt *metav1.Time `json:"stepStartedAt,omitempty"`

	// Progress is done/total steps and what is being worked on.
	// +optional
	Progress *OperationProgress `json:"progress,omitempty"`

	// Targets is the ordered list of items a multi-target operation works
	// through (the node ids of a NodeRollingRestart), fixed when it starts.
	// +optional
	Targets []string `json:"targets,omitempty"`

	// Guard is the write-ahead record of the current step's backend call.
	// +optional
	Guard *OperationGuard `json:"guard,omitempty"`

	// StepAttempts counts the intended calls of the current step.
	// +optional
	StepAttempts int64 `json:"stepAttempts,omitempty"`

	// NextAttemptAt is when a call that failed definitely is sent again.
	// +optional
	NextAttemptAt *metav1.Time `json:"nextAttemptAt,omitempty"`

	// Calls is the audit of the backend calls sent, newest last, at most 20.
	// +optional
	// +listType=atomic
	Calls []BackendCall `json:"calls,omitempty"`

	// Plan is what an operation with approval Required will do, computed
	// when it took its turn.
	// +optional
	Plan *OperationPlan `json:"plan,omitempty"`

	// ApprovedAt is when the operation's plan was approved; its deadlines
	// count from then.
	// +optional
	ApprovedAt *metav1.Time `json:"approvedAt,omitempty"`

	// Disruption is the DisruptionBudgets a disruptive operation takes a
	// slot of before its first call.
	// +optional
	Disruption *DisruptionSlot `json:"disruption,omitempty"`

	// SpecHash identifies the operation's spec (without cancel); the
	// target's history keeps it so a re-created twin does not run again.
	// +optional
	SpecHash string `json:"specHash,omitempty"`
}

// A DisruptionSlot is the DisruptionBudgets an operation waits in or holds
// a slot of.
type DisruptionSlot struct {
	// Budgets are the DisruptionBudgets that select the operation's
	// cluster.
	// +listType=atomic
	Budgets []string `json:"budgets"`

	// AcquiredAt is when the operation got a slot of every one; unset while
	// it waits. Its deadlines count from then.
	// +optional
	AcquiredAt *metav1.Time `json:"acquiredAt,omitempty"`
}
