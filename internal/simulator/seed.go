package simulator

import (
	"fmt"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// SeedCluster describes a cluster to create directly in the model, as if it
// had been created (and, for active, activated) long ago.
type SeedCluster struct {
	// Name of the cluster; empty gives "sim-cluster-N".
	Name string `json:"name,omitempty"`
	// Nodes is the number of storage nodes.
	Nodes int `json:"nodes,omitempty"`
	// Status is unready (default) or active. Active clusters have all nodes
	// activated (lvstores, secondaries).
	Status sb.ClusterStatus `json:"status,omitempty"`
	// NodeStatus is the nodes' status, default online.
	NodeStatus sb.NodeStatus `json:"node_status,omitempty"`
	// NodeAddressPrefix prefixes the nodes' IPv4 addresses, default
	// "10.0.0."; node i gets <prefix><10+i> and address <ip>:5000.
	NodeAddressPrefix string `json:"node_address_prefix,omitempty"`
	// Params overrides the cluster parameters (default: the backend's
	// defaults, 1+1 erasure coding, HA).
	Params *sb.ClusterParams `json:"params,omitempty"`
	// LogExpired seeds a cluster created more than 30 days ago and quiet
	// since: the monitor deleted its events (MON:804-810), so its log is
	// empty and answers 500 until it logs again (C/:203-206).
	LogExpired bool `json:"log_expired,omitempty"`
	// Mode is the cluster's deployment mode: ModeKubernetes (default) or
	// ModeDocker, whose capacity monitor keeps an fdb_backup task (one done
	// an hour ago is seeded), so that GET /tasks/ always answers 500
	// (backend-contract.md M5).
	Mode string `json:"mode,omitempty"`
}

// Deployment modes of a cluster (models/cluster.py:139).
const (
	ModeKubernetes = "kubernetes"
	ModeDocker     = "docker"
)

// SeedResult is what Seed created.
type SeedResult struct {
	ClusterID string   `json:"cluster_id"`
	Secret    string   `json:"secret"`
	NodeIDs   []string `json:"node_ids"`
}

// Seed creates a cluster with nodes directly in the model and returns its
// id, its secret and the node ids in database order.
func (s *Simulator) Seed(sc SeedCluster) (clusterID, secret string, nodeIDs []string) {
	r := s.seed(sc)
	return r.ClusterID, r.Secret, r.NodeIDs
}

func (s *Simulator) seed(sc SeedCluster) SeedResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := sb.DefaultClusterParams()
	if sc.Params != nil {
		p = *sc.Params
	}
	if p.CapWarn == 0 {
		p.CapWarn = 80
	}
	if p.CapCrit == 0 {
		p.CapCrit = 90
	}
	if p.ProvCapWarn == 0 {
		p.ProvCapWarn = 180
	}
	if p.ProvCapCrit == 0 {
		p.ProvCapCrit = 190
	}
	if sc.Name == "" {
		sc.Name = fmt.Sprintf("sim-cluster-%d", len(s.m.clusters)+1)
	}
	p.Name = sc.Name
	status := sc.Status
	if status == "" {
		status = sb.ClusterUnready
	}
	nodeStatus := sc.NodeStatus
	if nodeStatus == "" {
		nodeStatus = sb.NodeOnline
	}
	prefix := sc.NodeAddressPrefix
	if prefix == "" {
		prefix = "10.0.0."
	}
	now := s.clk.now()
	long := now.Add(-time.Hour)
	if sc.LogExpired {
		long = now.Add(-eventRetention - 24*time.Hour)
	}
	mode := sc.Mode
	if mode == "" {
		mode = ModeKubernetes
	}
	c := &clusterState{id: newID(), name: sc.Name, status: status, params: p, secret: randomSecret(), created: long, mode: mode}
	s.m.clusters = append(s.m.clusters, c)
	// The cluster was created long ago: so was its event (OPS:704), unless
	// the monitor has deleted it since.
	if !sc.LogExpired {
		s.logEventLocked(c, &eventRecord{dateMS: msOf(long), object: objCluster, event: evObjCreated, message: "Cluster created " + c.id})
	}
	var ids []string
	var nodes []*nodeState
	for i := 0; i < sc.Nodes; i++ {
		ip := fmt.Sprintf("%s%d", prefix, 10+i)
		hn := nodeHostname(ip)
		n := &nodeState{id: newID(), clusterID: c.id, status: nodeStatus, address: ip + ":5000", mgmtIP: ip,
			hostname: hn, hostNQN: hostNQN(hn), created: long, statusSince: long, onlineSince: long,
			params: map[string]any{"node_addr": ip + ":5000", "iface_name": "eth0"}, devices: newDevices()}
		for _, d := range n.devices { // created long ago: no events
			d.order, d.status = c.nextDeviceOrder, devOnline
			c.nextDeviceOrder++
		}
		s.m.nodes = append(s.m.nodes, n)
		nodes = append(nodes, n)
		ids = append(ids, n.id)
	}
	if status != sb.ClusterUnready && status != sb.ClusterInActivation {
		c.activatedNodeIDs = append([]string{}, ids...)
		for i, n := range nodes {
			n.hasLVStore = true
			if p.HAType == "ha" && len(nodes) > 1 {
				n.secondaryNodeID = nodes[(i+1)%len(nodes)].id
			}
		}
	}
	if status == sb.ClusterInActivation {
		c.heartbeat, c.activationStart = now, now
	}
	if mode == ModeDocker {
		// Its capacity monitor has been taking backups (fdbBackupLocked).
		s.m.tasks = append(s.m.tasks, &taskState{id: newID(), clusterID: c.id, fn: taskFdbBackup, status: sb.TaskDone,
			result: "Backup created", maxRetry: 8, params: map[string]any{}, date: now.Add(-time.Hour)})
	}
	return SeedResult{ClusterID: c.id, Secret: c.secret, NodeIDs: ids}
}
