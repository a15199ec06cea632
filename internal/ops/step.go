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

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// A LostAnswerPolicy says what a step does when its call's answer was lost
// (timeout after sending, connection dropped, 502/504, or a crash between
// intent and outcome) and the backend shows no evidence that it acted.
// docs/operations-engine.md explains the choice per call.
type LostAnswerPolicy int

// Lost-answer policies.
const (
	// LostAnswerFails fails the operation with reason OutcomeUnknown once
	// the evidence grace period passed: a repeat could be harmful.
	LostAnswerFails LostAnswerPolicy = iota
	// LostAnswerResends sends the call again once the backend can no longer
	// apply the original (the hold limit passed without evidence): a late
	// original is refused or harmless in every state the plan moves on to.
	LostAnswerResends
	// LostAnswerAsks waits, once the hold limit passed, for the user to
	// confirm a re-send (spec confirmResend) or give up (cancel): a repeat is
	// harmless now, but the plan moves on to a state where a late original
	// would not be.
	LostAnswerAsks
)

// A ServerErrorPolicy says what a 5xx answer to a step's call means.
type ServerErrorPolicy int

// Server-error policies.
const (
	// ServerErrorRetries: the call was not acted on; it is sent again with
	// backoff.
	ServerErrorRetries ServerErrorPolicy = iota
	// ServerErrorIsAmbiguous: the call runs synchronously and may have done
	// part of its work before failing; evidence decides.
	ServerErrorIsAmbiguous
	// ServerErrorIsRefusal: a 500 is the backend's refusal (its plain-text
	// answer when the target is in the wrong state); other 5xx retry.
	ServerErrorIsRefusal
)

// A NoEvidencePolicy says what an accepted call means when the backend shows
// no evidence of acting on it within the evidence grace period.
type NoEvidencePolicy int

// No-evidence policies.
const (
	// AnswerSuffices: the success answer is enough; Check judges the rest.
	AnswerSuffices NoEvidencePolicy = iota
	// NoEvidenceFails fails with reason NoEffect: the backend refuses some
	// actions silently after answering 202.
	NoEvidenceFails
	// NoEvidenceMeansDone completes the step with Step.DoneWithoutEvidence
	// (e.g. a rebalance with nothing to move).
	NoEvidenceMeansDone
	// NoEvidenceSendsAgain takes the silence for a refusal that passes (a
	// graceful node shutdown during an lvol migration, which the API does
	// not show): the call was processed and dropped, so it is sent again,
	// within the step's precondition timeout, and fails with NoEffect after.
	NoEvidenceSendsAgain
)

// A Baseline is what the backend showed just before a step's call, and
// what has been learned since.
type Baseline struct {
	// Status is the status of the step's subject (cluster or node) before
	// the call.
	Status string
	// Event is the position in the cluster's log just before the call
	// (Snapshot.LogPosition): the events after it are the call's.
	Event string
	// At is when the call was intended, just before it was sent.
	At time.Time
	// Sent is true when the backend answered the call with success (false
	// when its outcome was resolved by evidence, or for a step without a
	// call).
	Sent bool
	// EvidenceSeen is true once Evidence held after the call.
	EvidenceSeen bool
}

// A Verdict is a step's reading of a snapshot taken after its call.
type Verdict struct {
	// Done is true when the step reached its goal.
	Done bool
	// Failure, when not empty, fails the operation with Reason.
	Failure string
	Reason  string
	// Progress describes what the step waits for while neither.
	Progress string
}

// A Step is one stage of an operation: a gate (precondition), at most one
// state-changing backend call, and the evidence and completion rules that
// read the backend afterwards.
type Step struct {
	// Name describes the step in status and events, e.g. "shutdown node 2/3".
	Name string
	// Needs is what the step must observe besides the cluster record.
	Needs Needs
	// Watches, when set, is what the step observes once its call was
	// intended (what its Evidence and Check read), where that is less
	// than Needs (what its Skip and Gate read): an expansion's end shows in
	// the log alone, but the call waits for the nodes and tasks.
	Watches *Needs
	// EndInRecord says the step's end, once its call was answered, shows in
	// the cluster record (the cluster's status): the watcher then probes
	// the log for what only it and the node list show (progress, a failure
	// part-way) at its slow pace (docs/operations-engine.md, "What an
	// operation costs the backend").
	EndInRecord bool
	// SafePoint says the target is whole before this step: a cancelled or
	// deleted operation stops here (a NodeRollingRestart before its next
	// node); elsewhere it runs on to its next safe point or its end
	// (docs/operations-engine.md, "Stopping").
	SafePoint bool
	// Timeout bounds the step from its start (0: only the operation's
	// timeout applies).
	Timeout time.Duration
	// GateTimeout bounds the wait for Gate (0: the operation's
	// precondition timeout for the first step, none for later steps).
	GateTimeout time.Duration

	// Skip reports that the step's goal already holds, so no call is
	// needed, and why.
	Skip func(s *Snapshot) (bool, string)
	// Gate returns "" when the call may be sent now, or what it waits for.
	// A non-empty refusal fails the operation: the step can never start.
	Gate func(s *Snapshot) (waitingFor, refusal string)

	// Endpoint is the call as method and path template, for metrics, e.g.
	// "POST /clusters/{id}/activate"; Path is the same call with the ids
	// filled in, for the audit and messages.
	Endpoint string
	Path     string
	// CheckHint tells the user what to check when the call's outcome
	// stays unknown.
	CheckHint string
	// Describe says what the step's target shows now (e.g. "node X is
	// offline at 10.0.0.11"), appended to the messages of a step that
	// failed; nil when the message says enough.
	Describe func(s *Snapshot) string
	// ProgressDone and ProgressTotal override the step-count progress, in
	// ProgressUnit (a NodeRollingRestart counts nodes, not steps).
	ProgressDone, ProgressTotal int64
	ProgressUnit                string
	// Call sends the step's state-changing call; nil for a step that only
	// waits.
	Call func(ctx context.Context, api sb.API) error
	// BaselineOf returns the status the baseline records (the cluster's
	// status when nil).
	BaselineOf func(s *Snapshot) string

	// Evidence reports that the backend acted on the call.
	Evidence func(b Baseline, s *Snapshot) bool
	// WithoutEvidence is what an accepted call without evidence means.
	WithoutEvidence NoEvidencePolicy
	// DoneWithoutEvidence is the message of a step completed by
	// NoEvidenceMeansDone.
	DoneWithoutEvidence string
	// Check reads a snapshot taken after the call (or, for a wait-only
	// step, after the step started).
	Check func(b Baseline, s *Snapshot) Verdict
	// OnLostAnswer is the policy for a lost answer without evidence.
	OnLostAnswer LostAnswerPolicy
	// OnServerError is what a 5xx answer means.
	OnServerError ServerErrorPolicy
	// RefusedForNow reports that a refusal (status code and the backend's
	// message) holds only for now (a migration running, a peer
	// restarting): the step waits and sends the call again within its
	// precondition timeout instead of failing. nil: every refusal is final.
	RefusedForNow func(status int, message string) bool
}

func (s Step) baseline(snap *Snapshot) string {
	if s.BaselineOf != nil {
		return s.BaselineOf(snap)
	}
	return string(snap.Cluster.Status)
}

// watches is what the step observes once its call was intended.
func (s Step) watches() Needs {
	if s.Watches != nil {
		return *s.Watches
	}
	return s.Needs
}

// now is the step's Describe as a message suffix ("; now: …"), or "".
func (s Step) now(snap *Snapshot) string {
	if s.Describe == nil || snap == nil {
		return ""
	}
	if d := s.Describe(snap); d != "" {
		return "; now: " + d
	}
	return ""
}
