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

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/clusterops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// importCluster seeds a backend cluster and imports it as the StorageCluster
// name (the quickstart's cluster, renamed), returning its id and node ids.
func (h *harness) importCluster(name string, sc simulator.SeedCluster) (string, []string) {
	h.t.Helper()
	if sc.Name == "" {
		sc.Name = name + "-backend"
	}
	id, _, nodes := h.sim.Seed(sc)
	h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		u.SetName(name)
		h.setField(u, sc.Name, "spec", "forProvider", "name")
		meta.SetExternalName(u, id)
	})
	h.waitClusterReady(name)
	return id, nodes
}

// operation creates a ClusterOps named name from examples/clusterops/<file>,
// targeting the StorageCluster "demo" unless mutate changes it.
func (h *harness) operation(file, name string, mutate func(u *unstructured.Unstructured)) {
	h.t.Helper()
	h.fromExample("clusterops/"+file, func(u *unstructured.Unstructured) {
		u.SetName(name)
		if mutate != nil {
			mutate(u)
		}
	})
}

// getOp reads a ClusterOps.
func (h *harness) getOp(name string) (*v1alpha1.ClusterOps, error) {
	op := &v1alpha1.ClusterOps{}
	op.SetNamespace(h.ns)
	op.SetName(name)
	return op, h.get(op)
}

// waitOp waits until the operation reaches phase and returns it. Reaching
// the other terminal phase fails the test at once.
func (h *harness) waitOp(name string, phase v1alpha1.OperationPhase) *v1alpha1.ClusterOps {
	h.t.Helper()
	var op *v1alpha1.ClusterOps
	h.eventually(fmt.Sprintf("ClusterOps %s to be %s", name, phase), func() (bool, string) {
		var err error
		if op, err = h.getOp(name); err != nil {
			return false, err.Error()
		}
		st := op.Status.AtProvider
		desc := fmt.Sprintf("phase=%s reason=%s message=%q", st.Phase, st.Reason, st.Message)
		if st.Phase != phase && (st.Phase == v1alpha1.OperationSucceeded || st.Phase == v1alpha1.OperationFailed) {
			h.t.Fatalf("ClusterOps %s ended %s, want %s: %s", name, st.Phase, phase, desc)
		}
		return st.Phase == phase, desc
	})
	return op
}

// clusterObj reads a StorageCluster.
func (h *harness) clusterObj(name string) *v1alpha1.StorageCluster {
	h.t.Helper()
	sc := &v1alpha1.StorageCluster{}
	sc.SetNamespace(h.ns)
	sc.SetName(name)
	must(h.t, h.get(sc))
	return sc
}

func allNodes(h *harness, id string, want simplyblock.NodeStatus) (bool, string) {
	var bad []string
	for _, n := range h.sim.Nodes(id) {
		if n.Status != want && n.Status != simplyblock.NodeRemoved {
			bad = append(bad, fmt.Sprintf("%s=%s", n.ID, n.Status))
		}
	}
	return len(bad) == 0, strings.Join(bad, ",")
}

// TestClusterOpsTypes runs every operation type from its example against
// a cluster in a state it may start from, and checks the backend's end
// state and that each state-changing endpoint was called exactly as often
// as intended.
func TestClusterOpsTypes(t *testing.T) {
	type want struct {
		clusterStatus simplyblock.ClusterStatus
		nodeStatus    simplyblock.NodeStatus
		calls         map[string]int // POST path suffix -> count
	}
	cases := map[string]struct {
		reason string
		before string // an operation run first, to reach the start state
		file   string
		seed   simulator.SeedCluster
		want   want
	}{
		"Activate": {
			reason: "An unready cluster with online nodes is activated with one POST /activate.",
			file:   "activate.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterUnready},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/activate": 1}},
		},
		"Expand": {
			reason: "An active cluster is expanded with one POST /expand; completion needs in_expansion then active after the call.",
			file:   "expand.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/expand": 1}},
		},
		"Shutdown": {
			reason: "Shutdown ends with every node offline.",
			file:   "shutdown.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{nodeStatus: simplyblock.NodeOffline, calls: map[string]int{"/shutdown": 1}},
		},
		"Start": {
			reason: "Start brings a shut-down cluster's nodes online and waits for the backend's re-activation.",
			before: "shutdown.yaml",
			file:   "start.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/shutdown": 1, "/start": 1}},
		},
		"Restart": {
			reason: "Restart is one shutdown, then one start.",
			file:   "restart.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/shutdown": 1, "/start": 1}},
		},
		"NodeRollingRestart": {
			reason: "Each node is shut down and restarted once, one after another.",
			file:   "node-rolling-restart.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want: want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline,
				calls: map[string]int{"/storage-nodes/*/shutdown": 3, "/storage-nodes/*/restart": 3}},
		},
		"Upgrade": {
			reason: "Upgrade with restart sends one update and waits for every node to be back online.",
			file:   "upgrade.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/update": 1}},
		},
		"Rebalance": {
			reason: "Rebalance sends one POST /rebalance and waits for is_re_balancing to end.",
			file:   "rebalance.yaml",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			want:   want{clusterStatus: simplyblock.ClusterActive, nodeStatus: simplyblock.NodeOnline, calls: map[string]int{"/rebalance": 1}},
		},
	}
	for _, typ := range clusterops.Types() {
		if _, ok := cases[string(typ)]; !ok {
			t.Errorf("type %s of the ClusterOps table has no case here", typ)
		}
		// The same on a docker-mode cluster quiet for 30 days, whose log is
		// empty and answers 500 (backend-contract.md C4) and whose task
		// list answers 500 (M5): no step may need the log or the task list.
		quiet := cases[string(typ)]
		quiet.reason += " On a docker-mode cluster whose log is empty and whose task list cannot be read (HTTP 500)."
		quiet.seed = quietSeed(quiet.seed, true)
		cases[string(typ)+"OnAQuietCluster"] = quiet
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			id, _ := h.importCluster("demo", tc.seed)
			if tc.seed.LogExpired {
				expectEmptyLog(t, h.sim, id)
			}
			history := 1
			if tc.before != "" {
				h.operation(tc.before, "before", nil)
				h.waitOp("before", v1alpha1.OperationSucceeded)
				history++
			}
			h.operation(tc.file, "op", nil)
			op := h.waitOp("op", v1alpha1.OperationSucceeded)

			c, _ := h.sim.Cluster(id)
			if tc.want.clusterStatus != "" && c.Status != tc.want.clusterStatus {
				t.Errorf("%s\ncluster status = %s, want %s", tc.reason, c.Status, tc.want.clusterStatus)
			}
			if ok, bad := allNodes(h, id, tc.want.nodeStatus); !ok {
				t.Errorf("%s\nnodes not %s: %s", tc.reason, tc.want.nodeStatus, bad)
			}
			for suffix, n := range tc.want.calls {
				if got := countPosts(h.sim, suffix); got != n {
					t.Errorf("%s\nPOST …%s sent %d times, want %d", tc.reason, suffix, got, n)
				}
			}
			st := op.Status.AtProvider
			if !st.Triggered || st.CompletedAt == nil || st.StartedAt == nil {
				t.Errorf("%s\nstatus = %+v, want triggered with start and completion times", tc.reason, st)
			}
			sc := h.clusterObj("demo")
			if sc.Status.AtProvider.ActiveOperation != nil {
				t.Errorf("%s\ncluster still locked by %+v", tc.reason, sc.Status.AtProvider.ActiveOperation)
			}
			hist := sc.Status.AtProvider.OperationHistory
			if len(hist) != history || hist[len(hist)-1].UID != op.UID || hist[len(hist)-1].Phase != v1alpha1.OperationSucceeded {
				t.Errorf("%s\ncluster history = %+v, want one Succeeded record of the operation", tc.reason, hist)
			}
		})
	}
}

// expectEmptyLog checks that cluster id's log is empty now, and, at the end
// of the test, that the provider's first read of it (if any) answered 500.
// quietSeed makes seed, when quiet, a docker-mode cluster quiet for 30
// days: an empty log and a task list that answers 500.
func quietSeed(seed simulator.SeedCluster, quiet bool) simulator.SeedCluster {
	if quiet {
		seed.LogExpired, seed.Mode = true, simulator.ModeDocker
	}
	return seed
}

// expectEmptyLog checks that cluster id's log is empty now, and at the end
// of the test that the provider's first read of it answered 500 and that
// every read of its task list did too.
func expectEmptyLog(t *testing.T, sim *simulator.Simulator, id string) {
	t.Helper()
	if evs := sim.Log(id); len(evs) != 0 {
		t.Fatalf("cluster %s's log holds %d entries, want none", id, len(evs))
	}
	t.Cleanup(func() {
		firstLog := true
		for _, e := range sim.Journal() {
			switch {
			case e.Method != "GET":
			case firstLog && strings.HasSuffix(e.Path, "/clusters/"+id+"/logs"):
				firstLog = false
				if e.Status != 500 {
					t.Errorf("the provider's first read of cluster %s's empty log answered %d, want 500", id, e.Status)
				}
			case strings.HasSuffix(e.Path, "/clusters/"+id+"/tasks/") && e.Status != 500:
				t.Errorf("a read of docker-mode cluster %s's task list answered %d, want 500", id, e.Status)
			}
		}
	})
}

// countPosts counts journaled POSTs whose path matches suffix, where "*"
// in suffix stands for one path segment.
func countPosts(sim *simulator.Simulator, suffix string) int {
	n := 0
	for _, e := range sim.Journal() {
		if e.Method == "POST" && matchSuffix(e.Path, suffix) {
			n++
		}
	}
	return n
}

func matchSuffix(path, suffix string) bool {
	p := strings.Split(strings.TrimSuffix(path, "/"), "/")
	s := strings.Split(strings.Trim(suffix, "/"), "/")
	if len(s) > len(p) {
		return false
	}
	p = p[len(p)-len(s):]
	for i := range s {
		if s[i] != "*" && s[i] != p[i] {
			return false
		}
	}
	return true
}
