package simulator

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Node lifecycle actions, backend-behaviour.md §4.4.

var (
	gracefulShutdownMin, gracefulShutdownMax = 2 * time.Second, 30 * time.Second
	fttRPCPerNode                            = 1 * time.Second // the FTT check's RPCs, inside the request
	promoteDuration                          = 5 * time.Second
)

// POST /suspend?force: online only (force is ignored), else 500. force is
// an endpoint query parameter: FastAPI validates it after the cluster and
// node lookups, so a 404 wins over its 422 (SN/:191-201).
func (s *Simulator) suspendNode(req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		return
	}
	var errs []valErr
	_ = queryBool(req.r, "force", &errs)
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	if n.status != sb.NodeOnline {
		s.logf("suspend node %s refused: status %s", n.id, n.status)
		writeInternalError(req.w)
		return
	}
	s.setNodeStatusLocked(n, sb.NodeSuspended)
	n.autoRestartDisabled = true // SNO:6157-6160
	req.w.WriteHeader(http.StatusNoContent)
}

// POST /resume: suspended only, else 500.
func (s *Simulator) resumeNode(req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		return
	}
	if n.status != sb.NodeSuspended {
		s.logf("resume node %s refused: status %s", n.id, n.status)
		writeInternalError(req.w)
		return
	}
	n.autoRestartDisabled = false
	s.setNodeStatusLocked(n, sb.NodeOnline)
	req.w.WriteHeader(http.StatusNoContent)
}

// POST /shutdown?force (SN/:212-237). Without force, in sbcli's order:
// the FTT check first (_check_ftt_allows_node_removal, SNO:5514-5640),
// whose refusal is a ValueError, so a plain-text 500; its RPCs to the
// online peers run inside the request. Then
// check_node_shutdown_preconditions (SNO:5780-5899), whose refusal is a
// 409 {"detail": reason}. The work runs after the 202.
func (s *Simulator) shutdownNode(req *request) {
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		s.mu.Unlock()
		return
	}
	var errs []valErr
	force := queryBool(req.r, "force", &errs)
	if len(errs) > 0 {
		s.mu.Unlock()
		writeValidation(req.w, errs)
		return
	}
	id := n.id
	if !force {
		refusal, rpcPeers := s.fttCheckLocked(n)
		s.mu.Unlock()
		if rpcPeers > 0 && !s.sleep(time.Duration(rpcPeers)*fttRPCPerNode) {
			writeInternalError(req.w)
			return
		}
		if refusal != "" {
			s.logf("shutdown node %s refused: %s", id, refusal)
			writeInternalError(req.w)
			return
		}
		s.mu.Lock()
		msg := s.shutdownPreconditionsLocked(id)
		s.mu.Unlock()
		if msg != "" {
			writeDetail(req.w, http.StatusConflict, msg)
			return
		}
	} else {
		s.mu.Unlock()
	}
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runNodeShutdown(id, force) })
	}
	accepted(req.w)
}

// fttCheckLocked is _check_ftt_allows_node_removal (SNO:5514-5640) as the
// graceful shutdown endpoint runs it (SN/:214-219). It returns the refusal
// reason ("" = allowed; sbcli only logs it, the answer is a plain 500) and
// the number of online peers its JM-replication probe calls (two RPCs each,
// 5 s timeout, inside the request). Only HA clusters are checked, activated
// or not. The simulator has no journal replication, so the probe never
// adds a not-online node. max_fault_tolerance is distr_npcs in the
// simulator, so the npcs=2/ft=1 branch (SNO:5590-5634) cannot occur.
func (s *Simulator) fttCheckLocked(n *nodeState) (string, int) {
	c := s.m.cluster(n.clusterID)
	if c == nil || c.params.HAType != "ha" {
		return "", 0
	}
	ndcs, npcs := c.params.DistrNdcs, c.params.DistrNpcs
	nodes := s.m.clusterNodes(n.clusterID)
	counted := func(o *nodeState) bool { return o.status != sb.NodeInCreation && o.status != sb.NodeRemoved }
	total, notOnline, rpcPeers := int64(0), int64(0), 0
	for _, o := range nodes {
		if counted(o) {
			total++
		}
		if o.id == n.id {
			continue
		}
		if counted(o) && o.status != sb.NodeOnline {
			notOnline++
		}
		if o.status == sb.NodeOnline {
			rpcPeers++
		}
	}
	// During rebalancing the headroom over ndcs+npcs must exceed the peers
	// already not online (SNO:5546-5567); this refusal comes before the RPCs.
	if c.isReBalancing {
		if headroom := total - (ndcs + npcs); headroom <= notOnline {
			return fmt.Sprintf("Cluster is rebalancing with %d active nodes (%d already not online, need >%d for ndcs=%d, npcs=%d). "+
				"Wait for rebalancing to complete before removing a node.", total, notOnline, ndcs+npcs, ndcs, npcs), 0
		}
	}
	switch {
	case npcs == 1 && notOnline > 0:
		return fmt.Sprintf("FTT=1 (npcs=1): cannot remove node, cluster already has %d not-online node(s)", notOnline), rpcPeers
	case npcs == 2 && notOnline >= 2:
		return fmt.Sprintf("FTT=2 (npcs=2): cannot remove node, cluster already has %d not-online node(s)", notOnline), rpcPeers
	}
	return "", rpcPeers
}

// shutdownPreconditionsLocked is check_node_shutdown_preconditions without
// force (SNO:5780-5899): the first refusal's reason, or "". The texts are
// sbcli's.
func (s *Simulator) shutdownPreconditionsLocked(id string) string {
	n := s.m.node(id)
	if n == nil {
		return "Storage node not found: " + id
	}
	c := s.m.cluster(n.clusterID)
	// 1. A live restart claim on the node itself (SNO:5805-5822).
	if (n.status == sb.NodeInRestart || n.status == sb.NodeInShutdown) && n.restartClaim {
		return fmt.Sprintf("Node %s is %s under a live restart claim (%s); shutdown refused until the claim is released or expires",
			n.id, n.status, n.claimOwner)
	}
	// 2. Any peer record restarting or shutting down, in DB order
	// (SNO:5825-5840).
	for _, o := range s.m.clusterNodes(n.clusterID) {
		if o.id == n.id {
			continue
		}
		switch o.status {
		case sb.NodeInRestart:
			return fmt.Sprintf("Node %s is restarting in this cluster, cannot shutdown %s concurrently", o.id, n.id)
		case sb.NodeInShutdown:
			return fmt.Sprintf("Node %s is already shutting down in this cluster, cannot shutdown %s concurrently", o.id, n.id)
		}
	}
	// 3. An open node_restart task of the node (SNO:5842-5848, TC:660-666).
	if t := s.activeNodeRestartTaskLocked(n); t != nil {
		return fmt.Sprintf("Restart task found: %s, can not shutdown storage node", t.id)
	}
	// 4. Data-movement tasks of the node, unless FTT=2 allows the outage
	// (SNO:5850-5883, 5664-5670).
	migration := map[string]bool{sb.TaskFunctionDeviceMigration: true, taskFailedDeviceMigration: true,
		sb.TaskFunctionNewDeviceMigration: true, "lvol_migration": true, "lvol_batch_migration": true}
	count, fns := 0, map[string]bool{}
	for _, t := range s.activeNodeTasksLocked(n) {
		if migration[t.fn] {
			count++
			fns[t.fn] = true
		}
	}
	ftt2 := c != nil && c.params.HAType == "ha" && c.params.DistrNpcs >= 2 // max_fault_tolerance = distr_npcs
	if count > 0 && !ftt2 {
		names := make([]string, 0, len(fns))
		for fn := range fns {
			names = append(names, fn)
		}
		sort.Strings(names)
		return fmt.Sprintf("Migration task found: %d (%s), can not shutdown storage node or use --force",
			count, strings.Join(names, ", "))
	}
	// 5. The node's own status (SNO:5885-5897).
	switch n.status {
	case sb.NodeOnline, sb.NodeSuspended, sb.NodeDown:
		return ""
	}
	return fmt.Sprintf("Node is in %s state; only online/suspended/down can be gracefully shut down. Use --force.", n.status)
}

// activeNodeRestartTaskLocked is get_active_node_restart_task (TC:660-666):
// the node's node_restart task that is neither done nor canceled.
func (s *Simulator) activeNodeRestartTaskLocked(n *nodeState) *taskState {
	for _, t := range s.m.clusterTasks(n.clusterID) {
		if t.fn == sb.TaskFunctionNodeRestart && t.nodeID == n.id && t.status != sb.TaskDone && !t.canceled {
			return t
		}
	}
	return nil
}

// runNodeShutdown is the background part of a node shutdown.
func (s *Simulator) runNodeShutdown(id string, force bool) {
	s.mu.Lock()
	n := s.m.node(id)
	// A forced shutdown has no removed guard (backend-contract.md M7); a
	// graceful one was refused by its precondition check.
	if n == nil || (!force && n.status == sb.NodeRemoved) {
		s.mu.Unlock()
		return
	}
	c := s.m.cluster(n.clusterID)
	if c == nil || (!force && c.status == sb.ClusterInExpansion) {
		s.mu.Unlock()
		s.logf("shutdown node %s: refused after 202, cluster is in_expansion", id)
		return
	}
	if n.restartClaim {
		s.mu.Unlock()
		s.logf("shutdown node %s: refused after 202, restart claim held", id)
		return
	}
	n.autoRestartDisabled = true
	s.setNodeStatusLocked(n, sb.NodeInShutdown)
	s.cancelNodeMigrationsLocked(n)
	if !force {
		// Loop 1: "Device status changed from: online to: unavailable"
		// per device (SNO:6034-6065, DE:57-58). A forced shutdown skips it.
		s.devicesUnavailableLocked(n)
	}
	stuck := n.decommissioned || s.faults.take(FaultNodeStuckInShutdown, nodePred(id)) != nil
	d := s.randDurLocked(gracefulShutdownMin, gracefulShutdownMax)
	s.mu.Unlock()
	if !s.sleep(d) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.m.node(id); n != nil && n.status == sb.NodeInShutdown {
		if stuck {
			n.killFailed = true
			s.logf("shutdown node %s: failed to kill SPDK (fault); left in_shutdown", id)
			return
		}
		s.setNodeStatusLocked(n, sb.NodeOffline)
	}
}

// POST /restart and /start: a body is required ({} for defaults); 202 with
// no synchronous checks.
// The body is an endpoint parameter: FastAPI validates it after the cluster
// and node lookups, so a 404 wins over its 422 (SN/:249-251).
func (s *Simulator) restartNodeHandler(req *request) {
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	s.mu.Unlock()
	if n == nil {
		return
	}
	var body sb.RestartParams
	if _, errs := decodeBody(req.r, &body); len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	id, addr := n.id, ""
	if body.NodeAddress != nil {
		addr = *body.NodeAddress
	}
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.apiRestart(id, body.Force, addr) })
	}
	accepted(req.w)
}

// POST /promote: always 204 after ~5 s.
func (s *Simulator) promoteNode(req *request) {
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	s.mu.Unlock()
	if n == nil {
		return
	}
	if !s.sleep(promoteDuration) {
		writeInternalError(req.w)
		return
	}
	req.w.WriteHeader(http.StatusNoContent)
}

// apiRestart is the API's restart: restartNode in the background, with
// the request's force and node_address.
func (s *Simulator) apiRestart(id string, force bool, addr string) {
	s.restartNode(id, force, false, addr)
}

// restartNode is restart_storage_node's wrapper (SNO:4292-4380): unless the
// node is in_restart or in_shutdown, it first makes sure the node has a
// node_restart task (ensure_node_restart_task, TC:131-147: "Task created"
// for a new one) and holds its lease while the restart runs. A refused or
// failed restart leaves that task open: the restart runner takes it once
// the lease went stale (180 s) and carries the restart out with force
// (runNodeRestartTask). A node that goes online cancels the task.
func (s *Simulator) restartNode(id string, force, injectFail bool, addr string) restartResult {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil {
		s.mu.Unlock()
		return restartRefused
	}
	var owned *taskState
	if n.status != sb.NodeInRestart && n.status != sb.NodeInShutdown {
		t := s.activeNodeRestartTaskLocked(n)
		if t == nil {
			t = s.newTaskLocked(n.clusterID, id, sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
		}
		// claim_task succeeds unless a live runner holds the lease.
		if !t.running {
			owned, t.running = t, true
		}
	}
	ownID := ""
	if owned != nil {
		ownID = owned.id
	}
	s.mu.Unlock()
	res := s.restartAttempt(id, force, injectFail, addr, ownID)
	if owned == nil {
		return res
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if owned.status == sb.TaskDone {
		owned.running = false
		return res
	}
	// The lease is no longer refreshed; the runner takes the task when it
	// goes stale.
	s.spawn(func(_ ctxT) { s.runNodeRestartTask(owned.id, taskLeaseTTL) })
	return res
}

// restartGuardLocked returns why _restart_storage_node_impl refuses before
// taking the claim, or "". ownTask is the node_restart task the caller
// holds the lease of.
func (s *Simulator) restartGuardLocked(n *nodeState, force bool, ownTask string) string {
	c := s.m.cluster(n.clusterID)
	// In _restart_storage_node_impl's order (SNO:4548-4582).
	switch {
	case c == nil:
		return "cluster gone"
	case !force && n.status != sb.NodeOffline:
		// "Node must be offline" (SNO:4548-4550): schedulable too is
		// refused without force.
		return "Node must be offline: " + n.id
	case n.status == sb.NodeRemoved:
		return "Can not restart removed node: " + n.id
	case c.status == sb.ClusterInActivation:
		return "Cluster is in activation status, can not restart node"
	}
	if t := s.activeNodeRestartTaskLocked(n); !force && t != nil && t.id != ownTask {
		return fmt.Sprintf("Restart task found: %s, can not restart storage node", t.id)
	}
	if n.restartClaim {
		return "restart claim held"
	}
	// try_set_node_restarting (SNO:4584-4590) over the live records.
	if busy := busyPeerLocked(n, c, s.m.liveNodes(n.clusterID)); busy != nil {
		return fmt.Sprintf("peer %s is %s", busy.id, busy.status)
	}
	return ""
}

// newClaimToken is a restart claim owner, shaped like
// _new_restart_claim_token's "<hostname>:<pid>:<uuid hex[:8]>"
// (SNO:4519-4525).
func newClaimToken() string { return "simplyblock-sim:1:" + strings.ReplaceAll(newID(), "-", "")[:8] }

type restartResult int

const (
	restartOK      restartResult = iota
	restartRefused               // guard failed; nothing changed
	restartFailed                // claim taken, SPDK killed, node offline
)

// restartAttempt is one restart_storage_node call: offline -> in_restart
// -> online. injectFail makes it fail after the claim (start abort). A
// non-empty addr moves the node there when the claim is taken: the record
// keeps its UUID, its address and management IP change.
func (s *Simulator) restartAttempt(id string, force, injectFail bool, addr, ownTask string) restartResult {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil {
		s.mu.Unlock()
		return restartRefused
	}
	if reason := s.restartGuardLocked(n, force, ownTask); reason != "" {
		s.mu.Unlock()
		s.logf("restart node %s refused: %s", id, reason)
		return restartRefused
	}
	c := s.m.cluster(n.clusterID)
	n.restartClaim, n.claimOwner = true, newClaimToken()
	if addr != "" && addr != n.address {
		s.moveNodeLocked(n, addr)
	}
	s.setNodeStatusLocked(n, sb.NodeInRestart)
	stuck := s.faults.take(FaultNodeStuckInRestart, nodePred(id)) != nil
	d := s.randDurLocked(restartMin, restartMax)
	switch c.status {
	case sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly:
		d += s.randDurLocked(10*time.Second, 30*time.Second) // long branch: LVS recreation
	}
	if stuck {
		d = restartClaimTTL
	}
	s.mu.Unlock()
	if !s.sleep(d) {
		return restartFailed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n = s.m.node(id)
	if n == nil {
		return restartFailed
	}
	n.restartClaim, n.claimOwner = false, ""
	// A removed record brought back by a forced shutdown has no host any
	// more (M7): its restart fails too.
	if stuck || injectFail || n.decommissioned || s.clk.now().Before(n.outageUntil) || n.status != sb.NodeInRestart {
		s.logf("restart node %s failed; SPDK killed, node offline", id)
		n.autoRestartDisabled = true
		if n.status != sb.NodeRemoved {
			// The wrapper's cleanup assigns OFFLINE before it builds the
			// event, so the log reads "from: offline to: offline"
			// (SNO:4411-4425), whatever the status was.
			n.status = sb.NodeOffline
			n.statusSince = s.clk.now()
			s.nodeStatusEventLocked(n, sb.NodeOffline, sb.NodeOffline)
		}
		return restartFailed
	}
	n.autoRestartDisabled = false
	n.outageUntil = time.Time{}
	s.devicesRestartedLocked(n)
	s.setNodeStatusLocked(n, sb.NodeOnline)
	s.addMigrationTasksLocked(n.clusterID)
	return restartOK
}

// runNodeRestartTask is the restart runner (RR:319-633) driving a
// node_restart task after delay: every attempt is forced and never passes a
// node_address (RR:589). In order: max retries reached ends the task and
// sets the node offline; a removed or schedulable node ends it "Node is
// <status>, stopping", an online one "Node is online", one in_restart when
// the task is not running yet "Node is restarting"; a peer restarting or
// shutting down defers without consuming a retry; an unreachable host
// consumes one ("Node is unreachable, retry"); a node that is not offline
// is force-shut-down first; a restart that does not end online consumes one.
func (s *Simulator) runNodeRestartTask(tid string, delay time.Duration) {
	for {
		if !s.sleep(delay) {
			return
		}
		s.mu.Lock()
		t := s.m.task(tid)
		if t == nil || t.status == sb.TaskDone {
			if t != nil {
				t.running = false
			}
			s.mu.Unlock()
			return
		}
		t.running = true
		finish := func(result string) {
			t.status, t.result, t.running = sb.TaskDone, result, false
		}
		n := s.m.node(t.nodeID)
		c := s.m.cluster(t.clusterID)
		switch {
		case n == nil || c == nil:
			finish("node not found")
		case t.retry >= t.maxRetry && t.maxRetry >= 0:
			finish(maxRetryReached)
			if n.status != sb.NodeOnline && n.status != sb.NodeRemoved {
				s.setNodeStatusLocked(n, sb.NodeOffline)
			}
		case n.status == sb.NodeRemoved || n.status == sb.NodeSchedulable:
			finish(fmt.Sprintf("Node is %s, stopping", n.status))
		case n.status == sb.NodeOnline:
			finish("Node is online")
		case t.canceled:
			finish("canceled")
		case t.status != sb.TaskRunning && n.status == sb.NodeInRestart:
			finish("Node is restarting")
		}
		if t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		t.status = sb.TaskRunning
		delay = taskPoll
		if s.autoRestartPausedLocked(c, s.m.clusterNodes(c.id)) {
			// Suspended and still draining (RR:855-870): re-polled later,
			// no retry consumed.
			s.mu.Unlock()
			continue
		}
		if busy := busyPeerLocked(n, c, s.m.clusterNodes(n.clusterID)); busy != nil {
			t.result = fmt.Sprintf("Peer %s is %s; deferring (no retry consumed)", busy.id[:8], busy.status)
			s.mu.Unlock()
			continue
		}
		if s.clk.now().Before(n.outageUntil) {
			t.result = "Node is unreachable, retry"
			t.retry++
			delay = backoff(t.retry)
			s.mu.Unlock()
			continue
		}
		if n.restartClaim && (n.status == sb.NodeInRestart || n.status == sb.NodeInShutdown) {
			t.result = "Node restart claim held; deferring (no retry consumed)"
			s.mu.Unlock()
			continue
		}
		id, offline := n.id, n.status == sb.NodeOffline
		s.mu.Unlock()

		if !offline && !s.forceShutdownNode(id, false, false) {
			return
		}
		res := s.restartAttempt(id, true, false, "", tid)

		s.mu.Lock()
		t = s.m.task(tid)
		if t == nil || t.status == sb.TaskDone || res == restartOK {
			if t != nil && t.status != sb.TaskDone {
				finish("done")
			} else if t != nil {
				t.running = false
			}
			s.mu.Unlock()
			return
		}
		t.retry++
		t.status = sb.TaskSuspended
		delay = max(restartClaimTTL, backoff(t.retry))
		s.mu.Unlock()
	}
}

// busyPeerLocked returns a peer of n among peers that is in_restart or
// in_shutdown, unless the cluster is suspended and drained: peers may then
// restart concurrently (SNO:4584-4590; the runner's pre-check, RR:412-434,
// over every record). An operator-caused suspension never drains.
func busyPeerLocked(n *nodeState, c *clusterState, peers []*nodeState) *nodeState {
	if c.status == sb.ClusterSuspended && c.suspendDrainComplete {
		return nil
	}
	for _, o := range peers {
		if o.id != n.id && (o.status == sb.NodeInRestart || o.status == sb.NodeInShutdown) {
			return o
		}
	}
	return nil
}

// cancelNodeMigrationsLocked is shutdown_storage_node's step 2
// (SNO:6020-6031): the node's open device_migration,
// failed_device_migration and new_device_migration tasks are canceled by a
// direct write, without an event. A canceled failure migration never marks
// its device failed_and_migrated.
func (s *Simulator) cancelNodeMigrationsLocked(n *nodeState) {
	for _, t := range s.m.clusterTasks(n.clusterID) {
		if t.nodeID == n.id && t.status != sb.TaskDone && (t.fn == sb.TaskFunctionDeviceMigration ||
			t.fn == sb.TaskFunctionNewDeviceMigration || t.fn == taskFailedDeviceMigration) {
			t.canceled = true
			t.status, t.result = sb.TaskDone, "canceled"
			s.updateMasterLocked(t.parentID)
		}
	}
}
