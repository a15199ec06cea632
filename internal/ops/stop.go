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
	"maps"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Stopping: a cancelled or deleted operation stops at its next safe point
// (a step marked SafePoint, or its end), never between two steps that only
// together leave the target whole. docs/operations-engine.md, "Stopping".

const (
	stoppingPrefix = "deleted: stops "
	stoppingSep    = "; now: "
)

// stopRequested reports whether o should stop at its next safe point: it
// was cancelled or deleted.
func stopRequested(o Object) bool {
	return o.GetOperationPolicy().Cancel || meta.WasDeleted(o)
}

// stop ends an operation at a safe point, before step's call.
func (e *Engine) stop(ctx context.Context, r Run, step Step) error {
	o := r.Object
	st := o.GetOperationStatus()
	if !meta.WasDeleted(o) {
		return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonCancelled,
			fmt.Sprintf("cancelled before %s; nothing more was sent to the backend", step.Name))
	}
	if nothingTookEffect(st) {
		what := "nothing was sent to the backend"
		if st.Attempts > 0 {
			what = "every call it sent was refused, so nothing took effect"
		}
		return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeleted, fmt.Sprintf("deleted while %s; %s", st.Phase, what))
	}
	return e.finish(ctx, r, v1alpha1.OperationFailed, ReasonDeletedWhileRunning,
		fmt.Sprintf("deleted while Running: stopped at a safe point, before %s (%s); %s", step.Name, doneOf(st), e.leftIn(ctx, r)))
}

// deletedOutcome rewords the success of an operation that was deleted while
// running and finished its last step on its way out.
func (e *Engine) deletedOutcome(ctx context.Context, r Run, phase v1alpha1.OperationPhase, reason, msg string) (string, string) {
	st := r.Object.GetOperationStatus()
	if !meta.WasDeleted(r.Object) || phase != v1alpha1.OperationSucceeded || nothingTookEffect(st) {
		return reason, msg
	}
	return ReasonDeletedWhileRunning, fmt.Sprintf("deleted while Running: finished its last step before going away (%s); %s", msg, e.leftIn(ctx, r))
}

// doneOf says how far an operation got, e.g. "1 of 3 nodes done".
func doneOf(st *v1alpha1.OperationStatus) string {
	p := st.Progress
	if p == nil {
		return fmt.Sprintf("%d steps done", st.Step)
	}
	return fmt.Sprintf("%d of %d %s done", p.Done, p.Total, orDefault(p.Unit, "steps"))
}

// leftIn describes the state an operation leaves its target in, read from
// the backend now.
func (e *Engine) leftIn(ctx context.Context, r Run) string {
	snap, err := e.Observer.Fresh(ctx, r.Source, r.ClusterID, Needs{Nodes: true})
	if err != nil {
		return fmt.Sprintf("the state %s was left in could not be read: %s", r.TargetDescription, err)
	}
	return fmt.Sprintf("%s was left with %s", r.TargetDescription, describeBackend(snap))
}

// describeBackend summarizes a cluster: "cluster active, nodes: 3 online".
func describeBackend(s *Snapshot) string {
	count := map[string]int{}
	for _, n := range s.Nodes {
		count[string(n.Status)]++
	}
	parts := make([]string, 0, len(count))
	for _, status := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%d %s", count[status], status))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("cluster %s", s.Cluster.Status)
	}
	return fmt.Sprintf("cluster %s, nodes: %s", s.Cluster.Status, strings.Join(parts, ", "))
}

// nextSafePoint names where a running operation will stop.
func nextSafePoint(steps []Step, st *v1alpha1.OperationStatus) string {
	for j := int(st.Step) + 1; j < len(steps); j++ {
		if steps[j].SafePoint {
			return "before " + steps[j].Name
		}
	}
	if len(steps) == 0 {
		return "at its end"
	}
	return "after its last step, " + steps[len(steps)-1].Name
}

// noteStopping says in the message of a deleted, still running operation
// where it will stop, and records an event the first time (before is the
// message at the start of this reconcile).
func (e *Engine) noteStopping(r Run, before string) {
	o := r.Object
	st := o.GetOperationStatus()
	where := markStopping(st, r.Plan(st.Targets))
	if !strings.HasPrefix(before, stoppingPrefix) {
		e.record(o, event.Normal(ReasonStopping, fmt.Sprintf("deleted while %s at %s: it stops %s (its next safe point), then goes away",
			st.Phase, orDefault(currentOf(st), "its first step"), where)))
	}
}

// markStopping prefixes the message of a deleted operation with where it
// will stop, and returns that place.
func markStopping(st *v1alpha1.OperationStatus, steps []Step) string {
	where := nextSafePoint(steps, st)
	msg := st.Message
	if strings.HasPrefix(msg, stoppingPrefix) {
		if _, rest, ok := strings.Cut(msg, stoppingSep); ok {
			msg = rest
		}
	}
	st.Message = truncate(stoppingPrefix+where+", then goes away"+stoppingSep+msg, 2000)
	return where
}
