package simulator

import (
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The monitor (storage_node_monitor, MON) ticks every 3 s of backend time
// and derives what no action writes directly: node reconciliation, the
// cluster status (_update_cluster_status_impl, MON:813-967, with
// get_next_cluster_status, MON:265-409), the auto-restart re-queue
// (MON:474-519, TC:411-523) and the activation watchdog (MON:42-62).

const (
	monitorInterval        = 3 * time.Second
	watchdogStaleHeartbeat = 300 * time.Second
	watchdogBase           = 600 * time.Second
	watchdogPerNode        = 60 * time.Second
	autoActivateOnlineFor  = 30 * time.Second
)

func (s *Simulator) monitorLoop(_ ctxT) {
	for s.sleep(monitorInterval) {
		s.monitorTick()
	}
}

func (s *Simulator) monitorTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clk.now()
	for _, n := range s.m.nodes {
		switch {
		case n.status == sb.NodeInShutdown && n.killFailed && now.Sub(n.statusSince) >= inShutdownReconcile:
			// SPDK is dead after all: reconcile a stuck in_shutdown
			// (MON:1475-1485).
			n.killFailed = false
			s.setNodeStatusLocked(n, sb.NodeOffline)
		case (n.status == sb.NodeUnreachable || n.status == sb.NodeDown) && !n.outageUntil.IsZero() && !now.Before(n.outageUntil):
			// The health check passes again: online, then the devices
			// the outage left unavailable are re-admitted, which queues a
			// migration (MON:1690-1697,1700-1740).
			n.outageUntil = time.Time{}
			s.setNodeStatusLocked(n, sb.NodeOnline)
			if s.devicesReadmitLocked(n) {
				s.addMigrationTasksLocked(n.clusterID)
			}
		}
	}
	// One pass over the tasks and the nodes for all clusters, not one per
	// cluster.
	rebalancing := map[string]bool{}
	for _, t := range s.m.tasks {
		if isMigrationFn(t.fn) && t.status != sb.TaskDone && !t.canceled {
			rebalancing[t.clusterID] = true
		}
	}
	records := map[string][]*nodeState{}
	for _, n := range s.m.nodes {
		records[n.clusterID] = append(records[n.clusterID], n)
	}
	for _, c := range s.m.clusters {
		s.monitorClusterLocked(c, now, rebalancing[c.id], records[c.id])
		// The distrib event collector, the cap monitor and the monitor's
		// event retention (events.go).
		s.processDistribLocked(c, now)
		s.capacityMonitorLocked(c, now)
		s.eventHousekeepingLocked(c, now)
	}
}

// monitorClusterLocked is _update_cluster_status_impl (MON:813-967) for
// cluster c, which has a migration task open when rebalancing; nodes are
// all its node records in DB order, removed ones included.
func (s *Simulator) monitorClusterLocked(c *clusterState, now time.Time, rebalancing bool, nodes []*nodeState) {
	// The re-queue scan runs first, before any branch that returns
	// (MON:814-818).
	s.requeueAutoRestartsLocked(c, nodes)

	if c.isReBalancing != rebalancing {
		// Not a log event (the backend logs none); for a reader of the
		// simulator's own log, such as the bench.
		s.logf("monitor: cluster %s is_re_balancing %t", c.id, rebalancing)
	}
	c.isReBalancing = rebalancing

	switch c.status {
	case sb.ClusterInActivation:
		// _watchdog_stuck_activation (MON:578-650): the budget counts every
		// node record of the cluster, removed ones included (MON:57-62).
		limit := watchdogBase + time.Duration(len(nodes))*watchdogPerNode
		if now.Sub(c.heartbeat) > watchdogStaleHeartbeat || now.Sub(c.activationStart) > limit {
			s.logf("monitor: activation watchdog fired for cluster %s", c.id)
			s.setClusterStatusLocked(c, sb.ClusterSuspended, "monitor")
		}
		return
	case sb.ClusterUnready, sb.ClusterInExpansion, sb.ClusterInShrink:
		// Owned by a topology flow (MON:924-939). The shrink watchdog
		// (_watchdog_stuck_shrink) is not modelled: the simulator's
		// removal always restores the status itself.
		return
	}
	if c.status == sb.ClusterSuspended && !s.suspensionOperatorCausedLocked(c, nodes) {
		s.driveSuspendRecoveryLocked(c, nodes)
	}
	next := s.nextClusterStatusLocked(c, nodes)
	switch {
	case c.status == sb.ClusterReadOnly && (next == sb.ClusterActive || next == sb.ClusterDegraded):
		// Only the capacity monitor leaves read_only (MON:946-948,
		// CAP:63-68).
	case c.status == sb.ClusterSuspended && (next == sb.ClusterActive || next == sb.ClusterDegraded):
		// Auto-activation, once the outage has fully recovered
		// (MON:949-964).
		if c.autoActivationPending {
			return
		}
		if ok, reason := s.activationGateLocked(c, nodes, now); !ok {
			s.logf("monitor: can not activate cluster %s: %s", c.id, reason)
			return
		}
		c.autoActivationPending = true
		cid := c.id
		s.logf("monitor: nodes settled, auto-activating cluster %s", cid)
		s.spawn(func(_ ctxT) { s.runActivation(cid, true, "monitor") })
	default:
		// degraded -> active, and every other verdict (MON:941-945,965-966).
		s.setClusterStatusLocked(c, next, "monitor")
	}
}

// nextClusterStatusLocked is get_next_cluster_status (MON:265-409) over the
// cluster's node records (the simulator has no dedicated secondaries, so
// every record is a "primary" one, DB:469-475).
//
//   - in_creation and suspended records are skipped, devices included;
//   - a record counts as affected when it has a device that is neither
//     online nor failed_and_migrated, when it has no online device and is
//     not removed, or when it is offline: so an offline node always counts,
//     a removed node counts until its devices' failure migration is done,
//     and unreachable, in_restart, in_shutdown and schedulable nodes count
//     through their devices (a graceful shutdown's Loop 1 and the
//     monitor's offline/schedulable paths set them unavailable; a forced
//     shutdown leaves them online);
//   - the data-plane quorum probe that can also count those transient
//     statuses (MON:345-376) is modelled as "connected", its default for
//     a node that has not been probed: the simulator has no data plane that
//     could disagree with the device states;
//   - down never counts by status (its devices stay online);
//   - affected records are counted by physical host (mgmt_ip);
//   - the failure-domain verdict (MON:393-398) needs tagged failure
//     domains, and every simulated node has failure_domain -1, so it
//     always falls through; journal replication is never in progress;
//     is_new_migrated_node (MON:66-88) needs the distrib names the
//     simulator's migration tasks do not carry.
//
// With n = distr_ndcs and k = distr_npcs: affected == k (and, with strict
// anti-affinity, at least n+k online nodes) is degraded; affected > k,
// fewer than n+k online devices, or (strict) fewer than n+k online nodes
// is suspended; anything else is active (MON:400-409). So k = 0 with
// nothing affected is degraded, as in sbcli.
func (s *Simulator) nextClusterStatusLocked(c *clusterState, nodes []*nodeState) sb.ClusterStatus {
	if c.status == sb.ClusterUnready {
		return sb.ClusterUnready
	}
	onlineNodes, onlineDevices := int64(0), int64(0)
	hosts := map[string]bool{}
	for _, n := range nodes {
		if n.status == sb.NodeInCreation || n.status == sb.NodeSuspended {
			continue
		}
		if n.status == sb.NodeOnline {
			onlineNodes++
		}
		on, off := n.deviceCounts()
		if off > 0 || (on == 0 && n.status != sb.NodeRemoved) || n.status == sb.NodeOffline {
			hosts[n.mgmtIP] = true
		}
		onlineDevices += on
	}
	affected := int64(len(hosts))
	nd, k := c.params.DistrNdcs, c.params.DistrNpcs
	strict := c.params.StrictNodeAntiAffinity
	switch {
	case affected == k && (!strict || onlineNodes >= nd+k):
		return sb.ClusterDegraded
	case affected > k || onlineDevices < nd+k || (onlineNodes < nd+k && strict):
		return sb.ClusterSuspended
	}
	return sb.ClusterActive
}

// deviceCounts counts a node's devices as get_next_cluster_status does
// (MON:315-324): online (also jm, read_only and cannot_allocate, which the
// simulator does not use) against every other status but
// failed_and_migrated.
func (n *nodeState) deviceCounts() (online, offline int64) {
	for _, d := range n.devices {
		switch d.status {
		case devOnline:
			online++
		case devFailedMigrated:
		default:
			offline++
		}
	}
	return online, offline
}

// activationGateLocked is _activation_node_gate (MON:524-575): whether the
// monitor may auto-activate a suspended cluster whose verdict is active or
// degraded, and why not.
func (s *Simulator) activationGateLocked(c *clusterState, nodes []*nodeState, now time.Time) (bool, string) {
	ftt := c.params.DistrNpcs // max_fault_tolerance
	if ftt < 1 {
		ftt = 1
	}
	deliberate := int64(0)
	for _, n := range nodes {
		switch n.status {
		case sb.NodeRemoved:
			continue
		case sb.NodeInShutdown, sb.NodeInCreation, sb.NodeInRestart, sb.NodeUnreachable:
			return false, "node " + n.id + " is still transitioning (" + string(n.status) + ")"
		case sb.NodeOnline:
		default:
			if n.autoRestartDisabled {
				deliberate++
				continue
			}
			return false, "node " + n.id + " is " + string(n.status) + " and was not deliberately shut down"
		}
		if s.activeNodeRestartTaskLocked(n) != nil {
			return false, "node " + n.id + " has an active restart task"
		}
		if now.Sub(n.onlineSince) < autoActivateOnlineFor {
			return false, "node " + n.id + " has been online less than 30 seconds"
		}
	}
	if deliberate > ftt {
		return false, "deliberately-shut-down nodes exceed the cluster fault tolerance"
	}
	return true, ""
}

// autoRestartClusterStatus reports whether add_node_to_auto_restart queues
// restarts in a cluster of status st (TC:488-492): not during activation
// or expansion.
func autoRestartClusterStatus(st sb.ClusterStatus) bool {
	switch st {
	case sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly, sb.ClusterUnready, sb.ClusterSuspended, sb.ClusterInShrink:
		return true
	}
	return false
}

// requeueAutoRestartsLocked is _requeue_stuck_auto_restarts (MON:474-519)
// with add_node_to_auto_restart's gates (TC:411-523): an offline or
// schedulable node without auto_restart_disabled (set by an operator
// shutdown or suspend, cleared when the node returns online) and without
// an active node_restart task gets one, when the cluster status allows it
// and, on clusters without failure domains, at most distr_npcs other
// records on other hosts are not online (removed and in_creation records
// count, TC:515-522) or the cluster is suspended; nothing while a suspended
// cluster drains (autoRestartPausedLocked). Not modelled: the k8s CR-link
// gate.
func (s *Simulator) requeueAutoRestartsLocked(c *clusterState, nodes []*nodeState) {
	if !autoRestartClusterStatus(c.status) || s.autoRestartPausedLocked(c, nodes) {
		return
	}
	for _, n := range nodes {
		if n.status != sb.NodeOffline && n.status != sb.NodeSchedulable {
			continue
		}
		if n.autoRestartDisabled || s.activeNodeRestartTaskLocked(n) != nil {
			continue
		}
		if !c.params.EnableFailureDomain {
			notOnline := int64(0)
			for _, o := range nodes {
				if o.id != n.id && o.status != sb.NodeOnline && o.mgmtIP != n.mgmtIP {
					notOnline++
				}
			}
			if notOnline > c.params.DistrNpcs && c.status != sb.ClusterSuspended {
				continue
			}
		}
		t := s.newTaskLocked(c.id, n.id, sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
		t.running = true
		s.logf("monitor: node %s is %s, queued node_restart %s", n.id, n.status, t.id)
		s.spawn(func(_ ctxT) { s.runNodeRestartTask(t.id, taskPoll) })
	}
}

// capacityMonitorLocked is the cap monitor (CAP:28-80), every 30 s: its
// events (capacityEventsLocked) and its status part (CAP:63-68): at or
// above cap_crit an active or degraded cluster goes read_only
// (cluster_set_read_only, OPS:1850-1865); below it a read_only cluster
// goes active (cluster_set_active, OPS:1868-1884), whatever its nodes. The
// device writes of both (cannot_allocate and back) are not modelled.
func (s *Simulator) capacityMonitorLocked(c *clusterState, now time.Time) {
	if now.Sub(c.lastCapCheck) < capMonitorInterval {
		return
	}
	s.fdbBackupLocked(c, now)
	s.capacityEventsLocked(c, now)
	if crit := c.params.CapCrit; crit > 0 {
		switch {
		case crit <= c.sizeUtil && (c.status == sb.ClusterActive || c.status == sb.ClusterDegraded):
			s.setClusterStatusLocked(c, sb.ClusterReadOnly, "cap_monitor")
		case crit > c.sizeUtil && c.status == sb.ClusterReadOnly:
			s.setClusterStatusLocked(c, sb.ClusterActive, "cap_monitor")
		}
	}
}

// suspensionOperatorCausedLocked is is_suspension_operator_caused
// (TC:359-387): a suspended cluster whose deliberately shut-down nodes
// (auto_restart_disabled) explain the suspension, the other not-online
// records being within the fault tolerance.
func (s *Simulator) suspensionOperatorCausedLocked(c *clusterState, nodes []*nodeState) bool {
	if c.status != sb.ClusterSuspended {
		return false
	}
	deliberate, other := int64(0), int64(0)
	for _, n := range nodes {
		switch {
		case n.status == sb.NodeOnline || n.status == sb.NodeRemoved:
		case n.autoRestartDisabled:
			deliberate++
		default:
			other++
		}
	}
	return deliberate > 0 && other <= max(c.params.DistrNpcs, 1)
}

// autoRestartPausedLocked is is_auto_restart_paused (TC:390-408): no node
// restarts while a suspended cluster that is not operator-caused has not
// drained yet.
func (s *Simulator) autoRestartPausedLocked(c *clusterState, nodes []*nodeState) bool {
	return c.status == sb.ClusterSuspended && !c.suspendDrainComplete && !s.suspensionOperatorCausedLocked(c, nodes)
}

// driveSuspendRecoveryLocked is _drive_suspend_recovery (MON:696-748), run
// each tick for a suspended cluster whose suspension is not
// operator-caused: until the drain completes it force-shuts-down every
// online or down node (keeping auto-restart) and sets unreachable ones
// offline, skipping deliberately stopped nodes; once none of the others is
// online, down, unreachable, in_shutdown, in_restart or in_creation, the
// drain is complete and auto-restart resumes (then, concurrently:
// restartGuardLocked). Leaving suspension clears the marker
// (setClusterStatusLocked, OPS:1834-1841).
func (s *Simulator) driveSuspendRecoveryLocked(c *clusterState, nodes []*nodeState) {
	if c.suspendDrainComplete {
		return
	}
	drained := true
	for _, n := range nodes {
		if n.autoRestartDisabled {
			continue
		}
		switch n.status {
		case sb.NodeOnline, sb.NodeDown:
			// The shutdown runs in its own thread (MON:673-693); its
			// first write, in_shutdown, lands before the activation gate
			// below reads the nodes again.
			s.logf("monitor: cluster %s suspended: force-shutting-down node %s for the recovery drain", c.id, n.id)
			finish := s.beginForceShutdownLocked(n, false, true)
			s.spawn(func(_ ctxT) { finish() })
		case sb.NodeUnreachable:
			s.setNodeStatusLocked(n, sb.NodeOffline)
		}
		switch n.status {
		case sb.NodeOnline, sb.NodeDown, sb.NodeUnreachable, sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation:
			drained = false
		}
	}
	if drained {
		c.suspendDrainComplete = true
		s.logf("monitor: cluster %s drained to all-offline; suspend-recovery auto-restart unpaused", c.id)
	}
}

// fdbBackupLocked is create_fdb_backup_if_needed (CAP:17-26, FBC:176-203),
// the capacity monitor's first step for each cluster: on a docker-mode
// cluster a fdb_backup task when it has none, or when the newest is done and
// older than backup_frequency_seconds (3 h, models/cluster.py:242). Nothing
// is logged (no "Task created", TC:310-311). Its runner
// (tasks_runner_fdb_backup.py:30-37) ends it "Backup created" by the next
// cycle. A stored fdb_backup task makes GET /tasks/ answer 500 (DTO:70-88),
// so on a docker-mode cluster the task list is never readable.
func (s *Simulator) fdbBackupLocked(c *clusterState, now time.Time) {
	if c.mode != ModeDocker {
		return
	}
	var last *taskState
	for _, t := range s.m.clusterTasks(c.id) {
		if t.fn == taskFdbBackup {
			last = t
		}
	}
	switch {
	case last == nil || last.status == sb.TaskDone && now.Sub(last.date) > fdbBackupEvery:
		s.m.tasks = append(s.m.tasks, &taskState{id: newID(), clusterID: c.id, fn: taskFdbBackup, status: sb.TaskNew,
			maxRetry: 8, params: map[string]any{}, date: now})
	case last.status != sb.TaskDone:
		last.status, last.result = sb.TaskDone, "Backup created"
	}
}
