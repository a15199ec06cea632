package simulator

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// statusHistory returns the cluster's status-change events in order.
func statusHistory(s *Simulator, cid string) []string {
	var out []string
	for _, e := range s.Events(cid) {
		var from, to string
		if _, err := fmt.Sscanf(e, "Cluster status changed from %s to %s", &from, &to); err == nil {
			out = append(out, from+">"+to)
		}
	}
	return out
}

func TestActivate(t *testing.T) {
	cases := map[string]struct {
		reason  string
		nodes   int
		status  sb.ClusterStatus
		fault   *Fault
		prepare func(s *Simulator, cid string)
		calls   int
		want    sb.ClusterStatus
		history []string
	}{
		"Success": {
			reason: "An unready cluster with enough nodes goes in_activation -> active; nodes are unchanged.",
			nodes:  3, calls: 1, want: sb.ClusterActive,
			history: []string{"unready>in_activation", "in_activation>active"},
		},
		"TooFewDevices": {
			reason: "Fewer than ndcs+npcs+1 online devices: revert to the remembered status.",
			nodes:  1, calls: 1, want: sb.ClusterUnready,
			history: []string{"unready>in_activation", "in_activation>unready"},
		},
		"FailsMidway": {
			reason: "An activation failing mid-way sits in_activation, then reverts with only a logs event.",
			nodes:  3, calls: 1, fault: &Fault{Kind: FaultActivationFailure, After: Duration(50 * time.Second), Count: 1},
			want:    sb.ClusterUnready,
			history: []string{"unready>in_activation", "in_activation>unready"},
		},
		"AlreadyActive": {
			reason: "A second activate after success is a harmless no-op: 202 and no event.",
			nodes:  3, status: sb.ClusterActive, calls: 1, want: sb.ClusterActive,
		},
		"NodesAddedSince": {
			reason: "After an activation, added nodes must go through expansion: activate is a no-op.",
			nodes:  3, status: sb.ClusterDegraded, calls: 1, want: sb.ClusterDegraded,
			prepare: func(s *Simulator, cid string) {
				addBareNode(s, cid, "10.9.9.9")
				s.mu.Lock() // one node deliberately stopped keeps the cluster degraded
				n := s.m.clusterNodes(cid)[0]
				n.status, n.autoRestartDisabled = sb.NodeOffline, true
				s.mu.Unlock()
			},
		},
		"SuspendedReactivates": {
			reason: "Activate after suspended is a real re-activation.",
			nodes:  3, status: sb.ClusterSuspended, calls: 1, want: sb.ClusterActive,
			history: []string{"suspended>in_activation", "in_activation>active"},
			// The monitor would drain this suspended cluster
			// (MON:696-748) or activate it itself (MON:949-964) while the
			// call runs: its drain is marked done and an auto-activation
			// pending, so the call's activation is the only one.
			prepare: func(s *Simulator, cid string) {
				s.mu.Lock()
				defer s.mu.Unlock()
				c := s.m.cluster(cid)
				c.suspendDrainComplete, c.autoActivationPending = true, true
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: tc.nodes, Status: tc.status})
			if tc.status == sb.ClusterDegraded || tc.status == sb.ClusterSuspended {
				s.mu.Lock()
				s.m.cluster(cid).status = tc.status
				s.mu.Unlock()
			}
			if tc.prepare != nil {
				tc.prepare(s, cid)
			}
			if tc.fault != nil {
				s.Faults().MustAdd(*tc.fault)
			}
			for i := 0; i < tc.calls; i++ {
				r := call(t, s, adminToken, "POST", base(cid)+"/activate", nil)
				if diff := cmp.Diff("202 ", r.String()); diff != "" {
					t.Fatalf("\n%s\nactivate answers 202 with no body before any check: -want, +got:\n%s", tc.reason, diff)
				}
			}
			if tc.history != nil {
				eventually(t, "the status history", func() bool { return len(statusHistory(s, cid)) >= len(tc.history) })
			} else {
				time.Sleep(50 * time.Millisecond) // give a background no-op the chance to misbehave
			}
			if diff := cmp.Diff(tc.history, statusHistory(s, cid)); diff != "" {
				t.Errorf("\n%s\nstatus history: -want, +got:\n%s", tc.reason, diff)
			}
			if got := clusterStatus(s, cid); got != tc.want {
				t.Errorf("\n%s\nstatus: want %s, got %s", tc.reason, tc.want, got)
			}
			if got := s.Calls("POST", "/activate"); got != tc.calls {
				t.Errorf("\n%s\nCalls: want %d, got %d", tc.reason, tc.calls, got)
			}
		})
	}
}

func TestActivateDriverDeathWatchdog(t *testing.T) {
	cases := map[string]struct {
		reason string
		fault  func(cid string) Fault
		call   bool
	}{
		"DriverDeath": {
			reason: "A dead activation driver leaves in_activation until the watchdog sets suspended; the monitor then auto-activates.",
			fault:  func(string) Fault { return Fault{Kind: FaultActivationDriverDeath, Count: 1} },
			call:   true,
		},
		"StickNow": {
			reason: "stick_in_activation has the same outcome without an API call.",
			fault:  func(cid string) Fault { return Fault{Kind: FaultStickInActivation, ClusterID: cid} },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3})
			s.Faults().MustAdd(tc.fault(cid))
			if tc.call {
				call(t, s, adminToken, "POST", base(cid)+"/activate", nil)
			}
			waitCluster(t, s, cid, sb.ClusterActive)
			want := []string{"unready>in_activation", "in_activation>suspended", "suspended>in_activation", "in_activation>active"}
			if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestConcurrentActivationsFlap(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3})
	// The first run fails 30 s in; the second, started while in_activation,
	// remembers unready, runs at least 37 s and ends active: the status flaps.
	s.Faults().MustAdd(Fault{Kind: FaultActivationFailure, After: Duration(30 * time.Second), Count: 1})
	call(t, s, adminToken, "POST", base(cid)+"/activate", nil)
	waitCluster(t, s, cid, sb.ClusterInActivation)
	call(t, s, adminToken, "POST", base(cid)+"/activate", nil)
	waitCluster(t, s, cid, sb.ClusterActive)
	want := []string{"unready>in_activation", "in_activation>unready", "unready>active"}
	if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
		t.Errorf("two activations share no lock, so one failing reverts while the other continues: -want, +got:\n%s", diff)
	}
}

func TestLegacyExpand(t *testing.T) {
	cases := map[string]struct {
		reason   string
		status   sb.ClusterStatus
		newNodes int
		fault    bool
		want     sb.ClusterStatus
		history  []string
		lvstores int // nodes with an lvstore afterwards
	}{
		"NoNewNodes": {
			reason: "With no new nodes expand flips in_expansion -> active at once.",
			status: sb.ClusterActive, want: sb.ClusterActive, lvstores: 3,
			history: []string{"active>in_expansion", "in_expansion>active"},
		},
		"OneNewHANode": {
			reason: "One new HA node always fails: a minimum of 2 new nodes is required; revert.",
			status: sb.ClusterActive, newNodes: 1, want: sb.ClusterActive, lvstores: 3,
			history: []string{"active>in_expansion", "in_expansion>active"},
		},
		"TwoNewNodes": {
			reason: "Two new nodes get lvstores (~40 s each), then active.",
			status: sb.ClusterActive, newNodes: 2, want: sb.ClusterActive, lvstores: 5,
			history: []string{"active>in_expansion", "in_expansion>active"},
		},
		"FromUnready": {
			reason: "expand from a status outside active/in_expansion/read_only/degraded is a silent no-op.",
			status: sb.ClusterUnready, newNodes: 2, want: sb.ClusterUnready, lvstores: 0,
		},
		"Exception": {
			reason: "An exception after setting in_expansion leaves the cluster stuck there; nothing recovers it.",
			status: sb.ClusterActive, newNodes: 2, fault: true, want: sb.ClusterInExpansion, lvstores: 3,
			history: []string{"active>in_expansion"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: tc.status})
			for i := 0; i < tc.newNodes; i++ {
				addBareNode(s, cid, fmt.Sprintf("10.1.0.%d", i))
			}
			if tc.fault {
				s.Faults().MustAdd(Fault{Kind: FaultExpansionException, ClusterID: cid, Count: 1})
			}
			if r := call(t, s, adminToken, "POST", base(cid)+"/expand", nil); r.status != 202 {
				t.Fatalf("expand: %s", r)
			}
			if tc.history != nil {
				eventually(t, "history", func() bool { return len(statusHistory(s, cid)) >= len(tc.history) })
			}
			time.Sleep(100 * time.Millisecond) // several monitor ticks: in_expansion must stay
			if diff := cmp.Diff(tc.history, statusHistory(s, cid)); diff != "" {
				t.Errorf("\n%s\nhistory: -want, +got:\n%s", tc.reason, diff)
			}
			if got := clusterStatus(s, cid); got != tc.want {
				t.Errorf("\n%s\nstatus: want %s, got %s", tc.reason, tc.want, got)
			}
			lv := 0
			for _, c := range s.State().Clusters {
				if c.Cluster.ID == cid {
					lv = len(c.ActivatedNodeIDs)
				}
			}
			if lv != tc.lvstores {
				t.Errorf("\n%s\nactivated nodes: want %d, got %d", tc.reason, tc.lvstores, lv)
			}
		})
	}
}

func TestClusterShutdownAndStart(t *testing.T) {
	t.Run("ShutdownActive", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil)
		eventually(t, "all nodes offline", func() bool {
			return cmp.Equal(nodeStatuses(s, cid), []sb.NodeStatus{sb.NodeOffline, sb.NodeOffline, sb.NodeOffline})
		})
		waitCluster(t, s, cid, sb.ClusterSuspended)
		time.Sleep(100 * time.Millisecond) // > 30 s of backend time: no auto-recovery of a deliberate stop
		want := []string{"active>degraded", "degraded>suspended"}
		if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
			t.Errorf("the monitor derives active -> degraded -> suspended and does not auto-recover: -want, +got:\n%s", diff)
		}
		if n := len(tasksOf(s, cid, sb.TaskFunctionNodeRestart)); n != 0 {
			t.Errorf("deliberately stopped nodes get no auto node_restart, got %d", n)
		}

		// start brings the nodes back and the monitor auto-activates.
		call(t, s, adminToken, "POST", base(cid)+"/start", nil)
		waitCluster(t, s, cid, sb.ClusterActive)
		want = append(want, "suspended>in_activation", "in_activation>active")
		if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
			t.Errorf("start: suspended -> in_activation -> active once all nodes are online: -want, +got:\n%s", diff)
		}
	})
	t.Run("ShutdownUnready", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 2})
		call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil)
		eventually(t, "nodes offline", func() bool {
			return cmp.Equal(nodeStatuses(s, cid), []sb.NodeStatus{sb.NodeOffline, sb.NodeOffline})
		})
		time.Sleep(20 * time.Millisecond)
		if got := clusterStatus(s, cid); got != sb.ClusterUnready {
			t.Errorf("the monitor never touches unready, got %s", got)
		}
		call(t, s, adminToken, "POST", base(cid)+"/start", nil)
		eventually(t, "nodes online", func() bool {
			return cmp.Equal(nodeStatuses(s, cid), []sb.NodeStatus{sb.NodeOnline, sb.NodeOnline})
		})
		time.Sleep(60 * time.Millisecond)
		if got := clusterStatus(s, cid); got != sb.ClusterUnready {
			t.Errorf("start on unready: nodes come back but the cluster stays unready, got %s", got)
		}
	})
	t.Run("StartOnActiveIsAnOutage", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		call(t, s, adminToken, "POST", base(cid)+"/start", nil)
		eventually(t, "outage and recovery", func() bool {
			h := statusHistory(s, cid)
			return len(h) >= 4 && h[len(h)-1] == "in_activation>active"
		})
		want := []string{"active>degraded", "degraded>suspended", "suspended>in_activation", "in_activation>active"}
		if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
			t.Errorf("start force-shuts-down healthy nodes first: -want, +got:\n%s", diff)
		}
	})
	t.Run("StartAbortedAtNodeK", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		s.Faults().MustAdd(Fault{Kind: FaultStartAbort, ClusterID: cid, NodeIndex: 2, Count: 1})
		call(t, s, adminToken, "POST", base(cid)+"/start", nil)
		waitNode(t, s, cid, nodes[0], sb.NodeOnline)
		waitNode(t, s, cid, nodes[1], sb.NodeOffline)
		time.Sleep(150 * time.Millisecond)
		want := []sb.NodeStatus{sb.NodeOnline, sb.NodeOffline, sb.NodeOffline}
		if diff := cmp.Diff(want, nodeStatuses(s, cid)); diff != "" {
			t.Errorf("the first node that does not come online aborts the start; the rest stay offline: -want, +got:\n%s", diff)
		}
		if got := clusterStatus(s, cid); got != sb.ClusterSuspended {
			t.Errorf("the cluster stays suspended indefinitely, got %s", got)
		}
	})
	t.Run("NodeStuckInShutdown", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		s.Faults().MustAdd(Fault{Kind: FaultNodeStuckInShutdown, NodeID: nodes[0], Count: 1})
		call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil)
		// The walk moves on to node 2 once node 1's kill attempt is over.
		eventually(t, "node 2 shutting down", func() bool { return nodeByID(s, cid, nodes[1]).Status != sb.NodeOnline })
		if got := nodeByID(s, cid, nodes[0]).Status; got != sb.NodeInShutdown {
			t.Errorf("a failed SPDK kill leaves the node in_shutdown, got %s", got)
		}
		waitNode(t, s, cid, nodes[0], sb.NodeOffline)
	})
}

func TestUpdate(t *testing.T) {
	img := "registry/sb:2"
	cases := map[string]struct {
		reason  string
		body    any
		status  int
		history []string
	}{
		"MissingKeys": {
			reason: "Both image keys are required (null allowed).",
			body:   map[string]any{"restart": true}, status: 422,
		},
		"ManagementOnly": {
			reason: "A management-only update changes no status.",
			body:   map[string]any{"management_image": img, "spdk_image": nil}, status: 204,
		},
		"WithRestart": {
			reason: "With restart: every node is shut down and restarted inside the request, then the monitor auto-activates.",
			body:   map[string]any{"management_image": img, "spdk_image": img, "restart": true}, status: 204,
			history: []string{"active>degraded", "degraded>suspended", "suspended>in_activation", "in_activation>active"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			r := call(t, s, adminToken, "POST", base(cid)+"/update", tc.body)
			if r.status != tc.status {
				t.Fatalf("\n%s\nwant %d, got %s", tc.reason, tc.status, r)
			}
			if tc.history != nil {
				// Back online when the call returns (the drain, M2, may
				// already be taking them down again).
				restarted := 0
				for _, e := range s.Events(cid) {
					if e == "Storage node status changed from: in_restart to: online" {
						restarted++
					}
				}
				if restarted < 3 {
					t.Errorf("\n%s\nnodes are back online when the call returns, %d of 3 restarted", tc.reason, restarted)
				}
				waitCluster(t, s, cid, sb.ClusterActive)
				eventually(t, "history", func() bool { return len(statusHistory(s, cid)) >= len(tc.history) })
			}
			if diff := cmp.Diff(tc.history, statusHistory(s, cid)); diff != "" {
				t.Errorf("\n%s\nhistory: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	t.Run("ClientTimeoutServerContinues", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		s.Faults().DelayResponses("POST", "/clusters/*/update", 1, 300*time.Millisecond)
		_, err := tryCall(s, adminToken, "POST", base(cid)+"/update",
			map[string]any{"management_image": img, "spdk_image": nil, "restart": true}, 50*time.Millisecond)
		if err == nil {
			t.Fatal("the client should time out")
		}
		eventually(t, "the update to finish server-side", func() bool {
			j := s.Journal()
			return len(j) == 1 && j[0].Status == http.StatusNoContent
		})
		// The update restarts each node once; the last one online leaves a
		// suspended cluster with no deliberately stopped node, so the
		// suspend-recovery drain (M2, MON:696-748) shuts them down and
		// auto-restart brings them back once more before reactivation.
		waitCluster(t, s, cid, sb.ClusterActive)
		restarted := 0
		for _, e := range s.Events(cid) {
			if e == "Storage node status changed from: in_restart to: online" { // SE:55
				restarted++
			}
		}
		if restarted != 6 {
			t.Errorf("the update's rolling restart did not go on after the client gave up: want 3 nodes restarted by it and 3 by the drain, got %d", restarted)
		}
		waitCluster(t, s, cid, sb.ClusterActive)
	})
}

func TestRebalance(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	if r := call(t, s, adminToken, "POST", base(cid)+"/rebalance", nil); r.status != 204 {
		t.Fatalf("rebalance: %s", r)
	}
	call(t, s, adminToken, "POST", base(cid)+"/rebalance", nil)
	if got := len(tasksOf(s, cid, sb.TaskFunctionDeviceMigration)); got != 3 {
		t.Errorf("one hidden device_migration per online node, deduplicated while open: want 3, got %d", got)
	}
	listed := decode[[]sb.TaskDTO](t, call(t, s, adminToken, "GET", base(cid)+"/tasks/", nil))
	var names []string
	for _, x := range listed {
		names = append(names, x.FunctionName)
	}
	if diff := cmp.Diff([]string{sb.TaskFunctionBalancingOnRestart}, names); diff != "" {
		t.Errorf("the list hides device_migration and shows one reused master: -want, +got:\n%s", diff)
	}
	eventually(t, "is_re_balancing", func() bool { c, _ := s.Cluster(cid); return c.IsReBalancing })
	eventually(t, "migration done", func() bool {
		c, _ := s.Cluster(cid)
		m := tasksOf(s, cid, sb.TaskFunctionBalancingOnRestart)
		return !c.IsReBalancing && len(m) == 1 && m[0].Status == sb.TaskDone
	})
}

func TestAddReplication(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 1})
	target, _, _ := s.Seed(SeedCluster{})
	cases := map[string]struct {
		reason string
		body   any
		want   int
	}{
		"Known":         {"A known target: 202, although nothing runs.", map[string]any{"snapshot_replication_target_cluster": target}, 202},
		"UnknownTarget": {"An unknown target cluster is a 500.", map[string]any{"snapshot_replication_target_cluster": "nope"}, 500},
		"UnknownPool":   {"An unknown target pool is a 500.", map[string]any{"snapshot_replication_target_cluster": target, "target_pool": "p"}, 500},
		"MissingBody":   {"The body is required.", nil, 422},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := call(t, s, adminToken, "POST", base(cid)+"/addreplication", tc.body).status; got != tc.want {
				t.Errorf("\n%s\nwant %d, got %d", tc.reason, tc.want, got)
			}
		})
	}
}

// nodeHistory returns a node's status-change events in order, as "old>new".
func nodeHistory(s *Simulator, cid, nid string) []string {
	var out []string
	for _, e := range s.Log(cid) {
		var from, to string
		if e.NodeID != nid {
			continue
		}
		if _, err := fmt.Sscanf(e.Message, "Storage node status changed from: %s to: %s", &from, &to); err == nil {
			out = append(out, from+">"+to)
		}
	}
	return out
}

// M7: cluster_grace_shutdown and cluster_grace_startup walk every node
// record, removed ones included (cluster_ops.py:2623-2657), and
// shutdown_storage_node(force=True) has no removed guard
// (storage_node_ops.py:5940-6091): the removed record goes in_shutdown, its
// SPDK kill fails (its host is gone), the monitor reconciles it to offline
// after 120 s (storage_node_monitor.py:1475-1485); start restarts it with
// force, which fails (offline -> offline, storage_node_ops.py:4411-4425)
// and aborts the start there (cluster_ops.py:2632-2634).
func TestClusterShutdownStartRemovedRecord(t *testing.T) {
	cases := map[string]struct {
		reason string
		start  bool
		want   []string // the removed record's status changes after its removal
		alt    []string // the same when the 120 s reconcile wins the race with the restart
		final  []sb.NodeStatus
	}{
		"Shutdown": {
			reason: "The removed record goes in_shutdown, then offline after 120 s.",
			want:   []string{"removed>in_shutdown", "in_shutdown>offline"},
			final:  []sb.NodeStatus{sb.NodeOffline, sb.NodeOffline, sb.NodeOffline, sb.NodeOffline},
		},
		"Start": {
			reason: "Start force-shuts-down the removed record (the first in DB order), restarts it with force while its kill " +
				"has failed (in_shutdown, < 120 s), which fails and aborts the start there: every live node stays offline.",
			start: true,
			want:  []string{"removed>in_shutdown", "in_shutdown>offline", "offline>in_shutdown", "in_shutdown>in_restart", "offline>offline"},
			alt:   []string{"removed>in_shutdown", "in_shutdown>offline", "offline>in_shutdown", "in_shutdown>offline", "offline>in_restart", "offline>offline"},
			final: []sb.NodeStatus{sb.NodeOffline, sb.NodeOffline, sb.NodeOffline, sb.NodeOffline},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
			removed := nodes[0]
			call(t, s, adminToken, "DELETE", nodePath(cid, removed)+"/", nil)
			waitNode(t, s, cid, removed, sb.NodeRemoved)
			waitCluster(t, s, cid, sb.ClusterActive)
			// The removal's second attempt finds the node removed (M11).
			eventually(t, "the node_removal task done", func() bool {
				x := tasksOf(s, cid, sb.TaskFunctionNodeRemoval)
				return len(x) == 1 && x[0].Status == sb.TaskDone
			})
			before := len(nodeHistory(s, cid, removed))
			call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil)
			eventually(t, "all records offline", func() bool {
				return cmp.Equal(nodeStatuses(s, cid), []sb.NodeStatus{sb.NodeOffline, sb.NodeOffline, sb.NodeOffline, sb.NodeOffline})
			})
			if tc.start {
				call(t, s, adminToken, "POST", base(cid)+"/start", nil)
				eventually(t, "the start to end", func() bool {
					h := nodeHistory(s, cid, removed)
					return len(h) > 0 && h[len(h)-1] == "offline>offline"
				})
				time.Sleep(50 * time.Millisecond)
			}
			got := nodeHistory(s, cid, removed)[before:]
			if diff := cmp.Diff(tc.want, got); diff != "" && (tc.alt == nil || !cmp.Equal(tc.alt, got)) {
				t.Errorf("\n%s\nthe removed record's status changes: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.final, nodeStatuses(s, cid)); diff != "" {
				t.Errorf("\n%s\nnode statuses: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// M15: rebalance queues migrations over lvstores only (TC:315-352,
// OPS:2793-2797), and migration runners wait while a cluster_expand task is
// open (TC:784-800) or the cluster is not operable
// (tasks_runner_migration.py:90-96), so is_re_balancing stays true.
func TestRebalanceOverLVStores(t *testing.T) {
	t.Run("UnreadyClusterGetsNothing", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterUnready})
		if r := call(t, s, adminToken, "POST", base(cid)+"/rebalance", nil); r.status != 204 {
			t.Fatalf("rebalance: %s", r)
		}
		if got := len(s.Tasks(cid)); got != 0 {
			t.Errorf("TC:329-334: nodes without an lvstore get no device_migration, and no master without subtasks; got %d tasks", got)
		}
	})
	t.Run("DefersWhileExpanding", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		s.mu.Lock()
		expand := s.newTaskLocked(cid, nodes[0], sb.TaskFunctionClusterExpand, -1, map[string]any{})
		s.mu.Unlock()
		call(t, s, adminToken, "POST", base(cid)+"/rebalance", nil)
		eventually(t, "a deferred migration", func() bool {
			for _, x := range tasksOf(s, cid, sb.TaskFunctionDeviceMigration) {
				if x.FunctionResult == "cluster expansion in progress, deferring" {
					return true
				}
			}
			return false
		})
		time.Sleep(20 * time.Millisecond) // longer than a migration at test speed
		if c, _ := s.Cluster(cid); !c.IsReBalancing {
			t.Errorf("MON:826-852: the deferred migrations keep is_re_balancing true")
		}
		s.mu.Lock()
		expand.status = sb.TaskDone
		s.mu.Unlock()
		eventually(t, "the migrations done", func() bool { c, _ := s.Cluster(cid); return !c.IsReBalancing })
		for _, x := range tasksOf(s, cid, sb.TaskFunctionDeviceMigration) {
			if x.Status != sb.TaskDone || x.Retry != 0 {
				t.Errorf("TC:784-800: a deferral counts no retry: %+v", x)
			}
		}
	})
}
