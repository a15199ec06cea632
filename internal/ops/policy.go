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
	"math"
	"math/rand/v2"
	"time"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Policy defaults; the CRD applies the same ones at admission, these cover
// objects built in Go.
const (
	defaultTimeout             = time.Hour
	defaultPreconditionTimeout = 10 * time.Minute
	defaultApprovalTimeout     = 24 * time.Hour
	defaultMaxAttempts         = 3
	defaultInitialBackoff      = 5 * time.Second
	defaultMaxBackoff          = 5 * time.Minute
)

func seconds(p *int64, def time.Duration) time.Duration {
	if p == nil {
		return def
	}
	return Seconds(*p)
}

// Seconds is n seconds as a Duration, saturating instead of wrapping
// around: a value larger than a Duration holds (about 292 years) is the
// largest Duration, a negative one zero. Admission bounds every duration
// field far below; this keeps a bound missed, or an object from before it,
// from turning into a deadline in the past.
func Seconds(n int64) time.Duration {
	switch {
	case n <= 0:
		return 0
	case n > math.MaxInt64/int64(time.Second):
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// timeout is the bound of the whole operation.
func timeout(p v1alpha1.OperationPolicy) time.Duration {
	return seconds(p.TimeoutSeconds, defaultTimeout)
}

// preconditionTimeout bounds the wait for a start state.
func preconditionTimeout(p v1alpha1.OperationPolicy) time.Duration {
	return seconds(p.PreconditionTimeoutSeconds, defaultPreconditionTimeout)
}

// approvalTimeout bounds the wait for approval once the plan is shown.
func approvalTimeout(p v1alpha1.OperationPolicy) time.Duration {
	return seconds(p.ApprovalTimeoutSeconds, defaultApprovalTimeout)
}

// holdsUntil is the latest time the lock holder h, found among ops, keeps
// its lock: when its approval expires while it awaits one, else its
// deadline. It is unknown for a holder that has no deadline running yet
// (computing its plan, or waiting for a disruption slot).
func holdsUntil(ops []Object, h *v1alpha1.OperationReference) (time.Time, bool) {
	for _, o := range ops {
		if o.GetUID() != h.UID {
			continue
		}
		st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
		if pol.Approval == v1alpha1.ApprovalRequired && st.ApprovedAt == nil {
			if st.Plan == nil {
				return time.Time{}, false
			}
			return st.Plan.ComputedAt.Add(approvalTimeout(pol)), true
		}
		if since := runningSince(st, pol); since != nil {
			return since.Add(timeout(pol)), true
		}
		return slotDeadline(st, pol)
	}
	return time.Time{}, false
}

// slotDeadline is when an operation waiting for a disruption slot gives up
// and lets the lock go: its timeout after it left the queue (or was
// approved). The wait does not count against the run's own timeout, which
// starts with the slot (runningSince).
func slotDeadline(st *v1alpha1.OperationStatus, pol v1alpha1.OperationPolicy) (time.Time, bool) {
	if st.Disruption == nil || st.Disruption.AcquiredAt != nil || st.StartedAt == nil {
		return time.Time{}, false
	}
	since := st.StartedAt.Time
	if st.ApprovedAt != nil && st.ApprovedAt.After(since) {
		since = st.ApprovedAt.Time
	}
	return since.Add(timeout(pol)), true
}

// maxHold is the longest an operation that has not started holds the lock
// once it takes it: its wait for approval, its wait for a disruption slot
// (when a DisruptionBudget selects the cluster) and its run, each bounded.
func maxHold(o Object, budgeted bool) time.Duration {
	pol := o.GetOperationPolicy()
	d := timeout(pol)
	if pol.Approval == v1alpha1.ApprovalRequired {
		d += approvalTimeout(pol)
	}
	if budgeted {
		d += timeout(pol)
	}
	return d
}

// turnBy is the latest time o, waiting in q, takes the lock: when the lock
// is free at most (free), plus the longest hold of each operation ahead of
// it.
func turnBy(q Queue, o Object, free time.Time, budgeted bool) time.Time {
	for _, w := range q {
		if w.GetUID() == o.GetUID() {
			break
		}
		free = free.Add(maxHold(w, budgeted))
	}
	return free
}

// maxAttempts is how often one step's call may be sent.
func maxAttempts(p v1alpha1.OperationPolicy) int64 {
	if p.Retry == nil || p.Retry.MaxAttempts == nil {
		return defaultMaxAttempts
	}
	return *p.Retry.MaxAttempts
}

// backoff is the wait before attempt n+1 after n failed attempts:
// initial * 2^(n-1), capped.
func backoff(p v1alpha1.OperationPolicy, n int64) time.Duration {
	initial, limit := defaultInitialBackoff, defaultMaxBackoff
	if p.Retry != nil {
		initial = seconds(p.Retry.InitialBackoffSeconds, initial)
		limit = seconds(p.Retry.MaxBackoffSeconds, limit)
	}
	d := initial
	for i := int64(1); i < n && d < limit; i++ {
		if d > math.MaxInt64/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// PollIntervals are how often a non-terminal operation is reconciled.
type PollIntervals struct {
	// Running is the poll interval while a step waits for the backend:
	// Fast for the first FastFor after the step's call, then Running.
	Fast, Running time.Duration
	FastFor       time.Duration
	// Waiting is the poll interval while queued: a change of the lock
	// wakes the operation first in line at once, so this only refreshes
	// the queue positions of the others and catches a holder that vanished
	// without releasing the lock.
	Waiting time.Duration
	// Watched replaces Fast and Running while a Watcher wakes the
	// operation on every change the backend shows: it only bounds how late
	// a decision that depends on time alone (a grace period, a deadline)
	// is made. Zero: no watcher, poll at Fast and Running.
	Watched time.Duration
	// Jitter is the fraction (0..1) by which each interval is varied.
	Jitter float64
}

// DefaultPollIntervals see completion within about a second.
var DefaultPollIntervals = PollIntervals{
	Fast: 250 * time.Millisecond, Running: time.Second, FastFor: 30 * time.Second,
	Waiting: 30 * time.Second, Watched: 5 * time.Second, Jitter: 0.1,
}

// finishedPoll is the longest requeue of a finished operation whose TTL
// runs out later: it is looked at again then. A finished operation without
// a TTL is not requeued at all: it never reads the backend, its own writes
// and the cache's resync (--sync) reconcile it again, and each requeued
// operation holds a queue entry for as long as it exists.
const finishedPoll = 24 * time.Hour

// Hook returns the poll-interval hook for crossplane-runtime's managed
// reconciler: fast while running, slower while waiting, and not at all
// (only the TTL; 0 is no requeue) once finished.
func (pi PollIntervals) Hook(now func() time.Time) func(o Object, _ time.Duration) time.Duration {
	if now == nil {
		now = time.Now
	}
	return func(o Object, _ time.Duration) time.Duration {
		st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
		switch {
		case isTerminal(st.Phase):
			if pol.TTLSecondsAfterFinished == nil || st.CompletedAt == nil {
				return 0
			}
			left := st.CompletedAt.Add(Seconds(*pol.TTLSecondsAfterFinished)).Sub(now())
			if left >= finishedPoll {
				return finishedPoll // looked at again then
			}
			return max(left, 0) + 100*time.Millisecond
		case st.NextAttemptAt != nil:
			return pi.jitter(max(st.NextAttemptAt.Sub(now()), 0) + 50*time.Millisecond)
		case WaitNotShownYet(o, now()):
			// Its wait is written once WaitShownAfter passed.
			return o.GetCreationTimestamp().Add(WaitShownAfter).Sub(now()) + 100*time.Millisecond
		case st.StartedAt == nil, st.Reason == ReasonAwaitingApproval, st.Reason == ReasonWaitingForWindow, st.Reason == ReasonWaitingForSlot:
			// Approval comes as a spec change, and a slot given back as a
			// DisruptionBudget change: both wake the operation.
			return pi.jitter(pi.Waiting)
		case pi.Watched > 0:
			return pi.jitter(pi.Watched)
		case st.Guard == nil && st.Reason == ReasonWaitingForPrecond:
			return pi.jitter(pi.Running)
		case st.Guard != nil && st.Guard.ResolvedAt != nil && now().Sub(st.Guard.ResolvedAt.Time) > pi.FastFor:
			return pi.jitter(pi.Running)
		default:
			return pi.jitter(pi.Fast)
		}
	}
}

func (pi PollIntervals) jitter(d time.Duration) time.Duration {
	if pi.Jitter <= 0 {
		return d
	}
	f := 1 + pi.Jitter*(2*rand.Float64()-1) //nolint:gosec // jitter needs no cryptographic randomness.
	return time.Duration(float64(d) * f)
}
