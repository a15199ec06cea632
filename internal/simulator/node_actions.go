package simulator

import (
	"fmt"
	"net/http"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Node lifecycle actions, backend-behaviour.md §4.4.

var (
	gracefulShutdownMin, gracefulShutdownMax = 2 * time.Second, 30 * time.Second
	fttRPCPerNode                            = 1 * time.Second // the FTT check's RPCs, inside the request
	promoteDuration                          = 5 * time.Second
)

// POST /suspend?force: online only (force is ignored), else 500.
func (s *Simulator) suspendNode(req *request) {
	var errs []valErr
	_ = queryBool(req.r, "force", &errs)
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		return
	}
	if n.status != sb.NodeOnline {
		s.logf("suspend node %s refused: status %s", n.id, n.status)
		writeInternalError(req.w)
		return
	}
	n.autoRestartDisabled = true
	s.setNodeStatusLocked(n, sb.NodeSuspended)
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

// POST /shutdown?force: graceful checks are synchronous (409, FTT 500),
// the work runs after the 202.
func (s *Simulator) shutdownNode(req *request) {
	var errs []valErr
	force := queryBool(req.r, "force", &errs)
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		s.mu.Unlock()
		return
	}
	peers := 0
	if !force {
		if msg, status := s.gracefulShutdownCheckLocked(n); status != 0 {
			s.mu.Unlock()
			if status == http.StatusInternalServerError {
				writeInternalError(req.w)
			} else {
				writeDetail(req.w, status, msg)
			}
			return
		}
		peers = len(s.m.liveNodes(n.clusterID)) - 1
	}
	id := n.id
	s.mu.Unlock()
	if peers > 0 && !s.sleep(time.Duration(peers)*fttRPCPerNode) {
		writeInternalError(req.w)
		return
	}
	if !s.silentRefusal(req.r) {
		s.spawn(func(_ ctxT) { s.runNodeShutdown(id, force) })
	}
	accepted(req.w)
}

// gracefulShutdownCheckLocked returns the 409 reason (or 500 for the FTT
// check) of a non-force shutdown, or status 0.
func (s *Simulator) gracefulShutdownCheckLocked(n *nodeState) (string, int) {
	switch n.status {
	case sb.NodeOnline, sb.NodeSuspended, sb.NodeDown:
	default:
		return fmt.Sprintf("Node is in %s state; only online/suspended/down can be gracefully shut down. Use --force.", n.status), http.StatusConflict
	}
	c := s.m.cluster(n.clusterID)
	affected := int64(0)
	for _, o := range s.m.liveNodes(n.clusterID) {
		if o.id == n.id {
			continue
		}
		switch o.status {
		case sb.NodeInRestart:
			return fmt.Sprintf("Node %s is restarting in this cluster, cannot shutdown %s concurrently", o.id, n.id), http.StatusConflict
		case sb.NodeInShutdown:
			return fmt.Sprintf("Node %s is shutting down in this cluster, cannot shutdown %s concurrently", o.id, n.id), http.StatusConflict
		}
		if o.hasLVStore && o.status != sb.NodeOnline {
			affected++
		}
	}
	for _, t := range s.m.clusterTasks(n.clusterID) {
		if t.nodeID != n.id || t.status == sb.TaskDone {
			continue
		}
		if t.fn == sb.TaskFunctionNodeRestart {
			return fmt.Sprintf("Restart task found: %s, cannot shutdown node %s", t.id, n.id), http.StatusConflict
		}
		if (t.fn == sb.TaskFunctionDeviceMigration || t.fn == sb.TaskFunctionNewDeviceMigration) && c.params.DistrNpcs < 2 {
			return fmt.Sprintf("Migration task found: %s, cannot shutdown node %s", t.id, n.id), http.StatusConflict
		}
	}
	if n.restartClaim {
		return fmt.Sprintf("Node %s is being restarted (restart claim held), cannot shutdown", n.id), http.StatusConflict
	}
	if c.activatedNodeIDs != nil && n.hasLVStore && affected >= c.params.DistrNpcs {
		return "FTT check failed", http.StatusInternalServerError
	}
	return "", 0
}

// runNodeShutdown is the background part of a node shutdown.
func (s *Simulator) runNodeShutdown(id string, force bool) {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil || n.status == sb.NodeRemoved {
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
	for _, t := range s.m.clusterTasks(n.clusterID) {
		if t.nodeID == id && t.status != sb.TaskDone && (t.fn == sb.TaskFunctionDeviceMigration || t.fn == sb.TaskFunctionNewDeviceMigration) {
			t.canceled = true
			t.status, t.result = sb.TaskDone, "canceled"
			s.updateMasterLocked(t.parentID)
		}
	}
	stuck := s.faults.take(FaultNodeStuckInShutdown, nodePred(id)) != nil
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
func (s *Simulator) restartNodeHandler(req *request) {
	var body sb.RestartParams
	if _, errs := decodeBody(req.r, &body); len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	s.mu.Unlock()
	if n == nil {
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

// apiRestart is the restart wrapper: guards (silent refusal), then a
// created or reused node_restart task driven to completion. A new address
// (a node moved to another host) is kept on the task, so its retries use
// it too.
func (s *Simulator) apiRestart(id string, force bool, addr string) {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil {
		s.mu.Unlock()
		return
	}
	if reason := s.restartGuardLocked(n, force); reason != "" {
		s.mu.Unlock()
		s.logf("restart node %s refused after 202: %s", id, reason)
		return
	}
	t := s.m.openTask(n.clusterID, sb.TaskFunctionNodeRestart, id)
	if t == nil {
		t = s.newTaskLocked(n.clusterID, id, sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{"node_id": id, "force": force})
	}
	if addr != "" {
		t.params["node_address"] = addr
	}
	if t.running {
		s.mu.Unlock()
		return
	}
	t.running = true
	s.mu.Unlock()
	s.runNodeRestartTask(t.id, force, true)
}

// restartGuardLocked returns why restart_storage_node refuses before taking
// the claim, or "".
func (s *Simulator) restartGuardLocked(n *nodeState, force bool) string {
	c := s.m.cluster(n.clusterID)
	switch {
	case c == nil:
		return "cluster gone"
	case n.status == sb.NodeRemoved:
		return "node is removed"
	case c.status == sb.ClusterInActivation:
		return "cluster is in_activation"
	case !force && n.status != sb.NodeOffline && n.status != sb.NodeSchedulable:
		return fmt.Sprintf("node is %s, not offline", n.status)
	case n.restartClaim:
		return "restart claim held"
	}
	if c.status != sb.ClusterSuspended {
		for _, o := range s.m.liveNodes(n.clusterID) {
			if o.id != n.id && (o.status == sb.NodeInRestart || o.status == sb.NodeInShutdown) {
				return fmt.Sprintf("peer %s is %s", o.id, o.status)
			}
		}
	}
	return ""
}

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
func (s *Simulator) restartAttempt(id string, force, injectFail bool, addr string) restartResult {
	s.mu.Lock()
	n := s.m.node(id)
	if n == nil {
		s.mu.Unlock()
		return restartRefused
	}
	if reason := s.restartGuardLocked(n, force); reason != "" {
		s.mu.Unlock()
		s.logf("restart node %s refused: %s", id, reason)
		return restartRefused
	}
	c := s.m.cluster(n.clusterID)
	n.restartClaim = true
	if addr != "" && addr != n.address {
		s.moveNodeLocked(c, n, addr)
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
	n.restartClaim = false
	if stuck || injectFail || s.clk.now().Before(n.outageUntil) || n.status != sb.NodeInRestart {
		s.logf("restart node %s failed; SPDK killed, node offline", id)
		n.autoRestartDisabled = true
		if n.status != sb.NodeRemoved {
			s.setNodeStatusLocked(n, sb.NodeOffline)
		}
		return restartFailed
	}
	n.autoRestartDisabled = false
	n.outageUntil = time.Time{}
	s.setNodeStatusLocked(n, sb.NodeOnline)
	s.addMigrationTasksLocked(n.clusterID, n.id)
	return restartOK
}

// runNodeRestartTask drives a node_restart task. A success ends the task
// done+canceled "canceled: node back online"; a failure leaves it open and
// it is retried once the lease went stale (180 s), at most 11 times.
func (s *Simulator) runNodeRestartTask(tid string, force, immediate bool) {
	delay := taskPoll
	if immediate {
		delay = 0
	}
	for {
		if !s.sleep(delay) {
			return
		}
		s.mu.Lock()
		t := s.m.task(tid)
		if t == nil || t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		n := s.m.node(t.nodeID)
		if n == nil || n.status == sb.NodeRemoved {
			t.status, t.canceled, t.result, t.running = sb.TaskDone, true, "canceled: node removed", false
			s.mu.Unlock()
			return
		}
		if n.status == sb.NodeOnline {
			t.status, t.canceled, t.result, t.running = sb.TaskDone, true, nodeBackOnline, false
			s.mu.Unlock()
			return
		}
		t.status = sb.TaskRunning
		addr, _ := t.params["node_address"].(string)
		s.mu.Unlock()

		res := s.restartAttempt(n.id, force, false, addr)

		s.mu.Lock()
		t = s.m.task(tid)
		if t == nil {
			s.mu.Unlock()
			return
		}
		switch res {
		case restartOK:
			t.status, t.canceled, t.result, t.running = sb.TaskDone, true, nodeBackOnline, false
			s.mu.Unlock()
			return
		case restartRefused:
			t.status, t.result = sb.TaskSuspended, "restart refused, waiting"
			delay = taskPoll
		case restartFailed:
			t.retry++
			if t.retry >= t.maxRetry {
				t.status, t.result, t.running = sb.TaskDone, maxRetryReached, false
				s.mu.Unlock()
				return
			}
			t.status, t.result = sb.TaskSuspended, "restart failed, retrying"
			delay = max(restartClaimTTL, backoff(t.retry))
			// The retry runs without force, so the node must be offline.
			force = false
		}
		s.mu.Unlock()
	}
}
