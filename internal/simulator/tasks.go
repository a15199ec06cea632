package simulator

import (
	"net/http"
	"sort"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Tasks, backend-behaviour.md §6.

// GET /tasks/: sorted by date, minus device_migration. Any stored task
// whose function name is outside the DTO's Literal (cluster_expand,
// node_removal, ...) makes the whole list a 500, for as long as it is kept.
func (s *Simulator) listTasks(req *request) {
	cid := req.params["cluster_id"]
	s.mu.Lock()
	fail := s.faults.enum500(cid, "tasks")
	out := []sb.TaskDTO{}
	tasks := append([]*taskState(nil), s.m.clusterTasks(cid)...)
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].date.Before(tasks[j].date) })
	for _, t := range tasks {
		if t.fn == sb.TaskFunctionDeviceMigration {
			continue
		}
		if taskFnOutsideDTOEnum(t.fn) {
			fail = true
		}
		out = append(out, t.dto())
	}
	s.mu.Unlock()
	if fail {
		writeInternalError(req.w)
		return
	}
	writeJSON(req.w, http.StatusOK, out)
}

// GET /tasks/{id}/: another cluster's task is 404 "Task does not exist"; an
// unknown id is a plain-text 500 (the DB getter raises KeyError).
func (s *Simulator) getTask(req *request) {
	s.mu.Lock()
	t := s.m.task(req.params["task_id"])
	if t == nil {
		s.mu.Unlock()
		writeInternalError(req.w)
		return
	}
	if t.clusterID != req.params["cluster_id"] {
		s.mu.Unlock()
		writeDetail(req.w, http.StatusNotFound, "Task does not exist")
		return
	}
	dto, bad := t.dto(), taskFnOutsideDTOEnum(t.fn)
	s.mu.Unlock()
	if bad {
		writeInternalError(req.w)
		return
	}
	writeJSON(req.w, http.StatusOK, dto)
}

// activeNodeTasksLocked is get_active_node_tasks (TC:805-814): the node's
// tasks that are neither done nor canceled, except port_allow,
// jc_comp_resume and node_removal.
func (s *Simulator) activeNodeTasksLocked(n *nodeState) []*taskState {
	var out []*taskState
	for _, t := range s.m.clusterTasks(n.clusterID) {
		switch t.fn {
		case "port_allow", "jc_comp_resume", sb.TaskFunctionNodeRemoval:
			continue
		}
		if t.nodeID == n.id && t.status != sb.TaskDone && !t.canceled {
			out = append(out, t)
		}
	}
	return out
}

// addMigrationTasksLocked is add_device_mig_task_for_node (TC:315-352),
// as rebalance, a restart and a device re-admission call it: whichever node
// it is called for, a hidden device_migration task (no event) for every
// node that is not removed and has an lvstore (one distrib each in the
// simulator) and has none open, under the cluster's balancing_on_restart
// master (reused while open), which is created only when a subtask was. A
// cluster without lvstores (unready) gets nothing.
func (s *Simulator) addMigrationTasksLocked(cid string) {
	var subs []*taskState
	for _, n := range s.m.clusterNodes(cid) {
		if n.status == sb.NodeRemoved || !n.hasLVStore || s.m.openTask(cid, sb.TaskFunctionDeviceMigration, n.id) != nil {
			continue
		}
		subs = append(subs, s.newTaskLocked(cid, n.id, sb.TaskFunctionDeviceMigration, -1, map[string]any{"distr_name": "distrib_" + n.id[:8]}))
	}
	if len(subs) == 0 {
		return
	}
	master := s.m.openTask(cid, sb.TaskFunctionBalancingOnRestart, "")
	if master == nil {
		master = s.newTaskLocked(cid, "", sb.TaskFunctionBalancingOnRestart, -1, map[string]any{})
	}
	for _, sub := range subs {
		sub.parentID, sub.running = master.id, true
		id := sub.id
		s.spawn(func(_ ctxT) { s.runMigrationTask(id) })
	}
	s.updateMasterLocked(master.id)
}

// addFailedMigrationTasksLocked queues device d's failure migration on
// every node that is not removed and holds an lvstore (TC:694-707). With
// none, the device stays failed.
func (s *Simulator) addFailedMigrationTasksLocked(home *nodeState, d *deviceState) {
	for _, o := range s.m.clusterNodes(home.clusterID) {
		if o.status == sb.NodeRemoved || !o.hasLVStore {
			continue
		}
		t := s.newTaskLocked(home.clusterID, o.id, taskFailedDeviceMigration, -1, map[string]any{})
		t.deviceID = d.id
		t.running = true
		s.spawn(func(_ ctxT) { s.runMigrationTask(t.id) })
	}
}

// failedMigrationDoneLocked marks device deviceID failed_and_migrated once
// none of its failed_device_migration tasks is open: the runner checks
// get_failed_device_mig_task after each status poll
// (tasks_runner_failed_migration.py:116-121).
func (s *Simulator) failedMigrationDoneLocked(cid, deviceID string) {
	for _, t := range s.m.clusterTasks(cid) {
		if t.fn == taskFailedDeviceMigration && t.deviceID == deviceID && t.status != sb.TaskDone && !t.canceled {
			return
		}
	}
	for _, n := range s.m.clusterNodes(cid) {
		for _, d := range n.devices {
			if d.id == deviceID && d.status == devFailed {
				s.setDeviceStatusLocked(n, d, devFailedMigrated)
			}
		}
	}
}

// runMigrationTask: new -> running (minutes) -> done. It waits, suspended,
// while the cluster is not active, degraded or read_only ("cluster is not
// active, retrying", a retry counted) and while a cluster_expand task is
// open ("cluster expansion in progress, deferring", none counted)
// (tasks_runner_migration.py:90-103, TC:784-800).
func (s *Simulator) runMigrationTask(tid string) {
	var t *taskState
	for {
		if !s.sleep(taskPoll) {
			return
		}
		s.mu.Lock()
		t = s.m.task(tid)
		if t == nil || t.status == sb.TaskDone {
			s.mu.Unlock()
			return
		}
		c := s.m.cluster(t.clusterID)
		if c == nil {
			s.mu.Unlock()
			return
		}
		switch {
		case c.status != sb.ClusterActive && c.status != sb.ClusterDegraded && c.status != sb.ClusterReadOnly:
			t.status, t.result = sb.TaskSuspended, "cluster is not active, retrying"
			t.retry++
		case s.m.openTask(c.id, sb.TaskFunctionClusterExpand, "") != nil:
			t.status, t.result = sb.TaskSuspended, "cluster expansion in progress, deferring"
		default:
			t.result = ""
		}
		if t.result == "" {
			break
		}
		s.updateMasterLocked(t.parentID)
		s.mu.Unlock()
	}
	t.status = sb.TaskRunning
	s.updateMasterLocked(t.parentID)
	d := s.randDurLocked(migrationMin, migrationMax)
	s.mu.Unlock()
	if !s.sleep(d) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.m.task(tid); t != nil && t.status != sb.TaskDone {
		t.status, t.result, t.running = sb.TaskDone, "Done", false
		s.updateMasterLocked(t.parentID)
		if t.fn == taskFailedDeviceMigration {
			s.failedMigrationDoneLocked(t.clusterID, t.deviceID)
		}
	}
}

// updateMasterLocked derives a balancing master's status from its
// subtasks: all done -> done, all new -> new, all suspended -> suspended,
// otherwise running.
func (s *Simulator) updateMasterLocked(masterID string) {
	if masterID == "" {
		return
	}
	m := s.m.task(masterID)
	if m == nil {
		return
	}
	counts := map[sb.TaskStatus]int{}
	total := 0
	for _, t := range s.m.tasks {
		if t.parentID == masterID {
			counts[t.status]++
			total++
		}
	}
	switch {
	case total == 0:
		return
	case counts[sb.TaskDone] == total:
		m.status, m.result = sb.TaskDone, "Done"
	case counts[sb.TaskNew] == total:
		m.status = sb.TaskNew
	case counts[sb.TaskSuspended] == total:
		m.status = sb.TaskSuspended
	default:
		m.status = sb.TaskRunning
	}
}
