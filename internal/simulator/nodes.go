package simulator

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Storage nodes: read, create (node_add task) and delete (node_removal
// task), backend-behaviour.md §4.1-4.3.

const (
	taskPoll            = 10 * time.Second // task runners poll every 10 s
	nodeAddMaxRetry     = 11
	nodeAddMin          = 60 * time.Second // in_creation lasts 1-10 min
	nodeAddMax          = 600 * time.Second
	migrationMin        = 60 * time.Second
	migrationMax        = 600 * time.Second
	removalMigrateMin   = 60 * time.Second
	removalMigrateMax   = 300 * time.Second
	nodeAddSuccess      = "Node add result: Success"
	maxRetryReached     = "max retry reached"
	nodeBackOnline      = "canceled: node back online"
	restartClaimTTL     = 180 * time.Second
	taskLeaseTTL        = 180 * time.Second // TASK_LEASE_TTL_SEC (constants.py:189)
	fdbBackupEvery      = 3 * time.Hour     // backup_frequency_seconds (models/cluster.py:242)
	taskFdbBackup       = "fdb_backup"
	inShutdownReconcile = 120 * time.Second
)

// lookupNodeLocked resolves {storage_node_id} of the request's cluster,
// writing the backend's 404 (quoted when unknown, unquoted when it belongs
// to another cluster).
func (s *Simulator) lookupNodeLocked(req *request) *nodeState {
	id := req.params["storage_node_id"]
	n := s.m.node(id)
	if n == nil {
		writeNotFoundQuoted(req.w, "StorageNode", id)
		return nil
	}
	if n.clusterID != req.params["cluster_id"] {
		writeNotFoundOtherCluster(req.w, "StorageNode", id)
		return nil
	}
	return n
}

// GET /storage-nodes/: all records, including removed ones.
func (s *Simulator) listNodes(req *request) {
	writeJSON(req.w, http.StatusOK, s.Nodes(req.params["cluster_id"]))
}

// GET /storage-nodes/{id}/
func (s *Simulator) getNode(req *request) {
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		s.mu.Unlock()
		return
	}
	dto := n.dto(s.clk.now())
	s.mu.Unlock()
	writeJSON(req.w, http.StatusOK, dto)
}

// POST /storage-nodes/: only queues a node_add task. The default
// response-format is identifier: the task id as a JSON string.
func (s *Simulator) createNode(req *request) {
	var errs []valErr
	format := responseFormat(req.r, "identifier", &errs)
	p := sb.DefaultStorageNodeParams("", "")
	raw, bodyErrs := decodeBody(req.r, &p, "node_address", "interface_name")
	errs = append(errs, bodyErrs...)
	if raw != nil && len(bodyErrs) == 0 {
		if p.JmPercent < 0 {
			errs = append(errs, errGreaterEqual("jm_percent", 0, p.JmPercent))
		} else if p.JmPercent > 100 {
			errs = append(errs, errLessEqual("jm_percent", 100, p.JmPercent))
		}
	}
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	cid := req.params["cluster_id"]
	s.mu.Lock()
	for _, t := range s.m.clusterTasks(cid) {
		if t.fn == sb.TaskFunctionNodeAdd && t.status != sb.TaskDone && t.params["node_addr"] == p.NodeAddress {
			s.mu.Unlock()
			writeInternalError(req.w)
			return
		}
	}
	t := s.newTaskLocked(cid, "", sb.TaskFunctionNodeAdd, nodeAddMaxRetry, nodeAddParams(p))
	t.running = true
	dto := t.dto()
	s.mu.Unlock()
	s.spawn(func(_ ctxT) { s.runNodeAddTask(t.id) })
	created(req.w, format, fmt.Sprintf("%s/clusters/%s/tasks/%s/", apiPrefix, cid, t.id), t.id, dto)
}

// nodeAddParams renders the add parameters the way the task stores them.
func nodeAddParams(p sb.StorageNodeParams) map[string]any {
	b, _ := json.Marshal(p)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	delete(m, "node_address")
	delete(m, "expand")
	m["node_addr"] = p.NodeAddress
	m["expansion"] = p.Expand
	if v, ok := m["max_snapshots"]; ok {
		m["max_snap"] = v
	}
	return m
}

// addOutcome is what add_node decides before doing any work.
type addOutcome int

const (
	addProceed addOutcome = iota
	addSkip               // the host's node is already online: success
	addRefuse             // add_node returns False: the task retries
)

// addNodePrecheckLocked applies add_node's refusals (SNO:2627-3646). A
// record at the same api_endpoint (the simulator's one slot per host) in
// any status but in_creation, removed and offline included, makes add_node
// skip the slot and still return "Success" (SNO:3011-3062, 3645): re-adding
// a host the cluster has a record of adds nothing. The SSD-classified path's
// "conflict" (SNO:2870-2916) needs ssd_pcis in the node's config, which the
// simulator's hosts do not report.
func (s *Simulator) addNodePrecheckLocked(c *clusterState, addr string, expand bool) (addOutcome, string) {
	for _, n := range s.m.clusterNodes(c.id) {
		if n.address == addr && n.status != sb.NodeInCreation {
			s.logf("add node %s: node %s already present (status %s); skipping duplicate add", addr, n.id, n.status)
			return addSkip, ""
		}
	}
	if !expand {
		if c.status == sb.ClusterActive || c.activatedNodeIDs != nil {
			return addRefuse, "cluster is active or was activated: add nodes with expand"
		}
		return addProceed, ""
	}
	if c.status != sb.ClusterActive {
		return addRefuse, fmt.Sprintf("cluster status is %s, expansion requires active", c.status)
	}
	for _, n := range s.m.liveNodes(c.id) {
		if n.status != sb.NodeOnline && !(n.address == addr && n.status == sb.NodeInCreation) {
			return addRefuse, fmt.Sprintf("node %s is %s", n.id, n.status)
		}
	}
	for _, t := range s.m.clusterTasks(c.id) {
		if t.status != sb.TaskDone && (isMigrationFn(t.fn) || t.fn == sb.TaskFunctionNodeRestart || t.fn == "fdb_backup") {
			return addRefuse, fmt.Sprintf("open %s task %s", t.fn, t.id)
		}
	}
	return addProceed, ""
}

// runNodeAddTask drives one node_add task: new -> running -> done, or
// suspended with retries and backoff, ending "max retry reached".
func (s *Simulator) runNodeAddTask(tid string) {
	delay := taskPoll
	for {
		if !s.sleep(delay) {
			return
		}
		s.mu.Lock()
		t := s.m.task(tid)
		var c *clusterState
		if t != nil {
			c = s.m.cluster(t.clusterID)
		}
		if t == nil || c == nil || t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		if c.status == sb.ClusterInActivation {
			// Back to new while it waits (tasks_runner_node_add.py:61-65).
			t.status, t.result = sb.TaskNew, "Cluster is in_activation, waiting"
			s.mu.Unlock()
			delay = taskPoll
			continue
		}
		t.status = sb.TaskRunning
		t.result = ""
		addr, _ := t.params["node_addr"].(string)
		expand, _ := t.params["expansion"].(bool)
		outcome, reason := s.addNodePrecheckLocked(c, addr, expand)
		var nid string
		var d time.Duration
		var fail bool
		if outcome == addProceed {
			fail = s.faults.take(FaultNodeAddFailure, func(x *Fault) bool {
				return (x.NodeAddress == "" || x.NodeAddress == addr) && (x.ClusterID == "" || x.ClusterID == c.id)
			}) != nil
			// A stale in_creation record of an earlier attempt is replaced,
			// with a new UUID; its deletion logs "Storage node deleted
			// <id>" (SNO:3037-3041, SE:23-32).
			for _, n := range s.m.liveNodes(c.id) {
				if n.address == addr && n.status == sb.NodeInCreation {
					s.logEventLocked(c, &eventRecord{object: objNode, nodeID: n.id, event: evObjDeleted,
						message: "Storage node deleted " + n.id})
					s.m.removeNode(n.id)
				}
			}
			n := s.newNodeLocked(c.id, addr, t.params)
			nid = n.id
			d = s.randDurLocked(nodeAddMin, nodeAddMax)
		}
		s.mu.Unlock()

		ok := false
		switch outcome {
		case addSkip:
			ok = true
		case addRefuse:
			s.logf("node_add %s: add_node returned False: %s", tid, reason)
		case addProceed:
			if fail {
				d /= 2
			}
			if !s.sleep(d) {
				return
			}
			ok = !fail
			if fail {
				s.logf("node_add %s: add_node failed for %s (fault)", tid, addr)
			}
		}

		s.mu.Lock()
		t = s.m.task(tid)
		if t == nil {
			s.mu.Unlock()
			return
		}
		if ok {
			n := s.m.node(nid)
			if n != nil && n.status == sb.NodeInCreation {
				// add_node: devices created (SNO:1281-1288), then
				// in_creation -> online (SNO:3556-3562).
				if c := s.m.cluster(n.clusterID); c != nil {
					s.createDevicesLocked(c, n)
				}
				n.autoRestartDisabled = false
				s.setNodeStatusLocked(n, sb.NodeOnline)
			}
			t.status, t.result, t.running = sb.TaskDone, nodeAddSuccess, false
			if expand && outcome == addProceed {
				// On a running cluster: the cluster_expand task, then
				// "Storage node created <id>" (SNO:3598-3629).
				s.queueClusterExpandLocked(t.clusterID, nid)
				if n != nil {
					s.nodeCreatedEventLocked(n)
				}
			}
			s.mu.Unlock()
			return
		}
		t.retry++
		if t.retry >= t.maxRetry {
			t.status, t.result, t.running = sb.TaskDone, maxRetryReached, false
			s.mu.Unlock()
			return
		}
		t.status = sb.TaskSuspended
		t.result = "add_node failed, retrying"
		delay = backoff(t.retry)
		s.mu.Unlock()
	}
}

// hostOf is the host of a node address such as "10.0.0.10:5000".
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// simHostname is the host name the simulator gives the machine at host
// (what SNodeAPI's info reports as "hostname").
func simHostname(host string) string { return "sim-" + strings.ReplaceAll(host, ".", "-") }

// moveNodeLocked points node n at a new address (a restart with
// node_address): same UUID, new address and management IP, and the new
// machine's bare host name as hostname (SNO:4621-4635); host_nqn is not
// rewritten. The backend logs no event for it.
func (s *Simulator) moveNodeLocked(n *nodeState, addr string) {
	n.address, n.mgmtIP, n.hostname = addr, hostOf(addr), simHostname(hostOf(addr))
}

// newNodeLocked creates an in_creation node record for a host address,
// with devices not yet created. Creating the record logs no event
// (backend-contract.md §3.3).
func (s *Simulator) newNodeLocked(cid, addr string, params map[string]any) *nodeState {
	host := hostOf(addr)
	now := s.clk.now()
	hn := nodeHostname(host)
	n := &nodeState{id: newID(), clusterID: cid, status: sb.NodeInCreation, address: addr, mgmtIP: host,
		hostname: hn, hostNQN: hostNQN(hn), params: params, created: now, statusSince: now, devices: newDevices()}
	s.m.nodes = append(s.m.nodes, n)
	return n
}

// queueClusterExpandLocked queues the cluster_expand task that follows an
// expand:true add (add_cluster_expand_task, TC:758-770: node_id = the new
// node, params {"new_node_id"}, max_retry -1). Only one expansion per
// cluster is open at a time (TC:283-290).
func (s *Simulator) queueClusterExpandLocked(cid, nid string) {
	if t := s.m.openTask(cid, sb.TaskFunctionClusterExpand, ""); t != nil && !t.canceled {
		s.logf("cluster_expand: node %s will NOT be integrated while expansion %s runs, re-add it", nid, t.id)
		return
	}
	t := s.newTaskLocked(cid, nid, sb.TaskFunctionClusterExpand, -1, map[string]any{"new_node_id": nid})
	t.running = true
	s.spawn(func(_ ctxT) { s.runClusterExpandTask(t.id) })
}

// expansionBlockingTasks are EXPANSION_BLOCKING_TASK_FNS
// (cluster_expansion/preconditions.py:60-72) the simulator creates;
// expansionDeferringTasks are those a resumed plan tolerates (:87-95).
var (
	expansionBlockingTasks = map[string]bool{sb.TaskFunctionDeviceMigration: true, sb.TaskFunctionNewDeviceMigration: true,
		taskFailedDeviceMigration: true, sb.TaskFunctionBalancingOnRestart: true, sb.TaskFunctionNodeRestart: true}
	expansionDeferringTasks = map[string]bool{sb.TaskFunctionDeviceMigration: true, sb.TaskFunctionNewDeviceMigration: true,
		taskFailedDeviceMigration: true, sb.TaskFunctionBalancingOnRestart: true}
)

// expansionPreconditionLocked is check_expansion_preconditions
// (preconditions.py:229-291) as far as the simulator models it: a steady
// active cluster, every record but removed ones online, and no open
// blocking task. It returns the refusal reason or "".
func (s *Simulator) expansionPreconditionLocked(c *clusterState, resume bool) string {
	if c.status != sb.ClusterActive {
		return fmt.Sprintf("cluster status is %s, expansion requires active", c.status)
	}
	for _, n := range s.m.clusterNodes(c.id) {
		if n.status != sb.NodeRemoved && n.status != sb.NodeOnline {
			return fmt.Sprintf("node %s is %s; all nodes must be online", n.id, n.status)
		}
	}
	for _, t := range s.m.clusterTasks(c.id) {
		if t.status == sb.TaskDone || t.canceled || !expansionBlockingTasks[t.fn] {
			continue
		}
		if resume && expansionDeferringTasks[t.fn] {
			continue
		}
		return fmt.Sprintf("open %s task %s (status: %s); wait for it to finish or cancel it before expanding", t.fn, t.id, t.status)
	}
	return ""
}

// runClusterExpandTask is the cluster_expand runner (RCE:25-150) with
// integrate_new_node_into_cluster (EXE:520-570, manage_cluster_status):
// each attempt checks the preconditions (a failure raises RuntimeError
// "expansion preconditions not met: <reason>"), sets in_expansion, runs
// the plan and sets active. An exception inside the plan restores the
// status the cluster had before in_expansion (EXE:559-563). A failed
// attempt suspends the task with "attempt <n> failed: <exception>" and
// retry+1 (RCE:92-98), and the runner sleeps a backoff doubling from 10 s
// to at most 3600 s (RCE:135-144). Success ends the task "expansion
// complete: <node id>" and queues the new node's new_device_migration
// (RCE:72-83).
func (s *Simulator) runClusterExpandTask(tid string) {
	delay := taskPoll
	resume := false // a prior attempt aborted inside the plan
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
		if t.canceled {
			t.status, t.result, t.running = sb.TaskDone, "canceled", false
			s.mu.Unlock()
			return
		}
		c := s.m.cluster(t.clusterID)
		if c == nil {
			s.mu.Unlock()
			return
		}
		fail := func(reason string) {
			t.retry++
			t.status = sb.TaskSuspended
			t.result = fmt.Sprintf("attempt %d failed: %s", t.retry, reason)
			delay = min(2*delay, time.Hour)
		}
		t.status = sb.TaskRunning
		if reason := s.expansionPreconditionLocked(c, resume); reason != "" {
			fail("expansion preconditions not met: " + reason)
			s.mu.Unlock()
			continue
		}
		prev := c.status
		s.setClusterStatusLocked(c, sb.ClusterInExpansion, "tasks_runner")
		exc := s.faults.take(FaultExpansionException, clusterPred(c.id))
		nid := t.nodeID
		d := s.randDurLocked(expandPerNodeMin, expandMax)
		if exc != nil {
			d /= 2
		}
		s.mu.Unlock()
		if !s.sleep(d) {
			return
		}
		s.mu.Lock()
		t, c = s.m.task(tid), s.m.cluster(t.clusterID)
		if t == nil || c == nil {
			s.mu.Unlock()
			return
		}
		if exc != nil {
			// The fault's exception text is the simulator's own.
			s.logf("cluster_expand %s: exception in the expansion plan (fault); status restored to %s", tid, prev)
			s.setClusterStatusLocked(c, prev, "tasks_runner")
			resume = true
			fail("injected expansion failure")
			s.mu.Unlock()
			continue
		}
		n := s.m.node(nid)
		if n != nil {
			n.hasLVStore = true
		}
		c.activatedNodeIDs = append(c.activatedNodeIDs, nid)
		s.setClusterStatusLocked(c, sb.ClusterActive, "tasks_runner")
		t.status, t.result, t.running = sb.TaskDone, "expansion complete: "+nid, false
		for _, o := range s.m.liveNodes(t.clusterID) {
			if o.status == sb.NodeOnline {
				m := s.newTaskLocked(t.clusterID, o.id, sb.TaskFunctionNewDeviceMigration, -1, map[string]any{})
				m.running = true
				s.spawn(func(_ ctxT) { s.runMigrationTask(m.id) })
			}
		}
		s.mu.Unlock()
		return
	}
}

// DELETE /storage-nodes/{id}/?force_remove&force_migrate&force_delete:
// synchronous checks (refusals are 500), then a node_removal task.
// The force_* query booleans are validated after the cluster and node
// lookups, so a 404 wins over their 422 (SN/:115-117).
func (s *Simulator) deleteNode(req *request) {
	s.mu.Lock()
	n := s.lookupNodeLocked(req)
	if n == nil {
		s.mu.Unlock()
		return
	}
	var errs []valErr
	forceRemove := queryBool(req.r, "force_remove", &errs)
	_ = queryBool(req.r, "force_migrate", &errs)
	forceDelete := queryBool(req.r, "force_delete", &errs)
	if len(errs) > 0 {
		s.mu.Unlock()
		writeValidation(req.w, errs)
		return
	}
	refuse := func(reason string) {
		s.mu.Unlock()
		s.logf("remove node %s refused: %s", n.id, reason)
		writeInternalError(req.w)
	}
	if n.status == sb.NodeRemoved {
		refuse("node is already removed")
		return
	}
	if s.m.openTask(n.clusterID, sb.TaskFunctionNodeRemoval, n.id) != nil {
		s.mu.Unlock()
		if forceDelete {
			writeInternalError(req.w)
			return
		}
		req.w.WriteHeader(http.StatusNoContent)
		return
	}
	if n.status != sb.NodeOnline && n.status != sb.NodeSuspended {
		refuse("node is not online or suspended")
		return
	}
	c := s.m.cluster(n.clusterID)
	othersOnline := 0
	for _, o := range s.m.liveNodes(n.clusterID) {
		if o.id == n.id {
			continue
		}
		if o.status != sb.NodeOnline {
			refuse("node " + o.id + " is not online")
			return
		}
		if o.hasLVStore {
			othersOnline++
		}
	}
	if c.activatedNodeIDs != nil && n.hasLVStore && int64(othersOnline) < c.params.DistrNpcs+1 {
		refuse("FTT check failed")
		return
	}
	if n.lvols > 0 {
		refuse("node has lvols")
		return
	}
	if open := s.activeNodeTasksLocked(n); len(open) > 0 {
		if !forceRemove {
			refuse(fmt.Sprintf("Task found: %d, can not remove storage node, or use --force-remove", len(open)))
			return
		}
		// force_remove cancels them, each logging "Task canceled" or
		// "Subtask canceled" (SNO:3780-3786, TC:607-624).
		for _, t := range open {
			s.cancelTaskLocked(t)
		}
	}
	t := s.newTaskLocked(n.clusterID, n.id, sb.TaskFunctionNodeRemoval, -1, map[string]any{"force_remove": forceRemove})
	t.running = true
	s.mu.Unlock()
	s.spawn(func(_ ctxT) { s.runNodeRemovalTask(t.id) })
	if forceDelete {
		// delete_storage_node needs status removed now, which it is not.
		writeInternalError(req.w)
		return
	}
	req.w.WriteHeader(http.StatusNoContent)
}

// runNodeRemovalTask is the node-removal runner (RNR:21-64) over
// node_removal_orchestrate (SNO:3895-3969), one attempt per runner tick. An
// attempt returns at once when the node is already removed ("Node
// removed"); else it sets the cluster in_shrink (GET answers 500), shuts the
// node down (gracefully unless force_remove: a refusal ends the attempt),
// tears its replicas down, sets it removed, then starts the decommission of
// its devices, whose failure migrations outlast the attempt; it always
// restores the cluster's previous status. An attempt that did not finish
// ends "removal in progress, retrying", suspended, and counts a retry.
func (s *Simulator) runNodeRemovalTask(tid string) {
	for s.sleep(taskPoll) {
		s.mu.Lock()
		t := s.m.task(tid)
		if t == nil || t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		c, n := s.m.cluster(t.clusterID), s.m.node(t.nodeID)
		switch {
		case t.canceled:
			t.status, t.result, t.running = sb.TaskDone, "canceled", false
		case c != nil && c.status == sb.ClusterInActivation:
			t.status, t.result = sb.TaskSuspended, "cluster is in_activation, waiting"
			s.mu.Unlock()
			continue
		case c == nil || n == nil || n.status == sb.NodeRemoved:
			// "node not found" is False in sbcli and retried forever; the
			// simulator ends it.
			t.status, t.result, t.running = sb.TaskDone, "Node removed", false
		}
		if t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		t.status = sb.TaskRunning
		s.mu.Unlock()
		if s.removalAttempt(t.id) {
			continue
		}
		s.mu.Lock()
		if t := s.m.task(tid); t != nil && t.status != sb.TaskDone {
			t.status, t.result = sb.TaskSuspended, "removal in progress, retrying"
			t.retry++
		}
		s.mu.Unlock()
	}
}

// removalAttempt is one node_removal_orchestrate pass on a node that is not
// removed yet; it reports whether the node is fully removed (never here:
// its device migrations are still running when the attempt ends).
func (s *Simulator) removalAttempt(tid string) bool {
	s.mu.Lock()
	t := s.m.task(tid)
	c, n := s.m.cluster(t.clusterID), s.m.node(t.nodeID)
	prev := c.status
	restore := func() {
		if c := s.m.cluster(t.clusterID); c != nil && c.status == sb.ClusterInShrink {
			s.setClusterStatusLocked(c, prev, "remove")
		}
	}
	s.setClusterStatusLocked(c, sb.ClusterInShrink, "remove")
	var finish func() bool
	if n.status == sb.NodeOnline || n.status == sb.NodeSuspended {
		// Phase 1: shutdown_storage_node(force=force_remove)
		// (SNO:3928-3937).
		force, _ := t.params["force_remove"].(bool)
		if !force {
			if reason := s.shutdownPreconditionsLocked(n.id); reason != "" {
				s.logf("removal of %s: shutdown refused: %s", n.id, reason)
				restore()
				s.mu.Unlock()
				return false
			}
			// A graceful shutdown's Loop 1 sets the devices unavailable.
			s.devicesUnavailableLocked(n)
		}
		finish = s.beginForceShutdownLocked(n, false, false)
	}
	d := s.randDurLocked(removalMigrateMin, removalMigrateMax)
	s.mu.Unlock()
	if finish != nil && !finish() {
		return false
	}
	// Phases 3a-4: replicas torn down and relocated (SNO:3941-3950).
	if !s.sleep(d) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.m.node(t.nodeID); n != nil {
		n.hasLVStore = false
		n.secondaryNodeID = ""
		n.decommissioned = true
		s.setNodeStatusLocked(n, sb.NodeRemoved)
		// Phase 5 after the node is removed (SNO:3956-3964): the devices
		// are failed and migrated, which takes longer than the attempt.
		s.devicesDecommissionLocked(n)
	}
	restore()
	return false
}
