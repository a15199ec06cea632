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

package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenodeops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// importNodes imports the seeded nodes of cluster id as StorageNodes
// demo-node-1, demo-node-2, ... of the StorageCluster "demo".
func (h *harness) importNodes(id string, nodeIDs []string) {
	h.t.Helper()
	nodes := h.sim.Nodes(id)
	for i, nid := range nodeIDs {
		h.fromExample("quickstart/11-node-1.yaml", func(u *unstructured.Unstructured) {
			u.SetName(fmt.Sprintf("demo-node-%d", i+1))
			for _, n := range nodes {
				if n.ID == nid {
					h.setField(u, n.MgmtIP+":5000", "spec", "forProvider", "nodeAddress")
				}
			}
			meta.SetExternalName(u, nid)
		})
	}
}

// nodeOp creates a StorageNodeOps named name from examples/storagenodeops/<file>.
func (h *harness) nodeOp(file, name string, mutate func(u *unstructured.Unstructured)) {
	h.t.Helper()
	h.fromExample("storagenodeops/"+file, func(u *unstructured.Unstructured) {
		u.SetName(name)
		if mutate != nil {
			mutate(u)
		}
	})
}

func onNode(h *harness, name string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { h.setField(u, name, "spec", "forProvider", "nodeIdRef", "name") }
}

// waitNodeOp waits until the node operation reaches phase; the other
// terminal phase fails the test.
func (h *harness) waitNodeOp(name string, phase v1alpha1.OperationPhase) *v1alpha1.StorageNodeOps {
	h.t.Helper()
	op := &v1alpha1.StorageNodeOps{}
	op.SetNamespace(h.ns)
	op.SetName(name)
	h.eventually(fmt.Sprintf("StorageNodeOps %s to be %s", name, phase), func() (bool, string) {
		if err := h.get(op); err != nil {
			return false, err.Error()
		}
		st := op.Status.AtProvider
		desc := fmt.Sprintf("phase=%s reason=%s message=%q", st.Phase, st.Reason, st.Message)
		if st.Phase != phase && (st.Phase == v1alpha1.OperationSucceeded || st.Phase == v1alpha1.OperationFailed) {
			h.t.Fatalf("StorageNodeOps %s ended %s, want %s: %s", name, st.Phase, phase, desc)
		}
		return st.Phase == phase, desc
	})
	return op
}

func (h *harness) nodeStatus(clusterID, nodeID string) simplyblock.NodeStatus {
	for _, n := range h.sim.Nodes(clusterID) {
		if n.ID == nodeID {
			return n.Status
		}
	}
	return ""
}

// TestStorageNodeOpsTypes runs every node operation type from its example
// against node 1 of an active three-node cluster.
func TestStorageNodeOpsTypes(t *testing.T) {
	cases := map[string]struct {
		reason string
		before string // a node operation run first
		file   string
		want   simplyblock.NodeStatus
		calls  map[string]int // method + " " + path suffix -> journal count
		// quiet: on a cluster whose log is empty.
		quiet bool
	}{
		"Suspend": {reason: "An online node is suspended with one synchronous call.", file: "suspend.yaml",
			want: simplyblock.NodeSuspended, calls: map[string]int{"POST /suspend": 1}},
		"Resume": {reason: "A suspended node is resumed.", before: "suspend.yaml", file: "resume.yaml",
			want: simplyblock.NodeOnline, calls: map[string]int{"POST /resume": 1}},
		"Shutdown": {reason: "A graceful shutdown, with every other node online.", file: "shutdown.yaml",
			want: simplyblock.NodeOffline, calls: map[string]int{"POST /shutdown": 1}},
		"Start": {reason: "An offline node is started.", before: "shutdown.yaml", file: "start.yaml",
			want: simplyblock.NodeOnline, calls: map[string]int{"POST /start": 1}},
		"Restart": {reason: "A restart is a graceful shutdown, then a restart.", file: "restart.yaml",
			want: simplyblock.NodeOnline, calls: map[string]int{"POST /shutdown": 1, "POST /restart": 1}},
		"Remove": {reason: "A removal is one DELETE; the backend's node_removal task takes the node to removed.", file: "remove.yaml",
			want: simplyblock.NodeRemoved, calls: map[string]int{"DELETE /": 1}},
		"Migrate": {reason: "A move is a graceful shutdown, a restart at the new address and a promote.", file: "migrate.yaml",
			want: simplyblock.NodeOnline, calls: map[string]int{"POST /shutdown": 1, "POST /restart": 1, "POST /promote": 1}},
	}
	for _, typ := range storagenodeops.Types() {
		if _, ok := cases[string(typ)]; !ok {
			t.Errorf("type %s of the StorageNodeOps table has no case here", typ)
		}
		// The same on a docker-mode cluster quiet for 30 days, whose log is
		// empty and answers 500 (backend-contract.md C4) and whose task
		// list answers 500 (M5): no step may need the log or the task list.
		quiet := cases[string(typ)]
		quiet.reason += " On a docker-mode cluster whose log is empty and whose task list cannot be read (HTTP 500)."
		quiet.quiet = true
		cases[string(typ)+"OnAQuietCluster"] = quiet
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			id, nodes := h.importCluster("demo", quietSeed(simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive}, tc.quiet))
			if tc.quiet {
				expectEmptyLog(t, h.sim, id)
			}
			h.importNodes(id, nodes)
			history := 1
			if tc.before != "" {
				h.nodeOp(tc.before, "before", nil)
				h.waitNodeOp("before", v1alpha1.OperationSucceeded)
				history++
			}
			h.nodeOp(tc.file, "op", nil)
			op := h.waitNodeOp("op", v1alpha1.OperationSucceeded)
			if got := h.nodeStatus(id, nodes[0]); got != tc.want {
				t.Errorf("%s\nnode status = %s, want %s", tc.reason, got, tc.want)
			}
			for call, n := range tc.calls {
				method, suffix, _ := strings.Cut(call, " ")
				if got := h.sim.Calls(method, suffix); got != n {
					t.Errorf("%s\n%s sent %d times, want %d", tc.reason, call, got, n)
				}
			}
			node := h.node("demo-node-1")
			must(t, h.get(node))
			hist := node.Status.AtProvider.OperationHistory
			if len(hist) != history || hist[len(hist)-1].UID != op.UID {
				t.Errorf("%s\nnode history = %+v, want %d records ending with the operation", tc.reason, hist, history)
			}
			if a := node.Status.AtProvider.ActiveOperation; a != nil {
				t.Errorf("%s\nnode still shows %+v as running", tc.reason, a)
			}
			if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
				t.Errorf("%s\ncluster still locked by %+v", tc.reason, a)
			}
		})
	}
}

func TestStorageNodeOpsSafety(t *testing.T) {
	t.Run("PlainTextRefusalFailsWithoutRetry", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.sim.Faults().FailNext("POST", "/clusters/*/storage-nodes/*/suspend", 1, 500)
		h.nodeOp("suspend.yaml", "op", nil)
		op := h.waitNodeOp("op", v1alpha1.OperationFailed)
		if st := op.Status.AtProvider; st.Reason != "BackendRejected" || !strings.Contains(st.Message, "Internal Server Error") || st.Attempts != 1 {
			t.Errorf("status = %s %q attempts %d, want BackendRejected with the backend's words after 1 attempt", st.Reason, st.Message, st.Attempts)
		}
		if n := h.sim.Calls("POST", "/suspend"); n != 1 {
			t.Errorf("suspend sent %d times, want 1", n)
		}
	})

	t.Run("NodeRestartWaitsForAClusterShutdown", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.operation("shutdown.yaml", "cluster-shutdown", nil)
		h.eventually("the cluster shutdown to hold the lock", func() (bool, string) {
			a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
			return a != nil && a.Name == "cluster-shutdown", fmt.Sprintf("%+v", a)
		})
		h.nodeOp("restart.yaml", "node-start", nil)
		h.eventually("the node start to queue", func() (bool, string) {
			op := &v1alpha1.StorageNodeOps{}
			op.SetNamespace(h.ns)
			op.SetName("node-start")
			if err := h.get(op); err != nil {
				return false, err.Error()
			}
			return op.Status.AtProvider.Reason == "Queued" || op.Status.AtProvider.StartedAt != nil, op.Status.AtProvider.Reason
		})
		h.waitOp("cluster-shutdown", v1alpha1.OperationSucceeded)
		op := h.waitNodeOp("node-start", v1alpha1.OperationSucceeded)
		cl := findRecord(h.clusterObj("demo"), "cluster-shutdown")
		if cl == nil || op.Status.AtProvider.StartedAt.Before(cl.CompletedAt) {
			t.Errorf("the node start began at %v, before the cluster shutdown finished (%+v)", op.Status.AtProvider.StartedAt, cl)
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOnline {
			t.Errorf("node 1 is %s, want online", got)
		}
	})

	t.Run("NodeStuckInShutdownResolvesAsTheBackendDoes", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		stuck := h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeStuckInShutdown, NodeID: nodes[0]})
		h.nodeOp("shutdown.yaml", "op", nil)
		h.waitNodeOp("op", v1alpha1.OperationSucceeded)
		// The simulator records that the node was left in_shutdown (the
		// operation's message says so only for a moment, too short to sample).
		for _, f := range h.sim.Faults().List() {
			if f.ID == stuck.ID && f.Used != 1 {
				t.Errorf("the node was left in_shutdown %d times, want once", f.Used)
			}
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOffline {
			t.Errorf("node 1 is %s, want offline (the backend's 120 s rule)", got)
		}
		if n := h.sim.Calls("POST", "/shutdown"); n != 1 {
			t.Errorf("shutdown sent %d times, want 1: the backend's 120 s rule sets the node offline", n)
		}
	})

	t.Run("RestartLeavingTheNodeOfflineFailsAtTheDeadline", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.nodeOp("shutdown.yaml", "down", nil)
		h.waitNodeOp("down", v1alpha1.OperationSucceeded)
		// The node's host is gone for an hour of backend time: restarts fail.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeOutage, NodeID: nodes[0], NodeStatus: simplyblock.NodeOffline,
			After: simulator.Duration(3 * time.Hour)})
		h.nodeOp("start.yaml", "op", func(u *unstructured.Unstructured) {
			h.setField(u, int64(8), "spec", "forProvider", "timeoutSeconds")
		})
		op := h.waitNodeOp("op", v1alpha1.OperationFailed)
		// The backend keeps retrying (offline ↔ in_restart): whichever the node
		// shows at the deadline, the message names the failed restarts.
		// A failed restart is logged "from: offline to: offline"
		// (storage_node_ops.py:4411-4426).
		if st := op.Status.AtProvider; st.Reason != "DeadlineExceeded" || !strings.Contains(st.Message, "the backend logged the node offline again") {
			t.Errorf("status = %s %q, want DeadlineExceeded naming the failed restarts", st.Reason, st.Message)
		}
		if n := h.sim.Calls("POST", "/start"); n != 1 {
			t.Errorf("start sent %d times, want 1: the backend retries a failed restart itself", n)
		}
	})

	t.Run("ShutdownWaitsWhileAnotherNodeIsDown", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.nodeOp("shutdown.yaml", "first", nil)
		h.waitNodeOp("first", v1alpha1.OperationSucceeded)
		h.nodeOp("shutdown.yaml", "second", func(u *unstructured.Unstructured) {
			onNode(h, "demo-node-2")(u)
			h.setField(u, int64(4), "spec", "forProvider", "preconditionTimeoutSeconds")
		})
		h.eventually("the waiting shutdown to show on its node", func() (bool, string) {
			n := h.node("demo-node-2")
			if err := h.get(n); err != nil {
				return false, err.Error()
			}
			a := n.Status.AtProvider.ActiveOperation
			return a != nil && a.Name == "second" && a.Kind == "StorageNodeOps", fmt.Sprintf("%+v", a)
		})
		op := h.waitNodeOp("second", v1alpha1.OperationFailed)
		if st := op.Status.AtProvider; st.Reason != "PreconditionTimeout" || !strings.Contains(st.Message, nodes[0]) {
			t.Errorf("second shutdown = %s %q, want PreconditionTimeout naming the offline node %s", st.Reason, st.Message, nodes[0])
		}
		if got := h.nodeStatus(id, nodes[1]); got != simplyblock.NodeOnline {
			t.Errorf("node 2 is %s, want online: the safety gate must keep it up", got)
		}
		if n := h.sim.Calls("POST", "/shutdown"); n != 1 {
			t.Errorf("shutdown sent %d times, want 1 (only the first node)", n)
		}
	})
}
