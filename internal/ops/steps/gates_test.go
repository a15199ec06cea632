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

package steps

import (
	"strings"
	"testing"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/opstest"
)

func TestShutdownRefusedForNow(t *testing.T) {
	cases := map[string]struct {
		reason  string
		status  int
		message string
		want    bool
	}{
		// The texts of check_node_shutdown_preconditions, storage_node_ops.py:5780-5899.
		"MigrationTask": {reason: "An open migration task on the node passes (SNO:5880-5881).", status: 409,
			message: "Migration task found: 1 (device_migration), can not shutdown storage node or use --force", want: true},
		"PeerRestarting": {reason: "A peer restarting passes (SNO:5828-5829).", status: 409,
			message: "Node n2 is restarting in this cluster, cannot shutdown n1 concurrently", want: true},
		"PeerShuttingDown": {reason: "A peer already shutting down passes (SNO:5835-5836).", status: 409,
			message: "Node n2 is already shutting down in this cluster, cannot shutdown n1 concurrently", want: true},
		"RestartTask": {reason: "An open node_restart task passes (SNO:5844).", status: 409,
			message: "Restart task found: t2, can not shutdown storage node", want: true},
		"RestartClaim": {reason: "A live restart claim passes (SNO:5819-5821).", status: 409,
			message: "Node n1 is in_restart under a live restart claim (tok); shutdown refused until the claim is released or expires", want: true},
		"NodeNotFound": {reason: "A node the backend does not know is final (SNO:5804).", status: 409,
			message: "Storage node not found: n1"},
		"FaultTolerance": {reason: "The fault-tolerance check's 500 passes once peers are back.", status: 500,
			message: "Internal Server Error", want: true},
		"WrongStatus": {reason: "A node in a status a graceful shutdown never starts from is a refusal.", status: 409,
			message: "Node is in offline state; only online/suspended/down can be gracefully shut down. Use --force."},
		"NotFound": {reason: "Anything else is final.", status: 404, message: "'StorageNode n1 not found'"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := shutdownRefusedForNow(tc.status, tc.message); got != tc.want {
				t.Errorf("\n%s\nshutdownRefusedForNow(%d, %q) = %t, want %t", tc.reason, tc.status, tc.message, got, tc.want)
			}
		})
	}
}

func TestGracefulShutdownWaitsForWhatPasses(t *testing.T) {
	task := func(fn, node string, st sb.TaskStatus) sb.TaskDTO {
		t := sb.TaskDTO{ID: "t-" + fn, FunctionName: fn, Status: st}
		if node != "" {
			t.StorageNodeID = &node
		}
		return t
	}
	withTasks := func(ts ...sb.TaskDTO) opstest.SnapModifier { return func(s *ops.Snapshot) { s.Tasks = ts } }
	parity := func(n int64) opstest.SnapModifier { return func(s *ops.Snapshot) { s.Cluster.DistrNpcs = n } }
	rebalancing := func(s *ops.Snapshot) { s.Cluster.IsReBalancing = true }
	n1 := Node{Cluster: "c1", ID: "n1"}
	cases := map[string]struct {
		reason string
		gate   ShutdownGate
		snap   *ops.Snapshot
		want   string // substring; "" means the call may be sent
	}{
		"Clear": {reason: "Nothing passing in the way: the call may be sent.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1))},
		"PeerRestarting": {reason: "A peer in_restart makes the backend refuse: wait.", gate: BackendChecksOnly,
			snap: opstest.Snap("c1", sb.ClusterDegraded, opstest.Nodes("n1=online", "n2=in_restart"), parity(1)),
			want: "other nodes are restarting or shutting down"},
		"RestartTaskOnTheNode": {reason: "An open node_restart task on the node makes the backend refuse: wait.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1),
				withTasks(task("node_restart", "n1", sb.TaskRunning))),
			want: "a node_restart task (t-node_restart) is running on node n1"},
		"RestartTaskOnAnotherNode": {reason: "A node_restart task on another node is not this node's.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1),
				withTasks(task("node_restart", "n2", sb.TaskRunning)))},
		"MigrationsQueued": {reason: "A balancing task is listed the moment migrations are queued, before is_re_balancing shows: wait.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1),
				withTasks(task("balancing_on_restart", "", sb.TaskNew))),
			want: "data migrations are queued or running"},
		"Rebalancing": {reason: "While the cluster rebalances a migration may involve the node: wait.", gate: BackendChecksOnly,
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1), rebalancing),
			want: "data migrations are running"},
		"MigrationsWithTwoParityChunks": {reason: "With two parity chunks the backend allows a shutdown during migrations.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(2),
				withTasks(task("balancing_on_restart", "", sb.TaskRunning)))},
		"DoneTasksDoNotCount": {reason: "Finished tasks hold nothing back.",
			snap: opstest.Snap("c1", sb.ClusterActive, opstest.Nodes("n1=online", "n2=online"), parity(1),
				withTasks(task("balancing_on_restart", "", sb.TaskDone), task("node_restart", "n1", sb.TaskDone)))},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			waiting, refusal := NodeShutdown(n1, ShutdownOptions{Gate: tc.gate}).Gate(tc.snap)
			if refusal != "" {
				t.Fatalf("\n%s\nunexpected refusal %q", tc.reason, refusal)
			}
			if (tc.want == "") != (waiting == "") || !strings.Contains(waiting, tc.want) {
				t.Errorf("\n%s\nGate(...) waits for %q, want %q", tc.reason, waiting, tc.want)
			}
		})
	}
}
