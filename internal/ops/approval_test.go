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
	"testing"
	"time"

	"k8s.io/utils/ptr"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestEngineApproval(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	required := withPolicy(func(p *v1alpha1.OperationPolicy) { p.Approval = v1alpha1.ApprovalRequired })
	approved := withPolicy(func(p *v1alpha1.OperationPolicy) { p.Approval, p.Approved = v1alpha1.ApprovalRequired, true })
	nodes := []sb.StorageNodeDTO{{ID: "n1", Hostname: "host-1", Status: sb.NodeOnline}, {ID: "n2", Hostname: "host-2", Status: sb.NodeOnline}}
	// shown is the plan of the test step on n1 and n2, computed at t0+d.
	shown := func(d time.Duration) *v1alpha1.OperationPlan {
		return &v1alpha1.OperationPlan{ID: "c4b340bd9500", ComputedAt: *at(d), Targets: []string{"host-1 (n1)", "host-2 (n2)"},
			Steps: []v1alpha1.PlannedStep{{Name: "activate", Call: testPath, Verdict: "ready"}}}
	}
	showing := func(d time.Duration) opModifier {
		return withOpStatus(func(st *v1alpha1.OperationStatus) {
			st.Phase, st.Reason, st.Targets, st.Plan = v1alpha1.OperationPending, ReasonAwaitingApproval, []string{"n1", "n2"}, shown(d)
		})
	}
	both := func(*Snapshot) []string { return []string{"n1", "n2"} }

	cases := map[string]observeCase{
		"ShowsItsPlanAndWaits": {
			reason: "An operation that needs approval fixes its targets, computes its plan on a fresh read when it holds the lock, shows it and sends nothing.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required), now: time.Minute, choose: both,
				backend: &backend{status: sb.ClusterUnready, nodes: nodes}},
			want: observeWant{lock: op1Lock, message: "awaiting approval: holds the lock on StorageCluster demo and shows its plan c4b340bd9500 (1 steps, 1 calls, 2 targets) in status.atProvider.plan; set spec.forProvider.approved to true to run it, or cancel to drop it; unapproved at 2026-03-02T12:01:00Z, it fails ApprovalExpired",
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.Targets, st.Plan = ReasonAwaitingApproval, []string{"n1", "n2"}, shown(time.Minute)
				}},
		},
		"PlanShowsEachStepsVerdict": {
			reason: "A step's verdict in the plan is what its gate says now.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required), now: time.Minute,
				backend: &backend{status: sb.ClusterInExpansion}},
			want: observeWant{lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				st.Reason = ReasonAwaitingApproval
				st.Plan = &v1alpha1.OperationPlan{ID: "ed3edba89fad", ComputedAt: *at(time.Minute),
					Steps: []v1alpha1.PlannedStep{{Name: "activate", Call: testPath, Verdict: "waits: the cluster is in_expansion"}}}
			}},
		},
		"LaterStepsSayWhatTheyWillDo": {
			reason: "A step after the first shows what it will do when its turn comes, not what its precondition says before the steps ahead of it ran (#47): a rolling restart's restarts read 'skipped: already online' otherwise.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required), now: time.Minute,
				backend: &backend{status: sb.ClusterInExpansion},
				steps: []Step{testStep(), testStep(func(s *Step) {
					s.Name = "start"
					s.Skip = func(*Snapshot) (bool, string) { return true, "the cluster is already active" }
				}), testStep(func(s *Step) { s.Name, s.Call = "settle", nil })}},
			want: observeWant{lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				st.Reason = ReasonAwaitingApproval
				st.Plan = &v1alpha1.OperationPlan{ID: "738f84115e67", ComputedAt: *at(time.Minute),
					Steps: []v1alpha1.PlannedStep{
						{Name: "activate", Call: testPath, Verdict: "waits: the cluster is in_expansion"},
						{Name: "start", Call: testPath, Verdict: "later: sends " + testPath + " unless the backend shows it done or refuses it then"},
						{Name: "settle", Verdict: "later: waits; sends nothing"},
					}}
			}},
		},
		"WaitsWithoutReadingTheBackend": {
			reason: "Once its plan is shown, an operation waiting for approval neither reads the backend nor changes.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required, showing(time.Minute)), now: time.Hour},
			want:   observeWant{lock: op1Lock, noBackend: true},
		},
		"NoDeadlineWhileAwaitingApproval": {
			reason: "The wait for approval does not count against timeoutSeconds: deadlines start at approval.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required, showing(time.Minute)), now: 24 * time.Hour},
			want:   observeWant{lock: op1Lock, noBackend: true},
		},
		"ApprovalExpires": {
			reason: "Not approved within a day (the default) of showing its plan, the operation fails ApprovalExpired, sends nothing and releases the lock.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required, showing(time.Minute)), now: 24*time.Hour + time.Minute},
			want: observeWant{noBackend: true, message: "not approved within 24h0m0s of showing its plan c4b340bd9500 at 2026-03-01T12:01:00Z (approvalTimeoutSeconds); nothing was sent",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonApprovalExpired, 24*time.Hour+time.Minute),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonApprovalExpired, 24*time.Hour+time.Minute)}},
		},
		"ApprovalTimeoutSet": {
			reason: "approvalTimeoutSeconds sets the bound.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Minute + 10*time.Second,
				op: operation(holding(0), required, showing(time.Minute), withPolicy(func(p *v1alpha1.OperationPolicy) { p.ApprovalTimeoutSeconds = ptr.To[int64](10) }))},
			want: observeWant{noBackend: true, message: "not approved within 10s of showing its plan c4b340bd9500",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonApprovalExpired, time.Minute+10*time.Second),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonApprovalExpired, time.Minute+10*time.Second)}},
		},
		"ApprovedRunsThePlan": {
			reason: "Approved, the plan computed again is the one shown: the operation runs it at once, and its deadlines count from now.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), approved, showing(time.Minute)), now: time.Hour, choose: both,
				backend: &backend{status: sb.ClusterUnready, nodes: nodes}},
			want: observeWant{trigger: true, lock: op1Lock, message: "activate: preconditions hold; sending " + testPath,
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.ApprovedAt, st.StepStartedAt, st.Progress = ReasonWaitingForPrecond, at(time.Hour), at(time.Hour), prog(0, 1, "activate")
				}},
		},
		"ApprovedPlanChanged": {
			reason: "A plan whose targets changed since it was shown is not run on the old approval: the operation fails and sends nothing.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), approved, showing(time.Minute)), now: time.Hour,
				choose:  func(*Snapshot) []string { return []string{"n1", "n3"} },
				backend: &backend{status: sb.ClusterUnready, nodes: nodes}},
			want: observeWant{message: "approved, but the plan changed since it was shown (c4b340bd9500 at 2026-03-01T12:01:00Z): its targets were [host-1 (n1), host-2 (n2)] and are now [host-1 (n1), n3]; nothing was sent",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonPlanChanged, time.Hour),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonPlanChanged, time.Hour)}},
		},
		"CancelledWhileAwaitingApproval": {
			reason: "Cancelled before approval, the operation fails Cancelled and sends nothing.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), op: operation(holding(0), required, showing(time.Minute), cancelled()), now: time.Hour},
			want: observeWant{message: "cancelled before activate",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonCancelled, time.Hour, withProgress(prog(0, 1, "activate"))),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonCancelled, time.Hour)}},
		},
		"DeadlineCountsFromApproval": {
			reason: "An approved operation fails DeadlineExceeded timeoutSeconds after its approval.",
			args: observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: 3*time.Hour + time.Second,
				op: operation(holding(0), approved, showing(time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) { st.ApprovedAt = at(2 * time.Hour) }))},
			want: observeWant{message: "did not finish within 1h0m0s",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 3*time.Hour+time.Second, withProgress(prog(0, 1, "activate"))),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 3*time.Hour+time.Second)}},
		},
		"AutomaticIgnoresApproval": {
			reason: "Without approval Required the deadline counts from leaving the queue, as before.",
			args:   observeArgs{cluster: storageCluster(lockedBy(op1Lock)), now: time.Hour + time.Second, op: operation(holding(0))},
			want: observeWant{message: "did not finish within 1h0m0s",
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second, withProgress(prog(0, 1, "activate"))),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.run(t) })
	}
}
