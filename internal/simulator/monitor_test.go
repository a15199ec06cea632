package simulator

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// quietSim returns a simulator whose backend clock runs a million times
// slower than real time, so that its monitor never ticks during a test: the
// monitor's functions can then be called directly on a hand-built model.
func quietSim(t *testing.T) *Simulator {
	t.Helper()
	s := New(Options{Speed: 1e-6, AdminTokens: []string{adminToken}})
	t.Cleanup(s.Close)
	return s
}

// nodeSpec shapes one seeded node record for the monitor tests.
type nodeSpec struct {
	status sb.NodeStatus
	dev    string // every device's status; "" keeps them online
	ip     string // mgmt_ip; "" keeps the node's own host
	manual bool   // auto_restart_disabled
	young  bool   // online for less than 30 s
}

// seedSpecs seeds an active cluster with one node per spec, shaped as
// given, and returns the cluster and its node ids.
func seedSpecs(s *Simulator, params *sb.ClusterParams, status sb.ClusterStatus, specs []nodeSpec) (*clusterState, []string) {
	cid, _, ids := s.Seed(SeedCluster{Nodes: len(specs), Status: sb.ClusterActive, Params: params})
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(cid)
	c.status = status
	now := s.clk.now()
	for i, sp := range specs {
		n := s.m.node(ids[i])
		if sp.status != "" {
			n.status = sp.status
		}
		if sp.dev != "" {
			for _, d := range n.devices {
				d.status = sp.dev
			}
		}
		if sp.ip != "" {
			n.mgmtIP = sp.ip
		}
		n.autoRestartDisabled = sp.manual
		if sp.young {
			n.onlineSince = now.Add(-10 * time.Second)
		}
	}
	return c, ids
}

func ec(ndcs, npcs int64) *sb.ClusterParams {
	p := sb.DefaultClusterParams()
	p.DistrNdcs, p.DistrNpcs = ndcs, npcs
	return &p
}

var on = nodeSpec{status: sb.NodeOnline}

// M1: get_next_cluster_status (storage_node_monitor.py:265-409).
func TestNextClusterStatus(t *testing.T) {
	strict := ec(1, 1)
	strict.StrictNodeAntiAffinity = true
	cases := map[string]struct {
		reason string
		params *sb.ClusterParams
		nodes  []nodeSpec
		want   sb.ClusterStatus
	}{
		"AllOnline": {
			reason: "MON:405-409: nothing affected is active.",
			nodes:  []nodeSpec{on, on, on}, want: sb.ClusterActive,
		},
		"SuspendedSkipped": {
			reason: "MON:299-300: a suspended node is skipped, devices included.",
			nodes:  []nodeSpec{{status: sb.NodeSuspended}, on, on}, want: sb.ClusterActive,
		},
		"InCreationSkipped": {
			reason: "MON:299-300: an in_creation record (devices not yet created) is skipped.",
			nodes:  []nodeSpec{{status: sb.NodeInCreation, dev: devNew}, on, on}, want: sb.ClusterActive,
		},
		"DownNeverCounts": {
			reason: "MON:358-366: down never counts; set_node_down leaves the devices online.",
			nodes:  []nodeSpec{{status: sb.NodeDown}, {status: sb.NodeDown}, on}, want: sb.ClusterActive,
		},
		"UnreachableDevicesOnline": {
			reason: "MON:340-376: unreachable with its devices online counts only on a data-plane quorum, modelled as connected.",
			nodes:  []nodeSpec{{status: sb.NodeUnreachable}, on, on}, want: sb.ClusterActive,
		},
		"UnreachableDevicesUnavailable": {
			reason: "MON:325-331: a node with a device not online counts.",
			nodes:  []nodeSpec{{status: sb.NodeUnreachable, dev: devUnavailable}, on, on}, want: sb.ClusterDegraded,
		},
		"InShutdownForced": {
			reason: "MON:340-376: a forced shutdown leaves the devices online: in_shutdown does not count yet.",
			nodes:  []nodeSpec{{status: sb.NodeInShutdown}, on, on}, want: sb.ClusterActive,
		},
		"InShutdownGraceful": {
			reason: "MON:325-331: a graceful shutdown's Loop 1 set the devices unavailable: in_shutdown counts.",
			nodes:  []nodeSpec{{status: sb.NodeInShutdown, dev: devUnavailable}, on, on}, want: sb.ClusterDegraded,
		},
		"InRestartDevicesOnline": {
			reason: "MON:340-376: in_restart with its devices online does not count.",
			nodes:  []nodeSpec{{status: sb.NodeInRestart}, on, on}, want: sb.ClusterActive,
		},
		"InRestartDevicesUnavailable": {
			reason: "MON:325-331: in_restart with unavailable devices counts.",
			nodes:  []nodeSpec{{status: sb.NodeInRestart, dev: devUnavailable}, on, on}, want: sb.ClusterDegraded,
		},
		"OfflineAlwaysCounts": {
			reason: "MON:325-339: offline counts even with its device records online.",
			nodes:  []nodeSpec{{status: sb.NodeOffline}, on, on}, want: sb.ClusterDegraded,
		},
		"OnlineWithoutOnlineDevice": {
			reason: "MON:326: a node with no online device counts, whatever its status.",
			nodes:  []nodeSpec{{status: sb.NodeOnline, dev: devUnavailable}, on, on}, want: sb.ClusterDegraded,
		},
		"SameHostCountsOnce": {
			reason: "MON:327-329,378: affected nodes are counted by physical host (mgmt_ip).",
			nodes:  []nodeSpec{{status: sb.NodeOffline, ip: "10.7.7.7"}, {status: sb.NodeOffline, ip: "10.7.7.7"}, on, on}, want: sb.ClusterDegraded,
		},
		"TwoHostsSuspend": {
			reason: "MON:403-404: more affected hosts than npcs is suspended.",
			nodes:  []nodeSpec{{status: sb.NodeOffline}, {status: sb.NodeOffline}, on, on}, want: sb.ClusterSuspended,
		},
		"Npcs2OneDownActive": {
			reason: "MON:400-409: with npcs=2 one affected host is fewer than npcs: still active.",
			params: ec(1, 2), nodes: []nodeSpec{{status: sb.NodeOffline}, on, on, on}, want: sb.ClusterActive,
		},
		"Npcs2TwoDownDegraded": {
			reason: "MON:400-401: affected == npcs is degraded.",
			params: ec(1, 2), nodes: []nodeSpec{{status: sb.NodeOffline}, {status: sb.NodeOffline}, on, on}, want: sb.ClusterDegraded,
		},
		"Npcs2ThreeDownSuspended": {
			reason: "MON:403-404: affected > npcs is suspended.",
			params: ec(1, 2), nodes: []nodeSpec{{status: sb.NodeOffline}, {status: sb.NodeOffline}, {status: sb.NodeOffline}, on}, want: sb.ClusterSuspended,
		},
		"TooFewOnlineDevices": {
			reason: "MON:403-404: fewer online devices than ndcs+npcs is suspended (2 devices < 2+1).",
			params: ec(2, 1), nodes: []nodeSpec{{status: sb.NodeSuspended}, {status: sb.NodeSuspended}, on}, want: sb.ClusterSuspended,
		},
		"RemovedMigrating": {
			reason: "MON:316-331: a removed node whose failed devices are not migrated yet counts.",
			nodes:  []nodeSpec{{status: sb.NodeRemoved, dev: devFailed}, on, on}, want: sb.ClusterDegraded,
		},
		"RemovedMigrated": {
			reason: "MON:320-321,326: failed_and_migrated devices do not count, and a removed node without online devices is not affected.",
			nodes:  []nodeSpec{{status: sb.NodeRemoved, dev: devFailedMigrated}, on, on}, want: sb.ClusterActive,
		},
		"NoParityIsDegraded": {
			reason: "MON:400: with npcs=0, nothing affected equals npcs: degraded, as sbcli computes it.",
			params: ec(1, 0), nodes: []nodeSpec{on, on}, want: sb.ClusterDegraded,
		},
		"StrictTooFewOnlineNodes": {
			reason: "MON:400,403-404: strict anti-affinity needs ndcs+npcs online nodes.",
			params: strict, nodes: []nodeSpec{{status: sb.NodeSuspended}, {status: sb.NodeSuspended}, on}, want: sb.ClusterSuspended,
		},
		"StrictDegraded": {
			reason: "MON:400: strict anti-affinity with enough online nodes still degrades on affected == npcs.",
			params: strict, nodes: []nodeSpec{{status: sb.NodeOffline}, on, on}, want: sb.ClusterDegraded,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			c, _ := seedSpecs(s, tc.params, sb.ClusterActive, tc.nodes)
			s.mu.Lock()
			got := s.nextClusterStatusLocked(c, s.m.clusterNodes(c.id))
			s.mu.Unlock()
			if got != tc.want {
				t.Errorf("\n%s\nwant %s, got %s", tc.reason, tc.want, got)
			}
		})
	}
}

// M1: the transitions of _update_cluster_status_impl
// (storage_node_monitor.py:924-967) and the cap monitor (cap_monitor.py:47-68).
func TestMonitorClusterTransitions(t *testing.T) {
	down := nodeSpec{status: sb.NodeOffline, manual: true}
	cases := map[string]struct {
		reason string
		from   sb.ClusterStatus
		nodes  []nodeSpec
		want   sb.ClusterStatus
	}{
		"ActiveToDegraded":      {"MON:965-966.", sb.ClusterActive, []nodeSpec{down, on, on}, sb.ClusterDegraded},
		"DegradedToActive":      {"MON:941-945.", sb.ClusterDegraded, []nodeSpec{on, on, on}, sb.ClusterActive},
		"ActiveToSuspended":     {"MON:965-966.", sb.ClusterActive, []nodeSpec{down, down, on}, sb.ClusterSuspended},
		"ReadOnlyStaysActive":   {"MON:946-948: read_only is not left for active.", sb.ClusterReadOnly, []nodeSpec{on, on, on}, sb.ClusterReadOnly},
		"ReadOnlyStaysDegraded": {"MON:946-948: nor for degraded.", sb.ClusterReadOnly, []nodeSpec{down, on, on}, sb.ClusterReadOnly},
		"ReadOnlyToSuspended":   {"MON:965-966: a suspended verdict does leave read_only.", sb.ClusterReadOnly, []nodeSpec{down, down, on}, sb.ClusterSuspended},
		"UnreadyLeftAlone":      {"MON:934-939.", sb.ClusterUnready, []nodeSpec{down, down, on}, sb.ClusterUnready},
		"InExpansionLeftAlone":  {"MON:934-939.", sb.ClusterInExpansion, []nodeSpec{down, down, on}, sb.ClusterInExpansion},
		"InShrinkLeftAlone":     {"MON:934-939.", sb.ClusterInShrink, []nodeSpec{down, down, on}, sb.ClusterInShrink},
		"SuspendedStays":        {"MON:965-966: suspended verdict, no change.", sb.ClusterSuspended, []nodeSpec{down, down, on}, sb.ClusterSuspended},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			c, _ := seedSpecs(s, nil, tc.from, tc.nodes)
			s.mu.Lock()
			s.monitorClusterLocked(c, s.clk.now(), false, s.m.clusterNodes(c.id))
			got := c.status
			s.mu.Unlock()
			if got != tc.want {
				t.Errorf("\n%s\nwant %s, got %s", tc.reason, tc.want, got)
			}
		})
	}

	// cap_monitor.py:47-68: only the capacity monitor sets read_only (from
	// active or degraded) and returns it to active, whatever the nodes.
	capCases := map[string]struct {
		reason string
		from   sb.ClusterStatus
		util   int64
		want   sb.ClusterStatus
	}{
		"ActiveFull":        {"CAP:63-64.", sb.ClusterActive, 95, sb.ClusterReadOnly},
		"DegradedFull":      {"CAP:63-64.", sb.ClusterDegraded, 95, sb.ClusterReadOnly},
		"SuspendedFull":     {"CAP:63: only active or degraded go read_only.", sb.ClusterSuspended, 95, sb.ClusterSuspended},
		"ReadOnlyFreed":     {"CAP:66-68.", sb.ClusterReadOnly, 10, sb.ClusterActive},
		"ReadOnlyStillFull": {"CAP:47-64.", sb.ClusterReadOnly, 95, sb.ClusterReadOnly},
	}
	for name, tc := range capCases {
		t.Run("Cap"+name, func(t *testing.T) {
			s := quietSim(t)
			c, _ := seedSpecs(s, nil, tc.from, []nodeSpec{down, on, on})
			s.mu.Lock()
			c.sizeUtil = tc.util
			s.capacityMonitorLocked(c, s.clk.now())
			got := c.status
			s.mu.Unlock()
			if got != tc.want {
				t.Errorf("\n%s\nwant %s, got %s", tc.reason, tc.want, got)
			}
		})
	}
}

// M1 end to end: a suspended node keeps the cluster active, and an npcs=2
// cluster stays active with one node down.
func TestMonitorClusterStatusLive(t *testing.T) {
	cases := map[string]struct {
		reason string
		params *sb.ClusterParams
		nodes  int
		action func(t *testing.T, s *Simulator, cid string, n []string)
		want   sb.ClusterStatus
	}{
		"SuspendKeepsActive": {
			reason: "MON:299-300: POST /suspend leaves the cluster active.",
			nodes:  3,
			action: func(t *testing.T, s *Simulator, cid string, n []string) {
				if r := call(t, s, adminToken, "POST", nodePath(cid, n[0])+"/suspend", nil); r.status != 204 {
					t.Fatalf("suspend: %s", r)
				}
			},
			want: sb.ClusterActive,
		},
		"Npcs2ForcedShutdownKeepsActive": {
			reason: "MON:400-409: npcs=2 with one node offline is active.",
			params: ec(1, 2), nodes: 4,
			action: func(t *testing.T, s *Simulator, cid string, n []string) {
				call(t, s, adminToken, "POST", nodePath(cid, n[0])+"/shutdown?force=true", nil)
				waitNode(t, s, cid, n[0], sb.NodeOffline)
			},
			want: sb.ClusterActive,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: tc.nodes, Status: sb.ClusterActive, Params: tc.params})
			tc.action(t, s, cid, nodes)
			time.Sleep(50 * time.Millisecond) // many monitor ticks
			if got := clusterStatus(s, cid); got != tc.want {
				t.Errorf("\n%s\nwant %s, got %s (history %v)", tc.reason, tc.want, got, statusHistory(s, cid))
			}
		})
	}
}

// M1 with the failure migration: after a node removal the removed node's
// failed devices count until their failed_device_migration tasks finish
// (storage_node_ops.py:4114-4173, tasks_controller.py:694-707,
// tasks_runner_failed_migration.py:116-121, storage_node_monitor.py:316-331).
func TestRemovedNodeCountsUntilMigrated(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
	if r := call(t, s, adminToken, "DELETE", nodePath(cid, nodes[3])+"/", nil); r.status != 204 {
		t.Fatalf("delete: %s", r)
	}
	waitNode(t, s, cid, nodes[3], sb.NodeRemoved)
	eventually(t, "the failure migrations to finish", func() bool {
		return len(statusHistory(s, cid)) >= 4 && clusterStatus(s, cid) == sb.ClusterActive &&
			!hasOpenTask(s, cid, taskFailedDeviceMigration)
	})
	want := []string{"active>in_shrink", "in_shrink>active", "active>degraded", "degraded>active"}
	if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
		t.Errorf("the removed node's host counts until its devices are migrated: -want, +got:\n%s", diff)
	}
	// One task per device per remaining node with an lvstore, device_id set.
	mig := tasksOf(s, cid, taskFailedDeviceMigration)
	if len(mig) != 3*devicesPerNode || mig[0].DeviceID == nil {
		t.Errorf("failed_device_migration tasks: want %d with device_id, got %+v", 3*devicesPerNode, mig)
	}
	n := 0
	for _, e := range s.Events(cid) {
		if e == "Device status changed from: failed to: failed_and_migrated" {
			n++
		}
	}
	if n != devicesPerNode {
		t.Errorf("each device of the removed node ends failed_and_migrated: want %d events, got %d", devicesPerNode, n)
	}
}

func hasOpenTask(s *Simulator, cid, fn string) bool {
	for _, t := range tasksOf(s, cid, fn) {
		if t.Status != sb.TaskDone {
			return true
		}
	}
	return false
}

// M10: add_node_to_auto_restart's gates (tasks_controller.py:411-523) as the
// monitor's re-queue scan applies them (storage_node_monitor.py:474-519).
func TestAutoRestartGating(t *testing.T) {
	off := nodeSpec{status: sb.NodeOffline}
	offManual := nodeSpec{status: sb.NodeOffline, manual: true}
	cases := map[string]struct {
		reason  string
		cluster sb.ClusterStatus
		params  *sb.ClusterParams
		nodes   []nodeSpec // the first is the candidate
		open    bool       // the candidate already has an open node_restart task
		want    bool
	}{
		"Offline":              {"TC:444-452.", sb.ClusterDegraded, nil, []nodeSpec{off, on, on}, false, true},
		"Schedulable":          {"TC:444-452.", sb.ClusterDegraded, nil, []nodeSpec{{status: sb.NodeSchedulable}, on, on}, false, true},
		"UnreachableNot":       {"TC:433-452: unreachable is no trigger.", sb.ClusterActive, nil, []nodeSpec{{status: sb.NodeUnreachable}, on, on}, false, false},
		"DownNot":              {"TC:433-452: down is no trigger.", sb.ClusterActive, nil, []nodeSpec{{status: sb.NodeDown}, on, on}, false, false},
		"OperatorStopped":      {"TC:454-467, SNO:6003-6015: auto_restart_disabled.", sb.ClusterDegraded, nil, []nodeSpec{offManual, on, on}, false, false},
		"OpenTask":             {"MON:510-511, TC:164-177: one open task per node.", sb.ClusterDegraded, nil, []nodeSpec{off, on, on}, true, false},
		"Active":               {"TC:488-492.", sb.ClusterActive, nil, []nodeSpec{off, on, on}, false, true},
		"ReadOnly":             {"TC:488-492.", sb.ClusterReadOnly, nil, []nodeSpec{off, on, on}, false, true},
		"Unready":              {"TC:488-492.", sb.ClusterUnready, nil, []nodeSpec{off, on, on}, false, true},
		"SuspendedDraining":    {"TC:390-408,480: paused while a suspension that is not operator-caused drains (M2).", sb.ClusterSuspended, nil, []nodeSpec{off, on, on}, false, false},
		"InShrink":             {"TC:486-492: a peer failing mid-removal is restarted.", sb.ClusterInShrink, nil, []nodeSpec{off, on, on}, false, true},
		"InActivation":         {"TC:488-492: refused during activation.", sb.ClusterInActivation, nil, []nodeSpec{off, on, on}, false, false},
		"InExpansion":          {"TC:488-492: refused during expansion.", sb.ClusterInExpansion, nil, []nodeSpec{off, on, on}, false, false},
		"PastFTT":              {"TC:515-522: more not-online peers than npcs and not suspended.", sb.ClusterDegraded, nil, []nodeSpec{off, offManual, offManual, on}, false, false},
		"SuspendedDrained":     {"TC:488-492: the drain is complete.", sb.ClusterSuspended, nil, []nodeSpec{off, on, on}, false, true},
		"PastFTTSuspended":     {"TC:520, TC:359-387: a suspended cluster restarts anyway; operator-caused, so never paused.", sb.ClusterSuspended, nil, []nodeSpec{off, offManual, offManual, on}, false, true},
		"PeersOnSameHost":      {"TC:518: peers on the candidate's host are not counted.", sb.ClusterDegraded, nil, []nodeSpec{{status: sb.NodeOffline, ip: "10.8.8.8"}, {status: sb.NodeOffline, ip: "10.8.8.8", manual: true}, offManual, on}, false, true},
		"RemovedRecordsCount":  {"TC:517-519: removed records are not online either.", sb.ClusterDegraded, nil, []nodeSpec{off, {status: sb.NodeRemoved}, {status: sb.NodeRemoved}, on}, false, false},
		"FailureDomainCluster": {"TC:515: the node-count guard is skipped with failure domains.", sb.ClusterDegraded, withFD(), []nodeSpec{off, offManual, offManual, on}, false, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			c, ids := seedSpecs(s, tc.params, tc.cluster, tc.nodes)
			s.mu.Lock()
			c.suspendDrainComplete = strings.HasSuffix(name, "Drained")
			if tc.open {
				s.newTaskLocked(c.id, ids[0], sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
			}
			before := len(s.m.clusterTasks(c.id))
			s.requeueAutoRestartsLocked(c, s.m.clusterNodes(c.id))
			queued := len(s.m.clusterTasks(c.id)) - before
			s.mu.Unlock()
			if got := queued == 1; got != tc.want || queued > 1 {
				t.Errorf("\n%s\nqueued %d node_restart task(s), want queued=%t", tc.reason, queued, tc.want)
			}
		})
	}
}

func withFD() *sb.ClusterParams {
	p := sb.DefaultClusterParams()
	p.EnableFailureDomain = true
	return &p
}

// M10 end to end: an operator shutdown sets auto_restart_disabled
// (SNO:6003-6015), so the offline node is not auto-restarted; a restart
// brings it online, which clears the flag (SNO:6702-6708), so a later
// failure is auto-restarted.
func TestAutoRestartAfterOperatorShutdown(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/shutdown", nil)
	waitNode(t, s, cid, nodes[0], sb.NodeOffline)
	time.Sleep(50 * time.Millisecond) // many monitor ticks
	if got := len(tasksOf(s, cid, sb.TaskFunctionNodeRestart)); got != 0 {
		t.Fatalf("an operator shutdown is not auto-restarted: got %d node_restart tasks", got)
	}
	call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
	waitNode(t, s, cid, nodes[0], sb.NodeOnline)
	s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[0], NodeStatus: sb.NodeOffline, After: Duration(30 * time.Second)})
	eventually(t, "an auto node_restart", func() bool { return len(tasksOf(s, cid, sb.TaskFunctionNodeRestart)) == 2 })
	waitNode(t, s, cid, nodes[0], sb.NodeOnline)
}

// m9: _activation_node_gate (storage_node_monitor.py:524-575).
func TestActivationGate(t *testing.T) {
	cases := map[string]struct {
		reason string
		nodes  []nodeSpec
		open   bool // an open node_restart task on the first node
		want   bool
	}{
		"AllSettled":           {"MON:575.", []nodeSpec{on, on, on}, false, true},
		"OnlineTooRecently":    {"MON:565-571: online for less than 30 s.", []nodeSpec{{status: sb.NodeOnline, young: true}, on, on}, false, false},
		"InCreation":           {"MON:552-554.", []nodeSpec{{status: sb.NodeInCreation, dev: devNew}, on, on}, false, false},
		"Unreachable":          {"MON:552-554.", []nodeSpec{{status: sb.NodeUnreachable}, on, on}, false, false},
		"InRestart":            {"MON:552-554.", []nodeSpec{{status: sb.NodeInRestart}, on, on}, false, false},
		"InShutdown":           {"MON:552-554.", []nodeSpec{{status: sb.NodeInShutdown}, on, on}, false, false},
		"OpenRestartTask":      {"MON:563-564.", []nodeSpec{on, on, on}, true, false},
		"OneDeliberate":        {"MON:555-559,572: up to FTT deliberately stopped nodes.", []nodeSpec{{status: sb.NodeOffline, manual: true}, on, on}, false, true},
		"TwoDeliberate":        {"MON:572-574: more than FTT.", []nodeSpec{{status: sb.NodeOffline, manual: true}, {status: sb.NodeOffline, manual: true}, on}, false, false},
		"OfflineNotDeliberate": {"MON:560-561: a failed node is still recovering.", []nodeSpec{{status: sb.NodeOffline}, on, on}, false, false},
		"RemovedIgnored":       {"MON:550-551.", []nodeSpec{{status: sb.NodeRemoved, dev: devFailedMigrated}, on, on}, false, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			c, ids := seedSpecs(s, nil, sb.ClusterSuspended, tc.nodes)
			s.mu.Lock()
			if tc.open {
				s.newTaskLocked(c.id, ids[0], sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
			}
			got, reason := s.activationGateLocked(c, s.m.clusterNodes(c.id), s.clk.now())
			s.mu.Unlock()
			if got != tc.want {
				t.Errorf("\n%s\nwant %t, got %t (%s)", tc.reason, tc.want, got, reason)
			}
		})
	}
}

// m9: the activation watchdog's budget is 600 s + 60 s per node record,
// removed ones included (storage_node_monitor.py:57-62).
func TestActivationWatchdogBudget(t *testing.T) {
	cases := map[string]struct {
		reason  string
		removed int
		elapsed time.Duration
		want    sb.ClusterStatus
	}{
		"RemovedExtendBudget": {"3 live + 2 removed: 900 s; 850 s in, the watchdog waits.", 2, 850 * time.Second, sb.ClusterInActivation},
		"PastBudget":          {"3 live + 2 removed: 900 s; 910 s in, it fires.", 2, 910 * time.Second, sb.ClusterSuspended},
		"LiveOnly":            {"3 live: 780 s; 790 s in, it fires.", 0, 790 * time.Second, sb.ClusterSuspended},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := quietSim(t)
			specs := []nodeSpec{on, on, on}
			for i := 0; i < tc.removed; i++ {
				specs = append(specs, nodeSpec{status: sb.NodeRemoved, dev: devFailedMigrated})
			}
			c, _ := seedSpecs(s, nil, sb.ClusterInActivation, specs)
			s.mu.Lock()
			now := s.clk.now()
			c.activationStart, c.heartbeat = now.Add(-tc.elapsed), now
			s.monitorClusterLocked(c, now, false, s.m.clusterNodes(c.id))
			got := c.status
			s.mu.Unlock()
			if got != tc.want {
				t.Errorf("\n%s\nwant %s, got %s", tc.reason, tc.want, got)
			}
		})
	}
}

// m9 end to end: a suspended cluster is not re-activated while a node is
// unreachable, and is once every node has settled online.
func TestAutoActivationWaitsForUnreachable(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	s.mu.Lock()
	s.setClusterStatusLocked(s.m.cluster(cid), sb.ClusterSuspended, "test")
	s.mu.Unlock()
	s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[2], NodeStatus: sb.NodeUnreachable, After: Duration(1000 * time.Second)})
	time.Sleep(100 * time.Millisecond) // 100 s of backend time: still unreachable
	if got := clusterStatus(s, cid); got != sb.ClusterSuspended {
		t.Fatalf("MON:552-554: no activation while a node is unreachable, got %s", got)
	}
	waitCluster(t, s, cid, sb.ClusterActive)
	want := []string{"active>suspended", "suspended>in_activation", "in_activation>active"}
	if diff := cmp.Diff(want, statusHistory(s, cid)); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

// M5: on a docker-mode cluster the capacity monitor keeps an fdb_backup
// task (cap_monitor.py:17-26, fdb_backup_controller.py:176-203), outside the
// TaskDTO's Literal (_dtos.py:70-88), so GET /tasks/ answers 500 for good; a
// kubernetes-mode cluster gets none (fdb_backup_controller.py:184-186).
func TestDockerModeTaskList(t *testing.T) {
	cases := map[string]struct {
		reason string
		mode   string
		want   int
	}{
		"Docker":     {"CAP:17-26: an fdb_backup task, so the list is a 500.", ModeDocker, 500},
		"Kubernetes": {"FBC:184-186: the operator takes the backups.", ModeKubernetes, 200},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive, Mode: tc.mode})
			eventually(t, "a capacity monitor cycle", func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return !s.m.cluster(cid).lastCapCheck.IsZero()
			})
			if got := call(t, s, adminToken, "GET", base(cid)+"/tasks/", nil).status; got != tc.want {
				t.Errorf("\n%s\nGET /tasks/ answered %d, want %d", tc.reason, got, tc.want)
			}
			if tc.mode == ModeDocker && hasEvent(s, cid, "Task created") {
				t.Errorf("\n%s\nan fdb_backup task logs no Task created (TC:310-311)", tc.reason)
			}
		})
	}
}
