package simulator

import (
	"fmt"
	"sort"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The cluster event log, as sbcli (754ff3e1) stores and returns it; see
// backend-contract.md §3. Line references are to sbcli at that commit:
// EC = simplyblock_core/controllers/events_controller.py, CE/SE/TE/PE/DE =
// controllers/{cluster,storage,tasks,pool,device}_events.py, OPS =
// cluster_ops.py, SNO = storage_node_ops.py, DEC =
// services/main_distr_event_collector.py, MON = services/storage_node_monitor.py,
// CAP = services/cap_monitor.py, EV = models/events.py.

// Event kinds (EC:12-15) and the distrib event type (distr_controller.py:156).
const (
	evStatusChange = "STATUS_CHANGE"
	evObjCreated   = "OBJ_CREATED"
	evObjDeleted   = "OBJ_DELETED"
	evCapacity     = "CAPACITY"
	evDeviceStatus = "device_status"
)

// Event levels (EV:9-13).
const (
	levelInfo     = "Info"
	levelWarning  = "Warning"
	levelCritical = "Critical"
	levelError    = "Error"
)

// Object names (BaseModel.name is the class name, base_model.py:29). They
// are stored but not returned; the simulator prints them in its log line.
const (
	objCluster = "Cluster"
	objNode    = "StorageNode"
	objTask    = "JobSchedule"
	objPool    = "Pool"
	objDevice  = "NVMeDevice"
	objDistr   = "distr" // log_distr_event passes DOMAIN_DISTR (EC:52-53)
)

// eventRetention is TASKS_RETENTION_PERIOD_SEC (constants.py:629): the
// monitor deletes events older than this every 300 s (MON:804-810,
// 1748-1765).
const (
	eventRetention     = 30 * 24 * time.Hour
	housekeepingPeriod = 300 * time.Second
)

// capMonitorInterval is CAP_MONITOR_INTERVAL_SEC (constants.py:84);
// capCritRepeat is the cap monitor's 15-minute throttle of the critical
// event (CAP:53-60).
const (
	capMonitorInterval = 30 * time.Second
	capCritRepeat      = 15 * time.Minute
)

// distrProcessDelay is how long a distrib row stays "new" before the
// simulator writes its verdict and count (two monitor ticks). In sbcli the
// collector writes both within the same pass (DEC:436-444,496-511); the
// delay only makes the rewrite observable, it is not a backend timing.
const distrProcessDelay = 2 * monitorInterval

// eventRecord is one stored EventObj (EV:7-37). Every field is already in
// the string form get_logs returns (OPS:2386-2412), except the date (ms)
// and the distrib count.
type eventRecord struct {
	dateMS    int64  // round(time.time()*1000), EC:34,122
	object    string // object_name; stored, never returned
	nodeID    string
	event     string
	level     string
	message   string // without the " (<count>)" of distrib rows
	storageID string
	vuid      string
	status    string
	count     int // distrib rows only (EV:17), appended by get_logs
}

// renderedMessage is the Message get_logs returns: device_status and
// node_status events get " (<count>)" appended (OPS:2398-2400).
func (e *eventRecord) renderedMessage() string {
	if e.event == evDeviceStatus || e.event == "node_status" {
		return fmt.Sprintf("%s (%d)", e.message, e.count)
	}
	return e.message
}

// entry renders the record as get_logs does (OPS:2401-2410).
func (e *eventRecord) entry() sb.ClusterLogEntry {
	return sb.ClusterLogEntry{
		Date:      pyDate(e.dateMS),
		NodeID:    e.nodeID,
		Event:     e.event,
		Level:     e.level,
		Message:   e.renderedMessage(),
		StorageID: e.storageID,
		VUID:      e.vuid,
		Status:    e.status,
	}
}

// pyDate is EventObj.get_date_string (EV:33-37):
// str(datetime.fromtimestamp(ms/1000))[:23] in server-local time, which is
// UTC in the shipped image. str(datetime) leaves out the fraction when the
// microseconds are 0, so a whole second renders without ".000".
func pyDate(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	s := t.Format("2006-01-02 15:04:05")
	if frac := ms % 1000; frac != 0 {
		if frac < 0 {
			frac += 1000
		}
		s += fmt.Sprintf(".%03d", frac)
	}
	return s
}

// msOf is round(t*1000) for a timestamp.
func msOf(t time.Time) int64 { return (t.UnixNano() + 500_000) / 1_000_000 }

// strOrNone renders a Python value read back through from_dict's str()
// cast: a missing (None) value is the string "None" (base_model.py:105-110).
func strOrNone(s string) string {
	if s == "" {
		return sb.LogNone
	}
	return s
}

// logEventLocked stores e in c's log at its date (now when unset). Events
// are kept in date order; events of the same millisecond keep the order
// they were written in (sbcli orders them by a random uuid, EV:30-31).
func (s *Simulator) logEventLocked(c *clusterState, e *eventRecord) {
	if e.dateMS == 0 {
		e.dateMS = msOf(s.clk.now())
	}
	e.nodeID = strOrNone(e.nodeID)
	e.storageID = strOrNone(e.storageID)
	e.vuid = strOrNone(e.vuid)
	e.status = strOrNone(e.status)
	if e.level == "" {
		e.level = levelInfo
	}
	i := sort.Search(len(c.events), func(i int) bool { return c.events[i].dateMS > e.dateMS })
	c.events = append(c.events, nil)
	copy(c.events[i+1:], c.events[i:])
	c.events[i] = e
	s.logf("event cluster=%s %s node=%s: %s", c.id, e.object, e.nodeID, e.renderedMessage())
}

// clusterEventLocked writes a cluster event: NodeId None (CE:13-41).
func (s *Simulator) clusterEventLocked(c *clusterState, event, msg string) {
	s.logEventLocked(c, &eventRecord{object: objCluster, event: event, message: msg})
}

// clusterCreatedEventLocked: "Cluster created <id>" (CE:13-20, OPS:704).
func (s *Simulator) clusterCreatedEventLocked(c *clusterState) {
	s.clusterEventLocked(c, evObjCreated, "Cluster created "+c.id)
}

// clusterRenamedEventLocked: "Cluster name changed <id>: <old> -> <new>",
// an OBJ_CREATED event (CE:23-31, OPS:709-718). old is the stored name:
// "" for a cluster created unnamed through v2, which gives two spaces.
func (s *Simulator) clusterRenamedEventLocked(c *clusterState, old, name string) {
	s.clusterEventLocked(c, evObjCreated, fmt.Sprintf("Cluster name changed %s: %s -> %s", c.id, old, name))
}

// nodeStatusEventLocked: "Storage node status changed from: <old> to:
// <new>", NodeId = node id (SE:46-56).
func (s *Simulator) nodeStatusEventLocked(n *nodeState, old, st sb.NodeStatus) {
	c := s.m.cluster(n.clusterID)
	if c == nil {
		return
	}
	s.logEventLocked(c, &eventRecord{object: objNode, nodeID: n.id, event: evStatusChange,
		message: fmt.Sprintf("Storage node status changed from: %s to: %s", old, st)})
}

// nodeCreatedEventLocked: "Storage node created <id>" (SE:12-20), written
// only by add_node on a running cluster, after the node is online
// (SNO:3575-3629: online at 3558, the event at 3629).
func (s *Simulator) nodeCreatedEventLocked(n *nodeState) {
	if c := s.m.cluster(n.clusterID); c != nil {
		s.logEventLocked(c, &eventRecord{object: objNode, nodeID: n.id, event: evObjCreated,
			message: "Storage node created " + n.id})
	}
}

// balancingMaster reports whether a task function is one of the balancing
// masters that log "Re-balancing task created" (TE:24-28).
func balancingMaster(fn string) bool {
	switch fn {
	case sb.TaskFunctionBalancingOnRestart, "balancing_on_dev_rem", "balancing_on_dev_add":
		return true
	}
	return false
}

// taskEventLocked writes a task event (TE:12-20): NodeId is the task's
// node id or, when it has none, the task's uuid; Status is the task's.
func (s *Simulator) taskEventLocked(t *taskState, event, msg string) {
	c := s.m.cluster(t.clusterID)
	if c == nil {
		return
	}
	nodeID := t.nodeID
	if nodeID == "" {
		nodeID = t.id
	}
	s.logEventLocked(c, &eventRecord{object: objTask, nodeID: nodeID, event: event, message: msg, status: string(t.status)})
}

// taskCreatedEventLocked: "Task created", or "Re-balancing task created"
// for balancing masters (TE:23-28). _add_task logs every task except the
// device_migration subtasks, which add_device_mig_task_for_node creates
// with send_to_cluster_log=False (TC:305-311,337-350).
func (s *Simulator) taskCreatedEventLocked(t *taskState) {
	switch {
	case t.fn == sb.TaskFunctionDeviceMigration:
	case balancingMaster(t.fn):
		s.taskEventLocked(t, evObjCreated, "Re-balancing task created")
	default:
		s.taskEventLocked(t, evObjCreated, "Task created")
	}
}

// cancelTaskLocked is tasks_controller.cancel_task (TC:607-624): it sets
// canceled and logs "Task canceled" ("Subtask canceled" for migration
// subtasks, TE:41-46) with the task's status at that moment. The runner
// then finishes the task "canceled" (tasks_runner_restart.py:259-260,390-391);
// the simulator does that at once.
func (s *Simulator) cancelTaskLocked(t *taskState) {
	t.canceled = true
	switch t.fn {
	case sb.TaskFunctionDeviceMigration, sb.TaskFunctionNewDeviceMigration, "failed_device_migration":
		s.taskEventLocked(t, evStatusChange, "Subtask canceled")
	default:
		s.taskEventLocked(t, evStatusChange, "Task canceled")
	}
	t.status, t.result, t.running = sb.TaskDone, "canceled", false
	s.updateMasterLocked(t.parentID)
}

// poolEventLocked writes a pool event: NodeId is the cluster id (PE:11-44).
func (s *Simulator) poolEventLocked(p *poolState, event, msg string) {
	if c := s.m.cluster(p.clusterID); c != nil {
		s.logEventLocked(c, &eventRecord{object: objPool, nodeID: p.clusterID, event: event, message: msg})
	}
}

// ---- devices ---------------------------------------------------------------

// Device statuses (models/nvme_device.py) the simulator uses.
const (
	devNew         = "new"
	devOnline      = "online"
	devUnavailable = "unavailable"
	devRemoved     = "removed"
	devFailed      = "failed"
	// devFailedMigrated is STATUS_FAILED_AND_MIGRATED: the failure
	// migration of a failed device finished (device_controller.py:1113-1123).
	devFailedMigrated = "failed_and_migrated"
)

// deviceState is one NVMe device of a node: a stable uuid, its
// cluster_device_order (-1 until assigned) and its status.
type deviceState struct {
	id     string
	order  int64
	status string
}

// newDevices returns a node's devicesPerNode devices, not yet created
// (status new, no order).
func newDevices() []*deviceState {
	out := make([]*deviceState, devicesPerNode)
	for i := range out {
		out[i] = &deviceState{id: newID(), order: -1, status: devNew}
	}
	return out
}

// deviceEventLocked writes a device event: NodeId is the device id and
// Storage_ID its cluster_device_order (DE:13-23, OPS:2387-2392).
func (s *Simulator) deviceEventLocked(n *nodeState, d *deviceState, event, msg string) {
	if c := s.m.cluster(n.clusterID); c != nil {
		s.logEventLocked(c, &eventRecord{object: objDevice, nodeID: d.id, event: event, message: msg,
			storageID: fmt.Sprint(d.order)})
	}
}

// setDeviceStatusLocked is device_set_state (device_controller.py:146-307):
// a change logs "Device status changed from: <old> to: <new>" (DE:57-58);
// no change logs nothing.
func (s *Simulator) setDeviceStatusLocked(n *nodeState, d *deviceState, st string) {
	if d.status == st {
		return
	}
	old := d.status
	d.status = st
	s.deviceEventLocked(n, d, evStatusChange, fmt.Sprintf("Device status changed from: %s to: %s", old, st))
}

// createDevicesLocked is add_node's device preparation: each device gets
// the next cluster_device_order, goes online and logs "Device created:
// <id>" (SNO:1281-1288, DE:45-46).
func (s *Simulator) createDevicesLocked(c *clusterState, n *nodeState) {
	for _, d := range n.devices {
		if d.order < 0 {
			d.order = c.nextDeviceOrder
			c.nextDeviceOrder++
		}
		d.status = devOnline
		s.deviceEventLocked(n, d, evObjCreated, "Device created: "+d.id)
	}
}

// devicesUnavailableLocked sets the node's serving devices unavailable, as
// a graceful shutdown's Loop 1 (SNO:6034-6065) and the monitor's offline
// and schedulable paths do (MON:1036-1043,1282-1289).
func (s *Simulator) devicesUnavailableLocked(n *nodeState) {
	for _, d := range n.devices {
		if d.status == devOnline || d.status == devUnavailable {
			s.setDeviceStatusLocked(n, d, devUnavailable)
		}
	}
}

// devicesRestartedLocked is the restart impl's raw device write: every
// device that is online or unavailable goes online and logs "Device
// restarted, status: online" (SNO:5112-5123, DE:61-62), before the node's
// in_restart -> online.
func (s *Simulator) devicesRestartedLocked(n *nodeState) {
	for _, d := range n.devices {
		if d.status == devOnline || d.status == devUnavailable {
			d.status = devOnline
			s.deviceEventLocked(n, d, evStatusChange, "Device restarted, status: "+d.status)
		}
	}
}

// devicesReadmitLocked is readmit_devices_after_node_online (MON:1700-1740)
// after a DOWN/UNREACHABLE -> ONLINE clear: devices that are not online,
// removed or failed go online through device_set_online, which queues a
// migration master (device_controller.py:363-372). It reports whether any
// device was re-admitted.
func (s *Simulator) devicesReadmitLocked(n *nodeState) bool {
	readmitted := false
	for _, d := range n.devices {
		switch d.status {
		case devOnline, devRemoved, devFailed, devFailedMigrated, devNew:
			continue
		}
		s.setDeviceStatusLocked(n, d, devOnline)
		readmitted = true
	}
	return readmitted
}

// devicesDecommissionLocked is _decommission_node_devices (SNO:4114-4173):
// each online or unavailable device goes removed, then failed
// (device_controller.py:1020-1053); device_set_failed queues the failure
// migration (add_device_failed_mig_task, TC:694-707): one
// failed_device_migration task per device on every node that is not
// removed and holds an lvstore (the simulator's one distrib per lvstore).
// When the last of a device's tasks is done, the device is
// failed_and_migrated (tasks_runner_failed_migration.py:116-121). Until
// then the monitor counts the removed node's host as affected (MON:316-336).
func (s *Simulator) devicesDecommissionLocked(n *nodeState) {
	for _, d := range n.devices {
		if d.status == devOnline || d.status == devUnavailable {
			s.setDeviceStatusLocked(n, d, devRemoved)
		}
		if d.status == devRemoved {
			s.setDeviceStatusLocked(n, d, devFailed)
			s.addFailedMigrationTasksLocked(n, d)
		}
	}
}

// ---- distrib (data-plane) events ---------------------------------------------

// pendingDistr is a distrib row to write (ev nil) or waiting for its
// verdict.
type pendingDistr struct {
	ev         *eventRecord
	due        time.Time
	reporterID string
	storageID  string
}

// distrMessage is the status the simulated peers report for the devices of
// a node that went away. The collector acts on device_status events whose
// status is in EVENTS_LIST (DEC:21-22); a node outage makes every peer
// time out on every device of that node with error_read / error_write /
// error_unmap in one IO-timeout cycle (DEC:34-42,278-287). The simulator
// writes one of them, error_read, once per peer.
const distrMessage = "error_read"

// serving reports whether a node's SPDK runs, so that its distribs serve
// and report IO (send_node_status_event reaches online, suspended and down
// nodes, distr_controller.py:87).
func serving(st sb.NodeStatus) bool {
	return st == sb.NodeOnline || st == sb.NodeSuspended || st == sb.NodeDown
}

// distribOutageLocked schedules, for a node whose SPDK stopped serving, one
// device_status row per peer that holds an lvstore and still serves. The
// monitor writes them on its next tick (the peers report after their IO
// times out, DEC:34-42) with log_distr_event (EC:28-56): Level Error,
// NodeId = the reporting peer, Storage_ID = one of the node's devices,
// Status new, count 1; and rewrites status and count two ticks later
// (processDistribLocked).
func (s *Simulator) distribOutageLocked(n *nodeState) {
	c := s.m.cluster(n.clusterID)
	if c == nil || !n.hasLVStore {
		return
	}
	var devs []*deviceState
	for _, d := range n.devices {
		if d.order >= 0 {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		return
	}
	now := s.clk.now()
	k := 0
	for _, p := range s.m.liveNodes(c.id) {
		if p.id == n.id || !p.hasLVStore || !serving(p.status) {
			continue
		}
		d := devs[k%len(devs)]
		k++
		c.pendingDistr = append(c.pendingDistr, pendingDistr{due: now.Add(monitorInterval), reporterID: p.id,
			storageID: fmt.Sprint(d.order)})
	}
}

// processDistribLocked writes the distrib rows that are due, and the
// verdict and the aggregated count of those written two ticks before. The verdict follows process_device_event for
// a remote device (DEC:214-434: 231, 352, 362, 370, 423), from the model's state now:
// device_not_found, skipped:dev_<status>, skipped:node_offline,
// skipped:device_node_<status>, else processed. The quorum and controller
// health branches (DEC:252-342) need SPDK state the simulator does not
// have and are not modelled. The count is what the collector writes when
// the same (storage id, type, status) repeats within one batch
// (DEC:496-511); the simulator picks 2-4.
func (s *Simulator) processDistribLocked(c *clusterState, now time.Time) {
	kept := c.pendingDistr[:0]
	for _, p := range c.pendingDistr {
		if now.Before(p.due) {
			kept = append(kept, p)
			continue
		}
		if p.ev == nil {
			p.ev = &eventRecord{object: objDistr, nodeID: p.reporterID, event: evDeviceStatus, level: levelError,
				message: distrMessage, storageID: p.storageID, status: "new", count: 1}
			s.logEventLocked(c, p.ev)
			p.due = now.Add(distrProcessDelay)
			kept = append(kept, p)
			continue
		}
		p.ev.status = s.distrVerdictLocked(c, p)
		p.ev.count = 2 + s.rng.IntN(3)
		s.logf("distrib event cluster=%s node=%s storage_id=%s rewritten: %s, status %s",
			c.id, p.ev.nodeID, p.ev.storageID, p.ev.renderedMessage(), p.ev.status)
	}
	for i := len(kept); i < len(c.pendingDistr); i++ {
		c.pendingDistr[i] = pendingDistr{}
	}
	c.pendingDistr = kept
}

func (s *Simulator) distrVerdictLocked(c *clusterState, p pendingDistr) string {
	var dev *deviceState
	var home *nodeState
	for _, n := range s.m.clusterNodes(c.id) {
		for _, d := range n.devices {
			if fmt.Sprint(d.order) == p.ev.storageID {
				dev, home = d, n
			}
		}
	}
	if dev == nil {
		return "device_not_found"
	}
	switch dev.status {
	case devOnline: // readonly and cannot_allocate are not modelled
	default:
		return "skipped:dev_" + dev.status
	}
	if r := s.m.node(p.reporterID); r == nil || (r.status != sb.NodeOnline && r.status != sb.NodeSuspended) {
		return "skipped:node_offline"
	}
	if !serving(home.status) {
		return "skipped:device_node_" + string(home.status)
	}
	return "processed"
}

// ---- periodic work -------------------------------------------------------------

// eventHousekeepingLocked deletes events older than 30 days, at most every
// 300 s per cluster (MON:804-810,1748-1765): a quiet cluster's log empties,
// and GET /logs then answers 500.
func (s *Simulator) eventHousekeepingLocked(c *clusterState, now time.Time) {
	if now.Sub(c.lastHousekeeping) < housekeepingPeriod {
		return
	}
	c.lastHousekeeping = now
	nowS := now.Unix()
	kept := c.events[:0]
	for _, e := range c.events {
		if nowS-e.dateMS/1000 > int64(eventRetention/time.Second) {
			continue
		}
		kept = append(kept, e)
	}
	for i := len(kept); i < len(c.events); i++ {
		c.events[i] = nil
	}
	c.events = kept
}

// capacityEventsLocked is the cap monitor's event part (CAP:42-80), every
// 30 s: at or above cap_crit a Critical "Cluster absolute capacity
// reached: <n>%" at most every 15 minutes, strictly between cap_warn and
// cap_crit a Warning one every cycle; NodeId is the cluster id (CE:53-64).
// The simulator has no provisioned-capacity figure, so the provisioned
// events are not written. (The read_only status change is the monitor's,
// see monitor.go.)
func (s *Simulator) capacityEventsLocked(c *clusterState, now time.Time) {
	if now.Sub(c.lastCapCheck) < capMonitorInterval {
		return
	}
	c.lastCapCheck = now
	util, p := c.sizeUtil, c.params
	msg := fmt.Sprintf("Cluster absolute capacity reached: %d%%", util)
	if p.CapCrit > 0 && p.CapCrit <= util {
		if c.lastCapCrit.IsZero() || now.Sub(c.lastCapCrit) > capCritRepeat {
			c.lastCapCrit = now
			s.logEventLocked(c, &eventRecord{object: objCluster, nodeID: c.id, event: evCapacity, level: levelCritical, message: msg})
		}
	}
	if p.CapWarn > 0 && p.CapWarn < util && util < p.CapCrit {
		s.logEventLocked(c, &eventRecord{object: objCluster, nodeID: c.id, event: evCapacity, level: levelWarning, message: msg})
	}
}
