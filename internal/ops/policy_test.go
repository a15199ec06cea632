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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestBackoff(t *testing.T) {
	type args struct {
		p v1alpha1.OperationPolicy
		n int64
	}
	custom := v1alpha1.OperationPolicy{Retry: &v1alpha1.RetryPolicy{InitialBackoffSeconds: ptr.To[int64](2), MaxBackoffSeconds: ptr.To[int64](10)}}

	cases := map[string]struct {
		reason string
		args   args
		want   time.Duration
	}{
		"DefaultsFirstRetry": {
			reason: "Without a retry policy the first retry waits the default initial backoff of 5s.",
			args:   args{p: v1alpha1.OperationPolicy{}, n: 1},
			want:   5 * time.Second,
		},
		"DefaultsDoubling": {
			reason: "Each further failed attempt doubles the wait: 5s * 2^(3-1) after three failures.",
			args:   args{p: v1alpha1.OperationPolicy{}, n: 3},
			want:   20 * time.Second,
		},
		"DefaultsCapped": {
			reason: "The default wait is capped at 5 minutes.",
			args:   args{p: v1alpha1.OperationPolicy{}, n: 10},
			want:   5 * time.Minute,
		},
		"DefaultsNeverOverflow": {
			reason: "A huge attempt count stays at the cap instead of overflowing.",
			args:   args{p: v1alpha1.OperationPolicy{}, n: 1000},
			want:   5 * time.Minute,
		},
		"EmptyRetryPolicyUsesDefaults": {
			reason: "A retry policy without backoff fields uses the default initial backoff and cap.",
			args:   args{p: v1alpha1.OperationPolicy{Retry: &v1alpha1.RetryPolicy{MaxAttempts: ptr.To[int64](5)}}, n: 2},
			want:   10 * time.Second,
		},
		"CustomInitial": {
			reason: "The first retry waits initialBackoffSeconds.",
			args:   args{p: custom, n: 1},
			want:   2 * time.Second,
		},
		"CustomDoubling": {
			reason: "The custom initial backoff doubles with each failure.",
			args:   args{p: custom, n: 3},
			want:   8 * time.Second,
		},
		"CustomCapped": {
			reason: "The wait never exceeds maxBackoffSeconds.",
			args:   args{p: custom, n: 4},
			want:   10 * time.Second,
		},
		"CapBelowInitial": {
			reason: "A cap below the initial backoff wins even for the first retry.",
			args: args{p: v1alpha1.OperationPolicy{Retry: &v1alpha1.RetryPolicy{InitialBackoffSeconds: ptr.To[int64](30),
				MaxBackoffSeconds: ptr.To[int64](7)}}, n: 1},
			want: 7 * time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := backoff(tc.args.p, tc.args.n)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nbackoff(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPolicyDefaults(t *testing.T) {
	type want struct {
		timeout             time.Duration
		preconditionTimeout time.Duration
		maxAttempts         int64
	}
	cases := map[string]struct {
		reason string
		p      v1alpha1.OperationPolicy
		want   want
	}{
		"Unset": {
			reason: "An operation built in Go without policy fields gets the same defaults the CRD applies: 1h, 10m and 3 attempts.",
			p:      v1alpha1.OperationPolicy{},
			want:   want{timeout: time.Hour, preconditionTimeout: 10 * time.Minute, maxAttempts: 3},
		},
		"RetryWithoutMaxAttempts": {
			reason: "A retry policy without maxAttempts keeps the default of 3 attempts.",
			p:      v1alpha1.OperationPolicy{Retry: &v1alpha1.RetryPolicy{InitialBackoffSeconds: ptr.To[int64](1)}},
			want:   want{timeout: time.Hour, preconditionTimeout: 10 * time.Minute, maxAttempts: 3},
		},
		"Set": {
			reason: "Set fields are read in seconds and attempts as written.",
			p: v1alpha1.OperationPolicy{TimeoutSeconds: ptr.To[int64](90), PreconditionTimeoutSeconds: ptr.To[int64](15),
				Retry: &v1alpha1.RetryPolicy{MaxAttempts: ptr.To[int64](7)}},
			want: want{timeout: 90 * time.Second, preconditionTimeout: 15 * time.Second, maxAttempts: 7},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := want{timeout: timeout(tc.p), preconditionTimeout: preconditionTimeout(tc.p), maxAttempts: maxAttempts(tc.p)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\ndefaults: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPollIntervalsHook(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	pi := PollIntervals{Fast: 250 * time.Millisecond, Running: time.Second, FastFor: 30 * time.Second, Waiting: 5 * time.Second}

	type args struct {
		pi     PollIntervals
		status v1alpha1.OperationStatus
		policy v1alpha1.OperationPolicy
		// createdAgo is the operation's age; zero: long ago.
		createdAgo time.Duration
	}
	cases := map[string]struct {
		reason string
		args   args
		want   time.Duration
	}{
		"TerminalWithoutTTL": {
			reason: "A finished operation without a TTL is not requeued (0): it is never polled against the backend, and holds no queue entry.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded, StartedAt: at(-time.Hour),
				CompletedAt: at(-time.Minute)}},
			want: 0,
		},
		"FailedWithoutTTL": {
			reason: "A failed operation is terminal too.",
			args:   args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationFailed, CompletedAt: at(-time.Minute)}},
			want:   0,
		},
		"TerminalWithTTLWithoutCompletedAt": {
			reason: "A TTL cannot run without a completion time: no requeue, as without a TTL.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded},
				policy: v1alpha1.OperationPolicy{TTLSecondsAfterFinished: ptr.To[int64](60)}},
			want: 0,
		},
		"TerminalWithTTL": {
			reason: "A finished operation with a TTL is requeued just after the TTL's remaining time.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded, CompletedAt: at(-20 * time.Second)},
				policy: v1alpha1.OperationPolicy{TTLSecondsAfterFinished: ptr.To[int64](60)}},
			want: 40*time.Second + 100*time.Millisecond,
		},
		"TerminalWithTTLPassed": {
			reason: "A TTL that already passed requeues at once (plus a small margin), never with a negative interval.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationFailed, CompletedAt: at(-time.Hour)},
				policy: v1alpha1.OperationPolicy{TTLSecondsAfterFinished: ptr.To[int64](60)}},
			want: 100 * time.Millisecond,
		},
		"RetryScheduled": {
			reason: "A scheduled retry is polled just after nextAttemptAt.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, StartedAt: at(-time.Minute),
				NextAttemptAt: at(7 * time.Second)}},
			want: 7*time.Second + 50*time.Millisecond,
		},
		"RetryDue": {
			reason: "A retry that is already due is polled at once.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, StartedAt: at(-time.Minute),
				NextAttemptAt: at(-7 * time.Second)}},
			want: 50 * time.Millisecond,
		},
		"Queued": {
			reason: "A queued operation (not started) polls at the waiting interval.",
			args:   args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationPending, Reason: ReasonQueued}},
			want:   5 * time.Second,
		},
		"QueuedSinceMoments": {
			reason: "A queued operation younger than WaitShownAfter is reconciled again once it passed, when its wait is first written.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationPending, Reason: ReasonQueued},
				createdAgo: 2 * time.Second},
			want: WaitShownAfter - 2*time.Second + 100*time.Millisecond,
		},
		"RunningJustResolved": {
			reason: "Shortly after a step's call was resolved the operation polls fast.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, StartedAt: at(-time.Minute),
				Guard: &v1alpha1.OperationGuard{Outcome: v1alpha1.GuardSent, IntendedAt: *at(-10 * time.Second), ResolvedAt: at(-10 * time.Second)}}},
			want: 250 * time.Millisecond,
		},
		"RunningLongAfterResolved": {
			reason: "After FastFor the operation polls at the slower running interval.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, StartedAt: at(-time.Hour),
				Guard: &v1alpha1.OperationGuard{Outcome: v1alpha1.GuardSent, IntendedAt: *at(-time.Minute), ResolvedAt: at(-time.Minute)}}},
			want: time.Second,
		},
		"AmbiguousPollsFast": {
			reason: "An unresolved guard (no resolvedAt) keeps polling fast while evidence is looked for.",
			args: args{pi: pi, status: v1alpha1.OperationStatus{Phase: v1alpha1.OperationRunning, StartedAt: at(-time.Hour),
				Guard: &v1alpha1.OperationGuard{Outcome: v1alpha1.GuardAmbiguous, IntendedAt: *at(-time.Minute)}}},
			want: 250 * time.Millisecond,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &v1alpha1.ClusterOps{}
			if tc.args.createdAgo > 0 {
				o.SetCreationTimestamp(metav1.NewTime(now.Add(-tc.args.createdAgo)))
			}
			o.Status.AtProvider.OperationStatus = tc.args.status
			o.Spec.ForProvider.OperationPolicy = tc.args.policy
			got := tc.args.pi.Hook(func() time.Time { return now })(o, time.Minute)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nHook(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPollIntervalsHookDefaultClock(t *testing.T) {
	// The provider's setup passes a nil clock.
	o := &v1alpha1.ClusterOps{}
	o.Status.AtProvider.OperationStatus = v1alpha1.OperationStatus{Phase: v1alpha1.OperationSucceeded,
		CompletedAt: &metav1.Time{Time: time.Now()}}
	o.Spec.ForProvider.TTLSecondsAfterFinished = ptr.To[int64](3600)
	var got time.Duration
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Hook(nil)(...) panicked: %v", r)
			}
		}()
		got = PollIntervals{}.Hook(nil)(o, time.Minute)
	}()
	if got < 59*time.Minute || got > time.Hour+time.Second {
		t.Errorf("\nA nil clock is the real clock: a TTL of 1h that just started has about 1h left.\nHook(nil)(...) = %s", got)
	}
}

// TestPollIntervalsHookWaitingForPrecondition pins the documented contract:
// an operation that holds the lock and waits for a precondition polls at
// Running (a precondition has no watch to wake it), not Fast.
func TestPollIntervalsHookWaitingForPrecondition(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pi := PollIntervals{Fast: 250 * time.Millisecond, Running: time.Second, FastFor: 30 * time.Second, Waiting: 5 * time.Second}
	o := &v1alpha1.ClusterOps{}
	o.Status.AtProvider.OperationStatus = v1alpha1.OperationStatus{Phase: v1alpha1.OperationPending, Reason: ReasonWaitingForPrecond,
		StartedAt: &metav1.Time{Time: now.Add(-time.Minute)}}
	if diff := cmp.Diff(time.Second, pi.Hook(func() time.Time { return now })(o, time.Minute)); diff != "" {
		t.Errorf("\nAn operation waiting for its precondition polls at the running interval.\nHook(...): -want, +got:\n%s", diff)
	}
}

func TestPollIntervalsJitter(t *testing.T) {
	cases := map[string]struct {
		reason string
		pi     PollIntervals
		d      time.Duration
		lo, hi time.Duration
	}{
		"NoJitter": {
			reason: "Jitter 0 returns the interval unchanged.",
			pi:     PollIntervals{},
			d:      time.Second, lo: time.Second, hi: time.Second,
		},
		"TenPercent": {
			reason: "Jitter 0.1 varies the interval within ±10%.",
			pi:     PollIntervals{Jitter: 0.1},
			d:      time.Second, lo: 900 * time.Millisecond, hi: 1100 * time.Millisecond,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for range 200 {
				if got := tc.pi.jitter(tc.d); got < tc.lo || got > tc.hi {
					t.Fatalf("\n%s\njitter(%s) = %s, want within [%s, %s]", tc.reason, tc.d, got, tc.lo, tc.hi)
				}
			}
		})
	}
}

func TestSecondsSaturates(t *testing.T) {
	cases := map[string]struct {
		reason string
		n      int64
		want   time.Duration
	}{
		"Plain":    {reason: "A value in range is that many seconds.", n: 90, want: 90 * time.Second},
		"Negative": {reason: "A negative value is no time.", n: -5, want: 0},
		"Largest":  {reason: "The largest value a Duration holds in seconds still converts.", n: math.MaxInt64 / int64(time.Second), want: time.Duration(math.MaxInt64/int64(time.Second)) * time.Second},
		"Huge":     {reason: "10,000,000,000 s does not wrap around to a negative Duration.", n: 10_000_000_000, want: math.MaxInt64},
		"Int64Max": {reason: "int64's maximum does not wrap around either.", n: math.MaxInt64, want: math.MaxInt64},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Seconds(tc.n); got != tc.want {
				t.Errorf("\n%s\nSeconds(%d) = %s, want %s", tc.reason, tc.n, got, tc.want)
			}
		})
	}
}

// TestHugeDurationsDoNotExpire: durations beyond what admission allows (an
// object from before the bounds) are long, not already over.
func TestHugeDurationsDoNotExpire(t *testing.T) {
	huge := ptr.To[int64](math.MaxInt64)
	p := v1alpha1.OperationPolicy{TimeoutSeconds: huge, PreconditionTimeoutSeconds: huge,
		Retry: &v1alpha1.RetryPolicy{InitialBackoffSeconds: huge, MaxBackoffSeconds: huge}}
	if d := timeout(p); d < 100*365*24*time.Hour {
		t.Errorf("timeout = %s, want the longest Duration, not a wrapped one", d)
	}
	if d := preconditionTimeout(p); d < 100*365*24*time.Hour {
		t.Errorf("preconditionTimeout = %s, want the longest Duration", d)
	}
	if d := backoff(p, 10); d <= 0 {
		t.Errorf("backoff after 10 attempts = %s, want a positive Duration", d)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	op := &v1alpha1.ClusterOps{}
	op.Spec.ForProvider.TTLSecondsAfterFinished = huge
	op.Status.AtProvider.Phase, op.Status.AtProvider.CompletedAt = v1alpha1.OperationSucceeded, &metav1.Time{Time: now}
	if d := DefaultPollIntervals.Hook(func() time.Time { return now })(op, 0); d != finishedPoll {
		t.Errorf("requeue of a finished operation with a huge TTL = %s, want the finished operations' poll (%s), not now", d, finishedPoll)
	}
}

// TestSettingsRateLimiter: the operation controllers' own budget lets one
// second of reconciles through at once, then paces them.
func TestSettingsRateLimiter(t *testing.T) {
	l := Settings{MaxReconcileRate: 5}.RateLimiter(nil)
	for i := range 5 {
		if d := l.When("op"); d != 0 {
			t.Fatalf("reconcile %d of the first second waits %s, want none", i+1, d)
		}
	}
	if d := l.When("op"); d <= 0 {
		t.Errorf("the sixth reconcile within a second waits %s, want a wait", d)
	}
}
