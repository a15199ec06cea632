package simulator

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// M6: a graceful node shutdown runs the FTT check first
// (simplyblock_web/api/v2/cluster/storage_node/__init__.py:214-219,
// _check_ftt_allows_node_removal, storage_node_ops.py:5514-5640), whose
// refusal is a plain-text 500, then check_node_shutdown_preconditions
// (storage_node_ops.py:5780-5899), whose refusal is a 409.
func TestShutdownFTTCheck(t *testing.T) {
	single := sb.DefaultClusterParams()
	single.HAType = "single"
	cases := map[string]struct {
		reason  string
		params  *sb.ClusterParams
		nodes   int
		status  sb.ClusterStatus
		prepare func(s *Simulator, cid string, n []string)
		want    string
	}{
		"PeerSuspended": {
			reason: "SNO:5568-5576,5579-5585: a suspended peer is not online: npcs=1 refuses.",
			nodes:  3, prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeSuspended) },
			want: "500 Internal Server Error",
		},
		"PeerInCreation": {
			reason: "SNO:5572-5573: in_creation peers are not counted.",
			nodes:  3, prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeInCreation) },
			want: "202 ",
		},
		"PeerRemoved": {
			reason: "SNO:5572-5573: removed peers are not counted.",
			nodes:  3, prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeRemoved) },
			want: "202 ",
		},
		"NotActivated": {
			reason: "SNO:5525-5528: the check applies to HA clusters whether activated or not.",
			nodes:  3, status: sb.ClusterUnready,
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeOffline) },
			want:    "500 Internal Server Error",
		},
		"PeerDownNotHA": {
			reason: "SNO:5525-5526: a cluster that is not HA is not checked.",
			params: &single, nodes: 3,
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeOffline) },
			want:    "202 ",
		},
		"FTTBeforeConflict": {
			reason: "SN/:214-227: the FTT 500 comes before the 409 about a peer shutting down.",
			nodes:  3, prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeInShutdown) },
			want: "500 Internal Server Error",
		},
		"ConflictWithoutHA": {
			reason: "SNO:5833-5840: without the FTT check the 409 about the peer shutting down remains.",
			params: &single, nodes: 3,
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeInShutdown) },
			want:    `409 {"detail":"Node {1} is already shutting down in this cluster, cannot shutdown {0} concurrently"}`,
		},
		"Npcs2OnePeerDown": {
			reason: "SNO:5587-5595: npcs=2 (FTT 2) allows one not-online peer.",
			params: ec(1, 2), nodes: 4,
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeOffline) },
			want:    "202 ",
		},
		"Npcs2TwoPeersDown": {
			reason: "SNO:5587-5595: npcs=2 refuses at two.",
			params: ec(1, 2), nodes: 4,
			prepare: func(s *Simulator, cid string, n []string) {
				setNode(s, n[1], sb.NodeOffline)
				setNode(s, n[2], sb.NodeOffline)
			},
			want: "500 Internal Server Error",
		},
		"RebalancingNoHeadroom": {
			reason: "SNO:5546-5567: while rebalancing, 4 nodes leave a headroom of 1 over ndcs+npcs=3, not more than the one not-online peer.",
			params: ec(1, 2), nodes: 4,
			prepare: func(s *Simulator, cid string, n []string) {
				setNode(s, n[1], sb.NodeOffline)
				rebalancing(t, s, cid, n[2])
			},
			want: "500 Internal Server Error",
		},
		"RebalancingHeadroom": {
			reason: "SNO:5546-5567: 5 nodes leave a headroom of 2 over the one not-online peer.",
			params: ec(1, 2), nodes: 5,
			prepare: func(s *Simulator, cid string, n []string) {
				setNode(s, n[1], sb.NodeOffline)
				rebalancing(t, s, cid, n[2])
			},
			want: "202 ",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			status := tc.status
			if status == "" {
				status = sb.ClusterActive
			}
			cid, _, nodes := s.Seed(SeedCluster{Nodes: tc.nodes, Status: status, Params: tc.params})
			tc.prepare(s, cid, nodes)
			want := strings.NewReplacer("{0}", nodes[0], "{1}", nodes[1]).Replace(tc.want)
			if diff := cmp.Diff(want, call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/shutdown", nil).String()); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// rebalancing opens a device_migration task on a node and waits until the
// monitor reports is_re_balancing.
func rebalancing(t *testing.T, s *Simulator, cid, nid string) {
	t.Helper()
	s.mu.Lock()
	s.newTaskLocked(cid, nid, sb.TaskFunctionDeviceMigration, -1, map[string]any{})
	s.mu.Unlock()
	eventually(t, "is_re_balancing", func() bool { c, _ := s.Cluster(cid); return c.IsReBalancing })
}

// M12: restart_storage_node refuses without force unless the node is
// offline (storage_node_ops.py:4548-4550); schedulable too.
func TestRestartGuard(t *testing.T) {
	cases := map[string]struct {
		reason string
		status sb.NodeStatus
		force  bool
		ok     bool
	}{
		"Offline":          {"SNO:4548.", sb.NodeOffline, false, true},
		"Schedulable":      {"SNO:4548-4550: schedulable is refused without force.", sb.NodeSchedulable, false, false},
		"SchedulableForce": {"SNO:4548: force accepts it.", sb.NodeSchedulable, true, true},
		"Unreachable":      {"SNO:4548-4550.", sb.NodeUnreachable, false, false},
		"DownForce":        {"SNO:4548.", sb.NodeDown, true, true},
		"Removed":          {"SNO:4552-4554: never a removed node.", sb.NodeRemoved, true, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			c, ids := seedSpecs(s, nil, sb.ClusterDegraded, []nodeSpec{{status: tc.status}, on, on})
			s.mu.Lock()
			reason := s.restartGuardLocked(s.m.node(ids[0]), tc.force, "")
			s.mu.Unlock()
			if got := reason == ""; got != tc.ok {
				t.Errorf("\n%s\nwant allowed=%t, got refusal %q (cluster %s)", tc.reason, tc.ok, reason, c.status)
			}
		})
	}

	t.Run("APISchedulable", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		setNode(s, nodes[0], sb.NodeSchedulable)
		call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
		time.Sleep(50 * time.Millisecond)
		if got := nodeByID(s, cid, nodes[0]).Status; got != sb.NodeSchedulable || hasEvent(s, cid,
			"Storage node status changed from: schedulable to: in_restart") {
			t.Errorf("SNO:4548-4550: a restart without force leaves a schedulable node alone; got %s", got)
		}
		call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{"force": true})
		waitNode(t, s, cid, nodes[0], sb.NodeOnline)
	})
}

// M16: the cluster_expand task (tasks_runner_cluster_expand.py:25-98,
// cluster_expansion/executor.py:520-570).
func TestClusterExpandTask(t *testing.T) {
	t.Run("ExceptionRestoresAndRetries", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		nid := addBareNode(s, cid, "10.3.0.1")
		s.Faults().MustAdd(Fault{Kind: FaultExpansionException, ClusterID: cid, Count: 1})
		s.mu.Lock()
		s.queueClusterExpandLocked(cid, nid)
		s.mu.Unlock()
		var failed sb.TaskDTO
		eventually(t, "the task done", func() bool {
			ts := tasksOf(s, cid, sb.TaskFunctionClusterExpand)
			if len(ts) == 1 && ts[0].Status == sb.TaskSuspended {
				failed = ts[0]
			}
			return len(ts) == 1 && ts[0].Status == sb.TaskDone
		})
		if diff := cmp.Diff([]any{"attempt 1 failed: injected expansion failure", int64(1)}, []any{failed.FunctionResult, failed.Retry}); diff != "" {
			t.Errorf("RCE:92-98: the failed attempt suspends the task: -want, +got:\n%s", diff)
		}
		done := tasksOf(s, cid, sb.TaskFunctionClusterExpand)[0]
		if diff := cmp.Diff([]any{"expansion complete: " + nid, int64(1), map[string]any{"new_node_id": nid}},
			[]any{done.FunctionResult, done.Retry, done.FunctionParams}); diff != "" {
			t.Errorf("RCE:84, TC:768-770: -want, +got:\n%s", diff)
		}
		want := []string{"active>in_expansion", "in_expansion>active", "active>in_expansion", "in_expansion>active"}
		if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
			t.Errorf("EXE:559-563: the exception restores the previous status, the retry succeeds: -want, +got:\n%s", diff)
		}
	})

	t.Run("PreconditionNotActive", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		setNode(s, nodes[0], sb.NodeOffline) // deliberately: the monitor keeps the cluster degraded
		waitCluster(t, s, cid, sb.ClusterDegraded)
		nid := addBareNode(s, cid, "10.3.0.2")
		s.mu.Lock()
		s.queueClusterExpandLocked(cid, nid)
		s.mu.Unlock()
		eventually(t, "the first attempt", func() bool {
			ts := tasksOf(s, cid, sb.TaskFunctionClusterExpand)
			return len(ts) == 1 && ts[0].Retry >= 1
		})
		got := tasksOf(s, cid, sb.TaskFunctionClusterExpand)[0]
		want := "attempt 1 failed: expansion preconditions not met: cluster status is degraded, expansion requires active"
		if got.Retry == 1 && (got.FunctionResult != want || got.Status != sb.TaskSuspended) {
			t.Errorf("EXE:518-526, preconditions.py:250-251, RCE:92-98: want %q suspended, got %q %s", want, got.FunctionResult, got.Status)
		}
		if hasEvent(s, cid, "Cluster status changed from degraded to in_expansion") {
			t.Errorf("a refused attempt never sets in_expansion")
		}
	})
}
