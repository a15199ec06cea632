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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"golang.org/x/time/rate"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Settings are the engine's tunables, set from provider flags.
type Settings struct {
	// EvidenceGrace is how long the engine looks for evidence that an
	// accepted or ambiguous call took effect.
	EvidenceGrace time.Duration
	// HoldLimit is how long the backend may hold a request and still apply
	// it (see Engine.HoldLimit).
	HoldLimit time.Duration
	// ObserveMaxAge is how old a shared cluster record may be.
	ObserveMaxAge time.Duration
	// ObserveDetailMaxAge is how old a shared node list, log window or
	// task list may be; the watcher reads them again at once when the
	// cluster record or its newest event changes.
	ObserveDetailMaxAge time.Duration
	// WatchProbeInterval is how often the watcher probes a watched
	// cluster's newest event.
	WatchProbeInterval time.Duration
	// Poll are the poll intervals of non-terminal operations.
	Poll PollIntervals
	// MaxReconcileRate is the reconciles per second the operation
	// controllers may run between them, apart from the steady-state
	// controllers' budget: an operation is watched closely while it runs,
	// and a burst of operations must not wait behind drift checks. Zero
	// shares the steady-state controllers' limiter.
	MaxReconcileRate int
	// WatchInterval is how often a Watcher polls the clusters that running
	// operations wait on; zero turns the watcher off, and running
	// operations poll on their own (Poll.Fast, Poll.Running).
	WatchInterval time.Duration
	// WindowNow is the clock maintenance windows are read on; time.Now
	// when nil. Tests move it to open and close windows.
	WindowNow func() time.Time
}

// A SharedObservation is what both operation kinds share in one provider:
// one Observer (one cluster list per control plane, one node list, log
// window and task list per cluster) and one Watcher.
type SharedObservation struct {
	Observer *Observer
	// Watcher is nil when WatchInterval is zero: running operations poll
	// on their own.
	Watcher *Watcher
}

// NewSharedObservation returns the observer and watcher of s.
func (s Settings) NewSharedObservation(log logging.Logger) *SharedObservation {
	o := NewObserver(s.ObserveMaxAge)
	o.DetailMaxAge = s.ObserveDetailMaxAge
	sh := &SharedObservation{Observer: o}
	if s.WatchInterval > 0 {
		sh.Watcher = &Watcher{Observer: o, Interval: s.WatchInterval, ProbeInterval: s.WatchProbeInterval, Linger: 3 * s.Poll.Watched, Log: log}
	}
	return sh
}

// RateLimiter returns the limiter of an operation controller: its own
// bucket of MaxReconcileRate, or shared when that is zero. Its bucket holds
// one second of reconciles (crossplane-runtime's holds ten): the budget
// holds back what is not urgent (ops.Budgeted), and hundreds of operations
// created at once then reach the API server over seconds, not together,
// while the operations holding a lock go first.
func (s Settings) RateLimiter(shared ratelimiter.RateLimiter) ratelimiter.RateLimiter {
	if s.MaxReconcileRate <= 0 {
		return shared
	}
	return &ratelimiter.BucketRateLimiter{Limiter: rate.NewLimiter(rate.Limit(s.MaxReconcileRate), s.MaxReconcileRate)}
}

// DefaultHoldLimit is four client request timeouts: a request the backend
// has not applied by then is taken as dropped (docs/operations-engine.md,
// "Lost answers").
const DefaultHoldLimit = 4 * sb.DefaultTimeout

// DefaultSettings see a finished backend action within about a second and
// give the backend 30 s to show that it acted on a call.
var DefaultSettings = Settings{
	EvidenceGrace:       30 * time.Second,
	HoldLimit:           DefaultHoldLimit,
	ObserveMaxAge:       200 * time.Millisecond,
	ObserveDetailMaxAge: 5 * time.Second,
	WatchProbeInterval:  500 * time.Millisecond,
	Poll:                DefaultPollIntervals,

	MaxReconcileRate: 50,
	WatchInterval:    250 * time.Millisecond,
}
