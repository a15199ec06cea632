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

package clusterops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pkg/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/opstest"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

const cid = "c1"

type crModifier func(*v1alpha1.ClusterOps)

func clusterOps(typ v1alpha1.ClusterOperationType, m ...crModifier) *v1alpha1.ClusterOps {
	cr := &v1alpha1.ClusterOps{}
	cr.SetName("op")
	cr.SetNamespace("storage")
	cr.Spec.ForProvider.Type = typ
	cr.Spec.ForProvider.ClusterID = cid
	for _, f := range m {
		f(cr)
	}
	return cr
}

func expectedNodes(n int64) crModifier {
	return func(cr *v1alpha1.ClusterOps) {
		cr.Spec.ForProvider.Expand = &v1alpha1.ExpandParameters{ExpectedNodes: &n}
	}
}

func activateNodes(n int64) crModifier {
	return func(cr *v1alpha1.ClusterOps) {
		cr.Spec.ForProvider.Activate = &v1alpha1.ActivateParameters{ExpectedNodes: &n}
	}
}

func rolling(p v1alpha1.NodeRollingRestartParameters) crModifier {
	return func(cr *v1alpha1.ClusterOps) { cr.Spec.ForProvider.NodeRollingRestart = &p }
}

func upgrade(p v1alpha1.UpgradeParameters) crModifier {
	return func(cr *v1alpha1.ClusterOps) { cr.Spec.ForProvider.Upgrade = &p }
}

// stepOf returns step i of cr's plan for targets.
func stepOf(t *testing.T, cr *v1alpha1.ClusterOps, i int, targets ...string) ops.Step {
	t.Helper()
	plan := planFor(cr, cid, steps.AutoExpansion{})(targets)
	if i >= len(plan) {
		t.Fatalf("plan of %s has %d plan, want step %d", cr.Spec.ForProvider.Type, len(plan), i)
	}
	return plan[i]
}

// Snapshots, events and baselines of the cases (opstest builds them).
type snapModifier = opstest.SnapModifier

func snap(st sb.ClusterStatus, m ...snapModifier) *ops.Snapshot { return opstest.Snap(cid, st, m...) }

var (
	nodes  = opstest.Nodes
	events = opstest.Events
	nodeEv = opstest.NodeEvent
	base   = opstest.Base
	// mark is the baseline event.
	mark = opstest.Mark()
)

func rebalancing() snapModifier { return func(s *ops.Snapshot) { s.Cluster.IsReBalancing = true } }

func tasks(ts ...sb.TaskDTO) snapModifier { return func(s *ops.Snapshot) { s.Tasks = ts } }

// balancing is a balancing_on_restart task, the one a rebalance lists.
func balancing(id string, st sb.TaskStatus) sb.TaskDTO {
	return sb.TaskDTO{ID: id, ClusterID: cid, FunctionName: "balancing_on_restart", Status: st}
}

func tasksErr(err error) snapModifier { return func(s *ops.Snapshot) { s.TasksErr = err } }

func clusterEv(from, to string) ops.Event { return opstest.ClusterEvent(from, to) }

// The rules a case reads and what they said (shared with the other
// operation kind's plan tests).
type (
	judge   = opstest.Judge
	outcome = opstest.Outcome
)

const (
	skip     = opstest.Skip
	gate     = opstest.Gate
	evidence = opstest.Evidence
	check    = opstest.Check
)

type stepCase struct {
	reason string
	judge  judge
	step   func(t *testing.T) ops.Step
	snap   *ops.Snapshot
	base   ops.Baseline
	want   outcome
}

func runStepCases(t *testing.T, cases map[string]stepCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := opstest.Evaluate(tc.judge, tc.step(t), tc.snap, tc.base)
			if d := opstest.Mismatch(tc.want, got); d != "" {
				t.Errorf("\n%s\n%s", tc.reason, d)
			}
		})
	}
}

func planStep(cr *v1alpha1.ClusterOps, i int, targets ...string) func(t *testing.T) ops.Step {
	return func(t *testing.T) ops.Step { return stepOf(t, cr, i, targets...) }
}

func TestActivateStep(t *testing.T) {
	activate := planStep(clusterOps(v1alpha1.ClusterActivate), 0)
	activateThree := planStep(clusterOps(v1alpha1.ClusterActivate, activateNodes(3)), 0)
	runStepCases(t, map[string]stepCase{
		"GateWaitsExpectedNodes": {
			reason: "Nodes still being added are not visible yet: fewer online nodes than expected are waited for; removed nodes do not count.",
			judge:  gate, step: activateThree, snap: snap(sb.ClusterUnready, nodes("n1=online", "n2=online", "n3=removed")),
			want: outcome{Waiting: "2 of the 3 expected storage nodes are online"},
		},
		"GatePassesExpectedNodes": {
			reason: "With the expected nodes online the activation may start.",
			judge:  gate, step: activateThree, snap: snap(sb.ClusterUnready, nodes("n1=online", "n2=online", "n3=online")),
		},
		"SkipActive": {
			reason: "An active cluster needs no activation.",
			judge:  skip, step: activate, snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Skip: true, Progress: "already active"},
		},
		"NoSkipUnready": {
			reason: "An unready cluster is activated.",
			judge:  skip, step: activate, snap: snap(sb.ClusterUnready, nodes("n1=online")),
		},
		"GateWaitsInActivation": {
			reason: "A second activation must not start while one runs.",
			judge:  gate, step: activate, snap: snap(sb.ClusterInActivation, nodes("n1=online")),
			want: outcome{Waiting: "the cluster is in_activation"},
		},
		"GateWaitsOfflineNode": {
			reason: "Every live node must be online; the gate names the ones that are not.",
			judge:  gate, step: activate, snap: snap(sb.ClusterUnready, nodes("n1=online", "n2=offline", "n3=removed")),
			want: outcome{Waiting: "every storage node must be online; not yet: n2 (offline)"},
		},
		"GateWaitsNoNodes": {
			reason: "A cluster without nodes cannot be activated yet.",
			judge:  gate, step: activate, snap: snap(sb.ClusterUnready),
			want: outcome{Waiting: "the cluster has no storage nodes"},
		},
		"GateWaitsOnlyRemovedNodes": {
			reason: "Removed nodes do not count as nodes.",
			judge:  gate, step: activate, snap: snap(sb.ClusterUnready, nodes("n1=removed")),
			want: outcome{Waiting: "the cluster has no storage nodes"},
		},
		"GateWaitsInactive": {
			reason: "Activation starts only from unready, suspended, degraded or read_only.",
			judge:  gate, step: activate, snap: snap(sb.ClusterInactive, nodes("n1=online")),
			want: outcome{Waiting: "activation starts from unready, suspended, degraded or read_only"},
		},
		"GatePassesUnready": {
			reason: "An unready cluster with every live node online may be activated; removed nodes are ignored.",
			judge:  gate, step: activate, snap: snap(sb.ClusterUnready, nodes("n1=online", "n2=online", "n3=removed")),
		},
		"GatePassesSuspended": {
			reason: "A suspended cluster with every node online may be activated.",
			judge:  gate, step: activate, snap: snap(sb.ClusterSuspended, nodes("n1=online")),
		},
		"EvidenceAfterBaseline": {
			reason: "A change to in_activation after the baseline is evidence.",
			judge:  evidence, step: activate, base: base("unready"),
			snap: snap(sb.ClusterUnready, events(clusterEv("in_activation", "unready"), mark,
				nodeEv("n1", "online", "offline"), clusterEv("unready", "in_activation"), clusterEv("in_activation", "unready"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A change to in_activation before the baseline is not evidence of this call.",
			judge:  evidence, step: activate, base: base("unready"),
			snap: snap(sb.ClusterUnready, events(clusterEv("unready", "in_activation"), clusterEv("in_activation", "unready"), mark)),
		},
		"EvidenceFromStatus": {
			reason: "A cluster now in_activation is evidence even when the log window shows nothing.",
			judge:  evidence, step: activate, base: base("unready"), snap: snap(sb.ClusterInActivation, events(mark)),
			want: outcome{Evidence: true},
		},
		"CheckDoneActive": {
			reason: "An active cluster means the activation is done.",
			judge:  check, step: activate, base: base("unready"), snap: snap(sb.ClusterActive, events(mark)),
			want: outcome{Done: true},
		},
		"CheckFailsBackToBaseline": {
			reason: "A cluster that went from in_activation back to its status before the call failed to activate.",
			judge:  check, step: activate, base: base("unready"),
			snap: snap(sb.ClusterUnready, events(mark, clusterEv("unready", "in_activation"), clusterEv("in_activation", "unready"))),
			want: outcome{Failure: "the activation failed: the cluster went from in_activation back to unready", Reason: "ActivationFailed"},
		},
		"CheckOldFailureIgnored": {
			reason: "A failed activation before the baseline says nothing about this one.",
			judge:  check, step: activate, base: base("unready"),
			snap: snap(sb.ClusterUnready, events(clusterEv("unready", "in_activation"), clusterEv("in_activation", "unready"), mark)),
			want: outcome{Progress: "the cluster is unready"},
		},
		"CheckProgressInActivation": {
			reason: "While in_activation the step reports progress.",
			judge:  check, step: activate, base: base("unready"),
			snap: snap(sb.ClusterInActivation, events(mark, clusterEv("unready", "in_activation"))),
			want: outcome{Progress: "the cluster is in_activation"},
		},
		"CheckSuspendedByWatchdog": {
			reason: "A cluster suspended by the activation watchdog is waited for, not failed.",
			judge:  check, step: activate, base: base("unready"),
			snap: snap(sb.ClusterSuspended, events(mark, clusterEv("unready", "in_activation"), clusterEv("in_activation", "suspended"))),
			want: outcome{Progress: "the activation watchdog fired"},
		},
	})
}

func TestExpandStep(t *testing.T) {
	expand := planStep(clusterOps(v1alpha1.ClusterExpand, expectedNodes(2)), 0)
	expandAny := planStep(clusterOps(v1alpha1.ClusterExpand), 0)
	runStepCases(t, map[string]stepCase{
		"GateWaitsInExpansion": {
			reason: "An expansion must not start while another runs.",
			judge:  gate, step: expand, snap: snap(sb.ClusterInExpansion, nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "an expansion is running (in_expansion)"},
		},
		"GateWaitsNotRunning": {
			reason: "Expansion starts only from a running cluster.",
			judge:  gate, step: expand, snap: snap(sb.ClusterUnready, nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "expansion starts from active, degraded or read_only"},
		},
		"GateWaitsOpenExpandTask": {
			reason: "An open cluster_expand task (a node added with expand) is waited out.",
			judge:  gate, step: expand,
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), tasks(sb.TaskDTO{FunctionName: sb.TaskFunctionClusterExpand, Status: sb.TaskRunning})),
			want: outcome{Waiting: "a cluster_expand task is running"},
		},
		"GateWaitsOpenNodeAddTask": {
			reason: "An open node_add task is waited out.",
			judge:  gate, step: expand,
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), tasks(sb.TaskDTO{FunctionName: sb.TaskFunctionNodeAdd, Status: sb.TaskNew})),
			want: outcome{Waiting: "a node_add task is new"},
		},
		"GatePassesTasksUnreadable": {
			reason: "The backend fails the task list for 30 days after any expansion task: that alone must not block an expansion.",
			judge:  gate, step: expand,
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), tasksErr(errors.New("HTTP 500"))),
		},
		"GateWaitsNodesBeingAdded": {
			reason: "A node still in_creation is waited for.",
			judge:  gate, step: expand, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=in_creation", "n3=removed")),
			want: outcome{Waiting: "nodes are being added: n2 (in_creation)"},
		},
		"GateWaitsExpectedNodes": {
			reason: "Fewer online nodes than expected are waited for; removed and other nodes do not count.",
			judge:  gate, step: expand, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=offline", "n3=removed")),
			want: outcome{Waiting: "1 of the 2 expected storage nodes are online"},
		},
		"GatePasses": {
			reason: "A running cluster with the expected nodes online and only finished or unrelated tasks may expand.",
			judge:  gate, step: expand,
			snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=online"), tasks(
				sb.TaskDTO{FunctionName: sb.TaskFunctionClusterExpand, Status: sb.TaskDone},
				sb.TaskDTO{FunctionName: sb.TaskFunctionDeviceMigration, Status: sb.TaskRunning})),
		},
		"GatePassesWithoutExpectedNodes": {
			reason: "Without expectedNodes any number of online nodes will do.",
			judge:  gate, step: expandAny, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=offline")),
		},
		"EvidenceInExpansionEvent": {
			reason: "A change to in_expansion after the baseline is evidence.",
			judge:  evidence, step: expand, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, clusterEv("active", "in_expansion"), clusterEv("in_expansion", "active"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "An expansion before the baseline is not evidence.",
			judge:  evidence, step: expand, base: base("active"),
			snap: snap(sb.ClusterActive, events(clusterEv("active", "in_expansion"), clusterEv("in_expansion", "active"), mark)),
		},
		"CheckDoneAfterExpansion": {
			reason: "in_expansion → active after the baseline means the expansion is done.",
			judge:  check, step: expand, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, clusterEv("active", "in_expansion"), clusterEv("in_expansion", "active"))),
			want: outcome{Done: true},
		},
		"CheckActiveWithoutTransitionNotDone": {
			reason: "An already-active cluster without an in_expansion → active change after the call is not done.",
			judge:  check, step: expand, base: base("active"), snap: snap(sb.ClusterActive, events(mark)),
			want: outcome{Progress: "the cluster is active"},
		},
		"CheckDoneWithoutTheLog": {
			reason: "With no log to read (it answers 500), the cluster seen in_expansion after the call and now active is done.",
			judge:  check, step: expand, base: func() ops.Baseline { b := base("active"); b.EvidenceSeen = true; return b }(),
			snap: snap(sb.ClusterActive, events()),
			want: outcome{Done: true},
		},
		"CheckLogWitnessesFirst": {
			reason: "Once the log shows the expansion began, only the log's end of it completes it: the cluster record read before the log may still show the status before the call.",
			judge:  check, step: expand, base: func() ops.Baseline { b := base("active"); b.EvidenceSeen = true; return b }(),
			snap: snap(sb.ClusterActive, events(mark, clusterEv("active", "in_expansion"))),
			want: outcome{Progress: "the cluster is active"},
		},
		"CheckOldExpansionNotDone": {
			reason: "An expansion before the baseline does not complete this one.",
			judge:  check, step: expand, base: base("active"),
			snap: snap(sb.ClusterActive, events(clusterEv("active", "in_expansion"), clusterEv("in_expansion", "active"), mark)),
			want: outcome{Progress: "the cluster is active"},
		},
		"CheckProgressInExpansion": {
			reason: "While in_expansion the step waits.",
			judge:  check, step: expand, base: base("active"),
			snap: snap(sb.ClusterInExpansion, events(mark, clusterEv("active", "in_expansion"))),
			want: outcome{Progress: "the cluster is in_expansion"},
		},
		"CheckFailsToDegraded": {
			reason: "in_expansion → degraded means the expansion failed.",
			judge:  check, step: expand, base: base("active"),
			snap: snap(sb.ClusterDegraded, events(mark, clusterEv("active", "in_expansion"), clusterEv("in_expansion", "degraded"))),
			want: outcome{Failure: "the expansion failed: the cluster went from in_expansion back to degraded", Reason: "ExpansionFailed"},
		},
		"CheckLatestExpansionCounts": {
			reason: "The latest end of an expansion decides: a later success wins over an earlier failure.",
			judge:  check, step: expand, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, clusterEv("active", "in_expansion"), clusterEv("in_expansion", "degraded"),
				clusterEv("degraded", "in_expansion"), clusterEv("in_expansion", "active"))),
			want: outcome{Done: true},
		},
	})
}

func TestShutdownStep(t *testing.T) {
	shutdown := planStep(clusterOps(v1alpha1.ClusterShutdown), 0)
	runStepCases(t, map[string]stepCase{
		"SkipAllOffline": {
			reason: "A cluster whose live nodes are all offline needs no shutdown; removed nodes are ignored.",
			judge:  skip, step: shutdown, snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=offline", "n3=removed")),
			want: outcome{Skip: true, Progress: "every storage node is already offline"},
		},
		"NoSkipWithoutNodes": {
			reason: "A cluster without nodes is not 'all offline'.",
			judge:  skip, step: shutdown, snap: snap(sb.ClusterUnready),
		},
		"NoSkipOneOnline": {
			reason: "One online node means a shutdown is needed.",
			judge:  skip, step: shutdown, snap: snap(sb.ClusterActive, nodes("n1=offline", "n2=online")),
		},
		"GateWaitsTransitional": {
			reason: "A cluster in transition is waited out.",
			judge:  gate, step: shutdown, snap: snap(sb.ClusterInExpansion, nodes("n1=online")),
			want: outcome{Waiting: "the cluster is in_expansion"},
		},
		"GateWaitsNodeChanging": {
			reason: "A node changing state is waited out.",
			judge:  gate, step: shutdown, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=in_restart")),
			want: outcome{Waiting: "nodes are changing state: n2 (in_restart)"},
		},
		"GatePasses": {
			reason: "A stable running cluster may be shut down.",
			judge:  gate, step: shutdown, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online")),
		},
		"EvidenceNodeGoingDown": {
			reason: "A node going in_shutdown after the baseline is evidence.",
			judge:  evidence, step: shutdown, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, nodeEv("n1", "online", "in_shutdown"))),
			want: outcome{Evidence: true},
		},
		"EvidenceFewerNodesOnline": {
			reason: "Fewer nodes online than before the call is evidence, with no log at all (an empty log answers 500).",
			judge:  evidence, step: shutdown, base: base("2"),
			snap: snap(sb.ClusterActive, nodes("n1=offline", "n2=online"), events()),
			want: outcome{Evidence: true},
		},
		"EvidenceNodeInShutdown": {
			reason: "A node in_shutdown (which the gate waited out before the call) is evidence.",
			judge:  evidence, step: shutdown, base: base("2"),
			snap: snap(sb.ClusterActive, nodes("n1=in_shutdown", "n2=online"), events(mark)),
			want: outcome{Evidence: true},
		},
		"NoEvidenceAsBefore": {
			reason: "As many nodes online as before the call, and nothing logged since, is no evidence.",
			judge:  evidence, step: shutdown, base: base("2"),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online", "n3=offline"), events(mark)),
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A node shutdown before the baseline is not evidence.",
			judge:  evidence, step: shutdown, base: base("active"),
			snap: snap(sb.ClusterActive, events(nodeEv("n1", "online", "offline"), mark, clusterEv("active", "degraded"))),
		},
		"CheckDoneAllOffline": {
			reason: "Every live node offline means done; removed nodes are ignored.",
			judge:  check, step: shutdown, base: base("active"), snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=offline", "n3=removed")),
			want: outcome{Done: true},
		},
		"CheckProgress": {
			reason: "The step counts offline nodes and names the others.",
			judge:  check, step: shutdown, base: base("active"), snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=in_shutdown", "n3=removed")),
			want: outcome{Progress: "1 of 2 nodes offline; waiting for n2 (in_shutdown)"},
		},
	})
}

func TestStartStep(t *testing.T) {
	start := planStep(clusterOps(v1alpha1.ClusterStart), 0)
	restartStart := planStep(clusterOps(v1alpha1.ClusterRestart), 1)
	runStepCases(t, map[string]stepCase{
		"SkipActiveAllOnline": {
			reason: "An active cluster with every node online needs no start.",
			judge:  skip, step: start, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=removed")),
			want: outcome{Skip: true, Progress: "already active"},
		},
		"NoSkipNodeOffline": {
			reason: "An offline node means the start is needed.",
			judge:  skip, step: start, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=offline")),
		},
		"RestartNeverSkips": {
			reason: "Within a Restart the start is never skipped, even on an active cluster (the shutdown may not show yet).",
			judge:  skip, step: restartStart, snap: snap(sb.ClusterActive, nodes("n1=online")),
		},
		"GateRefusesActive": {
			reason: "A start on a running cluster would be an outage: refused.",
			judge:  gate, step: start, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=offline")),
			want: outcome{Refusal: "the cluster is active: start shuts every node down first, which would be an outage"},
		},
		"GateRefusesDegraded": {
			reason: "A degraded cluster is running too.",
			judge:  gate, step: start, snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Refusal: "the cluster is degraded"},
		},
		"RestartGateWaitsActive": {
			reason: "Within a Restart an active cluster is waited out until the shutdown shows.",
			judge:  gate, step: restartStart, snap: snap(sb.ClusterActive, nodes("n1=offline")),
			want: outcome{Waiting: "the cluster is still active after the shutdown"},
		},
		"GateWaitsNodeChanging": {
			reason: "A node changing state is waited out.",
			judge:  gate, step: start, snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=in_shutdown")),
			want: outcome{Waiting: "nodes are changing state: n2 (in_shutdown)"},
		},
		"GatePassesSuspended": {
			reason: "A suspended cluster with offline nodes may be started.",
			judge:  gate, step: start, snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=offline")),
		},
		"EvidenceNodeRestarting": {
			reason: "A node going in_restart after the baseline is evidence.",
			judge:  evidence, step: start, base: base("suspended"),
			snap: snap(sb.ClusterSuspended, events(mark, nodeEv("n1", "offline", "in_restart"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A restart before the baseline is not evidence.",
			judge:  evidence, step: start, base: base("suspended"),
			snap: snap(sb.ClusterSuspended, events(nodeEv("n1", "offline", "in_restart"), mark)),
		},
		"EvidenceFromUptime": {
			reason: "A node whose uptime is shorter than the time since the call came online after it (models/storage_node.py:956-961): evidence without the log.",
			judge:  evidence, step: start, base: opstest.BaseAt("suspended"),
			snap: snap(sb.ClusterSuspended, nodes("n1=online", "n2=offline"), opstest.Uptime("n1", "PT5.123456S"), opstest.ObservedAfter(time.Minute), events()),
			want: outcome{Evidence: true},
		},
		"NoEvidenceFromAnOlderUptime": {
			reason: "A node online since before the call is no evidence.",
			judge:  evidence, step: start, base: opstest.BaseAt("suspended"),
			snap: snap(sb.ClusterSuspended, nodes("n1=online", "n2=offline"), opstest.Uptime("n1", "P1DT30.000123S"), opstest.ObservedAfter(time.Minute), events(mark)),
		},
		"CheckAbortedAtNode": {
			reason: "A failed node restart aborts the start; the message names the node and its place. The backend logs the failure as offline → offline (storage_node_ops.py:4411-4426).",
			judge:  check, step: start, base: base("suspended"),
			snap: snap(sb.ClusterSuspended, nodes("n1=online", "n2=offline", "n3=offline"),
				events(mark, nodeEv("n1", "offline", "in_shutdown"), nodeEv("n1", "in_shutdown", "offline"), nodeEv("n1", "offline", "in_restart"),
					nodeEv("n1", "in_restart", "online"), nodeEv("n2", "offline", "in_restart"), nodeEv("n2", "offline", "offline"))),
			want: outcome{Failure: "the start aborted at node 2 of 3 (n2): its restart failed, and the backend abandons the nodes after it; not online: n2 (offline), n3 (offline)",
				Reason: "StartAborted"},
		},
		"CheckOldAbortIgnored": {
			reason: "An abort before the baseline does not fail this start.",
			judge:  check, step: start, base: base("suspended"),
			snap: snap(sb.ClusterSuspended, nodes("n1=online", "n2=offline"), events(nodeEv("n2", "offline", "offline"), mark)),
			want: outcome{Progress: "1 of 2 nodes online; waiting for n2 (offline)"},
		},
		"CheckDoneActive": {
			reason: "Every node online and the cluster active means done.",
			judge:  check, step: start, base: base("suspended"), snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online")),
			want: outcome{Done: true},
		},
		"CheckDoneNeverActivated": {
			reason: "A cluster that was unready before the start stays unready: done, with a hint to activate.",
			judge:  check, step: start, base: base("unready"), snap: snap(sb.ClusterUnready, nodes("n1=online")),
			want: outcome{Done: true, Progress: "the cluster was never activated"},
		},
		"CheckWaitsForReactivation": {
			reason: "Every node online but the cluster still suspended: the backend re-activates it.",
			judge:  check, step: start, base: base("suspended"), snap: snap(sb.ClusterSuspended, nodes("n1=online")),
			want: outcome{Progress: "waiting for the backend to re-activate the cluster (suspended)"},
		},
	})
}

func TestRestartPlan(t *testing.T) {
	plan := planFor(clusterOps(v1alpha1.ClusterRestart), cid, steps.AutoExpansion{})(nil)
	type summary struct {
		Name        string
		Path        string
		GateTimeout time.Duration
	}
	got := make([]summary, 0, len(plan))
	for _, s := range plan {
		got = append(got, summary{Name: s.Name, Path: s.Path, GateTimeout: s.GateTimeout})
	}
	want := []summary{
		{Name: "restart: shutdown", Path: "POST /clusters/c1/shutdown"},
		{Name: "restart: start", Path: "POST /clusters/c1/start", GateTimeout: 10 * time.Minute},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("\nA Restart is a shutdown and then a start that may wait up to 10m for the shutdown to show.\nplan: -want, +got:\n%s", diff)
	}
}

func TestEndInRecord(t *testing.T) {
	cases := map[string]struct {
		reason string
		typ    v1alpha1.ClusterOperationType
		want   map[string]bool // step name: EndInRecord
	}{
		"Activate": {reason: "An activation ends with the cluster active, or back where it was: the record shows both.",
			typ: v1alpha1.ClusterActivate, want: map[string]bool{"activate": true}},
		"Expand": {reason: "An expansion without new nodes flips in_expansion -> active within milliseconds: only the log shows it.",
			typ: v1alpha1.ClusterExpand, want: map[string]bool{"expand": false}},
		"Restart": {reason: "A shutdown ends when the last node is offline (the node list shows it); a start when the backend re-activates the cluster.",
			typ: v1alpha1.ClusterRestart, want: map[string]bool{"restart: shutdown": false, "restart: start": true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := map[string]bool{}
			for _, s := range planFor(clusterOps(tc.typ), cid, steps.AutoExpansion{})(nil) {
				got[s.Name] = s.EndInRecord
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nEndInRecord by step: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRollingRestartPlan(t *testing.T) {
	type summary struct {
		Name        string
		SafePoint   bool
		Done, Total int64
		Timeout     time.Duration
		HasCall     bool
	}
	cases := map[string]struct {
		reason  string
		cr      *v1alpha1.ClusterOps
		targets []string
		want    []summary
	}{
		"ThreeNodes": {
			reason:  "Three nodes make nine steps, cancellable only at each node's first step, counting progress per node.",
			cr:      clusterOps(v1alpha1.ClusterNodeRollingRestart),
			targets: []string{"n1", "n2", "n3"},
			want: func() []summary {
				var s []summary
				for i, n := range []string{"n1", "n2", "n3"} {
					p := fmt.Sprintf("node %d/3 %s: ", i+1, n)
					s = append(s,
						summary{Name: p + "shutdown", SafePoint: true, Done: int64(i), Total: 3, Timeout: 30 * time.Minute, HasCall: true},
						summary{Name: p + "restart", Done: int64(i), Total: 3, Timeout: 30 * time.Minute, HasCall: true},
						summary{Name: p + "wait for rebalancing", Done: int64(i), Total: 3, Timeout: 30 * time.Minute})
				}
				return s
			}(),
		},
		"PerNodeTimeout": {
			reason:  "perNodeTimeoutSeconds bounds each of a node's steps.",
			cr:      clusterOps(v1alpha1.ClusterNodeRollingRestart, rolling(v1alpha1.NodeRollingRestartParameters{PerNodeTimeoutSeconds: ptr.To[int64](60)})),
			targets: []string{"n1"},
			want: []summary{
				{Name: "node 1/1 n1: shutdown", SafePoint: true, Total: 1, Timeout: time.Minute, HasCall: true},
				{Name: "node 1/1 n1: restart", Total: 1, Timeout: time.Minute, HasCall: true},
				{Name: "node 1/1 n1: wait for rebalancing", Total: 1, Timeout: time.Minute},
			},
		},
		"NoTargetsYet": {
			reason:  "Before its targets are fixed the plan is empty (the engine plans before it chooses targets); it must not panic.",
			cr:      clusterOps(v1alpha1.ClusterNodeRollingRestart),
			targets: nil,
			want:    nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var plan []ops.Step
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("\n%s\nplanFor(...)(%v) panicked: %v", tc.reason, tc.targets, r)
					}
				}()
				plan = planFor(tc.cr, cid, steps.AutoExpansion{})(tc.targets)
			}()
			got := make([]summary, 0, len(plan))
			for _, s := range plan {
				got = append(got, summary{Name: s.Name, SafePoint: s.SafePoint, Done: s.ProgressDone,
					Total: s.ProgressTotal, Timeout: s.Timeout, HasCall: s.Call != nil})
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nplan: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRollingRestartSteps(t *testing.T) {
	gated := clusterOps(v1alpha1.ClusterNodeRollingRestart)
	ungated := clusterOps(v1alpha1.ClusterNodeRollingRestart, rolling(v1alpha1.NodeRollingRestartParameters{HealthGate: ptr.To(false)}))
	shutdownN1 := planStep(gated, 0, "n1", "n2", "n3")
	restartN1 := planStep(gated, 1, "n1", "n2", "n3")
	settleN1 := planStep(gated, 2, "n1", "n2", "n3")
	shutdownN2 := planStep(gated, 3, "n1", "n2", "n3")
	runStepCases(t, map[string]stepCase{
		"HealthGatePasses": {
			reason: "Every node online and an active, calm cluster: the node may be shut down.",
			judge:  gate, step: shutdownN1, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online", "n3=online", "n4=removed")),
		},
		"HealthGateIgnoresTheNodeItself": {
			reason: "The node to restart may itself be suspended; only its peers must be online.",
			judge:  gate, step: shutdownN1, snap: snap(sb.ClusterActive, nodes("n1=suspended", "n2=online", "n3=online")),
		},
		"HealthGateWaitsPeerOffline": {
			reason: "Another node offline holds the next node back.",
			judge:  gate, step: shutdownN2, snap: snap(sb.ClusterActive, nodes("n1=offline", "n2=online", "n3=online")),
			want: outcome{Waiting: "health gate: other nodes are not online: n1 (offline)"},
		},
		"HealthGateWaitsRebalancing": {
			reason: "A rebalancing cluster holds the next node back.",
			judge:  gate, step: shutdownN1, snap: snap(sb.ClusterActive, rebalancing(), nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "health gate: the cluster is rebalancing"},
		},
		"HealthGateWaitsNotActive": {
			reason: "A cluster that is not active holds the next node back.",
			judge:  gate, step: shutdownN1, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "health gate: the cluster is degraded, not active"},
		},
		"NoHealthGate": {
			reason: "Without the health gate a node is shut down regardless of its peers' health and the cluster's status.",
			judge:  gate, step: planStep(ungated, 0, "n1", "n2"), snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=offline")),
		},
		"NoHealthGateStillWaitsForMigrations": {
			reason: "Without the health gate the backend's own passing refusals still hold a node back: it refuses a graceful shutdown while data migrations may involve the node.",
			judge:  gate, step: planStep(ungated, 0, "n1", "n2"), snap: snap(sb.ClusterDegraded, rebalancing(), nodes("n1=online", "n2=offline")),
			want: outcome{Waiting: "data migrations are running (the cluster is rebalancing; the backend refuses a graceful shutdown of a node they involve)"},
		},
		"RestartGateWaitsForAPeerRestarting": {
			reason: "The backend refuses a node restart silently while another node restarts or shuts down: the rolling restart's restart waits, as StorageNodeOps' does (one step for both).",
			judge:  gate, step: planStep(ungated, 1, "n1", "n2"), snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=in_restart")),
			want: outcome{Waiting: "other nodes are restarting or shutting down (the backend refuses a restart silently then): n2 (in_restart)"},
		},
		"ShutdownGateWaitsNodeState": {
			reason: "A graceful shutdown needs the node online, suspended or down.",
			judge:  gate, step: shutdownN1, snap: snap(sb.ClusterActive, nodes("n1=in_restart", "n2=online")),
			want: outcome{Waiting: "node n1 is in_restart; a graceful shutdown needs online, suspended or down"},
		},
		"SkipGoneNode": {
			reason: "A node that was removed since the targets were fixed is skipped.",
			judge:  skip, step: shutdownN1, snap: snap(sb.ClusterActive, nodes("n1=removed", "n2=online")),
			want: outcome{Skip: true, Progress: "node n1 is gone; skipped"},
		},
		"SkipMissingNode": {
			reason: "A node the backend no longer lists is skipped.",
			judge:  skip, step: shutdownN1, snap: snap(sb.ClusterActive, nodes("n2=online")),
			want: outcome{Skip: true, Progress: "node n1 is gone"},
		},
		"ShutdownEvidence": {
			reason: "The node going in_shutdown after the baseline is evidence; another node's change is not.",
			judge:  evidence, step: shutdownN1, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark, nodeEv("n1", "online", "in_shutdown"))),
			want: outcome{Evidence: true},
		},
		"ShutdownNoEvidenceFromPeer": {
			reason: "Another node going offline is not evidence for this node.",
			judge:  evidence, step: shutdownN1, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=offline"), events(mark, nodeEv("n2", "online", "offline"))),
		},
		"ShutdownDone": {
			reason: "The node offline completes its shutdown step.",
			judge:  check, step: shutdownN1, base: base("online"), snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online")),
			want: outcome{Done: true},
		},
		"RestartGatePasses": {
			reason: "An offline node may be restarted.",
			judge:  gate, step: restartN1, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online")),
		},
		"RestartGateWaitsOffline": {
			reason: "The restart waits for the node to be offline.",
			judge:  gate, step: restartN1, snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown", "n2=online")),
			want: outcome{Waiting: "node n1 is in_shutdown, waiting for offline"},
		},
		"RestartGateWaitsActivation": {
			reason: "The backend refuses node restarts during an activation.",
			judge:  gate, step: restartN1, snap: snap(sb.ClusterInActivation, nodes("n1=offline")),
			want: outcome{Waiting: "the cluster is in_activation"},
		},
		"RestartDone": {
			reason: "The node online completes its restart step.",
			judge:  check, step: restartN1, base: base("offline"), snap: snap(sb.ClusterDegraded, nodes("n1=online")),
			want: outcome{Done: true},
		},
		"RestartProgress": {
			reason: "The restart waits for the node to come online.",
			judge:  check, step: restartN1, base: base("offline"), snap: snap(sb.ClusterDegraded, nodes("n1=in_restart")),
			want: outcome{Progress: "node is in_restart"},
		},
		"SettleEvidence": {
			reason: "Rebalancing after the node's return is the settle step's evidence.",
			judge:  evidence, step: settleN1, snap: snap(sb.ClusterActive, rebalancing()),
			want: outcome{Evidence: true},
		},
		"SettleWaits": {
			reason: "The settle step waits while the cluster rebalances.",
			judge:  check, step: settleN1, snap: snap(sb.ClusterActive, rebalancing()),
			want: outcome{Progress: "the cluster is rebalancing"},
		},
		"SettleDone": {
			reason: "The settle step is done once rebalancing ended.",
			judge:  check, step: settleN1, snap: snap(sb.ClusterActive),
			want: outcome{Done: true},
		},
	})

	settle := stepOf(t, gated, 2, "n1", "n2")
	if settle.Call != nil || settle.WithoutEvidence != ops.NoEvidenceMeansDone || !strings.Contains(settle.DoneWithoutEvidence, "node n1 is back online") {
		t.Errorf("The settle step only waits, and no rebalancing within the grace means done: call=%t withoutEvidence=%v doneWithoutEvidence=%q",
			settle.Call != nil, settle.WithoutEvidence, settle.DoneWithoutEvidence)
	}
	// A lost shutdown answer is not re-sent blindly: a late original would
	// take the node down again after its restart. A repeated restart of a
	// node no longer offline is a no-op.
	// A silent refusal of the graceful shutdown (an lvol migration) passes;
	// a restart's does not.
	for i, want := range []struct {
		lost       ops.LostAnswerPolicy
		noEvidence ops.NoEvidencePolicy
	}{{ops.LostAnswerAsks, ops.NoEvidenceSendsAgain}, {ops.LostAnswerResends, ops.NoEvidenceFails}} {
		s := planFor(gated, cid, steps.AutoExpansion{})([]string{"n1"})[i]
		if s.OnLostAnswer != want.lost || s.WithoutEvidence != want.noEvidence {
			t.Errorf("Step %d (%s): onLostAnswer=%v withoutEvidence=%v, want %v and %v", i, s.Name, s.OnLostAnswer, s.WithoutEvidence, want.lost, want.noEvidence)
		}
	}
}

// TestRollingRestartGoneNode: a node removed after the targets were fixed
// is skipped (the shutdown step says "node X is gone; skipped"), so the
// rest of its steps must not wait for it either.
func TestRollingRestartGoneNode(t *testing.T) {
	restart := stepOf(t, clusterOps(v1alpha1.ClusterNodeRollingRestart), 1, "n1", "n2")
	s := snap(sb.ClusterActive, nodes("n1=removed", "n2=online"))
	skipped := false
	if restart.Skip != nil {
		skipped, _ = restart.Skip(s)
	}
	if !skipped {
		waiting, refusal := restart.Gate(s)
		t.Errorf("\nThe restart step of a removed node is skipped like its shutdown step.\nnot skipped; gate: waiting %q, refusal %q", waiting, refusal)
	}
}

func TestChooseTargets(t *testing.T) {
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.ClusterOps
		snap   *ops.Snapshot
		want   []string
	}{
		"BackendOrder": {
			reason: "Without an order the live nodes are restarted in the backend's order; removed nodes are not.",
			cr:     clusterOps(v1alpha1.ClusterNodeRollingRestart),
			snap:   snap(sb.ClusterActive, nodes("n1=online", "n2=removed", "n3=offline")),
			want:   []string{"n1", "n3"},
		},
		"OrderThenRest": {
			reason: "Listed nodes come first in the listed order, then the others; unknown ids and repeats are skipped.",
			cr: clusterOps(v1alpha1.ClusterNodeRollingRestart, rolling(v1alpha1.NodeRollingRestartParameters{
				Order: []string{"n3", "unknown", "n1", "n3"}})),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online", "n3=online")),
			want: []string{"n3", "n1", "n2"},
		},
		"NoNodes": {
			reason: "A cluster without live nodes has nothing to restart.",
			cr:     clusterOps(v1alpha1.ClusterNodeRollingRestart),
			snap:   snap(sb.ClusterActive, nodes("n1=removed")),
			want:   []string{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := chooseTargets(tc.cr)(tc.snap)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nchooseTargets(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	for _, typ := range []v1alpha1.ClusterOperationType{v1alpha1.ClusterActivate, v1alpha1.ClusterRestart, v1alpha1.ClusterUpgrade} {
		if chooseTargets(clusterOps(typ)) != nil {
			t.Errorf("chooseTargets(%s) is not nil; only a NodeRollingRestart has targets", typ)
		}
	}
}

func TestUpgradeStep(t *testing.T) {
	img := "registry/spdk:2"
	withRestart := planStep(clusterOps(v1alpha1.ClusterUpgrade, upgrade(v1alpha1.UpgradeParameters{SpdkImage: &img, Restart: true})), 0)
	noRestart := planStep(clusterOps(v1alpha1.ClusterUpgrade, upgrade(v1alpha1.UpgradeParameters{SpdkImage: &img})), 0)
	sentBase := ops.Baseline{Status: "active", Event: "b", Sent: true}
	runStepCases(t, map[string]stepCase{
		"GateWaitsNotRunning": {
			reason: "An upgrade starts only from a running cluster.",
			judge:  gate, step: withRestart, snap: snap(sb.ClusterSuspended, nodes("n1=online")),
			want: outcome{Waiting: "an upgrade starts from active, degraded or read_only"},
		},
		"GateWaitsNodeChanging": {
			reason: "Nodes changing state are waited out.",
			judge:  gate, step: withRestart, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=in_creation")),
			want: outcome{Waiting: "nodes are changing state: n2 (in_creation)"},
		},
		"GatePasses": {
			reason: "A running, stable cluster may be upgraded.",
			judge:  gate, step: withRestart, snap: snap(sb.ClusterReadOnly, nodes("n1=online", "n2=offline")),
		},
		"EvidenceRestartingNode": {
			reason: "With restart, a node restarting after the baseline is evidence.",
			judge:  evidence, step: withRestart, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, nodeEv("n1", "online", "in_restart"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceWithoutRestart": {
			reason: "Without restart the API shows no evidence at all.",
			judge:  evidence, step: noRestart, base: base("active"),
			snap: snap(sb.ClusterActive, events(mark, nodeEv("n1", "online", "in_restart"))),
		},
		"DoneWithoutRestart": {
			reason: "Without restart the answered call is the whole upgrade.",
			judge:  check, step: noRestart, base: sentBase, snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Done: true},
		},
		"AnsweredDone": {
			reason: "An answered upgrade with restart is done once every node is online and the cluster active.",
			judge:  check, step: withRestart, base: sentBase, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online")),
			want: outcome{Done: true},
		},
		"AnsweredWaitsForNodes": {
			reason: "An answered upgrade with restart waits for offline nodes.",
			judge:  check, step: withRestart, base: sentBase, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=offline")),
			want: outcome{Progress: "waiting for nodes to come back online: n2 (offline)"},
		},
		"AnsweredWaitsForActive": {
			reason: "An answered upgrade with restart waits for the cluster to become active.",
			judge:  check, step: withRestart, base: sentBase, snap: snap(sb.ClusterDegraded, nodes("n1=online")),
			want: outcome{Progress: "waiting for the cluster to become active (degraded)"},
		},
		"ResolvedWaitsForEveryRestart": {
			reason: "Resolved by evidence (not answered), every node must have come online after the baseline, even if online now.",
			judge:  check, step: withRestart, base: base("active"),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), events(nodeEv("n2", "in_restart", "online"), mark,
				nodeEv("n1", "online", "in_restart"), nodeEv("n1", "in_restart", "online"))),
			want: outcome{Progress: "waiting for every node to restart: n2 (online)"},
		},
		"ResolvedDone": {
			reason: "Resolved by evidence, the upgrade is done once every node came online after the baseline and the cluster is active.",
			judge:  check, step: withRestart, base: base("active"),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online", "n3=removed"), events(mark,
				nodeEv("n1", "in_restart", "online"), nodeEv("n2", "in_restart", "online"))),
			want: outcome{Done: true},
		},
	})
	s := stepOf(t, clusterOps(v1alpha1.ClusterUpgrade, upgrade(v1alpha1.UpgradeParameters{Restart: true})), 0)
	if s.OnServerError != ops.ServerErrorIsAmbiguous || s.OnLostAnswer != ops.LostAnswerFails || s.WithoutEvidence != ops.AnswerSuffices {
		t.Errorf("An upgrade is synchronous: a 5xx is ambiguous, a lost answer without evidence is not repeated, and an answer needs no evidence; got onServerError=%v onLostAnswer=%v withoutEvidence=%v",
			s.OnServerError, s.OnLostAnswer, s.WithoutEvidence)
	}
}

func TestRebalanceStep(t *testing.T) {
	rebalance := planStep(clusterOps(v1alpha1.ClusterRebalance), 0)
	runStepCases(t, map[string]stepCase{
		"GateWaitsRebalancing": {
			reason: "A rebalance is not requested while one runs.",
			judge:  gate, step: rebalance, snap: snap(sb.ClusterActive, rebalancing()),
			want: outcome{Waiting: "the cluster is already rebalancing"},
		},
		"GateWaitsNotRunning": {
			reason: "Rebalancing needs a running cluster.",
			judge:  gate, step: rebalance, snap: snap(sb.ClusterUnready),
			want: outcome{Waiting: "rebalancing needs active, degraded or read_only"},
		},
		"GatePasses": {
			reason: "A running, calm cluster may be rebalanced.",
			judge:  gate, step: rebalance, snap: snap(sb.ClusterDegraded),
		},
		"Evidence": {
			reason: "is_re_balancing turning true is evidence.",
			judge:  evidence, step: rebalance, snap: snap(sb.ClusterActive, rebalancing()),
			want: outcome{Evidence: true},
		},
		"NoEvidence": {
			reason: "A calm cluster with the balancing tasks it had before the call shows no evidence.",
			judge:  evidence, step: rebalance, snap: snap(sb.ClusterActive, tasks(balancing("t0", sb.TaskDone))), base: base("1"),
		},
		"EvidenceNewBalancingTask": {
			reason: "A balancing task that was not listed before the call is evidence, even when the rebalance already ended between two looks at is_re_balancing.",
			judge:  evidence, step: rebalance, snap: snap(sb.ClusterActive, tasks(balancing("t0", sb.TaskDone), balancing("t1", sb.TaskDone))), base: base("1"),
			want: outcome{Evidence: true},
		},
		"EvidenceOpenBalancingTask": {
			reason: "An open balancing task (new, before the monitor's next tick sets is_re_balancing) is evidence.",
			judge:  evidence, step: rebalance, snap: snap(sb.ClusterActive, tasks(balancing("t1", sb.TaskNew))), base: base("0"),
			want: outcome{Evidence: true},
		},
		"NoEvidenceTasksUnreadable": {
			reason: "When the task list cannot be read, only is_re_balancing counts.",
			judge:  evidence, step: rebalance, snap: snap(sb.ClusterActive, tasksErr(errors.New("500"))), base: base("0"),
		},
		"Waits": {
			reason: "The step waits while the cluster rebalances.",
			judge:  check, step: rebalance, snap: snap(sb.ClusterActive, rebalancing()),
			want: outcome{Progress: "the cluster is rebalancing"},
		},
		"WaitsOpenTask": {
			reason: "The step waits while the balancing task is open, though is_re_balancing is not yet true.",
			judge:  check, step: rebalance, snap: snap(sb.ClusterActive, tasks(balancing("t1", sb.TaskRunning))),
			want: outcome{Progress: "the backend's balancing task is still open"},
		},
		"Done": {
			reason: "The step is done once rebalancing ended and no balancing task is open.",
			judge:  check, step: rebalance, snap: snap(sb.ClusterActive, tasks(balancing("t1", sb.TaskDone))),
			want: outcome{Done: true},
		},
	})
	if got := stepOf(t, clusterOps(v1alpha1.ClusterRebalance), 0).BaselineOf(snap(sb.ClusterActive,
		tasks(balancing("t0", sb.TaskDone), balancing("t1", sb.TaskDone), sb.TaskDTO{ID: "t2", FunctionName: "node_restart"}))); got != "2" {
		t.Errorf("A rebalance's baseline counts the listed balancing tasks: got %q, want \"2\"", got)
	}
	s := stepOf(t, clusterOps(v1alpha1.ClusterRebalance), 0)
	if s.OnLostAnswer != ops.LostAnswerResends || s.WithoutEvidence != ops.NoEvidenceMeansDone || s.DoneWithoutEvidence == "" {
		t.Errorf("A rebalance is deduplicated by the backend (a repeat is harmless) and no rebalancing means nothing to move; got onLostAnswer=%v withoutEvidence=%v doneWithoutEvidence=%q",
			s.OnLostAnswer, s.WithoutEvidence, s.DoneWithoutEvidence)
	}
}

func TestPlanCalls(t *testing.T) {
	mgmt, spdk := "registry/mgmt:2", "registry/spdk:2"
	record := func(calls *[]string) *fake.MockClient {
		add := func(s string) error { *calls = append(*calls, s); return nil }
		return &fake.MockClient{
			MockActivateCluster:  func(_ context.Context, id string) error { return add("activate " + id) },
			MockExpandCluster:    func(_ context.Context, id string) error { return add("expand " + id) },
			MockShutdownCluster:  func(_ context.Context, id string) error { return add("shutdown " + id) },
			MockStartCluster:     func(_ context.Context, id string) error { return add("start " + id) },
			MockRebalanceCluster: func(_ context.Context, id string) error { return add("rebalance " + id) },
			MockUpdateCluster: func(_ context.Context, id string, p sb.UpdateParams) error {
				return add(fmt.Sprintf("update %s mgmt=%s spdk=%s restart=%t", id, ptr.Deref(p.ManagementImage, "-"), ptr.Deref(p.SpdkImage, "-"), p.Restart))
			},
			MockShutdownStorageNode: func(_ context.Context, c, n string, force bool) error {
				return add(fmt.Sprintf("shutdown node %s/%s force=%t", c, n, force))
			},
			MockRestartStorageNode: func(_ context.Context, c, n string, p sb.RestartParams) error {
				return add(fmt.Sprintf("restart node %s/%s force=%t", c, n, p.Force))
			},
		}
	}
	type want struct {
		endpoint, path, call string
	}
	cases := map[string]struct {
		reason  string
		cr      *v1alpha1.ClusterOps
		step    int
		targets []string
		want    want
	}{
		"Activate": {
			reason: "An Activate posts /activate.",
			cr:     clusterOps(v1alpha1.ClusterActivate),
			want:   want{endpoint: "POST /clusters/{id}/activate", path: "POST /clusters/c1/activate", call: "activate c1"},
		},
		"Expand": {
			reason: "An Expand posts /expand.",
			cr:     clusterOps(v1alpha1.ClusterExpand),
			want:   want{endpoint: "POST /clusters/{id}/expand", path: "POST /clusters/c1/expand", call: "expand c1"},
		},
		"Shutdown": {
			reason: "A Shutdown posts /shutdown.",
			cr:     clusterOps(v1alpha1.ClusterShutdown),
			want:   want{endpoint: "POST /clusters/{id}/shutdown", path: "POST /clusters/c1/shutdown", call: "shutdown c1"},
		},
		"Start": {
			reason: "A Start posts /start.",
			cr:     clusterOps(v1alpha1.ClusterStart),
			want:   want{endpoint: "POST /clusters/{id}/start", path: "POST /clusters/c1/start", call: "start c1"},
		},
		"RestartSecondStep": {
			reason: "A Restart's second step posts /start.",
			cr:     clusterOps(v1alpha1.ClusterRestart),
			step:   1,
			want:   want{endpoint: "POST /clusters/{id}/start", path: "POST /clusters/c1/start", call: "start c1"},
		},
		"Upgrade": {
			reason: "An Upgrade posts /update with its images and restart flag.",
			cr:     clusterOps(v1alpha1.ClusterUpgrade, upgrade(v1alpha1.UpgradeParameters{ManagementImage: &mgmt, SpdkImage: &spdk, Restart: true})),
			want:   want{endpoint: "POST /clusters/{id}/update", path: "POST /clusters/c1/update", call: "update c1 mgmt=registry/mgmt:2 spdk=registry/spdk:2 restart=true"},
		},
		"Rebalance": {
			reason: "A Rebalance posts /rebalance.",
			cr:     clusterOps(v1alpha1.ClusterRebalance),
			want:   want{endpoint: "POST /clusters/{id}/rebalance", path: "POST /clusters/c1/rebalance", call: "rebalance c1"},
		},
		"RollingShutdown": {
			reason: "A node's first step is a graceful (not forced) shutdown of that node.",
			cr:     clusterOps(v1alpha1.ClusterNodeRollingRestart),
			step:   3, targets: []string{"n1", "n2"},
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/shutdown", path: "POST /clusters/c1/storage-nodes/n2/shutdown",
				call: "shutdown node c1/n2 force=false"},
		},
		"RollingRestart": {
			reason: "A node's second step is a restart (not forced) of that node.",
			cr:     clusterOps(v1alpha1.ClusterNodeRollingRestart),
			step:   4, targets: []string{"n1", "n2"},
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/restart", path: "POST /clusters/c1/storage-nodes/n2/restart",
				call: "restart node c1/n2 force=false"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := stepOf(t, tc.cr, tc.step, tc.targets...)
			var calls []string
			if err := s.Call(context.Background(), record(&calls)); err != nil {
				t.Fatalf("\n%s\nCall(...): %v", tc.reason, err)
			}
			got := want{endpoint: s.Endpoint, path: s.Path, call: strings.Join(calls, "; ")}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\ncall: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlanStepCounts(t *testing.T) {
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.ClusterOps
		want   int
	}{
		"Activate":           {reason: "One step.", cr: clusterOps(v1alpha1.ClusterActivate), want: 1},
		"Expand":             {reason: "One step.", cr: clusterOps(v1alpha1.ClusterExpand), want: 1},
		"Shutdown":           {reason: "One step.", cr: clusterOps(v1alpha1.ClusterShutdown), want: 1},
		"Start":              {reason: "One step.", cr: clusterOps(v1alpha1.ClusterStart), want: 1},
		"Restart":            {reason: "Shutdown and start.", cr: clusterOps(v1alpha1.ClusterRestart), want: 2},
		"NodeRollingRestart": {reason: "Three steps per target.", cr: clusterOps(v1alpha1.ClusterNodeRollingRestart), want: 6},
		"Upgrade":            {reason: "One step.", cr: clusterOps(v1alpha1.ClusterUpgrade), want: 1},
		"Rebalance":          {reason: "One step.", cr: clusterOps(v1alpha1.ClusterRebalance), want: 1},
		"Unknown":            {reason: "An unknown type has no steps.", cr: clusterOps("Defragment"), want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := len(planFor(tc.cr, cid, steps.AutoExpansion{})([]string{"n1", "n2"})); got != tc.want {
				t.Errorf("\n%s\nlen(planFor(...)) = %d, want %d", tc.reason, got, tc.want)
			}
		})
	}
}

func TestSpecHash(t *testing.T) {
	baseline := specHash(clusterOps(v1alpha1.ClusterExpand, expectedNodes(2)))
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.ClusterOps
		same   bool
	}{
		"Identical": {
			reason: "The same spec hashes the same.",
			cr:     clusterOps(v1alpha1.ClusterExpand, expectedNodes(2)),
			same:   true,
		},
		"Cancel": {
			reason: "Cancel is not part of what the operation does.",
			cr:     clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) { cr.Spec.ForProvider.Cancel = true }),
			same:   true,
		},
		"ClusterIDRef": {
			reason: "How the target was selected does not matter once clusterId is resolved.",
			cr: clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: "demo"}
			}),
			same: true,
		},
		"ClusterIDSelector": {
			reason: "A selector does not matter either.",
			cr: clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.ClusterIDSelector = &xpv2.NamespacedSelector{MatchLabels: map[string]string{"a": "b"}}
			}),
			same: true,
		},
		"Metadata": {
			reason: "Names, labels and status are not part of the spec.",
			cr: clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) {
				cr.SetName("other")
				cr.SetLabels(map[string]string{"x": "y"})
				cr.Status.AtProvider.Phase = v1alpha1.OperationFailed
			}),
			same: true,
		},
		"Type": {
			reason: "Another type is another operation.",
			cr:     clusterOps(v1alpha1.ClusterShutdown, expectedNodes(2)),
		},
		"Params": {
			reason: "Other parameters are another operation.",
			cr:     clusterOps(v1alpha1.ClusterExpand, expectedNodes(3)),
		},
		"Cluster": {
			reason: "Another target cluster is another operation.",
			cr:     clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) { cr.Spec.ForProvider.ClusterID = "c2" }),
		},
		"Policy": {
			reason: "The policy (deadlines, retries, TTL) is part of what the operation does.",
			cr: clusterOps(v1alpha1.ClusterExpand, expectedNodes(2), func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.TimeoutSeconds = ptr.To[int64](60)
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := specHash(tc.cr)
			if len(got) != 24 || strings.Trim(got, "0123456789abcdef") != "" {
				t.Errorf("\n%s\nspecHash(...) = %q, want 24 hex digits", tc.reason, got)
			}
			if (got == baseline) != tc.same {
				t.Errorf("\n%s\nspecHash(...) = %q, baseline %q: same = %t, want %t", tc.reason, got, baseline, got == baseline, tc.same)
			}
		})
	}
}

func TestClusterKeys(t *testing.T) {
	cases := map[string]struct {
		reason string
		o      client.Object
		want   []string
	}{
		"Ref": {
			reason: "An operation with clusterIdRef is indexed by the referenced object's name.",
			o: clusterOps(v1alpha1.ClusterActivate, func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.ClusterID = ""
				cr.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: "demo"}
			}),
			want: []string{"ref:demo"},
		},
		"ID": {
			reason: "An operation with clusterId is indexed by the backend id.",
			o:      clusterOps(v1alpha1.ClusterActivate),
			want:   []string{"id:c1"},
		},
		"Both": {
			reason: "A resolved reference is indexed both ways, so every competitor is found.",
			o: clusterOps(v1alpha1.ClusterActivate, func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: "demo"}
			}),
			want: []string{"ref:demo", "id:c1"},
		},
		"Neither": {
			reason: "An operation with only a selector (unresolved) has no keys yet.",
			o: clusterOps(v1alpha1.ClusterActivate, func(cr *v1alpha1.ClusterOps) {
				cr.Spec.ForProvider.ClusterID = ""
				cr.Spec.ForProvider.ClusterIDSelector = &xpv2.NamespacedSelector{}
			}),
		},
		"NotClusterOps": {
			reason: "Other kinds have no keys.",
			o:      &v1alpha1.StorageCluster{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ops.ClusterOpsKeys(tc.o), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nClusterOpsKeys(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestTypesAreDescribed: every type of the table has its row in the
// README's "What each type does", whose lost-answer column matches the
// type's policies, and is an enum value of the CRD (and the reverse).
func TestTypesAreDescribed(t *testing.T) {
	rows := opstest.READMETypeRows(t, "### What each type does")
	var described []string
	for typ := range rows {
		described = append(described, typ)
	}
	slices.Sort(described)
	types := make([]string, 0, len(Types()))
	for _, typ := range Types() {
		types = append(types, string(typ))
		row, ok := rows[string(typ)]
		if !ok {
			continue
		}
		opstest.CheckREADMERow(t, string(typ), row, Plan(v1alpha1.ClusterOpsParameters{Type: typ}, cid, []string{"n1", "n2"}))
	}
	if !slices.Equal(described, types) {
		t.Errorf("README rows = %v, want the types of the table %v", described, types)
	}
	enum := opstest.CRDTypeEnum(t, "simplyblock.m.crossplane.io_clusterops.yaml")
	if !slices.Equal(enum, types) {
		t.Errorf("the CRD's type enum = %v, want the types of the table %v", enum, types)
	}
}
