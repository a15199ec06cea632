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

package storagenodeops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/opstest"
)

const (
	cid = "c1"
	nid = "n1"
)

type crModifier func(*v1alpha1.StorageNodeOps)

func nodeOps(typ v1alpha1.StorageNodeOperationType, m ...crModifier) *v1alpha1.StorageNodeOps {
	cr := &v1alpha1.StorageNodeOps{}
	cr.SetName("op")
	cr.SetNamespace("storage")
	cr.Spec.ForProvider.Type = typ
	cr.Spec.ForProvider.NodeID = nid
	for _, f := range m {
		f(cr)
	}
	return cr
}

func forceShutdown() crModifier {
	return func(cr *v1alpha1.StorageNodeOps) {
		cr.Spec.ForProvider.Shutdown = &v1alpha1.NodeShutdownParameters{Force: true}
	}
}

func restart(p v1alpha1.NodeRestartParameters) crModifier {
	return func(cr *v1alpha1.StorageNodeOps) { cr.Spec.ForProvider.Restart = &p }
}

func migrate(p v1alpha1.NodeMigrateParameters) crModifier {
	return func(cr *v1alpha1.StorageNodeOps) { cr.Spec.ForProvider.Migrate = &p }
}

// toNewHost is the Migrate of the cases: node n1 to 10.0.0.21:5000.
var toNewHost = v1alpha1.NodeMigrateParameters{NodeAddress: "10.0.0.21:5000"}

func remove(p v1alpha1.NodeRemoveParameters) crModifier {
	return func(cr *v1alpha1.StorageNodeOps) { cr.Spec.ForProvider.Remove = &p }
}

// stepOf returns step i of cr's plan.
func stepOf(t *testing.T, cr *v1alpha1.StorageNodeOps, i int) ops.Step {
	t.Helper()
	steps := planFor(cr, cid, nid)
	if i >= len(steps) {
		t.Fatalf("plan of %s has %d steps, want step %d", cr.Spec.ForProvider.Type, len(steps), i)
	}
	return steps[i]
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

// lvols sets the volume count of node id (added before).
func lvols(id string, n int64) snapModifier {
	return func(s *ops.Snapshot) {
		for i := range s.Nodes {
			if s.Nodes[i].ID == id {
				s.Nodes[i].Lvols = n
			}
		}
	}
}

// mgmtIP sets the management IP of node id (added before).
func mgmtIP(id, ip string) snapModifier {
	return func(s *ops.Snapshot) {
		for i := range s.Nodes {
			if s.Nodes[i].ID == id {
				s.Nodes[i].MgmtIP = ip
			}
		}
	}
}

// openTask adds an open task of function fn on node.
func openTask(fn, node string) snapModifier {
	return func(s *ops.Snapshot) {
		s.Tasks = append(s.Tasks, sb.TaskDTO{ID: "t-" + fn, FunctionName: fn, Status: sb.TaskRunning, StorageNodeID: &node})
	}
}

// sent is a baseline of a call the backend answered with success.
func sent(status string) ops.Baseline {
	b := base(status)
	b.Sent = true
	return b
}

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

func planStep(cr *v1alpha1.StorageNodeOps, i int) func(t *testing.T) ops.Step {
	return func(t *testing.T) ops.Step { return stepOf(t, cr, i) }
}

func TestSuspendStep(t *testing.T) {
	suspend := planStep(nodeOps(v1alpha1.NodeSuspend), 0)
	runStepCases(t, map[string]stepCase{
		"SkipSuspended": {
			reason: "A suspended node needs no suspend.",
			judge:  skip, step: suspend, snap: snap(sb.ClusterActive, nodes("n1=suspended")),
			want: outcome{Skip: true, Progress: "node n1 is already suspended"},
		},
		"NoSkipOnline": {
			reason: "An online node is suspended.",
			judge:  skip, step: suspend, snap: snap(sb.ClusterActive, nodes("n1=online")),
		},
		"GateRefusesMissing": {
			reason: "A node that is not in the cluster can never be suspended.",
			judge:  gate, step: suspend, snap: snap(sb.ClusterActive, nodes("n2=online")),
			want: outcome{Refusal: "node n1 is not in the cluster's node list"},
		},
		"GateRefusesRemoved": {
			reason: "A removed node can never be suspended.",
			judge:  gate, step: suspend, snap: snap(sb.ClusterActive, nodes("n1=removed")),
			want: outcome{Refusal: "node n1 is removed"},
		},
		"GateWaitsNotOnline": {
			reason: "The backend suspends only an online node; the gate names the node's status.",
			judge:  gate, step: suspend, snap: snap(sb.ClusterDegraded, nodes("n1=unreachable")),
			want: outcome{Waiting: "node n1 is unreachable; only an online node can be suspended"},
		},
		"GatePassesOnline": {
			reason: "An online node may be suspended whatever its peers do.",
			judge:  gate, step: suspend, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=offline")),
		},
		"EvidenceAfterBaseline": {
			reason: "The node going suspended after the baseline is evidence, even if it changed since.",
			judge:  evidence, step: suspend, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark, nodeEv("n1", "online", "suspended"), nodeEv("n1", "suspended", "online"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A suspend before the baseline is not evidence of this call.",
			judge:  evidence, step: suspend, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(nodeEv("n1", "online", "suspended"), nodeEv("n1", "suspended", "online"), mark)),
		},
		"NoEvidenceOtherNode": {
			reason: "Another node going suspended is not evidence.",
			judge:  evidence, step: suspend, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online", "n2=suspended"), events(mark, nodeEv("n2", "online", "suspended"))),
		},
		"EvidenceFromStatus": {
			reason: "A node now suspended is evidence even when the log window shows nothing.",
			judge:  evidence, step: suspend, base: base("online"), snap: snap(sb.ClusterActive, nodes("n1=suspended"), events(mark)),
			want: outcome{Evidence: true},
		},
		"CheckDoneAnswered": {
			reason: "The synchronous 204 means the node is suspended, even if the observation predates it.",
			judge:  check, step: suspend, base: sent("online"), snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark)),
			want: outcome{Done: true},
		},
		"CheckDoneSuspended": {
			reason: "Resolved by evidence, a suspended node is done.",
			judge:  check, step: suspend, base: base("online"), snap: snap(sb.ClusterActive, nodes("n1=suspended"), events(mark)),
			want: outcome{Done: true},
		},
		"CheckProgress": {
			reason: "Without an answer or evidence the step reports the node's status.",
			judge:  check, step: suspend, base: base("online"), snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark)),
			want: outcome{Progress: "node is online"},
		},
	})
}

func TestResumeStep(t *testing.T) {
	resume := planStep(nodeOps(v1alpha1.NodeResume), 0)
	runStepCases(t, map[string]stepCase{
		"SkipOnline": {
			reason: "An online node is not suspended: there is nothing to resume, and the message says why.",
			judge:  skip, step: resume, snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Skip: true, Progress: "node n1 is online, not suspended: nothing to resume"},
		},
		"NoSkipSuspended": {
			reason: "A suspended node is resumed.",
			judge:  skip, step: resume, snap: snap(sb.ClusterActive, nodes("n1=suspended")),
		},
		"GateRefusesMissing": {
			reason: "A node that is not in the cluster can never be resumed.",
			judge:  gate, step: resume, snap: snap(sb.ClusterActive),
			want: outcome{Refusal: "node n1 is not in the cluster's node list"},
		},
		"GateWaitsNotSuspended": {
			reason: "The backend resumes only a suspended node.",
			judge:  gate, step: resume, snap: snap(sb.ClusterActive, nodes("n1=offline")),
			want: outcome{Waiting: "node n1 is offline; only a suspended node can be resumed"},
		},
		"GatePassesSuspended": {
			reason: "A suspended node may be resumed.",
			judge:  gate, step: resume, snap: snap(sb.ClusterDegraded, nodes("n1=suspended", "n2=offline")),
		},
		"EvidenceAfterBaseline": {
			reason: "The node going online after the baseline is evidence.",
			judge:  evidence, step: resume, base: base("suspended"),
			snap: snap(sb.ClusterActive, nodes("n1=unreachable"), events(mark, nodeEv("n1", "suspended", "online"), nodeEv("n1", "online", "unreachable"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A resume before the baseline is not evidence of this call.",
			judge:  evidence, step: resume, base: base("suspended"),
			snap: snap(sb.ClusterActive, nodes("n1=suspended"), events(nodeEv("n1", "suspended", "online"), nodeEv("n1", "online", "suspended"), mark)),
		},
		"EvidenceFromStatus": {
			reason: "A node now online is evidence.",
			judge:  evidence, step: resume, base: base("suspended"), snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark)),
			want: outcome{Evidence: true},
		},
		"CheckDoneAnswered": {
			reason: "The synchronous 204 means the node is online.",
			judge:  check, step: resume, base: sent("suspended"), snap: snap(sb.ClusterActive, nodes("n1=suspended")),
			want: outcome{Done: true},
		},
		"CheckProgress": {
			reason: "Without an answer or evidence the step reports the node's status.",
			judge:  check, step: resume, base: base("suspended"), snap: snap(sb.ClusterActive, nodes("n1=suspended"), events(mark)),
			want: outcome{Progress: "node is suspended"},
		},
	})
}

func TestShutdownStep(t *testing.T) {
	graceful := planStep(nodeOps(v1alpha1.NodeShutdown), 0)
	forced := planStep(nodeOps(v1alpha1.NodeShutdown, forceShutdown()), 0)
	runStepCases(t, map[string]stepCase{
		"SkipOffline": {
			reason: "An offline node needs no shutdown.",
			judge:  skip, step: graceful, snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Skip: true, Progress: "node n1 is already offline"},
		},
		"NoSkipOnline": {
			reason: "An online node is shut down.",
			judge:  skip, step: graceful, snap: snap(sb.ClusterActive, nodes("n1=online")),
		},
		"GateRefusesRemoved": {
			reason: "A removed node can never be shut down, not even with force.",
			judge:  gate, step: forced, snap: snap(sb.ClusterActive, nodes("n1=removed")),
			want: outcome{Refusal: "node n1 is removed"},
		},
		"GateWaitsInExpansion": {
			reason: "After its 202 the backend refuses a shutdown silently while the cluster is in_expansion.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterInExpansion, nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "the cluster is in_expansion"},
		},
		"GateWaitsInActivation": {
			reason: "A node does not leave during an activation.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterInActivation, nodes("n1=online", "n2=online")),
			want: outcome{Waiting: "the cluster is in_activation"},
		},
		"GateForceWaitsInExpansion": {
			reason: "Force bypasses the backend's in_expansion check, but the gate still waits.",
			judge:  gate, step: forced, snap: snap(sb.ClusterInExpansion, nodes("n1=online")),
			want: outcome{Waiting: "the cluster is in_expansion"},
		},
		"GateWaitsGracefulStatus": {
			reason: "A graceful shutdown needs an online, suspended or down node.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterDegraded, nodes("n1=in_restart", "n2=online")),
			want: outcome{Waiting: "node n1 is in_restart; a graceful shutdown needs online, suspended or down"},
		},
		"GateSafetyWaitsForPeers": {
			reason: "Without force every other live node must be online; the gate names those that are not and ignores removed ones.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=offline", "n3=in_restart", "n4=removed", "n5=online")),
			want: outcome{Waiting: "safety gate: with other nodes not online, shutting this one down would exceed the cluster's fault tolerance (force skips this check); not online: n2 (offline), n3 (in_restart)"},
		},
		"GateForceSkipsSafety": {
			reason: "With force the peers are not checked.",
			judge:  gate, step: forced, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=offline")),
		},
		"GateForceAnyStatus": {
			reason: "With force the node may be in any status but removed.",
			judge:  gate, step: forced, snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown")),
		},
		"GatePassesSuspended": {
			reason: "A suspended node with every peer online may be shut down gracefully.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterActive, nodes("n1=suspended", "n2=online", "n3=removed")),
		},
		"GatePassesDown": {
			reason: "A down node may be shut down gracefully.",
			judge:  gate, step: graceful, snap: snap(sb.ClusterDegraded, nodes("n1=down", "n2=online")),
		},
		"EvidenceAfterBaseline": {
			reason: "The node going in_shutdown after the baseline is evidence.",
			judge:  evidence, step: graceful, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark, nodeEv("n1", "online", "in_shutdown"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A shutdown before the baseline is not evidence of this call.",
			judge:  evidence, step: graceful, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(nodeEv("n1", "online", "in_shutdown"), nodeEv("n1", "in_shutdown", "offline"), mark)),
		},
		"EvidenceFromStatus": {
			reason: "A node now offline is evidence.",
			judge:  evidence, step: graceful, base: base("online"), snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(mark)),
			want: outcome{Evidence: true},
		},
		"NoEvidenceUnchangedStatus": {
			reason: "A forced shutdown of a node already in_shutdown: its status alone is no evidence.",
			judge:  evidence, step: forced, base: base("in_shutdown"), snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown"), events(mark)),
		},
		"CheckDoneOffline": {
			reason: "An offline node means the shutdown is done.",
			judge:  check, step: graceful, base: sent("online"), snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Done: true},
		},
		"CheckProgressInShutdown": {
			reason: "A node in_shutdown is waited for; the backend sets a stuck one offline after 120 s.",
			judge:  check, step: graceful, base: sent("online"), snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown")),
			want: outcome{Progress: "offline after 120 s"},
		},
		"CheckProgressOther": {
			reason: "Any other status is reported.",
			judge:  check, step: graceful, base: sent("online"), snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Progress: "node is online"},
		},
	})
}

func TestRestartSteps(t *testing.T) {
	plain := nodeOps(v1alpha1.NodeRestart)
	shutdown, restartS := planStep(plain, 0), planStep(plain, 1)
	forcedShutdown := planStep(nodeOps(v1alpha1.NodeRestart, restart(v1alpha1.NodeRestartParameters{Force: true})), 0)
	start := planStep(nodeOps(v1alpha1.NodeStart), 0)
	forcedStart := planStep(nodeOps(v1alpha1.NodeStart, restart(v1alpha1.NodeRestartParameters{Force: true})), 0)
	runStepCases(t, map[string]stepCase{
		"ShutdownSafetyGate": {
			reason: "A Restart without force shuts down behind the safety gate.",
			judge:  gate, step: shutdown, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=unreachable")),
			want: outcome{Waiting: "safety gate"},
		},
		"ForcedShutdownSkipsSafetyGate": {
			reason: "A forced Restart shuts down with force, without the safety gate.",
			judge:  gate, step: forcedShutdown, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=unreachable")),
		},
		"ShutdownSkipsOffline": {
			reason: "A Restart of an offline node skips the shutdown.",
			judge:  skip, step: shutdown, snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Skip: true, Progress: "already offline"},
		},
		"RestartSkipsOnline": {
			reason: "A node back online after the shutdown needs no restart.",
			judge:  skip, step: restartS, snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Skip: true, Progress: "node n1 is already online"},
		},
		"StartSkipsOnline": {
			reason: "An online node needs no start; the message says so.",
			judge:  skip, step: start, snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Skip: true, Progress: "node n1 is already online"},
		},
		"StartNoSkipOffline": {
			reason: "An offline node is started.",
			judge:  skip, step: start, snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
		},
		"GateRefusesRemoved": {
			reason: "The backend never restarts a removed node.",
			judge:  gate, step: forcedStart, snap: snap(sb.ClusterActive, nodes("n1=removed")),
			want: outcome{Refusal: "node n1 is removed"},
		},
		"GateWaitsInActivation": {
			reason: "The backend refuses node restarts silently while the cluster is in_activation.",
			judge:  gate, step: restartS, snap: snap(sb.ClusterInActivation, nodes("n1=offline")),
			want: outcome{Waiting: "the cluster is in_activation"},
		},
		"GateWaitsForOffline": {
			reason: "Without force the backend restarts only an offline node.",
			judge:  gate, step: restartS, snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown")),
			want: outcome{Waiting: "node n1 is in_shutdown, waiting for offline"},
		},
		"GateWaitsDownWithoutForce": {
			reason: "A down node is not offline: without force it is waited for.",
			judge:  gate, step: start, snap: snap(sb.ClusterDegraded, nodes("n1=down")),
			want: outcome{Waiting: "node n1 is down, waiting for offline"},
		},
		"GateForcePassesDown": {
			reason: "With force the backend also restarts a node that failed without being shut down.",
			judge:  gate, step: forcedStart, snap: snap(sb.ClusterDegraded, nodes("n1=down")),
		},
		"GateForceWaitsSuspended": {
			reason: "Even with force a suspended node is not started (resume it instead).",
			judge:  gate, step: forcedStart, snap: snap(sb.ClusterActive, nodes("n1=suspended")),
			want: outcome{Waiting: "node n1 is suspended; waiting for offline, unreachable, schedulable or down"},
		},
		"GateWaitsPeersInTransition": {
			reason: "The backend refuses a restart silently while another node restarts or shuts down.",
			judge:  gate, step: restartS, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=in_restart", "n3=online")),
			want: outcome{Waiting: "other nodes are restarting or shutting down (the backend refuses a restart silently then): n2 (in_restart)"},
		},
		"GatePassesOffline": {
			reason: "An offline node with calm peers may be restarted, whatever their other statuses.",
			judge:  gate, step: restartS, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=offline", "n3=online", "n4=removed")),
		},
		"EvidenceAfterBaseline": {
			reason: "The node going in_restart after the baseline is evidence, even if it failed since.",
			judge:  evidence, step: restartS, base: base("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(mark, nodeEv("n1", "offline", "in_restart"), nodeEv("n1", "in_restart", "offline"))),
			want: outcome{Evidence: true},
		},
		"EvidenceRestartTaskCreated": {
			reason: "The backend makes sure a node_restart task exists before it restarts (storage_node_ops.py:4292-4325): a task created for the node after the call is evidence, even if this pass refused and the task's runner restarts the node later.",
			judge:  evidence, step: restartS, base: base("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(mark, opstest.TaskCreated("n1"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceTaskOfAnotherNode": {
			reason: "A task created for another node is no evidence.",
			judge:  evidence, step: restartS, base: base("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(mark, opstest.TaskCreated("n2"))),
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A restart before the baseline is not evidence of this call.",
			judge:  evidence, step: restartS, base: base("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(nodeEv("n1", "offline", "in_restart"), nodeEv("n1", "in_restart", "offline"), mark)),
		},
		"EvidenceFromStatus": {
			reason: "A node now in_restart is evidence.",
			judge:  evidence, step: start, base: base("offline"), snap: snap(sb.ClusterDegraded, nodes("n1=in_restart"), events(mark)),
			want: outcome{Evidence: true},
		},
		"CheckDoneOnline": {
			reason: "An online node means the restart is done.",
			judge:  check, step: restartS, base: sent("offline"), snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Done: true},
		},
		"CheckFailureIsNotFinal": {
			reason: "A restart the backend logged as failed (offline → offline, storage_node_ops.py:4411-4426) is retried by the backend's task: reported, not failed.",
			judge:  check, step: restartS, base: sent("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=offline"), events(mark, nodeEv("n1", "offline", "in_restart"), nodeEv("n1", "offline", "offline"))),
			want: outcome{Progress: "the restart failed once since the call (the backend logged the node offline again); the backend's node_restart task retries it"},
		},
		"CheckRetryingAfterFailures": {
			reason: "A node in_restart again after failed restarts is reported with the failures, so a deadline's message names them whatever the node shows at that moment.",
			judge:  check, step: restartS, base: sent("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=in_restart"), events(mark,
				nodeEv("n1", "offline", "in_restart"), nodeEv("n1", "offline", "offline"),
				nodeEv("n1", "offline", "in_restart"), nodeEv("n1", "in_restart", "offline"),
				nodeEv("n1", "offline", "in_restart"))),
			want: outcome{Progress: "node is in_restart; the restart failed 2 times since the call (the backend logged the node offline again) and the backend is retrying it"},
		},
		"CheckProgressInRestart": {
			reason: "A node in_restart is waited for.",
			judge:  check, step: start, base: sent("offline"),
			snap: snap(sb.ClusterDegraded, nodes("n1=in_restart"), events(mark, nodeEv("n1", "offline", "in_restart"))),
			want: outcome{Progress: "node is in_restart"},
		},
	})
}

func TestMigrateSteps(t *testing.T) {
	plain := nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost))
	forced := toNewHost
	forced.Force = true
	shutdown, restartAt, promote := planStep(plain, 0), planStep(plain, 1), planStep(plain, 2)
	forcedRestartAt := planStep(nodeOps(v1alpha1.NodeMigrate, migrate(forced)), 1)
	offlineHere := snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online", "n3=online"), mgmtIP("n1", "10.0.0.11"))
	runStepCases(t, map[string]stepCase{
		"ShutdownSkipsOffline": {
			reason: "A node whose host is already down (offline) is moved without a shutdown.",
			judge:  skip, step: shutdown, snap: offlineHere,
			want: outcome{Skip: true, Progress: "already offline"},
		},
		"ShutdownSkipsWhenMoved": {
			reason: "A node already online at the new host is not shut down again (a repeated Migrate changes nothing).",
			judge:  skip, step: shutdown, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), mgmtIP("n1", "10.0.0.21")),
			want: outcome{Skip: true, Progress: "node n1 is already online at 10.0.0.21"},
		},
		"ShutdownSafetyGate": {
			reason: "An online node is shut down first, behind the safety gate.",
			judge:  gate, step: shutdown, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=unreachable")),
			want: outcome{Waiting: "safety gate"},
		},
		"RestartAtPasses": {
			reason: "An offline node of a running cluster whose peers are online is moved.",
			judge:  gate, step: restartAt, snap: offlineHere,
		},
		"RestartAtWaitsForTheCluster": {
			reason: "A node moves only while its cluster runs.",
			judge:  gate, step: restartAt, snap: snap(sb.ClusterSuspended, nodes("n1=offline", "n2=online")),
			want: outcome{Waiting: "the cluster is suspended; a node moves only while its cluster runs"},
		},
		"RestartAtWaitsForPeers": {
			reason: "The node is down while it moves: every other node must be online.",
			judge:  gate, step: restartAt, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online", "n3=unreachable")),
			want: outcome{Waiting: "every other node must be online while this one moves; not online: n3 (unreachable)"},
		},
		"RestartAtWaitsForARestartTask": {
			reason: "An open node_restart task on the node (the backend retrying a restart) is waited for.",
			judge:  gate, step: restartAt, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online"), openTask("node_restart", "n1")),
			want: outcome{Waiting: "a node_restart task (t-node_restart) is running on node n1"},
		},
		"RestartAtWaitsForMigrations": {
			reason: "An open migration task on the node is waited for.",
			judge:  gate, step: restartAt, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online"), openTask("balancing_on_restart", "n1")),
			want: outcome{Waiting: "a balancing_on_restart task (t-balancing_on_restart) is running on node n1"},
		},
		"ForcedRestartAtIgnoresTasks": {
			reason: "force moves the node whatever its tasks.",
			judge:  gate, step: forcedRestartAt, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online"), openTask("node_restart", "n1")),
		},
		"RestartAtKeepsTheRestartGates": {
			reason: "The restart's own gates still apply: without force only an offline node is restarted.",
			judge:  gate, step: restartAt, snap: snap(sb.ClusterDegraded, nodes("n1=in_shutdown", "n2=online")),
			want: outcome{Waiting: "node n1 is in_shutdown, waiting for offline"},
		},
		"RestartAtSkipsOnlineThere": {
			reason: "A node already online at the new host needs no restart.",
			judge:  skip, step: restartAt, snap: snap(sb.ClusterActive, nodes("n1=online"), mgmtIP("n1", "10.0.0.21")),
			want: outcome{Skip: true, Progress: "node n1 is already online at 10.0.0.21"},
		},
		"RestartAtNoSkipOnlineHere": {
			reason: "A node online at its old host has not moved.",
			judge:  skip, step: restartAt, snap: snap(sb.ClusterActive, nodes("n1=online"), mgmtIP("n1", "10.0.0.11")),
		},
		"RestartAtDoneThere": {
			reason: "The move is done once the node is online at the new host.",
			judge:  check, step: restartAt, base: sent("offline"), snap: snap(sb.ClusterDegraded, nodes("n1=online"), mgmtIP("n1", "10.0.0.21")),
			want: outcome{Done: true},
		},
		"RestartAtFailsOnlineHere": {
			reason: "A node that came back online at its old host was not moved: the step fails, naming both addresses.",
			judge:  check, step: restartAt, base: sent("offline"), snap: snap(sb.ClusterDegraded, nodes("n1=online"), mgmtIP("n1", "10.0.0.11")),
			want: outcome{Failure: "node n1 came back online at 10.0.0.11, not at 10.0.0.21: the backend did not move it", Reason: "MigrationFailed"},
		},
		"PromoteWaitsForOnline": {
			reason: "A node is promoted once online.",
			judge:  gate, step: promote, snap: snap(sb.ClusterDegraded, nodes("n1=in_restart")),
			want: outcome{Waiting: "node n1 is in_restart; it is promoted once online"},
		},
		"PromoteDoneOnItsAnswer": {
			reason: "The promote's 204 completes it (it changes nothing the API shows).",
			judge:  check, step: promote, base: sent("online"), snap: snap(sb.ClusterActive, nodes("n1=online")),
			want: outcome{Done: true},
		},
	})
}

func TestRemoveStep(t *testing.T) {
	rm := planStep(nodeOps(v1alpha1.NodeRemove), 0)
	runStepCases(t, map[string]stepCase{
		"SkipRemoved": {
			reason: "A removed node needs no removal.",
			judge:  skip, step: rm, snap: snap(sb.ClusterActive, nodes("n1=removed", "n2=online")),
			want: outcome{Skip: true, Progress: "node n1 is already removed"},
		},
		"SkipGone": {
			reason: "A node gone from the list is removed.",
			judge:  skip, step: rm, snap: snap(sb.ClusterActive, nodes("n2=online")),
			want: outcome{Skip: true, Progress: "node n1 is already removed (it is not in the cluster's node list)"},
		},
		"NoSkipOnline": {
			reason: "An online node is removed.",
			judge:  skip, step: rm, snap: snap(sb.ClusterActive, nodes("n1=online")),
		},
		"GateWaitsInExpansion": {
			reason: "A node is not removed during an expansion.",
			judge:  gate, step: rm, snap: snap(sb.ClusterInExpansion, nodes("n1=online")),
			want: outcome{Waiting: "the cluster is in_expansion"},
		},
		"GateWaitsNodeStatus": {
			reason: "The backend removes only an online or suspended node.",
			judge:  gate, step: rm, snap: snap(sb.ClusterDegraded, nodes("n1=offline", "n2=online")),
			want: outcome{Waiting: "node n1 is offline; the backend removes only an online or suspended node"},
		},
		"GateWaitsPeers": {
			reason: "The backend refuses a removal while another node is not online.",
			judge:  gate, step: rm, snap: snap(sb.ClusterDegraded, nodes("n1=online", "n2=unreachable", "n3=removed")),
			want: outcome{Waiting: "not online: n2 (unreachable)"},
		},
		"GateWaitsVolumes": {
			reason: "The backend refuses to remove a node that still holds volumes.",
			judge:  gate, step: rm, snap: snap(sb.ClusterActive, nodes("n1=online", "n2=online"), lvols("n1", 3)),
			want: outcome{Waiting: "node n1 still holds 3 volumes"},
		},
		"GatePassesSuspended": {
			reason: "A suspended, empty node with online peers may be removed.",
			judge:  gate, step: rm, snap: snap(sb.ClusterActive, nodes("n1=suspended", "n2=online", "n3=removed"), lvols("n2", 5)),
		},
		"EvidenceAfterBaseline": {
			reason: "The node going in_shutdown after the baseline is evidence of a queued removal.",
			judge:  evidence, step: rm, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(mark, nodeEv("n1", "online", "in_shutdown"), nodeEv("n1", "in_shutdown", "online"))),
			want: outcome{Evidence: true},
		},
		"NoEvidenceBeforeBaseline": {
			reason: "A shutdown before the baseline is not evidence of this call.",
			judge:  evidence, step: rm, base: base("online"),
			snap: snap(sb.ClusterActive, nodes("n1=online"), events(nodeEv("n1", "online", "in_shutdown"), nodeEv("n1", "in_shutdown", "online"), mark)),
		},
		"EvidenceFromStatus": {
			reason: "A node now removed is evidence.",
			judge:  evidence, step: rm, base: base("online"), snap: snap(sb.ClusterActive, nodes("n1=removed"), events(mark)),
			want: outcome{Evidence: true},
		},
		"EvidenceGone": {
			reason: "A node gone from the list is evidence.",
			judge:  evidence, step: rm, base: base("online"), snap: snap(sb.ClusterActive, nodes("n2=online"), events(mark)),
			want: outcome{Evidence: true},
		},
		"CheckDoneRemoved": {
			reason: "A removed node means the removal is done.",
			judge:  check, step: rm, base: sent("online"), snap: snap(sb.ClusterActive, nodes("n1=removed")),
			want: outcome{Done: true},
		},
		"CheckDoneGone": {
			reason: "A node gone from the list means the removal is done.",
			judge:  check, step: rm, base: sent("online"), snap: snap(sb.ClusterActive),
			want: outcome{Done: true},
		},
		"CheckProgress": {
			reason: "While the removal task works the step reports the node's status.",
			judge:  check, step: rm, base: sent("online"), snap: snap(sb.ClusterDegraded, nodes("n1=offline")),
			want: outcome{Progress: "node is offline; the backend's node_removal task"},
		},
	})
}

func TestPlanPolicies(t *testing.T) {
	type policy struct {
		Name            string
		Needs           ops.Needs
		WithoutEvidence ops.NoEvidencePolicy
		OnLostAnswer    ops.LostAnswerPolicy
		OnServerError   ops.ServerErrorPolicy
		RefusedForNow   bool
	}
	needs := ops.Needs{Nodes: true, Events: true}
	withTasks := ops.Needs{Nodes: true, Events: true, Tasks: true}
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.StorageNodeOps
		step   int
		want   policy
	}{
		"Suspend": {
			reason: "A suspend is synchronous, its 500 is a refusal, and a lost answer without evidence is sent again once the original can no longer arrive (a late one is refused with a 500).",
			cr:     nodeOps(v1alpha1.NodeSuspend),
			want:   policy{Name: "suspend", Needs: needs, OnLostAnswer: ops.LostAnswerResends, OnServerError: ops.ServerErrorIsRefusal},
		},
		"Resume": {
			reason: "A resume mirrors a suspend.",
			cr:     nodeOps(v1alpha1.NodeResume),
			want:   policy{Name: "resume", Needs: needs, OnLostAnswer: ops.LostAnswerResends, OnServerError: ops.ServerErrorIsRefusal},
		},
		"ShutdownGraceful": {
			reason: "A graceful shutdown needs evidence (a silent refusal during an lvol migration passes: sent again), waits out the backend's passing refusals (migrations, peers restarting, the FTT 500), and a repeat or late original is refused with 409.",
			cr:     nodeOps(v1alpha1.NodeShutdown),
			want: policy{Name: "shutdown", Needs: withTasks, WithoutEvidence: ops.NoEvidenceSendsAgain, OnLostAnswer: ops.LostAnswerResends,
				OnServerError: ops.ServerErrorIsRefusal, RefusedForNow: true},
		},
		"ShutdownForced": {
			reason: "A forced repeat kills SPDK again: it is not sent without evidence.",
			cr:     nodeOps(v1alpha1.NodeShutdown, forceShutdown()),
			want:   policy{Name: "shutdown", Needs: needs, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails, OnServerError: ops.ServerErrorIsRefusal},
		},
		"RestartShutdown": {
			reason: "A Restart's first step is the graceful shutdown; the restart follows, so a late original would take the node down again: a lost answer waits for the user's confirmation.",
			cr:     nodeOps(v1alpha1.NodeRestart),
			want: policy{Name: "shutdown", Needs: withTasks, WithoutEvidence: ops.NoEvidenceSendsAgain, OnLostAnswer: ops.LostAnswerAsks,
				OnServerError: ops.ServerErrorIsRefusal, RefusedForNow: true},
		},
		"RestartRestart": {
			reason: "A restart needs evidence; without force a repeat is a no-op.",
			cr:     nodeOps(v1alpha1.NodeRestart),
			step:   1,
			want:   policy{Name: "restart", Needs: needs, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerResends},
		},
		"RestartForced": {
			reason: "A forced Restart forces its shutdown too, and neither is repeated without evidence.",
			cr:     nodeOps(v1alpha1.NodeRestart, restart(v1alpha1.NodeRestartParameters{Force: true})),
			want:   policy{Name: "shutdown", Needs: needs, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails, OnServerError: ops.ServerErrorIsRefusal},
		},
		"RestartForcedRestart": {
			reason: "A forced repeat after a completed restart is a second full restart.",
			cr:     nodeOps(v1alpha1.NodeRestart, restart(v1alpha1.NodeRestartParameters{Force: true})),
			step:   1,
			want:   policy{Name: "restart", Needs: needs, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails},
		},
		"Start": {
			reason: "A Start is the restart step alone.",
			cr:     nodeOps(v1alpha1.NodeStart),
			want:   policy{Name: "start", Needs: needs, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerResends},
		},
		"MigrateShutdown": {
			reason: "A Migrate's graceful shutdown is followed by the node's restart: a lost answer waits for the user's confirmation.",
			cr:     nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost)),
			want: policy{Name: "shutdown", Needs: withTasks, WithoutEvidence: ops.NoEvidenceSendsAgain, OnLostAnswer: ops.LostAnswerAsks,
				OnServerError: ops.ServerErrorIsRefusal, RefusedForNow: true},
		},
		"MigrateRestartAt": {
			reason: "A restart at the new address needs evidence; without force a repeat (or a late original) finds the node not offline and is a no-op.",
			cr:     nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost)),
			step:   1,
			want:   policy{Name: "restart at 10.0.0.21:5000", Needs: withTasks, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerResends},
		},
		"MigrateForcedRestartAt": {
			reason: "A forced restart is never repeated without evidence: a second one kills SPDK again.",
			cr:     nodeOps(v1alpha1.NodeMigrate, migrate(v1alpha1.NodeMigrateParameters{NodeAddress: "10.0.0.21:5000", Force: true})),
			step:   1,
			want:   policy{Name: "restart at 10.0.0.21:5000", Needs: withTasks, WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails},
		},
		"MigratePromote": {
			reason: "A promote has no checks and re-adds only devices not added yet: a lost answer is sent again once the original can no longer arrive; a 5xx is retried.",
			cr:     nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost)),
			step:   2,
			want:   policy{Name: "promote", Needs: ops.Needs{Nodes: true}, OnLostAnswer: ops.LostAnswerResends},
		},
		"Remove": {
			reason: "A removal's 5xx may follow a queued removal (force_delete), so evidence decides; it is not repeated blindly and may take long to show.",
			cr:     nodeOps(v1alpha1.NodeRemove),
			want:   policy{Name: "remove", Needs: needs, OnLostAnswer: ops.LostAnswerFails, OnServerError: ops.ServerErrorIsAmbiguous},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := stepOf(t, tc.cr, tc.step)
			got := policy{Name: s.Name, Needs: s.Needs, WithoutEvidence: s.WithoutEvidence, OnLostAnswer: s.OnLostAnswer,
				OnServerError: s.OnServerError, RefusedForNow: s.RefusedForNow != nil}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\npolicy: -want, +got:\n%s", tc.reason, diff)
			}
			if s.CheckHint == "" {
				t.Errorf("\n%s\nCheckHint is empty", tc.reason)
			}
			if s.BaselineOf == nil {
				t.Fatalf("\n%s\nBaselineOf is nil: the baseline would record the cluster's status", tc.reason)
			}
			if got := s.BaselineOf(snap(sb.ClusterActive, nodes("n0=online", "n1=in_restart"))); got != "in_restart" {
				t.Errorf("\n%s\nBaselineOf(...) = %q, want the node's status %q", tc.reason, got, "in_restart")
			}
		})
	}
}

func TestPlanCalls(t *testing.T) {
	addr := "10.0.0.12:5000"
	record := func(calls *[]string) *fake.MockClient {
		add := func(s string) error { *calls = append(*calls, s); return nil }
		restartArgs := func(p sb.RestartParams) string {
			return fmt.Sprintf("force=%t reattach=%t address=%s ssds=%v", p.Force, p.ReattachVolume, ptr.Deref(p.NodeAddress, "-"), p.NewSsdPcie)
		}
		return &fake.MockClient{
			MockSuspendStorageNode: func(_ context.Context, c, n string, force bool) error {
				return add(fmt.Sprintf("suspend %s/%s force=%t", c, n, force))
			},
			MockResumeStorageNode: func(_ context.Context, c, n string) error { return add(fmt.Sprintf("resume %s/%s", c, n)) },
			MockShutdownStorageNode: func(_ context.Context, c, n string, force bool) error {
				return add(fmt.Sprintf("shutdown %s/%s force=%t", c, n, force))
			},
			MockRestartStorageNode: func(_ context.Context, c, n string, p sb.RestartParams) error {
				return add(fmt.Sprintf("restart %s/%s %s", c, n, restartArgs(p)))
			},
			MockStartStorageNode: func(_ context.Context, c, n string, p sb.RestartParams) error {
				return add(fmt.Sprintf("start %s/%s %s", c, n, restartArgs(p)))
			},
			MockDeleteStorageNode: func(_ context.Context, c, n string, o sb.NodeDeleteOptions) error {
				return add(fmt.Sprintf("delete %s/%s remove=%t migrate=%t delete=%t", c, n, o.ForceRemove, o.ForceMigrate, o.ForceDelete))
			},
			MockPromoteStorageNode: func(_ context.Context, c, n string) error { return add(fmt.Sprintf("promote %s/%s", c, n)) },
		}
	}
	type want struct {
		endpoint, path, call string
	}
	cases := map[string]struct {
		reason string
		cr     *v1alpha1.StorageNodeOps
		step   int
		want   want
	}{
		"Suspend": {
			reason: "A Suspend posts /suspend without force (the backend ignores it).",
			cr:     nodeOps(v1alpha1.NodeSuspend),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/suspend", path: "POST /clusters/c1/storage-nodes/n1/suspend",
				call: "suspend c1/n1 force=false"},
		},
		"Resume": {
			reason: "A Resume posts /resume.",
			cr:     nodeOps(v1alpha1.NodeResume),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/resume", path: "POST /clusters/c1/storage-nodes/n1/resume",
				call: "resume c1/n1"},
		},
		"Shutdown": {
			reason: "A Shutdown posts /shutdown, gracefully by default.",
			cr:     nodeOps(v1alpha1.NodeShutdown),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/shutdown", path: "POST /clusters/c1/storage-nodes/n1/shutdown",
				call: "shutdown c1/n1 force=false"},
		},
		"ShutdownForced": {
			reason: "A forced Shutdown sends force, and its path shows it.",
			cr:     nodeOps(v1alpha1.NodeShutdown, forceShutdown()),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/shutdown", path: "POST /clusters/c1/storage-nodes/n1/shutdown?force=true",
				call: "shutdown c1/n1 force=true"},
		},
		"RestartShutdown": {
			reason: "A Restart first shuts the node down with the restart's force.",
			cr:     nodeOps(v1alpha1.NodeRestart, restart(v1alpha1.NodeRestartParameters{Force: true})),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/shutdown", path: "POST /clusters/c1/storage-nodes/n1/shutdown?force=true",
				call: "shutdown c1/n1 force=true"},
		},
		"RestartRestart": {
			reason: "A Restart's second step posts /restart with every parameter.",
			cr: nodeOps(v1alpha1.NodeRestart, restart(v1alpha1.NodeRestartParameters{
				Force: true, ReattachVolume: true, NodeAddress: &addr, NewSsdPcie: []string{"0000:00:04.0"}})),
			step: 1,
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/restart", path: "POST /clusters/c1/storage-nodes/n1/restart",
				call: "restart c1/n1 force=true reattach=true address=10.0.0.12:5000 ssds=[0000:00:04.0]"},
		},
		"RestartDefaults": {
			reason: "Without parameters the restart sends the backend's defaults.",
			cr:     nodeOps(v1alpha1.NodeRestart),
			step:   1,
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/restart", path: "POST /clusters/c1/storage-nodes/n1/restart",
				call: "restart c1/n1 force=false reattach=false address=- ssds=[]"},
		},
		"Start": {
			reason: "A Start posts /start with its parameters.",
			cr:     nodeOps(v1alpha1.NodeStart, restart(v1alpha1.NodeRestartParameters{ReattachVolume: true})),
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/start", path: "POST /clusters/c1/storage-nodes/n1/start",
				call: "start c1/n1 force=false reattach=true address=- ssds=[]"},
		},
		"MigrateRestartAt": {
			reason: "A Migrate restarts the node with the new address and devices.",
			cr: nodeOps(v1alpha1.NodeMigrate, migrate(v1alpha1.NodeMigrateParameters{
				NodeAddress: "10.0.0.21:5000", NewSsdPcie: []string{"0000:00:04.0"}})),
			step: 1,
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/restart", path: "POST /clusters/c1/storage-nodes/n1/restart",
				call: "restart c1/n1 force=false reattach=false address=10.0.0.21:5000 ssds=[0000:00:04.0]"},
		},
		"MigratePromote": {
			reason: "A Migrate's third step posts /promote.",
			cr:     nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost)),
			step:   2,
			want: want{endpoint: "POST /clusters/{id}/storage-nodes/{id}/promote", path: "POST /clusters/c1/storage-nodes/n1/promote",
				call: "promote c1/n1"},
		},
		"Remove": {
			reason: "A Remove deletes the node without flags by default.",
			cr:     nodeOps(v1alpha1.NodeRemove),
			want: want{endpoint: "DELETE /clusters/{id}/storage-nodes/{id}/", path: "DELETE /clusters/c1/storage-nodes/n1/",
				call: "delete c1/n1 remove=false migrate=false delete=false"},
		},
		"RemoveFlags": {
			reason: "A Remove sends its flags, and its path shows the set ones.",
			cr:     nodeOps(v1alpha1.NodeRemove, remove(v1alpha1.NodeRemoveParameters{ForceRemove: true, ForceDelete: true})),
			want: want{endpoint: "DELETE /clusters/{id}/storage-nodes/{id}/", path: "DELETE /clusters/c1/storage-nodes/n1/?force_remove=true&force_delete=true",
				call: "delete c1/n1 remove=true migrate=false delete=true"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := stepOf(t, tc.cr, tc.step)
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
		cr     *v1alpha1.StorageNodeOps
		want   int
	}{
		"Suspend":  {reason: "One step.", cr: nodeOps(v1alpha1.NodeSuspend), want: 1},
		"Resume":   {reason: "One step.", cr: nodeOps(v1alpha1.NodeResume), want: 1},
		"Shutdown": {reason: "One step.", cr: nodeOps(v1alpha1.NodeShutdown), want: 1},
		"Restart":  {reason: "Shutdown and restart.", cr: nodeOps(v1alpha1.NodeRestart), want: 2},
		"Start":    {reason: "The restart step alone.", cr: nodeOps(v1alpha1.NodeStart), want: 1},
		"Remove":   {reason: "One step.", cr: nodeOps(v1alpha1.NodeRemove), want: 1},
		"Migrate":  {reason: "Shutdown, restart at the new address, promote, wait for rebalancing.", cr: nodeOps(v1alpha1.NodeMigrate, migrate(toNewHost)), want: 4},
		"Unknown":  {reason: "An unknown type has no steps.", cr: nodeOps("Promote"), want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := len(planFor(tc.cr, cid, nid)); got != tc.want {
				t.Errorf("\n%s\nlen(planFor(...)) = %d, want %d", tc.reason, got, tc.want)
			}
		})
	}
}

// TestTypesAreDescribed: every type of the table has its row in the
// README's node operations table, whose lost-answer column matches the
// type's policies, and is an enum value of the CRD (and the reverse).
func TestTypesAreDescribed(t *testing.T) {
	rows := opstest.READMETypeRows(t, "## Node operations: `StorageNodeOps` (`sbnops`)")
	var described []string
	for typ := range rows {
		described = append(described, typ)
	}
	slices.Sort(described)
	types := make([]string, 0, len(Types()))
	for _, typ := range Types() {
		types = append(types, string(typ))
		if row, ok := rows[string(typ)]; ok {
			opstest.CheckREADMERow(t, string(typ), row, Plan(v1alpha1.StorageNodeOpsParameters{Type: typ}, cid, nid))
		}
	}
	if !slices.Equal(described, types) {
		t.Errorf("README rows = %v, want the types of the table %v", described, types)
	}
	enum := opstest.CRDTypeEnum(t, "simplyblock.m.crossplane.io_storagenodeops.yaml")
	if !slices.Equal(enum, types) {
		t.Errorf("the CRD's type enum = %v, want the types of the table %v", enum, types)
	}
}
