package simulator

import (
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The monitor (storage_node_monitor, MON:265-407,813-969) ticks every 3 s
// of backend time and derives what no action writes directly.

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
			// SPDK is dead after all: reconcile a stuck in_shutdown.
			n.killFailed = false
			s.setNodeStatusLocked(n, sb.NodeOffline)
		case (n.status == sb.NodeUnreachable || n.status == sb.NodeDown) && !n.outageUntil.IsZero() && !now.Before(n.outageUntil):
			// The health check passes again: online, then the devices
			// the outage left unavailable are re-admitted, which queues a
			// migration (MON:1690-1697,1700-1740).
			n.outageUntil = time.Time{}
			s.setNodeStatusLocked(n, sb.NodeOnline)
			if s.devicesReadmitLocked(n) {
				s.addMigrationTasksLocked(n.clusterID, n.id)
			}
		}
	}
	// One pass over the tasks and the nodes for all clusters, not one per
	// cluster.
	rebalancing := map[string]bool{}
	for _, t := range s.m.tasks {
		if isMigrationFn(t.fn) && t.status != sb.TaskDone {
			rebalancing[t.clusterID] = true
		}
	}
	live := map[string][]*nodeState{}
	for _, n := range s.m.nodes {
		if n.status != sb.NodeRemoved {
			live[n.clusterID] = append(live[n.clusterID], n)
		}
	}
	for _, c := range s.m.clusters {
		s.monitorClusterLocked(c, now, rebalancing[c.id], live[c.id])
		// The distrib event collector, the cap monitor and the monitor's
		// event retention (events.go).
		s.processDistribLocked(c, now)
		s.capacityEventsLocked(c, now)
		s.eventHousekeepingLocked(c, now)
	}
}

// monitorClusterLocked runs the monitor's pass over cluster c, which has a
// migration task open when rebalancing, and the nodes live (not removed).
func (s *Simulator) monitorClusterLocked(c *clusterState, now time.Time, rebalancing bool, live []*nodeState) {
	if c.isReBalancing != rebalancing {
		// Not a log event (the backend logs none); for a reader of the
		// simulator's own log, such as the bench.
		s.logf("monitor: cluster %s is_re_balancing %t", c.id, rebalancing)
	}
	c.isReBalancing = rebalancing

	npcs := c.params.DistrNpcs
	switch c.status {
	case sb.ClusterInActivation:
		limit := watchdogBase + time.Duration(len(live))*watchdogPerNode
		if now.Sub(c.heartbeat) > watchdogStaleHeartbeat || now.Sub(c.activationStart) > limit {
			s.logf("monitor: activation watchdog fired for cluster %s", c.id)
			s.setClusterStatusLocked(c, sb.ClusterSuspended, "monitor")
		}
	case sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly:
		affected := int64(0)
		for _, n := range live {
			if n.hasLVStore && n.status != sb.NodeOnline {
				affected++
			}
		}
		switch {
		case affected > npcs:
			s.setClusterStatusLocked(c, sb.ClusterSuspended, "monitor")
		case affected > 0:
			s.setClusterStatusLocked(c, sb.ClusterDegraded, "monitor")
		case c.params.CapCrit > 0 && c.sizeUtil >= c.params.CapCrit:
			s.setClusterStatusLocked(c, sb.ClusterReadOnly, "monitor")
		default:
			s.setClusterStatusLocked(c, sb.ClusterActive, "monitor")
		}
	case sb.ClusterSuspended:
		if !c.autoActivationPending && s.readyForAutoActivationLocked(c, live, now) {
			c.autoActivationPending = true
			cid := c.id
			s.logf("monitor: all nodes online, auto-activating cluster %s", cid)
			s.spawn(func(_ ctxT) { s.runActivation(cid, true, "monitor") })
		}
	}

	// Failed nodes get an automatic node_restart task, unless they were
	// stopped on purpose.
	if c.status == sb.ClusterInShrink {
		return
	}
	for _, n := range live {
		if (n.status == sb.NodeOffline || n.status == sb.NodeSchedulable) && !n.autoRestartDisabled &&
			s.m.openTask(c.id, sb.TaskFunctionNodeRestart, n.id) == nil {
			t := s.newTaskLocked(c.id, n.id, sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{"node_id": n.id})
			t.running = true
			s.logf("monitor: node %s is %s, queued node_restart %s", n.id, n.status, t.id)
			s.spawn(func(_ ctxT) { s.runNodeRestartTask(t.id, false, false) })
		}
	}
}

// readyForAutoActivationLocked: every node online for >= 30 s, except up
// to FTT deliberately stopped ones. While a start/update restart pass is
// still bringing nodes back, every node must be online.
func (s *Simulator) readyForAutoActivationLocked(c *clusterState, live []*nodeState, now time.Time) bool {
	stopped, online := int64(0), 0
	for _, n := range live {
		switch {
		case n.status == sb.NodeInCreation:
			continue
		case n.status == sb.NodeOnline && now.Sub(n.onlineSince) >= autoActivateOnlineFor:
			online++
		case n.status == sb.NodeOffline && n.autoRestartDisabled && c.restartPasses == 0:
			stopped++
		default:
			return false
		}
	}
	return online > 0 && stopped <= c.params.DistrNpcs
}
