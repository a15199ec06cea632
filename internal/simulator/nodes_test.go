package simulator

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func addNode(t *testing.T, s *Simulator, cid, addr string, expand bool, query string) response {
	t.Helper()
	return call(t, s, adminToken, "POST", base(cid)+"/storage-nodes/"+query,
		map[string]any{"node_address": addr, "interface_name": "eth0", "expand": expand})
}

func taskByID(s *Simulator, cid, id string) sb.TaskDTO {
	for _, x := range s.Tasks(cid) {
		if x.ID == id {
			return x
		}
	}
	return sb.TaskDTO{}
}

func TestNodeAdd(t *testing.T) {
	t.Run("UnreadyCluster", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{})
		r := addNode(t, s, cid, "10.2.0.1:5000", false, "")
		if r.status != 201 || !regexp.MustCompile(`^"[0-9a-f-]{36}"$`).Match(r.body) {
			t.Fatalf("the default response-format is identifier: the task id as a JSON string; got %s", r)
		}
		tid := strings.Trim(string(r.body), `"`)
		if got, want := r.header.Get("Location"), base(cid)+"/tasks/"+tid+"/"; got != want {
			t.Errorf("Location points at the task: want %s, got %s", want, got)
		}
		if dup := addNode(t, s, cid, "10.2.0.1:5000", false, ""); dup.String() != "500 Internal Server Error" {
			t.Errorf("a duplicate add while the task is open is a plain 500, got %s", dup)
		}
		eventually(t, "node record in_creation", func() bool {
			n := s.Nodes(cid)
			return len(n) == 1 && n[0].Status == sb.NodeInCreation
		})
		eventually(t, "task done", func() bool { return taskByID(s, cid, tid).Status == sb.TaskDone })
		got := taskByID(s, cid, tid)
		if got.FunctionResult != "Node add result: Success" || got.FunctionParams["node_addr"] != "10.2.0.1:5000" || got.FunctionParams["expansion"] != false {
			t.Errorf("node_add task: %+v", got)
		}
		if n := s.Nodes(cid); len(n) != 1 || n[0].Status != sb.NodeOnline || n[0].MgmtIP != "10.2.0.1" {
			t.Errorf("the node appears online with mgmt_ip from the address: %+v", n)
		}
		full := addNode(t, s, cid, "10.2.0.2:5000", false, "?response-format=full")
		if task := decode[sb.TaskDTO](t, full); full.status != 201 || task.FunctionName != sb.TaskFunctionNodeAdd || *task.MaxRetry != 11 {
			t.Errorf("response-format=full returns the TaskDTO, got %s", full)
		}
		if r := call(t, s, adminToken, "POST", base(cid)+"/storage-nodes/", map[string]any{"node_address": "x"}); r.status != 422 {
			t.Errorf("interface_name is required, got %s", r)
		}
	})

	t.Run("ExpandTrue", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		r := addNode(t, s, cid, "10.2.0.9:5000", true, "")
		tid := strings.Trim(string(r.body), `"`)
		eventually(t, "node_add done", func() bool { return taskByID(s, cid, tid).Status == sb.TaskDone })
		waitCluster(t, s, cid, sb.ClusterInExpansion)
		if got := call(t, s, adminToken, "GET", base(cid)+"/tasks/", nil); got.String() != "500 Internal Server Error" {
			t.Errorf("a stored cluster_expand task makes the tasks list a 500, got %s", got)
		}
		waitCluster(t, s, cid, sb.ClusterActive)
		eventually(t, "new_device_migration and is_re_balancing", func() bool {
			c, _ := s.Cluster(cid)
			return c.IsReBalancing && len(tasksOf(s, cid, sb.TaskFunctionNewDeviceMigration)) == 4
		})
		st := s.State()
		if got := len(st.Clusters[0].ActivatedNodeIDs); got != 4 {
			t.Errorf("the expanded node is activated: want 4 activated ids, got %d", got)
		}
	})

	t.Run("RetriesReplaceRecord", func(t *testing.T) {
		s := newSim(t)
		cid, _, _ := s.Seed(SeedCluster{})
		s.Faults().MustAdd(Fault{Kind: FaultNodeAddFailure, NodeAddress: "10.2.0.5:5000", Count: 2})
		tid := strings.Trim(string(addNode(t, s, cid, "10.2.0.5:5000", false, "").body), `"`)
		seen := map[string]bool{}
		sawSuspended := false
		eventually(t, "task done", func() bool {
			for _, n := range s.Nodes(cid) {
				seen[n.ID] = true
			}
			task := taskByID(s, cid, tid)
			sawSuspended = sawSuspended || task.Status == sb.TaskSuspended
			return task.Status == sb.TaskDone
		})
		task := taskByID(s, cid, tid)
		if task.Retry != 2 || task.FunctionResult != "Node add result: Success" || !sawSuspended {
			t.Errorf("two failed attempts: suspended, retry 2, then success; got %+v (suspended seen: %v)", task, sawSuspended)
		}
		if n := s.Nodes(cid); len(n) != 1 || len(seen) != 3 {
			t.Errorf("each attempt replaces the in_creation record with a new UUID: want 1 record, 3 ids seen; got %d records, %d ids", len(n), len(seen))
		}
	})

	// M17: a record at the same endpoint in any status but in_creation
	// makes add_node skip the slot and return "Success" (SNO:3011-3062,
	// 3645).
	t.Run("KnownHostAddsNothing", func(t *testing.T) {
		for _, st := range []sb.NodeStatus{sb.NodeRemoved, sb.NodeOffline} {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			setNode(s, nodes[2], st)
			tid := strings.Trim(string(addNode(t, s, cid, "10.0.0.12:5000", true, "").body), `"`)
			eventually(t, "task done", func() bool { return taskByID(s, cid, tid).Status == sb.TaskDone })
			task := taskByID(s, cid, tid)
			if diff := cmp.Diff([]any{"Node add result: Success", int64(0), 3}, []any{task.FunctionResult, task.Retry, len(s.Nodes(cid))}); diff != "" {
				t.Errorf("a host whose record is %s: the add succeeds and adds no record: -want, +got:\n%s", st, diff)
			}
		}
	})

	t.Run("MaxRetryReached", func(t *testing.T) {
		s := New(Options{Speed: 50000, AdminTokens: []string{adminToken}})
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
		tid := strings.Trim(string(addNode(t, s, cid, "10.2.0.7:5000", false, "").body), `"`)
		eventually(t, "task done", func() bool { return taskByID(s, cid, tid).Status == sb.TaskDone })
		task := taskByID(s, cid, tid)
		if diff := cmp.Diff([]any{int64(11), "max retry reached", 3}, []any{task.Retry, task.FunctionResult, len(s.Nodes(cid))}); diff != "" {
			t.Errorf("expand:false on an active cluster is refused 11 times, no record: -want, +got:\n%s", diff)
		}
	})
}

func TestNodeDelete(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
	other, _, otherNodes := s.Seed(SeedCluster{Nodes: 1})
	cases := map[string]struct {
		reason string
		path   string
		want   string
	}{
		"UnknownNode":      {"Unknown ids: quoted 404.", nodePath(cid, "00000000-0000-0000-0000-000000000001") + "/", `404 {"detail":"'StorageNode 00000000-0000-0000-0000-000000000001 not found'"}`},
		"OtherCluster":     {"Another cluster's node: unquoted 404.", nodePath(cid, otherNodes[0]) + "/", `404 {"detail":"StorageNode ` + otherNodes[0] + ` not found"}`},
		"BadFlag":          {"Query flags are booleans.", nodePath(cid, nodes[3]) + "/?force_remove=maybe", `422 {"detail":[{"type":"bool_parsing","loc":["query","force_remove"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`},
		"ForceDeleteQueue": {"force_delete needs removed now: 500, although the removal was queued.", nodePath(cid, nodes[3]) + "/?force_delete=true", `500 Internal Server Error`},
		"AgainWhileRuns":   {"While the removal runs a second delete is 204 again.", nodePath(cid, nodes[3]) + "/", `204 `},
	}
	for _, name := range []string{"UnknownNode", "OtherCluster", "BadFlag", "ForceDeleteQueue", "AgainWhileRuns"} {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, call(t, s, adminToken, "DELETE", tc.path, nil).String()); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	_ = other
	eventually(t, "in_shrink", func() bool { return clusterStatus(s, cid) == sb.ClusterInShrink })
	if got := call(t, s, adminToken, "GET", base(cid)+"/", nil).String(); got != "500 Internal Server Error" {
		t.Errorf("GET cluster is a 500 while in_shrink, got %s", got)
	}
	if got := call(t, s, adminToken, "GET", "/api/v2/clusters/", nil).status; got != 500 {
		t.Errorf("GET /clusters/ is a 500 while any cluster is in_shrink, got %d", got)
	}
	waitNode(t, s, cid, nodes[3], sb.NodeRemoved)
	waitCluster(t, s, cid, sb.ClusterActive)
	if got := call(t, s, adminToken, "GET", base(cid)+"/tasks/", nil).status; got != 500 {
		t.Errorf("a stored node_removal task makes the tasks list a 500, got %d", got)
	}
	if got := call(t, s, adminToken, "DELETE", nodePath(cid, nodes[3])+"/", nil).String(); got != "500 Internal Server Error" {
		t.Errorf("deleting a removed node is a 500, got %s", got)
	}
	if got := len(s.Nodes(cid)); got != 4 {
		t.Errorf("the removed record stays: want 4, got %d", got)
	}
	if got := call(t, s, adminToken, "DELETE", base(cid)+"/", nil).status; got != 409 {
		t.Errorf("a removed node still blocks the cluster delete, got %d", got)
	}

	refusals := map[string]struct {
		reason  string
		prepare func()
		node    string
	}{
		"NotOnline": {"A node that is not online or suspended cannot be removed.", func() { setNode(s, nodes[2], sb.NodeOffline) }, nodes[2]},
		"PeerDown":  {"Another node that is not online blocks removals.", func() { setNode(s, nodes[2], sb.NodeOffline) }, nodes[1]},
	}
	for name, tc := range refusals {
		t.Run(name, func(t *testing.T) {
			tc.prepare()
			if got := call(t, s, adminToken, "DELETE", nodePath(cid, tc.node)+"/", nil).String(); got != "500 Internal Server Error" {
				t.Errorf("\n%s\nwant a plain 500, got %s", tc.reason, got)
			}
		})
	}
}

// setNode forces a node status (deliberately, so the monitor leaves it).
func setNode(s *Simulator, nid string, st sb.NodeStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.m.node(nid)
	n.autoRestartDisabled = true
	s.setNodeStatusLocked(n, st)
}

func TestSuspendResume(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	p := nodePath(cid, nodes[0])
	steps := []struct {
		reason string
		action string
		want   string
		status sb.NodeStatus
	}{
		{"Suspend an online node.", "/suspend", "204 ", sb.NodeSuspended},
		{"A second suspend is a 500.", "/suspend?force=true", "500 Internal Server Error", sb.NodeSuspended},
		{"Resume a suspended node.", "/resume", "204 ", sb.NodeOnline},
		{"A second resume is a 500.", "/resume", "500 Internal Server Error", sb.NodeOnline},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, call(t, s, adminToken, "POST", p+st.action, nil).String()); diff != "" {
			t.Errorf("\n%s\n-want, +got:\n%s", st.reason, diff)
		}
		if got := nodeByID(s, cid, nodes[0]).Status; got != st.status {
			t.Errorf("\n%s\nnode: want %s, got %s", st.reason, st.status, got)
		}
	}
}

func TestNodeShutdown(t *testing.T) {
	cases := map[string]struct {
		reason  string
		prepare func(s *Simulator, cid string, nodes []string)
		query   string
		want    string // response
		final   sb.NodeStatus
	}{
		"Graceful": {
			reason: "A graceful shutdown of an online node: 202, in_shutdown, offline; the cluster degrades.",
			want:   "202 ", final: sb.NodeOffline,
		},
		"GracefulOffline": {
			reason:  "A graceful shutdown of an offline node is a 409 with the reason.",
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[0], sb.NodeOffline) },
			want:    `409 {"detail":"Node is in offline state; only online/suspended/down can be gracefully shut down. Use --force."}`,
			final:   sb.NodeOffline,
		},
		"PeerRestarting": {
			reason: "SN/:214-219, SNO:5579-5585: in an HA npcs=1 cluster the FTT check runs first and counts the " +
				"in_restart peer as not online: a 500, not the 409 about the restarting peer.",
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[1], sb.NodeInRestart) },
			want:    "500 Internal Server Error",
			final:   sb.NodeOnline,
		},
		"FTT": {
			reason: "The FTT check refuses with a 500 when another node is already down (npcs=1).",
			prepare: func(s *Simulator, cid string, n []string) {
				setNode(s, n[1], sb.NodeOffline)
			},
			want: "500 Internal Server Error", final: sb.NodeOnline,
		},
		"ForceOffline": {
			reason:  "force accepts any status.",
			prepare: func(s *Simulator, cid string, n []string) { setNode(s, n[0], sb.NodeOffline) },
			query:   "?force=true", want: "202 ", final: sb.NodeOffline,
		},
		"InExpansionSilent": {
			reason: "While in_expansion a graceful shutdown is refused silently after its 202.",
			prepare: func(s *Simulator, cid string, n []string) {
				s.Faults().MustAdd(Fault{Kind: FaultStickInExpansion, ClusterID: cid})
			},
			want: "202 ", final: sb.NodeOnline,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			if tc.prepare != nil {
				tc.prepare(s, cid, nodes)
			}
			want := strings.NewReplacer("{0}", nodes[0], "{1}", nodes[1]).Replace(tc.want)
			if diff := cmp.Diff(want, call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/shutdown"+tc.query, nil).String()); diff != "" {
				t.Fatalf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
			time.Sleep(60 * time.Millisecond)
			waitNode(t, s, cid, nodes[0], tc.final)
			if name == "Graceful" {
				waitCluster(t, s, cid, sb.ClusterDegraded)
			}
		})
	}
}

// M3: every restart goes through a node_restart task (SNO:4292-4325,
// TC:131-147); a refused or failed one is carried out later by the restart
// runner, with force (RR:319-633).
func TestNodeRestart(t *testing.T) {
	cases := map[string]struct {
		reason   string
		body     any
		fault    bool
		offline  bool
		want     string
		final    sb.NodeStatus
		task     string // the node_restart task's function_result when done ("" = no task)
		canceled bool
		inRestrt bool
	}{
		"OfflineNode": {
			reason: "An offline node goes in_restart -> online; going online cancels its node_restart task (SNO:6761-6769, TC:526-546).",
			body:   map[string]any{}, offline: true, want: "202 ", final: sb.NodeOnline,
			task: "canceled: node back online", canceled: true, inRestrt: true,
		},
		"MissingBody": {
			reason: "The body is required ({} for defaults).",
			body:   nil, offline: true, want: `422 {"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`, final: sb.NodeOffline,
		},
		"OnlineWithoutForce": {
			reason: "Without force a node that is not offline is refused (SNO:4548-4550), after the task was ensured; the runner then finds it online and ends the task (RR:377-380).",
			body:   map[string]any{}, want: "202 ", final: sb.NodeOnline, task: "Node is online",
		},
		"StuckInRestart": {
			reason: "A restart stuck in_restart goes offline after the 180 s claim TTL; the task stays open and the runner restarts the node with force once the lease went stale.",
			body:   map[string]any{"force": false}, offline: true, fault: true, want: "202 ", final: sb.NodeOnline,
			task: "canceled: node back online", canceled: true, inRestrt: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			if tc.offline {
				setNode(s, nodes[0], sb.NodeOffline)
			}
			if tc.fault {
				s.Faults().MustAdd(Fault{Kind: FaultNodeStuckInRestart, NodeID: nodes[0], Count: 1})
			}
			path := "/restart"
			if name == "StuckInRestart" {
				path = "/start"
			}
			if diff := cmp.Diff(tc.want, call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+path, tc.body).String()); diff != "" {
				t.Fatalf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
			time.Sleep(30 * time.Millisecond)
			waitNode(t, s, cid, nodes[0], tc.final)
			if tc.inRestrt && !hasEvent(s, cid, "Storage node status changed from: offline to: in_restart") {
				t.Errorf("\n%s\nthe node went through in_restart (SE:55)", tc.reason)
			}
			if tc.task == "" {
				if tasks := tasksOf(s, cid, sb.TaskFunctionNodeRestart); len(tasks) != 0 {
					t.Errorf("\n%s\nno task expected, got %+v", tc.reason, tasks)
				}
				return
			}
			eventually(t, "task done", func() bool {
				x := tasksOf(s, cid, sb.TaskFunctionNodeRestart)
				return len(x) == 1 && x[0].Status == sb.TaskDone
			})
			got := tasksOf(s, cid, sb.TaskFunctionNodeRestart)[0]
			if diff := cmp.Diff([]any{tc.canceled, tc.task, int64(0)}, []any{got.Canceled, got.FunctionResult, got.Retry}); diff != "" {
				t.Errorf("\n%s\ntask: -want, +got:\n%s", tc.reason, diff)
			}
			if !hasEvent(s, cid, "Task created") {
				t.Errorf("\n%s\nensuring the task logs Task created (TC:310-311)", tc.reason)
			}
			if len(got.FunctionParams) != 0 {
				t.Errorf("\n%s\nm4: a node_restart task has no function_params (TC:147), got %v", tc.reason, got.FunctionParams)
			}
			if restarted := tc.final == sb.NodeOnline && tc.offline; restarted != (len(tasksOf(s, cid, sb.TaskFunctionBalancingOnRestart)) == 1) {
				t.Errorf("\n%s\na successful restart, and only that, queues migration tasks", tc.reason)
			}
		})
	}
}

// M3: a restart the call's own pass refuses is carried out later by the
// restart runner: it defers while a peer restarts, without consuming a
// retry (RR:412-434), then restarts the node with force (RR:589).
func TestRefusedRestartRunsLater(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	setNode(s, nodes[0], sb.NodeOffline)
	setNode(s, nodes[1], sb.NodeInShutdown)
	call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
	eventually(t, "the runner deferring", func() bool {
		x := tasksOf(s, cid, sb.TaskFunctionNodeRestart)
		return len(x) == 1 && strings.HasSuffix(x[0].FunctionResult, "deferring (no retry consumed)")
	})
	if got := nodeByID(s, cid, nodes[0]).Status; got != sb.NodeOffline {
		t.Fatalf("SNO:4584-4590: a peer in_shutdown refuses the restart; node is %s", got)
	}
	setNode(s, nodes[1], sb.NodeOffline)
	waitNode(t, s, cid, nodes[0], sb.NodeOnline)
	got := tasksOf(s, cid, sb.TaskFunctionNodeRestart)[0]
	if diff := cmp.Diff([]any{sb.TaskDone, int64(0)}, []any{got.Status, got.Retry}); diff != "" {
		t.Errorf("RR:412-434: deferring consumes no retry: -want, +got:\n%s", diff)
	}
}

// M3, M2: cluster start restarts every node through restart_storage_node,
// so each gets a node_restart task (OPS:2630-2636, SNO:4292-4325). Once the
// last one is online, the cluster is still suspended and no node is
// deliberately stopped any more, so the suspension is not operator-caused
// (TC:359-387): the monitor's suspend-recovery drain force-shuts-down every
// node, keeping auto-restart (MON:696-748), auto-restart then restarts them
// concurrently (SNO:4584-4593) and the cluster is activated once they have
// been online 30 s (MON:524-575).
func TestClusterStartAndTheRecoveryDrain(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil)
	waitCluster(t, s, cid, sb.ClusterSuspended)
	time.Sleep(50 * time.Millisecond) // > 30 s of backend time: an operator-caused suspension is not drained
	if got := len(tasksOf(s, cid, sb.TaskFunctionNodeRestart)); got != 0 {
		t.Fatalf("TC:359-408: an operator-caused suspension neither drains nor restarts; %d node_restart tasks", got)
	}
	call(t, s, adminToken, "POST", base(cid)+"/start", nil)
	waitCluster(t, s, cid, sb.ClusterActive)
	perNode := map[string]int{}
	for _, x := range tasksOf(s, cid, sb.TaskFunctionNodeRestart) {
		perNode[*x.StorageNodeID]++
		if x.Status != sb.TaskDone || x.FunctionResult != nodeBackOnline {
			t.Errorf("each task ends when its node is online: %+v", x)
		}
	}
	for _, n := range nodes {
		if perNode[n] != 2 {
			t.Errorf("node %s: want 2 node_restart tasks (the start's, the drain's auto-restart), got %d", n, perNode[n])
		}
	}
	var drained, concurrent int
	inRestart := 0
	for _, e := range s.Events(cid) {
		switch e {
		case "Storage node status changed from: online to: in_shutdown":
			drained++
		case "Storage node status changed from: offline to: in_restart":
			inRestart++
			concurrent = max(concurrent, inRestart)
		case "Storage node status changed from: in_restart to: online":
			inRestart--
		}
	}
	if drained != 3 || concurrent < 2 {
		t.Errorf("MON:696-748, SNO:4584-4593: the drain shuts all 3 nodes down (got %d) and they restart concurrently (at most %d at once)", drained, concurrent)
	}
}

func TestNodeRestartAtNewAddress(t *testing.T) {
	cases := map[string]struct {
		reason string
		stuck  bool
	}{
		"Moves": {
			reason: "A restart with node_address brings the node back on the new host: same UUID, new management IP.",
		},
		"RetryUsesTheStoredAddress": {
			reason: "A restart that fails after its claim (and the move) is retried by the runner without node_address (RR:589), at the stored endpoint: the new host.",
			stuck:  true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			setNode(s, nodes[0], sb.NodeOffline)
			if tc.stuck {
				s.Faults().MustAdd(Fault{Kind: FaultNodeStuckInRestart, NodeID: nodes[0], Count: 1})
			}
			if got := call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{"node_address": "10.9.9.9:5000"}).String(); got != "202 " {
				t.Fatalf("\n%s\nrestart answered %s, want 202", tc.reason, got)
			}
			waitNode(t, s, cid, nodes[0], sb.NodeOnline)
			n := nodeByID(s, cid, nodes[0])
			if diff := cmp.Diff([]string{nodes[0], "10.9.9.9"}, []string{n.ID, n.MgmtIP}); diff != "" {
				t.Errorf("\n%s\nnode id and management IP: -want, +got:\n%s", tc.reason, diff)
			}
			// The move itself writes no event (sbcli SNO:4614-4635 only
			// rewrites api_endpoint, mgmt_ip and hostname).
			for _, e := range s.Events(cid) {
				if strings.Contains(e, "10.9.9.9") {
					t.Errorf("\n%s\nan event mentions the new address: %q", tc.reason, e)
				}
			}
			eventually(t, "task done", func() bool {
				x := tasksOf(s, cid, sb.TaskFunctionNodeRestart)
				return len(x) == 1 && x[0].Status == sb.TaskDone
			})
		})
	}
}

func TestNodePromote(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	if got := call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/promote", nil).String(); got != "204 " {
		t.Errorf("promote answered %s, want 204 (it always succeeds)", got)
	}
	if n := nodeByID(s, cid, nodes[0]); n.Status != sb.NodeOnline {
		t.Errorf("promote changed the node's status to %s", n.Status)
	}
}

// M11: the node-removal runner's attempts (RNR:21-64,
// SNO:3895-3969): the first sets in_shrink, shuts the node down, sets it
// removed, starts the device decommission and restores the cluster status,
// ending "removal in progress, retrying"; the next finds the node removed,
// "Node removed". A graceful phase-1 shutdown that is refused ends an
// attempt without removing anything.
func TestNodeRemovalAttempts(t *testing.T) {
	t.Run("TwoAttempts", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
		call(t, s, adminToken, "DELETE", nodePath(cid, nodes[3])+"/", nil)
		eventually(t, "the node_removal task done", func() bool {
			x := tasksOf(s, cid, sb.TaskFunctionNodeRemoval)
			return len(x) == 1 && x[0].Status == sb.TaskDone
		})
		got := tasksOf(s, cid, sb.TaskFunctionNodeRemoval)[0]
		if diff := cmp.Diff([]any{"Node removed", int64(1)}, []any{got.FunctionResult, got.Retry}); diff != "" {
			t.Errorf("RNR:49-62: the second attempt finds the node removed: -want, +got:\n%s", diff)
		}
		// The monitor may then see the removed node's devices migrating
		// (degraded, MON:315-324).
		if h := statusHistory(s, cid); len(h) < 2 || !cmp.Equal(h[:2], []string{"active>in_shrink", "in_shrink>active"}) || slices.Contains(h[2:], "active>in_shrink") {
			t.Errorf("SNO:3917-3969: in_shrink for the first attempt only, then restored: %v", h)
		}
	})
	t.Run("GracefulShutdownRefused", func(t *testing.T) {
		s := newSim(t)
		cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
		s.mu.Lock()
		s.newTaskLocked(cid, nodes[3], sb.TaskFunctionNodeRemoval, -1, map[string]any{"force_remove": false})
		t0 := s.m.clusterTasks(cid)[0]
		t0.running = true
		// An open node_restart task of the node refuses the graceful
		// shutdown (SNO:5842-5848).
		s.newTaskLocked(cid, nodes[3], sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
		s.mu.Unlock()
		s.spawn(func(_ ctxT) { s.runNodeRemovalTask(t0.id) })
		eventually(t, "an attempt refused", func() bool {
			x := tasksOf(s, cid, sb.TaskFunctionNodeRemoval)
			return len(x) == 1 && x[0].Retry >= 1
		})
		if got := nodeByID(s, cid, nodes[3]).Status; got != sb.NodeOnline {
			t.Errorf("SNO:3928-3937: a refused shutdown leaves the node %s, want online", got)
		}
		if x := tasksOf(s, cid, sb.TaskFunctionNodeRemoval)[0]; x.FunctionResult != "removal in progress, retrying" || x.Status == sb.TaskDone {
			t.Errorf("RNR:58-62: the attempt is retried: %+v", x)
		}
	})
}
