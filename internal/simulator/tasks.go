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

// addMigrationTasksLocked queues a hidden device_migration task for the
// node (deduplicated while open) under the cluster's balancing_on_restart
// master (reused while open), as rebalance and a successful restart do.
func (s *Simulator) addMigrationTasksLocked(cid, nodeID string) {
	if s.m.openTask(cid, sb.TaskFunctionDeviceMigration, nodeID) != nil {
		return
	}
	master := s.m.openTask(cid, sb.TaskFunctionBalancingOnRestart, "")
	if master == nil {
		master = s.newTaskLocked(cid, "", sb.TaskFunctionBalancingOnRestart, -1, map[string]any{})
	}
	sub := s.newTaskLocked(cid, nodeID, sb.TaskFunctionDeviceMigration, -1, map[string]any{"master_task_id": master.id})
	sub.parentID = master.id
	sub.running = true
	s.updateMasterLocked(master.id)
	s.spawn(func(_ ctxT) { s.runMigrationTask(sub.id) })
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

// runMigrationTask: new -> running (minutes) -> done.
func (s *Simulator) runMigrationTask(tid string) {
	if !s.sleep(taskPoll) {
		return
	}
	s.mu.Lock()
	t := s.m.task(tid)
	if t == nil || t.status == sb.TaskDone {
		s.mu.Unlock()
		return
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
