// Package fake provides a mock of simplyblock.API for controller tests.
package fake

import (
	"context"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// MockClient implements simplyblock.API by calling its function fields.
// Calling a method whose field is nil panics, which points at the missing
// stub.
type MockClient struct {
	MockListClusters      func(ctx context.Context) ([]simplyblock.ClusterDTO, error)
	MockGetCluster        func(ctx context.Context, id string) (*simplyblock.ClusterDTO, error)
	MockCreateCluster     func(ctx context.Context, params simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error)
	MockUpdateClusterName func(ctx context.Context, id, name string) error
	MockDeleteCluster     func(ctx context.Context, id string) error
	MockActivateCluster   func(ctx context.Context, id string) error
	MockExpandCluster     func(ctx context.Context, id string) error
	MockShutdownCluster   func(ctx context.Context, id string) error
	MockStartCluster      func(ctx context.Context, id string) error
	MockRebalanceCluster  func(ctx context.Context, id string) error
	MockUpdateCluster     func(ctx context.Context, id string, params simplyblock.UpdateParams) error
	MockClusterLogs       func(ctx context.Context, id string, limit int) ([]simplyblock.ClusterLogEntry, error)

	MockListStorageNodes    func(ctx context.Context, clusterID string) ([]simplyblock.StorageNodeDTO, error)
	MockGetStorageNode      func(ctx context.Context, clusterID, nodeID string) (*simplyblock.StorageNodeDTO, error)
	MockAddStorageNode      func(ctx context.Context, clusterID string, params simplyblock.StorageNodeParams) (string, error)
	MockDeleteStorageNode   func(ctx context.Context, clusterID, nodeID string, opts simplyblock.NodeDeleteOptions) error
	MockSuspendStorageNode  func(ctx context.Context, clusterID, nodeID string, force bool) error
	MockResumeStorageNode   func(ctx context.Context, clusterID, nodeID string) error
	MockPromoteStorageNode  func(ctx context.Context, clusterID, nodeID string) error
	MockShutdownStorageNode func(ctx context.Context, clusterID, nodeID string, force bool) error
	MockRestartStorageNode  func(ctx context.Context, clusterID, nodeID string, params simplyblock.RestartParams) error
	MockStartStorageNode    func(ctx context.Context, clusterID, nodeID string, params simplyblock.RestartParams) error

	MockListStoragePools  func(ctx context.Context, clusterID string) ([]simplyblock.StoragePoolDTO, error)
	MockGetStoragePool    func(ctx context.Context, clusterID, poolID string) (*simplyblock.StoragePoolDTO, error)
	MockCreateStoragePool func(ctx context.Context, clusterID string, params simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error)
	MockUpdateStoragePool func(ctx context.Context, clusterID, poolID string, params simplyblock.UpdatableStoragePoolParams) error
	MockDeleteStoragePool func(ctx context.Context, clusterID, poolID string) error

	MockListTasks func(ctx context.Context, clusterID string) ([]simplyblock.TaskDTO, error)
	MockGetTask   func(ctx context.Context, clusterID, taskID string) (*simplyblock.TaskDTO, error)

	MockHealth func(ctx context.Context) error
	MockReady  func(ctx context.Context) error
}

// ListClusters calls MockListClusters.
func (m *MockClient) ListClusters(ctx context.Context) ([]simplyblock.ClusterDTO, error) {
	return m.MockListClusters(ctx)
}

// GetCluster calls MockGetCluster.
func (m *MockClient) GetCluster(ctx context.Context, id string) (*simplyblock.ClusterDTO, error) {
	return m.MockGetCluster(ctx, id)
}

// CreateCluster calls MockCreateCluster.
func (m *MockClient) CreateCluster(ctx context.Context, params simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
	return m.MockCreateCluster(ctx, params)
}

// UpdateClusterName calls MockUpdateClusterName.
func (m *MockClient) UpdateClusterName(ctx context.Context, id, name string) error {
	return m.MockUpdateClusterName(ctx, id, name)
}

// DeleteCluster calls MockDeleteCluster.
func (m *MockClient) DeleteCluster(ctx context.Context, id string) error {
	return m.MockDeleteCluster(ctx, id)
}

// ActivateCluster calls MockActivateCluster.
func (m *MockClient) ActivateCluster(ctx context.Context, id string) error {
	return m.MockActivateCluster(ctx, id)
}

// ExpandCluster calls MockExpandCluster.
func (m *MockClient) ExpandCluster(ctx context.Context, id string) error {
	return m.MockExpandCluster(ctx, id)
}

// ShutdownCluster calls MockShutdownCluster.
func (m *MockClient) ShutdownCluster(ctx context.Context, id string) error {
	return m.MockShutdownCluster(ctx, id)
}

// StartCluster calls MockStartCluster.
func (m *MockClient) StartCluster(ctx context.Context, id string) error {
	return m.MockStartCluster(ctx, id)
}

// RebalanceCluster calls MockRebalanceCluster.
func (m *MockClient) RebalanceCluster(ctx context.Context, id string) error {
	return m.MockRebalanceCluster(ctx, id)
}

// UpdateCluster calls MockUpdateCluster.
func (m *MockClient) UpdateCluster(ctx context.Context, id string, params simplyblock.UpdateParams) error {
	return m.MockUpdateCluster(ctx, id, params)
}

// ClusterLogs calls MockClusterLogs.
func (m *MockClient) ClusterLogs(ctx context.Context, id string, limit int) ([]simplyblock.ClusterLogEntry, error) {
	return m.MockClusterLogs(ctx, id, limit)
}

// ListStorageNodes calls MockListStorageNodes.
func (m *MockClient) ListStorageNodes(ctx context.Context, clusterID string) ([]simplyblock.StorageNodeDTO, error) {
	return m.MockListStorageNodes(ctx, clusterID)
}

// GetStorageNode calls MockGetStorageNode.
func (m *MockClient) GetStorageNode(ctx context.Context, clusterID, nodeID string) (*simplyblock.StorageNodeDTO, error) {
	return m.MockGetStorageNode(ctx, clusterID, nodeID)
}

// AddStorageNode calls MockAddStorageNode.
func (m *MockClient) AddStorageNode(ctx context.Context, clusterID string, params simplyblock.StorageNodeParams) (string, error) {
	return m.MockAddStorageNode(ctx, clusterID, params)
}

// DeleteStorageNode calls MockDeleteStorageNode.
func (m *MockClient) DeleteStorageNode(ctx context.Context, clusterID, nodeID string, opts simplyblock.NodeDeleteOptions) error {
	return m.MockDeleteStorageNode(ctx, clusterID, nodeID, opts)
}

// SuspendStorageNode calls MockSuspendStorageNode.
func (m *MockClient) SuspendStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error {
	return m.MockSuspendStorageNode(ctx, clusterID, nodeID, force)
}

// PromoteStorageNode calls MockPromoteStorageNode.
func (m *MockClient) PromoteStorageNode(ctx context.Context, clusterID, nodeID string) error {
	return m.MockPromoteStorageNode(ctx, clusterID, nodeID)
}

// ResumeStorageNode calls MockResumeStorageNode.
func (m *MockClient) ResumeStorageNode(ctx context.Context, clusterID, nodeID string) error {
	return m.MockResumeStorageNode(ctx, clusterID, nodeID)
}

// ShutdownStorageNode calls MockShutdownStorageNode.
func (m *MockClient) ShutdownStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error {
	return m.MockShutdownStorageNode(ctx, clusterID, nodeID, force)
}

// RestartStorageNode calls MockRestartStorageNode.
func (m *MockClient) RestartStorageNode(ctx context.Context, clusterID, nodeID string, params simplyblock.RestartParams) error {
	return m.MockRestartStorageNode(ctx, clusterID, nodeID, params)
}

// StartStorageNode calls MockStartStorageNode.
func (m *MockClient) StartStorageNode(ctx context.Context, clusterID, nodeID string, params simplyblock.RestartParams) error {
	return m.MockStartStorageNode(ctx, clusterID, nodeID, params)
}

// ListStoragePools calls MockListStoragePools.
func (m *MockClient) ListStoragePools(ctx context.Context, clusterID string) ([]simplyblock.StoragePoolDTO, error) {
	return m.MockListStoragePools(ctx, clusterID)
}

// GetStoragePool calls MockGetStoragePool.
func (m *MockClient) GetStoragePool(ctx context.Context, clusterID, poolID string) (*simplyblock.StoragePoolDTO, error) {
	return m.MockGetStoragePool(ctx, clusterID, poolID)
}

// CreateStoragePool calls MockCreateStoragePool.
func (m *MockClient) CreateStoragePool(ctx context.Context, clusterID string, params simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
	return m.MockCreateStoragePool(ctx, clusterID, params)
}

// UpdateStoragePool calls MockUpdateStoragePool.
func (m *MockClient) UpdateStoragePool(ctx context.Context, clusterID, poolID string, params simplyblock.UpdatableStoragePoolParams) error {
	return m.MockUpdateStoragePool(ctx, clusterID, poolID, params)
}

// DeleteStoragePool calls MockDeleteStoragePool.
func (m *MockClient) DeleteStoragePool(ctx context.Context, clusterID, poolID string) error {
	return m.MockDeleteStoragePool(ctx, clusterID, poolID)
}

// ListTasks calls MockListTasks.
func (m *MockClient) ListTasks(ctx context.Context, clusterID string) ([]simplyblock.TaskDTO, error) {
	return m.MockListTasks(ctx, clusterID)
}

// GetTask calls MockGetTask.
func (m *MockClient) GetTask(ctx context.Context, clusterID, taskID string) (*simplyblock.TaskDTO, error) {
	return m.MockGetTask(ctx, clusterID, taskID)
}

// Health calls MockHealth.
func (m *MockClient) Health(ctx context.Context) error {
	return m.MockHealth(ctx)
}

// Ready calls MockReady.
func (m *MockClient) Ready(ctx context.Context) error {
	return m.MockReady(ctx)
}
