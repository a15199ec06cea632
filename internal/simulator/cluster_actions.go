package simulator

import (
	"net/http"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Cluster actions (backend-behaviour.md §3.3-3.9). activate, expand,
// shutdown and start answer 202 before checking anything and run in the
// background; their guards fail silently (server log only). update and
// rebalance run inside the request.

// Durations of the background steps (backend time, scaled by Speed).
var (
	meshWaitMin, meshWaitMax     = 5 * time.Second, 60 * time.Second // full device mesh (limit 300 s)
	lvsPassMin, lvsPassMax       = 8 * time.Second, 45 * time.Second // each of the 4 passes: 30 s-3 min in total
	expandPerNodeMin, expandMax  = 30 * time.Second, 50 * time.Second
	nodeKillMin, nodeKillMax     = 5 * time.Second, 20 * time.Second
	restartMin, restartMax       = 20 * time.Second, 90 * time.Second
	updatePatchMin, updatePatchM = 5 * time.Second, 30 * time.Second
	heartbeatInterval            = 60 * time.Second
	startWaitTick                = 5 * time.Second
)

func accepted(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) }

// POST /clusters/{id}/activate
func (s *Simulator) postActivate(req *request) {
	cid := req.params["cluster_id"]
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runActivation(cid, false, "api") })
	}
	accepted(req.w)
}

// POST /clusters/{id}/expand (legacy path)
func (s *Simulator) postExpand(req *request) {
	cid := req.params["cluster_id"]
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runLegacyExpand(cid) })
	}
	accepted(req.w)
}

// POST /clusters/{id}/shutdown
func (s *Simulator) postShutdown(req *request) {
	cid := req.params["cluster_id"]
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runClusterShutdown(cid) })
	}
	accepted(req.w)
}

// POST /clusters/{id}/start
func (s *Simulator) postStart(req *request) {
	cid := req.params["cluster_id"]
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runClusterStart(cid) })
	}
	accepted(req.w)
}

// runActivation is cluster_activate (OPS:981-1704). force is the monitor's
// auto-activation, which skips the "already active" and "nodes added"
// guards.
func (s *Simulator) runActivation(cid string, force bool, causedBy string) {
	s.mu.Lock()
	c := s.m.cluster(cid)
	if c == nil {
		s.mu.Unlock()
		return
	}
	if c.status == sb.ClusterActive && !force {
		s.mu.Unlock()
		s.logf("activate %s: cluster is already active (no-op)", cid)
		return
	}
	if c.activatedNodeIDs != nil && !force && s.nodesAddedSinceLocked(c) {
		s.mu.Unlock()
		s.logf("activate %s: nodes were added since the last activation; use expansion", cid)
		return
	}
	prev := c.status
	if prev == sb.ClusterInActivation {
		prev = sb.ClusterUnready
	} else {
		s.setClusterStatusLocked(c, sb.ClusterInActivation, causedBy)
	}
	now := s.clk.now()
	c.heartbeat, c.activationStart = now, now
	death := s.faults.take(FaultActivationDriverDeath, clusterPred(cid))
	fail := s.faults.take(FaultActivationFailure, clusterPred(cid))
	onlineDevices, onlineNodes := 0, 0
	for _, n := range s.m.liveNodes(cid) {
		if n.status == sb.NodeOnline {
			onlineNodes++
			onlineDevices += devicesPerNode
		}
	}
	need := int(c.params.DistrNdcs + c.params.DistrNpcs + 1)
	secondaries := 0 // secondary (and, for FTT=2, tertiary) nodes needed
	if c.params.HAType == "ha" {
		secondaries = 1
		if c.params.DistrNpcs >= 2 {
			secondaries = 2
		}
	}
	c.autoActivationPending = false
	s.mu.Unlock()

	if death != nil {
		s.logf("activate %s: driver died (fault); cluster left in_activation for the watchdog", cid)
		return
	}
	revert := func(reason string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if c := s.m.cluster(cid); c != nil {
			s.logf("activate %s failed: %s", cid, reason)
			s.setClusterStatusLocked(c, prev, causedBy)
		}
	}
	if onlineDevices < need {
		revert("No enough online device")
		return
	}
	elapsed := time.Duration(0)
	// wait sleeps d while beating the heartbeat; it returns false when the
	// run must stop (closing, cluster deleted, or injected failure).
	wait := func(d time.Duration) bool {
		if fail != nil && elapsed+d >= time.Duration(fail.After) {
			d = time.Duration(fail.After) - elapsed
			s.beatingSleep(cid, d)
			revert("LVS creation failed (injected)")
			return false
		}
		elapsed += d
		return s.beatingSleep(cid, d)
	}
	if !wait(s.randDur(meshWaitMin, meshWaitMax)) {
		return
	}
	if onlineNodes < secondaries+1 {
		revert("No enough secondary nodes")
		return
	}
	for pass := 1; pass <= 4; pass++ {
		if !wait(s.randDur(lvsPassMin, lvsPassMax)) {
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c = s.m.cluster(cid)
	if c == nil {
		return
	}
	var online []*nodeState
	for _, n := range s.m.liveNodes(cid) {
		if n.status == sb.NodeOnline {
			online = append(online, n)
		}
	}
	for i, n := range online {
		n.hasLVStore = true
		if secondaries > 0 && len(online) > 1 {
			n.secondaryNodeID = online[(i+1)%len(online)].id
		}
	}
	c.activatedNodeIDs = []string{}
	for _, n := range s.m.liveNodes(cid) {
		if n.hasLVStore {
			c.activatedNodeIDs = append(c.activatedNodeIDs, n.id)
		}
	}
	s.setClusterStatusLocked(c, sb.ClusterActive, causedBy)
}

// beatingSleep sleeps d, writing the activation heartbeat every 60 s.
func (s *Simulator) beatingSleep(cid string, d time.Duration) bool {
	for d > 0 {
		step := min(d, heartbeatInterval)
		if !s.sleep(step) {
			return false
		}
		d -= step
		s.mu.Lock()
		c := s.m.cluster(cid)
		if c != nil && c.status == sb.ClusterInActivation {
			c.heartbeat = s.clk.now()
		}
		s.mu.Unlock()
		if c == nil {
			return false
		}
	}
	return true
}

// nodesAddedSinceLocked reports whether a live node exists that the last
// activation did not include.
func (s *Simulator) nodesAddedSinceLocked(c *clusterState) bool {
	known := map[string]bool{}
	for _, id := range c.activatedNodeIDs {
		known[id] = true
	}
	for _, n := range s.m.liveNodes(c.id) {
		if !known[n.id] {
			return true
		}
	}
	return false
}

// runLegacyExpand is POST /expand (OPS:1707-1782).
func (s *Simulator) runLegacyExpand(cid string) {
	s.mu.Lock()
	c := s.m.cluster(cid)
	if c == nil {
		s.mu.Unlock()
		return
	}
	switch c.status {
	case sb.ClusterActive, sb.ClusterInExpansion, sb.ClusterReadOnly, sb.ClusterDegraded:
	default:
		s.mu.Unlock()
		s.logf("expand %s: cluster status %s does not allow expansion", cid, c.status)
		return
	}
	prev := c.status
	s.setClusterStatusLocked(c, sb.ClusterInExpansion, "api")
	exc := s.faults.take(FaultExpansionException, clusterPred(cid))
	var fresh []string
	for _, n := range s.m.liveNodes(cid) {
		if n.status == sb.NodeOnline && !n.hasLVStore {
			fresh = append(fresh, n.id)
		}
	}
	need := 1
	if c.params.HAType == "ha" {
		need = 2
		if c.params.DistrNpcs >= 2 {
			need = 3
		}
	}
	s.mu.Unlock()
	if exc != nil {
		s.logf("expand %s: exception after setting in_expansion (fault); stuck", cid)
		return
	}
	s.expandNodes(cid, prev, fresh, need, "api")
}

// expandNodes creates lvstores on the fresh nodes (~40 s each) and sets
// active; with fewer than need fresh HA nodes it reverts to prev.
func (s *Simulator) expandNodes(cid string, prev sb.ClusterStatus, fresh []string, need int, causedBy string) bool {
	if len(fresh) > 0 && len(fresh) < need {
		s.mu.Lock()
		if c := s.m.cluster(cid); c != nil {
			s.logf("expand %s: A minimum of %d new nodes are required to expand cluster", cid, need)
			s.setClusterStatusLocked(c, prev, causedBy)
		}
		s.mu.Unlock()
		return false
	}
	for _, id := range fresh {
		if !s.sleep(s.randDur(expandPerNodeMin, expandMax)) {
			return false
		}
		s.mu.Lock()
		if n := s.m.node(id); n != nil {
			n.hasLVStore = true
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(cid)
	if c == nil {
		return false
	}
	for i, id := range fresh {
		if n := s.m.node(id); n != nil && len(fresh) > 1 && need > 1 {
			n.secondaryNodeID = fresh[(i+1)%len(fresh)]
		}
		c.activatedNodeIDs = append(c.activatedNodeIDs, id)
	}
	s.setClusterStatusLocked(c, sb.ClusterActive, causedBy)
	return true
}

// runClusterShutdown is cluster_grace_shutdown (OPS:2652-2660): every node
// record in DB order, removed ones included, suspend (online only) then
// force shutdown. The monitor derives the cluster status.
func (s *Simulator) runClusterShutdown(cid string) {
	for _, id := range s.nodeIDs(cid) {
		if !s.forceShutdownNode(id, true, false) {
			return
		}
	}
}

func (s *Simulator) nodeIDs(cid string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, n := range s.m.clusterNodes(cid) {
		ids = append(ids, n.id)
	}
	return ids
}

// forceShutdownNode is (suspend +) shutdown_storage_node(force=True)
// (SNO:5940-6091): in_shutdown, auto_restart_disabled, the node's
// migration tasks canceled, kill SPDK, offline. It has no guard against a
// removed record (backend-contract.md M7): one goes in_shutdown too
// ("from: removed to: in_shutdown"); its host is gone, so the kill fails
// and it stays in_shutdown until the monitor reconciles it to offline after
// 120 s (MON:1475-1485), as for a failed kill (fault). A live restart
// claim refuses even a forced shutdown (SNO:5805-5822). keepAutoRestart is
// the suspend-recovery drain's shutdown, which leaves auto_restart_disabled
// unset. It returns false only when the simulator is closing.
func (s *Simulator) forceShutdownNode(id string, suspendFirst, keepAutoRestart bool) bool {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil {
		s.mu.Unlock()
		return true
	}
	finish := s.beginForceShutdownLocked(n, suspendFirst, keepAutoRestart)
	s.mu.Unlock()
	return finish()
}

// beginForceShutdownLocked is forceShutdownNode's synchronous part, up to
// in_shutdown; the returned function kills SPDK and sets the node offline.
func (s *Simulator) beginForceShutdownLocked(n *nodeState, suspendFirst, keepAutoRestart bool) func() bool {
	id := n.id
	if n.restartClaim && (n.status == sb.NodeInRestart || n.status == sb.NodeInShutdown) {
		s.logf("shutdown node %s: refused, a restart holds the claim", id)
		return func() bool { return true }
	}
	if suspendFirst && n.status == sb.NodeOnline {
		s.setNodeStatusLocked(n, sb.NodeSuspended)
	}
	s.setNodeStatusLocked(n, sb.NodeInShutdown)
	// The suspend-recovery drain keeps auto-restart (SNO:6011-6018).
	n.autoRestartDisabled = !keepAutoRestart
	s.cancelNodeMigrationsLocked(n)
	stuck := n.decommissioned || s.faults.take(FaultNodeStuckInShutdown, nodePred(id)) != nil
	d := s.randDurLocked(nodeKillMin, nodeKillMax)
	return func() bool {
		if !s.sleep(d) {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if n := s.m.node(id); n != nil && n.status == sb.NodeInShutdown {
			if stuck {
				n.killFailed = true
				s.logf("shutdown node %s: failed to kill SPDK; left in_shutdown", id)
			} else {
				s.setNodeStatusLocked(n, sb.NodeOffline)
			}
		}
		return true
	}
}

// runClusterStart is cluster_grace_startup (OPS:2622-2649): force shutdown
// of every record, removed ones included, then restart_storage_node(force)
// of every record in DB order; a record that does not end online aborts the
// start, leaving the later ones offline. A removed record's host is gone, so
// its restart fails (offline -> offline) and aborts the start there.
func (s *Simulator) runClusterStart(cid string) {
	ids := s.nodeIDs(cid)
	for _, id := range ids {
		if !s.forceShutdownNode(id, false, false) {
			return
		}
	}
	for i, id := range ids {
		abort := s.faults.take(FaultStartAbort, func(x *Fault) bool {
			return x.NodeIndex == i+1 && (x.ClusterID == "" || x.ClusterID == cid)
		}) != nil
		if s.restartNode(id, true, abort, "") != restartOK {
			s.logf("start %s: failed to restart node %s; remaining nodes abandoned", cid, id)
			return
		}
	}
	s.mu.Lock()
	c := s.m.cluster(cid)
	unready := c != nil && c.status == sb.ClusterUnready
	s.mu.Unlock()
	if c == nil {
		return
	}
	if unready {
		s.logf("start %s: cluster is unready, please manually activate", cid)
		return
	}
	for {
		if !s.sleep(startWaitTick) {
			return
		}
		s.mu.Lock()
		c := s.m.cluster(cid)
		done := c == nil || c.status == sb.ClusterActive
		s.mu.Unlock()
		if done {
			return
		}
	}
}

// POST /clusters/{id}/update: synchronous, may outlast any client timeout;
// the work continues after the client gave up.
func (s *Simulator) postUpdate(req *request) {
	var body sb.UpdateParams
	if _, errs := decodeBody(req.r, &body, "management_image", "spdk_image"); len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	cid := req.params["cluster_id"]
	mgmtOnly := body.SpdkImage == nil && !body.Restart
	if !s.sleep(s.randDur(updatePatchMin, updatePatchM)) {
		writeInternalError(req.w)
		return
	}
	s.mu.Lock()
	c := s.m.cluster(cid)
	if c == nil {
		s.mu.Unlock()
		writeInternalError(req.w)
		return
	}
	if body.ManagementImage != nil {
		c.mgmtImage = *body.ManagementImage
	}
	if body.SpdkImage != nil {
		c.spdkImage = *body.SpdkImage
	}
	// update_cluster writes no event of its own (OPS:2420-2559).
	s.mu.Unlock()
	if !mgmtOnly && body.SpdkImage != nil {
		if !s.sleep(s.randDur(updatePatchMin, updatePatchM)) {
			writeInternalError(req.w)
			return
		}
	}
	if body.Restart {
		ids := s.nodeIDs(cid)
		for _, id := range ids {
			if s.nodeStatus(id) == sb.NodeOnline && !s.forceShutdownNode(id, true, false) {
				writeInternalError(req.w)
				return
			}
		}
		for i, id := range ids {
			if s.nodeStatus(id) != sb.NodeOffline {
				continue
			}
			abort := s.faults.take(FaultStartAbort, func(x *Fault) bool {
				return x.NodeIndex == i+1 && (x.ClusterID == "" || x.ClusterID == cid)
			}) != nil
			// A False result is not checked; an exception ends the loop
			// and the call still answers 204.
			s.restartNode(id, true, abort, "")
			if abort {
				s.logf("update %s: exception while restarting node %s; remaining nodes stay offline", cid, id)
				break
			}
		}
	}
	req.w.WriteHeader(http.StatusNoContent)
}

func (s *Simulator) nodeStatus(id string) sb.NodeStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.m.node(id); n != nil {
		return n.status
	}
	return ""
}

// POST /clusters/{id}/rebalance: 204; queues hidden device_migration tasks
// (deduplicated per node while open) and one listed balancing_on_restart
// master, reused while open.
func (s *Simulator) postRebalance(req *request) {
	cid := req.params["cluster_id"]
	s.mu.Lock()
	for _, n := range s.m.liveNodes(cid) {
		if n.status == sb.NodeOnline || n.status == sb.NodeDown {
			s.addMigrationTasksLocked(cid)
		}
	}
	s.mu.Unlock()
	req.w.WriteHeader(http.StatusNoContent)
}

// POST /clusters/{id}/addreplication: 202 with nothing running afterwards;
// an unknown target cluster or an unknown/inactive pool is a 500.
func (s *Simulator) postAddReplication(req *request) {
	var body struct {
		Target  string  `json:"snapshot_replication_target_cluster"`
		Timeout int64   `json:"snapshot_replication_timeout"`
		Pool    *string `json:"target_pool"`
	}
	if _, errs := decodeBody(req.r, &body, "snapshot_replication_target_cluster"); len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	target := s.m.cluster(body.Target)
	if target == nil {
		writeInternalError(req.w)
		return
	}
	if body.Pool != nil {
		ok := false
		for _, p := range s.m.clusterPools(target.id) {
			if (p.id == *body.Pool || p.name == *body.Pool) && p.status == sb.PoolActive {
				ok = true
			}
		}
		if !ok {
			writeInternalError(req.w)
			return
		}
	}
	accepted(req.w)
}
