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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Approval: an operation with approval Required shows its plan when it took
// its turn and runs it only once approved, and only if the plan computed
// again at approval is the same. docs/operations-engine.md, "Approval".

// runningSince is when an operation's deadlines start: when it left the
// queue, was approved and took its disruption slots, whichever came last;
// nil while it awaits approval or a slot.
func runningSince(st *v1alpha1.OperationStatus, pol v1alpha1.OperationPolicy) *metav1.Time {
	since := st.StartedAt
	later := func(t *metav1.Time) {
		if since == nil || t.After(since.Time) {
			since = t
		}
	}
	if pol.Approval == v1alpha1.ApprovalRequired {
		if st.ApprovedAt == nil {
			return nil
		}
		later(st.ApprovedAt)
	}
	if d := st.Disruption; d != nil {
		if d.AcquiredAt == nil {
			return nil
		}
		later(d.AcquiredAt)
	}
	return since
}

// awaitApproval computes and shows the plan of an operation that needs
// approval, and approves it once approved is set and the plan is the same.
// It reports whether the operation still waits.
// An operation with nothing to work on (no targets) does not wait: it
// finishes as any other.
func (e *Engine) awaitApproval(ctx context.Context, r Run, now time.Time) (bool, error) {
	o := r.Object
	st, pol := o.GetOperationStatus(), o.GetOperationPolicy()
	if st.Plan != nil && !pol.Approved {
		bound := approvalTimeout(pol)
		if until := st.Plan.ComputedAt.Add(bound); !now.Before(until) {
			return true, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonApprovalExpired, fmt.Sprintf(
				"not approved within %s of showing its plan %s at %s (approvalTimeoutSeconds); nothing was sent and the lock is released. Create a new operation to review it again",
				bound, st.Plan.ID, st.Plan.ComputedAt.UTC().Format(time.RFC3339)))
		}
		return true, nil
	}
	// Every part, once: the steps' needs are known only once the targets are.
	snap, err := e.Observer.Fresh(ctx, r.Source, r.ClusterID, Needs{Nodes: true, Events: true, Tasks: true})
	if err != nil {
		st.Message = truncate(fmt.Sprintf(errObserveMsg, err), 1000)
		return true, nil
	}
	targets := st.Targets
	if r.ChooseTargets != nil && (st.Plan != nil || len(targets) == 0) {
		if targets = r.ChooseTargets(snap); len(targets) == 0 {
			return false, nil
		}
	}
	if st.Plan == nil {
		st.Targets = targets
	}
	p := planOf(r.Plan(targets), targets, snap, now)
	if st.Plan == nil {
		st.Plan = &p
		setPhase(st, v1alpha1.OperationPending, ReasonAwaitingApproval,
			"awaiting approval: holds the lock on %s and shows its plan %s (%s) in status.atProvider.plan; set spec.forProvider.approved to true to run it, or cancel to drop it; unapproved at %s, it fails ApprovalExpired",
			r.TargetDescription, p.ID, summary(p), now.Add(approvalTimeout(pol)).UTC().Format(time.RFC3339))
		e.record(o, event.Normal(ReasonAwaitingApproval, st.Message))
		return true, nil
	}
	if p.ID != st.Plan.ID {
		return true, e.finish(ctx, r, v1alpha1.OperationFailed, ReasonPlanChanged, fmt.Sprintf(
			"approved, but the plan changed since it was shown (%s at %s): %s; nothing was sent to the backend. Create a new operation to review and approve the new plan",
			st.Plan.ID, st.Plan.ComputedAt.UTC().Format(time.RFC3339), planDiff(*st.Plan, p)))
	}
	st.ApprovedAt = &metav1.Time{Time: now}
	st.StepStartedAt = st.ApprovedAt.DeepCopy()
	setPhase(st, v1alpha1.OperationPending, ReasonWaitingForPrecond, "approved plan %s; checking preconditions", p.ID)
	e.record(o, event.Normal(ReasonApproved, fmt.Sprintf("approved: runs plan %s (%s), the same as computed again now", p.ID, summary(p))))
	return false, nil
}

// planOf describes steps on the backend's state in snap.
func planOf(steps []Step, targets []string, snap *Snapshot, now time.Time) v1alpha1.OperationPlan {
	p := v1alpha1.OperationPlan{ComputedAt: metav1.NewTime(now), Steps: []v1alpha1.PlannedStep{}}
	h := sha256.New()
	for _, id := range targets {
		p.Targets = append(p.Targets, nodeLabel(snap, id))
		fmt.Fprintf(h, "target %s\n", id)
	}
	for i, s := range steps {
		ps := v1alpha1.PlannedStep{Name: s.Name, Verdict: truncate(verdictOf(s, snap), 300)}
		if i > 0 {
			// Its precondition now says nothing of when its turn comes:
			// the steps before it change the cluster.
			ps.Verdict = laterVerdict(s)
		}
		if s.Call != nil {
			ps.Call = s.Path
		}
		fmt.Fprintf(h, "step %s %s\n", ps.Name, ps.Call)
		p.Steps = append(p.Steps, ps)
	}
	p.ID = hex.EncodeToString(h.Sum(nil)[:6])
	return p
}

// laterVerdict is what a step after the first will do: its skip rule and
// gate are decided when its turn comes.
func laterVerdict(s Step) string {
	if s.Call == nil {
		return "later: waits; sends nothing"
	}
	return "later: sends " + s.Path + " unless the backend shows it done or refuses it then"
}

// verdictOf is what a step's skip rule and gate say on snap.
func verdictOf(s Step, snap *Snapshot) string {
	if s.Skip != nil {
		if skip, why := s.Skip(snap); skip {
			return "skipped: " + why
		}
	}
	if s.Gate != nil {
		waiting, refusal := s.Gate(snap)
		switch {
		case refusal != "":
			return "refused: " + refusal
		case waiting != "":
			return "waits: " + waiting
		}
	}
	return "ready"
}

// nodeLabel names a node as "<hostname> (<uuid>)" where snap knows it.
func nodeLabel(snap *Snapshot, id string) string {
	for _, n := range snap.Nodes {
		if n.ID == id && n.Hostname != "" {
			return fmt.Sprintf("%s (%s)", n.Hostname, id)
		}
	}
	return id
}

// summary counts a plan's steps, calls and targets, e.g. "12 steps, 6
// calls, 3 targets".
func summary(p v1alpha1.OperationPlan) string {
	calls := 0
	for _, s := range p.Steps {
		if s.Call != "" {
			calls++
		}
	}
	s := fmt.Sprintf("%d steps, %d calls", len(p.Steps), calls)
	if len(p.Targets) > 0 {
		s += fmt.Sprintf(", %d targets", len(p.Targets))
	}
	return s
}

// planDiff says how plan now differs from the plan shown.
func planDiff(shown, now v1alpha1.OperationPlan) string {
	if !slices.Equal(shown.Targets, now.Targets) {
		return fmt.Sprintf("its targets were [%s] and are now [%s]", strings.Join(shown.Targets, ", "), strings.Join(now.Targets, ", "))
	}
	for i := range min(len(shown.Steps), len(now.Steps)) {
		if a, b := shown.Steps[i], now.Steps[i]; a.Name != b.Name || a.Call != b.Call {
			return fmt.Sprintf("step %d was %q (%s) and is now %q (%s)", i+1, a.Name, orDefault(a.Call, "no call"), b.Name, orDefault(b.Call, "no call"))
		}
	}
	return fmt.Sprintf("it had %d steps and now has %d", len(shown.Steps), len(now.Steps))
}
