package simplyblock

import "context"

// API is the set of calls the controllers use. *Client implements it;
// package fake provides a mock.
type API interface {
	// ListClusters returns every cluster the token can see.
	ListClusters(ctx context.Context) ([]ClusterDTO, error)
	// GetCluster returns one cluster.
	GetCluster(ctx context.Context, id string) (*ClusterDTO, error)
	// CreateCluster creates a cluster and returns it (status unready).
	CreateCluster(ctx context.Context, params ClusterParams) (*ClusterDTO, error)
	// UpdateClusterName renames a cluster.
	UpdateClusterName(ctx context.Context, id, name string) error
	// DeleteCluster deletes an empty cluster.
	DeleteCluster(ctx context.Context, id string) error
	// ActivateCluster starts an activation in the background (202).
	ActivateCluster(ctx context.Context, id string) error
	// ExpandCluster starts the legacy expansion in the background (202).
	ExpandCluster(ctx context.Context, id string) error
	// ShutdownCluster starts a cluster shutdown in the background (202).
	ShutdownCluster(ctx context.Context, id string) error
	// StartCluster starts a cluster start in the background (202). On an
	// active cluster this is an outage.
	StartCluster(ctx context.Context, id string) error
	// RebalanceCluster queues rebalancing tasks (204).
	RebalanceCluster(ctx context.Context, id string) error
	// UpdateCluster updates images synchronously; it may outlast the
	// timeout.
	UpdateCluster(ctx context.Context, id string, params UpdateParams) error
	// ClusterLogs returns the newest cluster events; limit <= 0 uses the
	// backend default.
	ClusterLogs(ctx context.Context, id string, limit int) ([]ClusterLogEntry, error)

	// ListStorageNodes returns every node record of a cluster, removed
	// ones included.
	ListStorageNodes(ctx context.Context, clusterID string) ([]StorageNodeDTO, error)
	// GetStorageNode returns one node.
	GetStorageNode(ctx context.Context, clusterID, nodeID string) (*StorageNodeDTO, error)
	// AddStorageNode queues a node_add task and returns its id. No node id
	// is returned: find the node by listing.
	AddStorageNode(ctx context.Context, clusterID string, params StorageNodeParams) (taskID string, err error)
	// DeleteStorageNode queues a node removal.
	DeleteStorageNode(ctx context.Context, clusterID, nodeID string, opts NodeDeleteOptions) error
	// SuspendStorageNode suspends an online node.
	SuspendStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error
	// ResumeStorageNode resumes a suspended node.
	ResumeStorageNode(ctx context.Context, clusterID, nodeID string) error
	// ShutdownStorageNode shuts a node down in the background (202).
	ShutdownStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error
	// RestartStorageNode restarts a node in the background (202).
	RestartStorageNode(ctx context.Context, clusterID, nodeID string, params RestartParams) error
	// StartStorageNode is identical to RestartStorageNode on the backend.
	StartStorageNode(ctx context.Context, clusterID, nodeID string, params RestartParams) error
	// PromoteStorageNode re-adds a node's new devices and sets its primary
	// IP after a move (synchronous, 204).
	PromoteStorageNode(ctx context.Context, clusterID, nodeID string) error

	// ListStoragePools returns the pools of a cluster.
	ListStoragePools(ctx context.Context, clusterID string) ([]StoragePoolDTO, error)
	// GetStoragePool returns one pool.
	GetStoragePool(ctx context.Context, clusterID, poolID string) (*StoragePoolDTO, error)
	// CreateStoragePool creates a pool and returns it.
	CreateStoragePool(ctx context.Context, clusterID string, params StoragePoolParams) (*StoragePoolDTO, error)
	// UpdateStoragePool updates a pool. Omitting MaxSize resets it to 0.
	UpdateStoragePool(ctx context.Context, clusterID, poolID string, params UpdatableStoragePoolParams) error
	// DeleteStoragePool deletes a pool.
	DeleteStoragePool(ctx context.Context, clusterID, poolID string) error

	// ListTasks returns the visible tasks of a cluster.
	ListTasks(ctx context.Context, clusterID string) ([]TaskDTO, error)
	// GetTask returns one task. An unknown id answers 500, not 404.
	GetTask(ctx context.Context, clusterID, taskID string) (*TaskDTO, error)

	// Health probes /_meta/health.
	Health(ctx context.Context) error
	// Ready probes /_meta/ready; a 503 "FDB not ready" is a ServerError.
	Ready(ctx context.Context) error
}
