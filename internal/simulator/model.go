package simulator

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The model holds everything the backend stores, including what its DTOs
// hide. It is guarded by Simulator.mu; nothing in here locks.

// devicesPerNode is how many NVMe devices each simulated node carries.
const devicesPerNode = 2

type clusterState struct {
	id      string
	name    string
	status  sb.ClusterStatus
	params  sb.ClusterParams
	secret  string
	created time.Time
	mode    string // ModeKubernetes (default) or ModeDocker

	// activatedNodeIDs is recorded at the end of a successful activation or
	// expansion; nil means "never activated".
	activatedNodeIDs []string
	isReBalancing    bool
	// heartbeat and activationStart feed the in_activation watchdog.
	heartbeat       time.Time
	activationStart time.Time
	sizeUtil        int64
	mgmtImage       string
	spdkImage       string
	// events is the cluster's event log in date order (events.go).
	events []*eventRecord
	// pendingDistr are distrib rows whose verdict is not written yet.
	pendingDistr []pendingDistr
	// nextDeviceOrder is the next cluster_device_order to assign.
	nextDeviceOrder int64
	// lastHousekeeping, lastCapCheck and lastCapCrit pace the monitor's
	// event retention and the cap monitor's events.
	lastHousekeeping, lastCapCheck, lastCapCrit time.Time
	// autoActivationPending is set by the monitor when it spawns an
	// auto-activation, so that the next tick does not spawn another.
	autoActivationPending bool
	// suspendDrainComplete: the suspend-recovery drain shut every node
	// down; peers may then restart concurrently (SNO:4584-4590).
	suspendDrainComplete bool
}

type nodeState struct {
	id        string
	clusterID string
	status    sb.NodeStatus
	address   string // node_address as sent on add, host:port
	mgmtIP    string
	hostname  string // <host hostname>_<rpc_port> (SNO:3184), the bare host name after a move (SNO:4635)
	hostNQN   string // nqn.2023-02.io.simplyblock:<hostname> as set on add (SNO:3185-3186,3206)
	params    map[string]any
	created   time.Time

	secondaryNodeID     string
	hasLVStore          bool
	autoRestartDisabled bool // set by deliberate shutdown/suspend
	onlineSince         time.Time
	statusSince         time.Time
	killFailed          bool      // stuck in_shutdown; the monitor reconciles after 120 s
	restartClaim        bool      // a restart holds the node's claim
	claimOwner          string    // the claim's owner token while restartClaim
	outageUntil         time.Time // spontaneous outage: restarts fail until then
	lvols               int64
	devices             []*deviceState
	// decommissioned is set when a removal finished: the node's SPDK was
	// killed, its host left the swarm and its disks were wiped
	// (SNO:3948-3956). The simulator takes its host to be gone, so a later
	// SPDK kill or restart of the record fails.
	decommissioned bool
}

type taskState struct {
	id        string
	clusterID string
	nodeID    string
	fn        string
	status    sb.TaskStatus
	canceled  bool
	params    map[string]any
	result    string
	maxRetry  int64 // -1 = unlimited
	retry     int64
	date      time.Time
	deviceID  string // device_id: set on failed_device_migration tasks
	parentID  string // device_migration subtasks point at their balancing master
	running   bool   // a runner goroutine owns this task
}

type poolState struct {
	id        string
	clusterID string
	name      string
	status    sb.PoolStatus
	maxSize   int64
	volMax    int64
	maxRWIOPS int64
	maxRWMB   int64
	maxRMB    int64
	maxWMB    int64
	dhchap    bool
}

type model struct {
	clusters []*clusterState
	nodes    []*nodeState
	tasks    []*taskState
	pools    []*poolState
	creating map[string]string // cluster names being created -> reserved id
}

func newID() string { return uuid.NewString() }

// randomSecret returns 20 random alphanumerics, like utils.generate_string.
func randomSecret() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 20)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[n.Int64()]
	}
	return string(b)
}

func (m *model) cluster(id string) *clusterState {
	for _, c := range m.clusters {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (m *model) node(id string) *nodeState {
	for _, n := range m.nodes {
		if n.id == id {
			return n
		}
	}
	return nil
}

func (m *model) task(id string) *taskState {
	for _, t := range m.tasks {
		if t.id == id {
			return t
		}
	}
	return nil
}

func (m *model) pool(id string) *poolState {
	for _, p := range m.pools {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (m *model) clusterNodes(cid string) []*nodeState {
	var out []*nodeState
	for _, n := range m.nodes {
		if n.clusterID == cid {
			out = append(out, n)
		}
	}
	return out
}

// liveNodes are the cluster's node records that are not removed.
func (m *model) liveNodes(cid string) []*nodeState {
	var out []*nodeState
	for _, n := range m.nodes {
		if n.clusterID == cid && n.status != sb.NodeRemoved {
			out = append(out, n)
		}
	}
	return out
}

func (m *model) clusterTasks(cid string) []*taskState {
	var out []*taskState
	for _, t := range m.tasks {
		if t.clusterID == cid {
			out = append(out, t)
		}
	}
	return out
}

func (m *model) clusterPools(cid string) []*poolState {
	var out []*poolState
	for _, p := range m.pools {
		if p.clusterID == cid {
			out = append(out, p)
		}
	}
	return out
}

// openTask returns an open (not done) task of the cluster matching fn and,
// when nodeID is set, the node.
func (m *model) openTask(cid, fn, nodeID string) *taskState {
	for _, t := range m.tasks {
		if t.clusterID == cid && t.fn == fn && t.status != sb.TaskDone && (nodeID == "" || t.nodeID == nodeID) {
			return t
		}
	}
	return nil
}

func (m *model) removeNode(id string) {
	for i, n := range m.nodes {
		if n.id == id {
			m.nodes = append(m.nodes[:i], m.nodes[i+1:]...)
			return
		}
	}
}

// taskFailedDeviceMigration is JobSchedule.FN_FAILED_DEV_MIG
// (models/job_schedule.py), listed by the TaskDTO Literal (DTO:70-88).
const taskFailedDeviceMigration = "failed_device_migration"

// isMigrationFn reports whether an open task keeps is_re_balancing true
// (MON:826-852; the simulator creates none of the lvol migrations or
// the balancing_on_dev_* masters).
func isMigrationFn(fn string) bool {
	switch fn {
	case sb.TaskFunctionDeviceMigration, sb.TaskFunctionNewDeviceMigration, sb.TaskFunctionBalancingOnRestart,
		taskFailedDeviceMigration:
		return true
	}
	return false
}

// taskFnOutsideDTOEnum reports whether the backend's TaskDTO Literal lacks
// fn, which makes any response containing such a task a 500.
func taskFnOutsideDTOEnum(fn string) bool {
	switch fn {
	case sb.TaskFunctionClusterExpand, sb.TaskFunctionNodeRemoval, "lvol_sync_op", "lvol_batch_migration", "replication_final", taskFdbBackup:
		return true
	}
	return false
}

// ---- DTO rendering -------------------------------------------------------

func (c *clusterState) dto() sb.ClusterDTO {
	name := c.name
	p := c.params
	return sb.ClusterDTO{
		ID:                          c.id,
		Name:                        &name,
		NQN:                         "nqn.2023-02.io.simplyblock:" + c.id,
		Status:                      c.status,
		IsReBalancing:               c.isReBalancing,
		BlockSize:                   p.BlkSize,
		DistrNdcs:                   p.DistrNdcs,
		DistrNpcs:                   p.DistrNpcs,
		HA:                          p.HAType == "ha",
		UtilizationCritical:         p.CapCrit,
		UtilizationWarning:          p.CapWarn,
		ProvisionedCapacityCritical: p.ProvCapCrit,
		ProvisionedCapacityWarning:  p.ProvCapWarn,
		NodeAffinity:                p.EnableNodeAffinity,
		AntiAffinity:                p.StrictNodeAntiAffinity,
		EnableFailureDomain:         p.EnableFailureDomain,
		Secret:                      c.secret,
		TLSEnabled:                  false,
		MaxFaultTolerance:           p.DistrNpcs,
		BackupEnabled:               p.BackupConfig != nil,
		Capacity:                    sb.CapacityStatDTO{SizeUtil: c.sizeUtil},
	}
}

func (n *nodeState) dto(now time.Time) sb.StorageNodeDTO {
	d := sb.StorageNodeDTO{
		ID:             n.id,
		ClusterID:      n.clusterID,
		Status:         n.status,
		Hostname:       n.hostname,
		HostNQN:        n.hostNQN,
		CPUTotalCount:  16,
		CPUSpdkCount:   4,
		CPUPollerCount: 4,
		Memory:         64 << 30,
		HugepageMemory: 8 << 30,
		SpdkMem:        4 << 30,
		Lvols:          n.lvols,
		LvolsMax:       256,
		SnapshotsMax:   500,
		RPCPort:        nodeRPCPort,
		LvolSubsysPort: 9090,
		HublvolPort:    9030,
		NvmfPort:       4420,
		MgmtIP:         n.mgmtIP,
		DeviceCount:    devicesPerNode,
		FailureDomain:  -1,
	}
	if v, ok := n.params["max_snap"].(float64); ok {
		d.SnapshotsMax = int64(v)
	}
	if n.secondaryNodeID != "" {
		s := n.secondaryNodeID
		d.SecondaryNodeID = &s
	}
	switch n.status {
	case sb.NodeOnline:
		up := isoDuration(now.Sub(n.onlineSince))
		d.Uptime = &up
		t := true
		d.HealthCheck = &t
		d.OnlineDeviceCount = devicesPerNode
	case sb.NodeDown:
		f := false
		d.HealthCheck = &f
	}
	return d
}

// isoDuration renders a timedelta the way pydantic v2 serialises it in
// JSON mode (ser_json_timedelta "iso8601", the default): pydantic-core
// turns it into a speedate Duration (days, seconds < 86400, microseconds)
// and writes its Display form (speedate src/duration.rs): "P", then whole
// 365-day years as "<n>Y" and the remaining days as "<n>D", then, when
// seconds or microseconds are non-zero, "T<seconds>" with the
// microseconds as a 6-digit fraction stripped of trailing zeros, and "S";
// a zero duration is "PT0S". Seconds are never split into hours and
// minutes: PT3723.456789S, P1DT30.000123S, P1Y. backend-contract.md §4
// marks this [lib]: it follows the library, not sbcli.
func isoDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	us := int64(d / time.Microsecond)
	days, secs, micros := us/86_400_000_000, (us/1_000_000)%86_400, us%1_000_000
	out := "P"
	if y := days / 365; y != 0 {
		out += fmt.Sprintf("%dY", y)
	}
	if dd := days % 365; dd != 0 {
		out += fmt.Sprintf("%dD", dd)
	}
	if secs != 0 || micros != 0 {
		out += fmt.Sprintf("T%d", secs)
		if micros != 0 {
			out += "." + strings.TrimRight(fmt.Sprintf("%06d", micros), "0")
		}
		out += "S"
	}
	if days == 0 && secs == 0 && micros == 0 {
		out += "T0S"
	}
	return out
}

// nodeRPCPort is the rpc_port every simulated node reports.
const nodeRPCPort = 8080

// nodeHostname is add_node's hostname, "<host hostname>_<rpc_port>"
// (SNO:3184); hostNQN is its host_nqn, the cluster NQN's base
// "nqn.2023-02.io.simplyblock" and the hostname (SNO:3185-3186).
func nodeHostname(host string) string { return fmt.Sprintf("%s_%d", simHostname(host), nodeRPCPort) }

func hostNQN(hostname string) string { return "nqn.2023-02.io.simplyblock:" + hostname }

func (t *taskState) dto() sb.TaskDTO {
	d := sb.TaskDTO{
		ID:             t.id,
		ClusterID:      t.clusterID,
		Status:         t.status,
		Canceled:       t.canceled,
		FunctionName:   t.fn,
		FunctionParams: t.params,
		FunctionResult: t.result,
		Retry:          t.retry,
	}
	if d.FunctionParams == nil {
		d.FunctionParams = map[string]any{}
	}
	if t.nodeID != "" {
		n := t.nodeID
		d.StorageNodeID = &n
	}
	if t.deviceID != "" {
		dev := t.deviceID
		d.DeviceID = &dev
	}
	if t.maxRetry >= 0 {
		m := t.maxRetry
		d.MaxRetry = &m
	}
	return d
}

func (p *poolState) dto() sb.StoragePoolDTO {
	return sb.StoragePoolDTO{
		ID:            p.id,
		ClusterID:     p.clusterID,
		Name:          p.name,
		Status:        p.status,
		MaxSize:       p.maxSize,
		VolumeMaxSize: p.volMax,
		MaxRWIOPS:     p.maxRWIOPS,
		MaxRWMBytes:   p.maxRWMB,
		MaxRMBytes:    p.maxRMB,
		MaxWMBytes:    p.maxWMB,
		Capacity:      nil,
		DHCHAP:        p.dhchap,
		AllowedHosts:  []string{},
	}
}
