package simplyblock

// Field names and enums in this file follow the vendor OpenAPI spec
// (simplyblock-api-v2.openapi.json) and the backend's own DTOs.

// ClusterStatus is the status of a cluster as reported by ClusterDTO.
type ClusterStatus string

// Cluster statuses. The backend never produces ClusterInactive, and
// ClusterInShrink is internal: a GET of a cluster in that state answers 500.
const (
	ClusterUnready      ClusterStatus = "unready"
	ClusterInActivation ClusterStatus = "in_activation"
	ClusterActive       ClusterStatus = "active"
	ClusterDegraded     ClusterStatus = "degraded"
	ClusterSuspended    ClusterStatus = "suspended"
	ClusterReadOnly     ClusterStatus = "read_only"
	ClusterInExpansion  ClusterStatus = "in_expansion"
	ClusterInactive     ClusterStatus = "inactive"
	ClusterInShrink     ClusterStatus = "in_shrink"
)

// NodeStatus is the status of a storage node as reported by StorageNodeDTO.
type NodeStatus string

// Storage node statuses.
const (
	NodeInCreation  NodeStatus = "in_creation"
	NodeOnline      NodeStatus = "online"
	NodeSuspended   NodeStatus = "suspended"
	NodeInShutdown  NodeStatus = "in_shutdown"
	NodeOffline     NodeStatus = "offline"
	NodeInRestart   NodeStatus = "in_restart"
	NodeUnreachable NodeStatus = "unreachable"
	NodeSchedulable NodeStatus = "schedulable"
	NodeDown        NodeStatus = "down"
	NodeRemoved     NodeStatus = "removed"
)

// PoolStatus is the status of a storage pool.
type PoolStatus string

// Storage pool statuses.
const (
	PoolActive   PoolStatus = "active"
	PoolInactive PoolStatus = "inactive"
)

// TaskStatus is the status of a backend task. There is no failed status: a
// failed task is TaskDone with a FunctionResult such as "max retry reached".
type TaskStatus string

// Task statuses.
const (
	TaskNew       TaskStatus = "new"
	TaskRunning   TaskStatus = "running"
	TaskSuspended TaskStatus = "suspended"
	TaskDone      TaskStatus = "done"
)

// Task function names the provider cares about.
const (
	TaskFunctionNodeAdd            = "node_add"
	TaskFunctionNodeRestart        = "node_restart"
	TaskFunctionNodeRemoval        = "node_removal"
	TaskFunctionClusterExpand      = "cluster_expand"
	TaskFunctionDeviceMigration    = "device_migration"
	TaskFunctionNewDeviceMigration = "new_device_migration"
	TaskFunctionBalancingOnRestart = "balancing_on_restart"
)

// CapacityStatDTO is a capacity sample. All fields are 0 before the backend's
// stats collector has run.
type CapacityStatDTO struct {
	Date      int64 `json:"date"`
	SizeTotal int64 `json:"size_total"`
	SizeProv  int64 `json:"size_prov"`
	SizeUsed  int64 `json:"size_used"`
	SizeFree  int64 `json:"size_free"`
	SizeUtil  int64 `json:"size_util"`
}

// ClusterDTO is a cluster as the backend returns it.
type ClusterDTO struct {
	ID                          string        `json:"id"`
	Name                        *string       `json:"name"`
	NQN                         string        `json:"nqn"`
	Status                      ClusterStatus `json:"status"`
	IsReBalancing               bool          `json:"is_re_balancing"`
	BlockSize                   int64         `json:"block_size"`
	DistrNdcs                   int64         `json:"distr_ndcs"`
	DistrNpcs                   int64         `json:"distr_npcs"`
	HA                          bool          `json:"ha"`
	UtilizationCritical         int64         `json:"utilization_critical"`
	UtilizationWarning          int64         `json:"utilization_warning"`
	ProvisionedCapacityCritical int64         `json:"provisioned_capacity_critical"`
	ProvisionedCapacityWarning  int64         `json:"provisioned_capacity_warning"`
	NodeAffinity                bool          `json:"node_affinity"`
	AntiAffinity                bool          `json:"anti_affinity"`
	EnableFailureDomain         bool          `json:"enable_failure_domain"`
	// Secret is the cluster secret in plain text. It is also a bearer token
	// for this cluster: never log it.
	Secret            string          `json:"secret"`
	TLSEnabled        bool            `json:"tls_enabled"`
	MaxFaultTolerance int64           `json:"max_fault_tolerance"`
	BackupEnabled     bool            `json:"backup_enabled"`
	Capacity          CapacityStatDTO `json:"capacity"`
}

// BackupConfigParams configures S3 backups of a cluster.
type BackupConfigParams struct {
	AccessKeyID      string `json:"access_key_id,omitempty"`
	SecretAccessKey  string `json:"secret_access_key,omitempty"`
	LocalEndpoint    string `json:"local_endpoint,omitempty"`
	BucketName       string `json:"bucket_name,omitempty"`
	SnapshotBackups  *bool  `json:"snapshot_backups,omitempty"`
	WithCompression  *bool  `json:"with_compression,omitempty"`
	SecondaryTarget  *int64 `json:"secondary_target,omitempty"`
	LocalTesting     *bool  `json:"local_testing,omitempty"`
	S3ThreadPoolSize *int64 `json:"s3_thread_pool_size,omitempty"`
}

// HashicorpVaultSettings configures Vault as the cluster's key store.
type HashicorpVaultSettings struct {
	BaseURL      string `json:"base_url,omitempty"`
	TransitMount string `json:"transit_mount,omitempty"`
	KVMount      string `json:"kv_mount,omitempty"`
	CertRole     string `json:"cert_role,omitempty"`
}

// ClusterParams is the body of a cluster create. DefaultClusterParams returns
// the backend's defaults; MaxSubsys and SpdkVcpuCount are required by the
// backend although the published spec does not list them.
type ClusterParams struct {
	Name                   string                  `json:"name"`
	BlkSize                int64                   `json:"blk_size"`
	PageSizeInBlocks       int64                   `json:"page_size_in_blocks"`
	CapWarn                int64                   `json:"cap_warn"`
	CapCrit                int64                   `json:"cap_crit"`
	ProvCapWarn            int64                   `json:"prov_cap_warn"`
	ProvCapCrit            int64                   `json:"prov_cap_crit"`
	DistrNdcs              int64                   `json:"distr_ndcs"`
	DistrNpcs              int64                   `json:"distr_npcs"`
	DistrBs                int64                   `json:"distr_bs"`
	DistrChunkBs           int64                   `json:"distr_chunk_bs"`
	HAType                 string                  `json:"ha_type"`
	QpairCount             int64                   `json:"qpair_count"`
	MaxQueueSize           int64                   `json:"max_queue_size"`
	InflightIOThreshold    int64                   `json:"inflight_io_threshold"`
	EnableNodeAffinity     bool                    `json:"enable_node_affinity"`
	StrictNodeAntiAffinity bool                    `json:"strict_node_anti_affinity"`
	IsSingleNode           bool                    `json:"is_single_node"`
	Fabric                 string                  `json:"fabric"`
	CRName                 string                  `json:"cr_name"`
	CRNamespace            string                  `json:"cr_namespace"`
	CRPlural               string                  `json:"cr_plural"`
	ClusterIP              string                  `json:"cluster_ip,omitempty"`
	GrafanaSecret          string                  `json:"grafana_secret,omitempty"`
	ClientDataNic          string                  `json:"client_data_nic"`
	MaxFaultTolerance      int64                   `json:"max_fault_tolerance,omitempty"`
	NvmfBasePort           int64                   `json:"nvmf_base_port"`
	RPCBasePort            int64                   `json:"rpc_base_port"`
	SnodeAPIPort           int64                   `json:"snode_api_port"`
	MaxSubsys              int64                   `json:"max_subsys"`
	SpdkVcpuCount          int64                   `json:"spdk_vcpu_count"`
	HugepagesMem           string                  `json:"hugepages_mem,omitempty"`
	BackupConfig           *BackupConfigParams     `json:"backup_config"`
	HashicorpVaultSettings *HashicorpVaultSettings `json:"hashicorp_vault_settings"`
	EnableFailureDomain    bool                    `json:"enable_failure_domain"`
}

// DefaultClusterParams returns ClusterParams holding the backend's defaults.
func DefaultClusterParams() ClusterParams {
	return ClusterParams{
		BlkSize:             512,
		PageSizeInBlocks:    2097152,
		DistrNdcs:           1,
		DistrNpcs:           1,
		DistrBs:             4096,
		DistrChunkBs:        4096,
		HAType:              "ha",
		QpairCount:          256,
		MaxQueueSize:        128,
		InflightIOThreshold: 4,
		Fabric:              "tcp",
		NvmfBasePort:        4420,
		RPCBasePort:         8080,
		SnodeAPIPort:        50001,
	}
}

// UpdateClusterParams is the body of PUT /clusters/{id}/. A nil Name changes
// nothing.
type UpdateClusterParams struct {
	Name *string `json:"name"`
}

// UpdateParams is the body of POST /clusters/{id}/update. Both image keys
// are required by the backend; null means "unchanged".
type UpdateParams struct {
	ManagementImage *string `json:"management_image"`
	SpdkImage       *string `json:"spdk_image"`
	Restart         bool    `json:"restart"`
}

// StorageNodeDTO is a storage node as the backend returns it.
type StorageNodeDTO struct {
	ID                string          `json:"id"`
	ClusterID         string          `json:"cluster_id"`
	SecondaryNodeID   *string         `json:"secondary_node_id"`
	Status            NodeStatus      `json:"status"`
	Uptime            *string         `json:"uptime"`
	Hostname          string          `json:"hostname"`
	HostNQN           string          `json:"host_nqn"`
	CPUTotalCount     int64           `json:"cpu_total_count"`
	CPUSpdkCount      int64           `json:"cpu_spdk_count"`
	CPUPollerCount    int64           `json:"cpu_poller_count"`
	Memory            int64           `json:"memory"`
	HugepageMemory    int64           `json:"hugepage_memory"`
	SpdkMem           int64           `json:"spdk_mem"`
	Lvols             int64           `json:"lvols"`
	LvolsMax          int64           `json:"lvols_max"`
	SnapshotsMax      int64           `json:"snapshots_max"`
	RPCPort           int64           `json:"rpc_port"`
	LvolSubsysPort    int64           `json:"lvol_subsys_port"`
	HublvolPort       int64           `json:"hublvol_port"`
	NvmfPort          int64           `json:"nvmf_port"`
	MgmtIP            string          `json:"mgmt_ip"`
	HealthCheck       *bool           `json:"health_check"`
	DeviceCount       int64           `json:"device_count"`
	OnlineDeviceCount int64           `json:"online_device_count"`
	FailureDomain     int64           `json:"failure_domain"`
	Capacity          CapacityStatDTO `json:"capacity"`
}

// StorageNodeParams is the body of a storage node add. DefaultStorageNodeParams
// returns the backend's defaults for everything but the two required fields.
type StorageNodeParams struct {
	NodeAddress         string   `json:"node_address"`
	InterfaceName       string   `json:"interface_name"`
	MaxSnapshots        *int64   `json:"max_snapshots,omitempty"`
	HAJm                *bool    `json:"ha_jm,omitempty"`
	TestDevice          *bool    `json:"test_device,omitempty"`
	SpdkImage           *string  `json:"spdk_image,omitempty"`
	SpdkDebug           bool     `json:"spdk_debug"`
	DataNics            []string `json:"data_nics"`
	Namespace           string   `json:"namespace"`
	IDDeviceByNQN       *bool    `json:"id_device_by_nqn,omitempty"`
	JmPercent           int64    `json:"jm_percent"`
	Partitions          int64    `json:"partitions"`
	IobufSmallPoolCount int64    `json:"iobuf_small_pool_count"`
	IobufLargePoolCount int64    `json:"iobuf_large_pool_count"`
	CRName              string   `json:"cr_name"`
	CRNamespace         string   `json:"cr_namespace"`
	CRPlural            string   `json:"cr_plural"`
	HAJmCount           *int64   `json:"ha_jm_count,omitempty"`
	Format4k            bool     `json:"format_4k"`
	SpdkProxyImage      *string  `json:"spdk_proxy_image,omitempty"`
	SpdkSysMem          *string  `json:"spdk_sys_mem,omitempty"`
	FailureDomain       *int64   `json:"failure_domain,omitempty"`
	Expand              bool     `json:"expand"`
}

// DefaultStorageNodeParams returns StorageNodeParams with the backend's
// defaults for the given address and interface.
func DefaultStorageNodeParams(nodeAddress, interfaceName string) StorageNodeParams {
	maxSnapshots := int64(500)
	haJm := true
	return StorageNodeParams{
		NodeAddress:   nodeAddress,
		InterfaceName: interfaceName,
		MaxSnapshots:  &maxSnapshots,
		HAJm:          &haJm,
		DataNics:      []string{},
		Namespace:     "default",
		JmPercent:     3,
		Partitions:    1,
	}
}

// RestartParams is the body of a node restart or start. The backend requires
// a body; the zero value sends the defaults.
type RestartParams struct {
	Force          bool     `json:"force"`
	ReattachVolume bool     `json:"reattach_volume"`
	NodeAddress    *string  `json:"node_address"`
	NewSsdPcie     []string `json:"new_ssd_pcie"`
}

// NodeDeleteOptions are the query flags of a node delete.
type NodeDeleteOptions struct {
	ForceRemove  bool
	ForceMigrate bool
	ForceDelete  bool
}

// StoragePoolDTO is a storage pool as the backend returns it.
type StoragePoolDTO struct {
	ID            string           `json:"id"`
	ClusterID     string           `json:"cluster_id"`
	Name          string           `json:"name"`
	Status        PoolStatus       `json:"status"`
	MaxSize       int64            `json:"max_size"`
	VolumeMaxSize int64            `json:"volume_max_size"`
	MaxRWIOPS     int64            `json:"max_rw_iops"`
	MaxRWMBytes   int64            `json:"max_rw_mbytes"`
	MaxRMBytes    int64            `json:"max_r_mbytes"`
	MaxWMBytes    int64            `json:"max_w_mbytes"`
	Capacity      *CapacityStatDTO `json:"capacity"`
	DHCHAP        bool             `json:"dhchap"`
	AllowedHosts  []string         `json:"allowed_hosts"`
}

// StoragePoolParams is the body of a storage pool create.
type StoragePoolParams struct {
	Name          string `json:"name"`
	PoolMax       int64  `json:"pool_max"`
	VolumeMaxSize int64  `json:"volume_max_size"`
	MaxRWIOPS     int64  `json:"max_rw_iops"`
	MaxRWMBytes   int64  `json:"max_rw_mbytes"`
	MaxRMBytes    int64  `json:"max_r_mbytes"`
	MaxWMBytes    int64  `json:"max_w_mbytes"`
	DHCHAP        bool   `json:"dhchap"`
	CRName        string `json:"cr_name"`
	CRNamespace   string `json:"cr_namespace"`
	CRPlural      string `json:"cr_plural"`
}

// UpdatableStoragePoolParams is the body of PUT /storage-pools/{id}/. Only
// set fields are sent. Beware the backend quirk: omitting MaxSize resets the
// pool's maximum to 0 (unlimited), so callers should always send it.
type UpdatableStoragePoolParams struct {
	Name             *string `json:"name,omitempty"`
	MaxSize          *int64  `json:"max_size,omitempty"`
	VolumeMaxSize    *int64  `json:"volume_max_size,omitempty"`
	MaxRWIOPS        *int64  `json:"max_rw_iops,omitempty"`
	MaxRWMBytes      *int64  `json:"max_rw_mbytes,omitempty"`
	MaxRMBytes       *int64  `json:"max_r_mbytes,omitempty"`
	MaxWMBytes       *int64  `json:"max_w_mbytes,omitempty"`
	LvolsCRName      *string `json:"lvols_cr_name,omitempty"`
	LvolsCRNamespace *string `json:"lvols_cr_namespace,omitempty"`
	LvolsCRPlural    *string `json:"lvols_cr_plural,omitempty"`
}

// TaskDTO is a backend task.
type TaskDTO struct {
	ID             string         `json:"id"`
	ClusterID      string         `json:"cluster_id"`
	DeviceID       *string        `json:"device_id"`
	StorageNodeID  *string        `json:"storage_node_id"`
	Status         TaskStatus     `json:"status"`
	Canceled       bool           `json:"canceled"`
	FunctionName   string         `json:"function_name"`
	FunctionParams map[string]any `json:"function_params"`
	FunctionResult string         `json:"function_result"`
	MaxRetry       *int64         `json:"max_retry"`
	Retry          int64          `json:"retry"`
}

// Open reports whether the task is still to run or running: not done, and
// not canceled (a canceled task is marked done by its runner).
func (t *TaskDTO) Open() bool { return t.Status != TaskDone && !t.Canceled }

// ValidationErrorDetail is one entry of a 422 response's detail list (the
// pydantic v2 shape).
type ValidationErrorDetail struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input,omitempty"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// ClusterLogEntry is one entry of GET /clusters/{id}/logs. The spec types the
// response as {}; the backend builds each entry in cluster_ops.get_logs
// (sbcli simplyblock_core/cluster_ops.py:2386-2412): every value is a string,
// a missing one is "None", and there is no id (docs/backend.md, "The event
// log").
type ClusterLogEntry struct {
	// Date is the server's local time to the millisecond, without a zone:
	// "2026-08-22 20:15:34.123", or "2026-08-22 20:15:34" when the
	// milliseconds are 0.
	Date string `json:"Date"`
	// NodeID is the node, device, task or cluster the writer named, or
	// "None".
	NodeID string `json:"NodeId"`
	// Event is STATUS_CHANGE, OBJ_CREATED, OBJ_DELETED, CAPACITY, or a
	// data-plane (distrib) event type such as device_status.
	Event   string `json:"Event"`
	Level   string `json:"Level"`
	Message string `json:"Message"`
	// StorageID, VUID: the device and volume the event names, or "None".
	StorageID string `json:"Storage_ID"`
	VUID      string `json:"VUID"`
	// Status is a task's status for task events, a distrib event's
	// processing verdict, or "None".
	Status string `json:"Status"`
}

// LogNone is how the event log spells a missing value.
const LogNone = "None"
