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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/window"
)

// Maintenance windows: an operation with a window starts, and starts each
// step after a safe point, only while its window is open.
// docs/operations-engine.md, "Maintenance windows".

func (e *Engine) windowNow() time.Time {
	if e.WindowNow != nil {
		return e.WindowNow()
	}
	return e.now()
}

// windowClosed reports whether o has a window that is closed now, and when
// it opens next. An invalid window fails the operation before it queues.
func (e *Engine) windowClosed(ctx context.Context, r Run) (closed bool, w *window.Window, next time.Time, err error) {
	pol := r.Object.GetOperationPolicy()
	if pol.Window == nil {
		return false, nil, time.Time{}, nil
	}
	w, perr := window.Parse(*pol.Window)
	if perr != nil {
		return true, nil, time.Time{}, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonInvalidWindow, perr.Error()+"; nothing was sent to the backend")
	}
	open, start := w.Open(e.windowNow())
	return !open, w, start, nil
}

// waitForWindowToStart keeps a queued operation out of its target's queue
// while its window is closed. It reports whether the operation waits.
func (e *Engine) waitForWindowToStart(ctx context.Context, r Run) (bool, error) {
	closed, w, next, err := e.windowClosed(ctx, r)
	if !closed || err != nil || w == nil {
		return closed, err
	}
	st := r.Object.GetOperationStatus()
	st.QueuePosition = nil
	e.noteWindow(r, v1alpha1.OperationPending, "waits for its maintenance window %s, which opens at %s; it takes its turn on %s then",
		w, w.Format(next), r.TargetDescription)
	return true, nil
}

// holdForWindow keeps the current step's call from being due while the
// window is closed, when the step is the first or follows a safe point: a
// step in between is always run. It reports whether the operation waits;
// a held operation's progress counts what it did and names the step it
// waits to start (of total).
func (e *Engine) holdForWindow(ctx context.Context, r Run, step Step, total int, expired bool) (bool, error) {
	st, pol := r.Object.GetOperationStatus(), r.Object.GetOperationPolicy()
	if !nothingTookEffect(st) && !step.SafePoint {
		return false, nil
	}
	closed, w, next, err := e.windowClosed(ctx, r)
	if !closed && st.Reason == ReasonWaitingForWindow {
		// The window opened again: the step starts now, and its own
		// timeout counts from now.
		st.StepStartedAt = &metav1.Time{Time: e.now()}
	}
	if !closed || err != nil || w == nil {
		return closed, err
	}
	setProgress(st, step, total)
	if expired {
		return true, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeadlineExceeded,
			fmt.Sprintf("did not finish within %s; it was waiting for its maintenance window %s to open again at %s, before %s (%s)",
				timeout(pol), w, w.Format(next), step.Name, doneOf(st)))
	}
	// It keeps the lock only while the next opening comes before its
	// deadline: one that would fail while waiting stops now instead.
	if since := runningSince(st, pol); since != nil {
		if left := since.Add(timeout(pol)).Sub(e.now()); next.Sub(e.windowNow()) > left {
			return true, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeadlineExceeded,
				fmt.Sprintf("cannot finish within %s: its maintenance window %s opens again at %s, after its deadline; it stops before %s (%s) and releases the lock on %s",
					timeout(pol), w, w.Format(next), step.Name, doneOf(st), r.TargetDescription))
		}
	}
	if nothingTookEffect(st) {
		e.noteWindow(r, phaseBeforeCall(st), "%s: waits for its maintenance window %s, which opens at %s; it holds the lock on %s",
			step.Name, w, w.Format(next), r.TargetDescription)
		return true, nil
	}
	e.noteWindow(r, v1alpha1.OperationRunning, "its maintenance window %s closed: it starts %s when the window opens again at %s (%s; it holds the lock on %s)",
		w, step.Name, w.Format(next), doneOf(st), r.TargetDescription)
	return true, nil
}

// noteWindow sets a WaitingForWindow status, and records an event when the
// operation starts waiting.
func (e *Engine) noteWindow(r Run, phase v1alpha1.OperationPhase, format string, args ...any) {
	st := r.Object.GetOperationStatus()
	before := st.Reason
	setPhase(st, phase, ReasonWaitingForWindow, format, args...)
	if before != ReasonWaitingForWindow {
		e.record(r.Object, event.Normal(ReasonWaitingForWindow, st.Message))
	}
}

// phaseBeforeCall is Pending before an operation's first call, Running
// after.
func phaseBeforeCall(st *v1alpha1.OperationStatus) v1alpha1.OperationPhase {
	if st.Attempts == 0 && st.Step == 0 {
		return v1alpha1.OperationPending
	}
	return v1alpha1.OperationRunning
}
