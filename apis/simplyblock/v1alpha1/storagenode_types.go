/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// StorageNodeParameters are the parameters of a storage node; they mirror
// the backend's StorageNodeParams. The creation parameters are immutable:
// the backend cannot change them on an existing node. forceRemove and
// forceMigrate only matter when the StorageNode is deleted and may be
// changed at any time.
//
// There is deliberately no forceDelete: the backend refuses it (answering
// 500) right after it has queued the node's removal, because the node is not
// yet in status removed, so a delete with it could never succeed.
// +kubebuilder:validation:XValidation:rule="has(self.clusterId) || has(self.clusterIdRef) || has(self.clusterIdSelector)",message="one of clusterId, clusterIdRef or clusterIdSelector is required"
// +kubebuilder:validation:XValidation:rule="(!has(self.clusterIdRef) || !has(self.clusterIdRef.__namespace__)) && (!has(self.clusterIdSelector) || !has(self.clusterIdSelector.__namespace__))",message="clusterIdRef and clusterIdSelector resolve in the StorageNode's own namespace: leave their namespace unset"
// +kubebuilder:validation:XValidation:rule="has(self.haJmCount) == has(oldSelf.haJmCount) && (!has(self.haJmCount) || self.haJmCount == oldSelf.haJmCount)",message="haJmCount is immutable"
// +kubebuilder:validation:XValidation:rule="has(self.failureDomain) == has(oldSelf.failureDomain) && (!has(self.failureDomain) || self.failureDomain == oldSelf.failureDomain)",message="failureDomain is immutable"
// +kubebuilder:validation:XValidation:rule="(has(self.dataNics) ? self.dataNics : []) == (has(oldSelf.dataNics) ? oldSelf.dataNics : [])",message="dataNics is immutable"
type StorageNodeParameters struct {
	// ClusterID is the UUID of the cluster the node joins. Set it directly,
	// or let clusterIdRef or clusterIdSelector fill it in from a
	// StorageCluster in the same namespace.
	// +optional
	// +crossplane:generate:reference:type=StorageCluster
	// +crossplane:generate:reference:extractor=github.com/crossplane/crossplane-runtime/v2/pkg/reference.ExternalName()
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterId is immutable: a storage node cannot move to another cluster"
	ClusterID string `json:"clusterId,omitempty"`

	// ClusterIDRef references the StorageCluster, in the same namespace,
	// whose external name fills clusterId.
	// +optional
	// +kubebuilder:validation:XValidation:rule="size(self.name) <= 253",message="clusterIdRef.name may have at most 253 characters"
	ClusterIDRef *xpv2.NamespacedReference `json:"clusterIdRef,omitempty"`

	// ClusterIDSelector selects the StorageCluster, in the same namespace,
	// whose external name fills clusterId.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || size(self.matchLabels) <= 64",message="clusterIdSelector.matchLabels may have at most 64 labels"
	ClusterIDSelector *xpv2.NamespacedSelector `json:"clusterIdSelector,omitempty"`

	// NodeAddress is the address of the storage node agent (the host's
	// SNodeAPI), as host:port, for example 10.0.0.10:5000: at most 259
	// characters, a DNS name and a port.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=259
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nodeAddress is immutable"
	NodeAddress string `json:"nodeAddress"`

	// InterfaceName is the host's management network interface, for example
	// eth0: at most 15 characters, Linux's limit for interface names.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="interfaceName is immutable"
	InterfaceName string `json:"interfaceName"`

	// MaxSnapshots is the maximum number of snapshots on the node.
	// +optional
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxSnapshots is immutable"
	MaxSnapshots int64 `json:"maxSnapshots"`

	// HAJm replicates the node's journal for high availability.
	// +optional
	// +kubebuilder:default=true
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="haJm is immutable"
	HAJm bool `json:"haJm"`

	// TestDevice adds a test device to the node. For tests only.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="testDevice is immutable"
	TestDevice bool `json:"testDevice,omitempty"`

	// SpdkImage is the SPDK container image to run; empty means the
	// backend's default.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spdkImage is immutable"
	SpdkImage string `json:"spdkImage,omitempty"`

	// SpdkDebug runs SPDK with debug logging.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spdkDebug is immutable"
	SpdkDebug bool `json:"spdkDebug,omitempty"`

	// DataNics are the host's network interfaces for data traffic, for
	// example [eth1, eth2].
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=15
	DataNics []string `json:"dataNics,omitempty"`

	// Namespace is the backend's namespace parameter of the node: the
	// Kubernetes namespace of the node's SPDK pod when the storage node runs
	// in Kubernetes.
	// +optional
	// +kubebuilder:default=default
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="namespace is immutable"
	Namespace string `json:"namespace"`

	// IDDeviceByNQN identifies the node's NVMe devices by NQN instead of by
	// PCIe address.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="idDeviceByNqn is immutable"
	IDDeviceByNQN bool `json:"idDeviceByNqn,omitempty"`

	// JmPercent is the share of each device reserved for the journal, in
	// percent.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="jmPercent is immutable"
	JmPercent int64 `json:"jmPercent"`

	// Partitions is the number of partitions per NVMe device.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="partitions is immutable"
	Partitions int64 `json:"partitions"`

	// IobufSmallPoolCount sizes SPDK's small I/O buffer pool; 0 means the
	// backend computes it.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="iobufSmallPoolCount is immutable"
	IobufSmallPoolCount int64 `json:"iobufSmallPoolCount,omitempty"`

	// IobufLargePoolCount sizes SPDK's large I/O buffer pool; 0 means the
	// backend computes it.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="iobufLargePoolCount is immutable"
	IobufLargePoolCount int64 `json:"iobufLargePoolCount,omitempty"`

	// HAJmCount is the number of journal replicas; unset means the
	// backend's default.
	// +optional
	// +kubebuilder:validation:Minimum=0
	HAJmCount *int64 `json:"haJmCount,omitempty"`

	// Format4k formats the node's devices with 4 KiB sectors.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="format4k is immutable"
	Format4k bool `json:"format4k,omitempty"`

	// SpdkProxyImage is the SPDK proxy container image; empty means the
	// backend's default.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spdkProxyImage is immutable"
	SpdkProxyImage string `json:"spdkProxyImage,omitempty"`

	// SpdkSysMem is the system memory to reserve for SPDK, as a size such as
	// 2Gi; empty means the backend's default.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spdkSysMem is immutable"
	SpdkSysMem string `json:"spdkSysMem,omitempty"`

	// FailureDomain is the node's failure domain, used when the cluster has
	// enableFailureDomain; unset means none.
	// +optional
	// +kubebuilder:validation:Minimum=0
	FailureDomain *int64 `json:"failureDomain,omitempty"`

	// Expand adds the node to a cluster that is already active, which
	// starts a cluster expansion once the node is online. Leave it false for
	// a cluster that has not been activated yet: the backend refuses to add
	// a node to an active cluster without it, and the other way round.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="expand is immutable"
	Expand bool `json:"expand,omitempty"`

	// ForceRemove is sent when the StorageNode is deleted: the backend then
	// removes the node even while node tasks are still open. The backend's
	// third flag, force_delete, is deliberately not offered: the backend
	// refuses it right after queuing the removal, because the node is not
	// yet in status removed.
	// +optional
	// +kubebuilder:default=false
	ForceRemove bool `json:"forceRemove,omitempty"`

	// ForceMigrate is sent as the backend's force_migrate flag when the
	// StorageNode is deleted.
	// +optional
	// +kubebuilder:default=false
	ForceMigrate bool `json:"forceMigrate,omitempty"`
}

// NodeAddTask is the backend task that adds a storage node. The backend
// answers a node create with this task, not with the node: the node record
// appears later, with its own UUID.
type NodeAddTask struct {
	// ID is the task's UUID.
	// +optional
	ID string `json:"id,omitempty"`

	// Status of the task: new, running, suspended (waiting before a retry)
	// or done.
	// +optional
	Status string `json:"status,omitempty"`

	// Retry is how many attempts have failed so far.
	// +optional
	Retry int64 `json:"retry,omitempty"`

	// MaxRetry is the number of attempts after which the task gives up;
	// unset means unlimited.
	// +optional
	MaxRetry *int64 `json:"maxRetry,omitempty"`

	// Result is the task's free-text result, for example "Node add result:
	// Success" or "max retry reached".
	// +optional
	Result string `json:"result,omitempty"`
}

// StorageNodeObservation is the observed state of a storage node; it mirrors
// the backend's StorageNodeDTO.
type StorageNodeObservation struct {
	// ID is the node's UUID in the backend (also its external name).
	// +optional
	ID string `json:"id,omitempty"`

	// ClusterID is the UUID of the node's cluster.
	// +optional
	ClusterID string `json:"clusterId,omitempty"`

	// SecondaryNodeID is the UUID of the node holding this node's secondary
	// logical volume store, if any.
	// +optional
	SecondaryNodeID string `json:"secondaryNodeId,omitempty"`

	// Status of the node in the backend, for example in_creation, online,
	// suspended, in_shutdown, offline, in_restart, unreachable, down or
	// removed.
	// +optional
	Status string `json:"status,omitempty"`

	// Uptime is an ISO-8601 duration while the node is online.
	// +optional
	Uptime string `json:"uptime,omitempty"`

	// Hostname of the storage node host.
	// +optional
	Hostname string `json:"hostname,omitempty"`

	// HostNQN is the host's NVMe qualified name.
	// +optional
	HostNQN string `json:"hostNqn,omitempty"`

	// MgmtIP is the node's management IPv4 address.
	// +optional
	MgmtIP string `json:"mgmtIp,omitempty"`

	// CPUTotalCount is the number of CPUs of the host.
	// +optional
	CPUTotalCount int64 `json:"cpuTotalCount,omitempty"`

	// CPUSpdkCount is the number of CPUs given to SPDK.
	// +optional
	CPUSpdkCount int64 `json:"cpuSpdkCount,omitempty"`

	// CPUPollerCount is the number of SPDK poller CPUs.
	// +optional
	CPUPollerCount int64 `json:"cpuPollerCount,omitempty"`

	// Memory is the host's memory in bytes.
	// +optional
	Memory int64 `json:"memory,omitempty"`

	// HugepageMemory is the host's huge-page memory in bytes.
	// +optional
	HugepageMemory int64 `json:"hugepageMemory,omitempty"`

	// SpdkMem is the memory given to SPDK in bytes.
	// +optional
	SpdkMem int64 `json:"spdkMem,omitempty"`

	// Lvols is the number of logical volumes on the node.
	// +optional
	Lvols int64 `json:"lvols,omitempty"`

	// LvolsMax is the maximum number of logical volumes on the node.
	// +optional
	LvolsMax int64 `json:"lvolsMax,omitempty"`

	// SnapshotsMax is the maximum number of snapshots on the node.
	// +optional
	SnapshotsMax int64 `json:"snapshotsMax,omitempty"`

	// RPCPort is the node's SPDK RPC port.
	// +optional
	RPCPort int64 `json:"rpcPort,omitempty"`

	// LvolSubsysPort is the node's logical volume subsystem port.
	// +optional
	LvolSubsysPort int64 `json:"lvolSubsysPort,omitempty"`

	// HublvolPort is the node's hub logical volume port.
	// +optional
	HublvolPort int64 `json:"hublvolPort,omitempty"`

	// NvmfPort is the node's NVMe-oF port.
	// +optional
	NvmfPort int64 `json:"nvmfPort,omitempty"`

	// HealthCheck is the result of the backend's last health check; unset
	// unless the node is online or down.
	// +optional
	HealthCheck *bool `json:"healthCheck,omitempty"`

	// DeviceCount is the number of NVMe devices of the node.
	// +optional
	DeviceCount int64 `json:"deviceCount,omitempty"`

	// OnlineDeviceCount is the number of the node's devices that are online.
	// +optional
	OnlineDeviceCount int64 `json:"onlineDeviceCount,omitempty"`

	// FailureDomain is the node's failure domain; -1 when none is set.
	// +optional
	FailureDomain *int64 `json:"failureDomain,omitempty"`

	// Capacity is the node's latest capacity sample.
	// +optional
	Capacity *CapacityObservation `json:"capacity,omitempty"`

	// AddTask is the node_add task the backend answered the create with.
	// +optional
	AddTask *NodeAddTask `json:"addTask,omitempty"`

	// ActiveOperation is the StorageNodeOps operation running on this node,
	// if any. (It holds its cluster's lock: operations on a cluster and its
	// nodes run one at a time.)
	// +optional
	ActiveOperation *OperationReference `json:"activeOperation,omitempty"`

	// OperationHistory lists the most recent finished operations on this
	// node, oldest first, at most 50.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	OperationHistory []OperationRecord `json:"operationHistory,omitempty"`
}

// A StorageNodeSpec defines the desired state of a StorageNode.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || (size(self.providerConfigRef.name) <= 253 && size(self.providerConfigRef.kind) <= 63)",message="providerConfigRef.name may have at most 253 characters and providerConfigRef.kind at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.writeConnectionSecretToRef) || size(self.writeConnectionSecretToRef.name) <= 253",message="writeConnectionSecretToRef.name may have at most 253 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.managementPolicies) || size(self.managementPolicies) <= 6",message="managementPolicies may have at most 6 entries"
type StorageNodeSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	// ForProvider holds the node's parameters in the backend.
	ForProvider StorageNodeParameters `json:"forProvider"`
}

// A StorageNodeStatus represents the observed state of a StorageNode.
type StorageNodeStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// AtProvider is the node as the backend reports it.
	// +optional
	AtProvider StorageNodeObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A StorageNode is a storage node of a simplyblock cluster: a host running
// the storage node agent, added to a cluster by its address. The backend
// adds the node asynchronously (a node_add task, see
// status.atProvider.addTask) and gives it a UUID only then; that UUID
// becomes the external name. Deleting a StorageNode asks the backend to
// remove the node, which it does in the background; the record stays in the
// backend with status removed.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="STATUS",type="string",JSONPath=".status.atProvider.status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="ADDRESS",type="string",JSONPath=".spec.forProvider.nodeAddress",priority=1
// +kubebuilder:printcolumn:name="HOSTNAME",type="string",JSONPath=".status.atProvider.hostname",priority=1
// +kubebuilder:printcolumn:name="HEALTHY",type="boolean",JSONPath=".status.atProvider.healthCheck",priority=1
// +kubebuilder:printcolumn:name="ADD-TASK",type="string",JSONPath=".status.atProvider.addTask.status",priority=1
// +kubebuilder:printcolumn:name="CLUSTER",type="string",JSONPath=".spec.forProvider.clusterId",priority=1
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,simplyblock},shortName=sbnode
type StorageNode struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StorageNodeSpec   `json:"spec"`
	Status StorageNodeStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StorageNodeList contains a list of StorageNode.
type StorageNodeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageNode `json:"items"`
}
