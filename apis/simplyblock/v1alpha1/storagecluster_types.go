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

// StorageClusterParameters are the creation parameters of a simplyblock
// cluster; they mirror the backend's ClusterParams. Only name can be changed
// after creation (the backend can rename a cluster, nothing else).
// +kubebuilder:validation:XValidation:rule="[self.distrNdcs, self.distrNpcs] in [[1,0],[1,1],[2,1],[4,1],[1,2],[2,2],[4,2]]",message="distrNdcs/distrNpcs must be a supported erasure-coding scheme (data+parity chunks): 1+0, 1+1, 2+1, 4+1, 1+2, 2+2 or 4+2"
type StorageClusterParameters struct {
	// Name of the cluster in the backend. It must be unique among the
	// backend's clusters and is the only parameter that can be changed later.
	// It is required because the backend skips its duplicate check for an
	// empty name, so a repeated create would make a second cluster.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// BlkSize is the logical block size in bytes: 512 or 4096.
	// +optional
	// +kubebuilder:default=512
	// +kubebuilder:validation:Enum=512;4096
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="blkSize is immutable"
	BlkSize int64 `json:"blkSize"`

	// PageSizeInBlocks is the distrib page size, in blocks.
	// +optional
	// +kubebuilder:default=2097152
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="pageSizeInBlocks is immutable"
	PageSizeInBlocks int64 `json:"pageSizeInBlocks"`

	// CapWarn is the capacity utilization warning threshold in percent;
	// 0 means the backend default (80).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="capWarn is immutable"
	CapWarn int64 `json:"capWarn,omitempty"`

	// CapCrit is the capacity utilization critical threshold in percent;
	// 0 means the backend default (90). Crossing it makes the cluster
	// read-only.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="capCrit is immutable"
	CapCrit int64 `json:"capCrit,omitempty"`

	// ProvCapWarn is the provisioned capacity warning threshold in percent;
	// 0 means the backend default (180).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provCapWarn is immutable"
	ProvCapWarn int64 `json:"provCapWarn,omitempty"`

	// ProvCapCrit is the provisioned capacity critical threshold in percent;
	// 0 means the backend default (190).
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provCapCrit is immutable"
	ProvCapCrit int64 `json:"provCapCrit,omitempty"`

	// DistrNdcs is the number of data chunks of the erasure-coding scheme.
	// Together with distrNpcs it must form a supported scheme.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="distrNdcs is immutable: the erasure-coding scheme is fixed when the cluster is created"
	DistrNdcs int64 `json:"distrNdcs"`

	// DistrNpcs is the number of parity chunks of the erasure-coding scheme,
	// which is also the cluster's maximum fault tolerance.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="distrNpcs is immutable: the erasure-coding scheme is fixed when the cluster is created"
	DistrNpcs int64 `json:"distrNpcs"`

	// DistrBs is the distrib block size in bytes.
	// +optional
	// +kubebuilder:default=4096
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="distrBs is immutable"
	DistrBs int64 `json:"distrBs"`

	// DistrChunkBs is the distrib chunk size in bytes.
	// +optional
	// +kubebuilder:default=4096
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="distrChunkBs is immutable"
	DistrChunkBs int64 `json:"distrChunkBs"`

	// HAType is the high-availability type: ha (replicated across nodes) or
	// single.
	// +optional
	// +kubebuilder:default=ha
	// +kubebuilder:validation:Enum=single;ha
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="haType is immutable"
	HAType string `json:"haType"`

	// QpairCount is the number of NVMe-oF queue pairs per connection.
	// +optional
	// +kubebuilder:default=256
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="qpairCount is immutable"
	QpairCount int64 `json:"qpairCount"`

	// MaxQueueSize is the maximum NVMe-oF queue size.
	// +optional
	// +kubebuilder:default=128
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxQueueSize is immutable"
	MaxQueueSize int64 `json:"maxQueueSize"`

	// InflightIOThreshold is the in-flight I/O threshold.
	// +optional
	// +kubebuilder:default=4
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="inflightIoThreshold is immutable"
	InflightIOThreshold int64 `json:"inflightIoThreshold"`

	// EnableNodeAffinity places a volume's data on the node it is attached
	// to, where possible.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="enableNodeAffinity is immutable"
	EnableNodeAffinity bool `json:"enableNodeAffinity,omitempty"`

	// StrictNodeAntiAffinity forbids placing two chunks of one stripe on the
	// same node.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="strictNodeAntiAffinity is immutable"
	StrictNodeAntiAffinity bool `json:"strictNodeAntiAffinity,omitempty"`

	// IsSingleNode creates a cluster meant to run on one storage node.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="isSingleNode is immutable"
	IsSingleNode bool `json:"isSingleNode,omitempty"`

	// Fabric is the NVMe-oF transport: tcp, rdma, or both (tcp,rdma).
	// +optional
	// +kubebuilder:default=tcp
	// +kubebuilder:validation:Enum=tcp;rdma;"tcp,rdma"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="fabric is immutable"
	Fabric string `json:"fabric"`

	// ClientDataNic is the network interface clients use for data traffic;
	// empty means the backend's choice.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clientDataNic is immutable"
	ClientDataNic string `json:"clientDataNic,omitempty"`

	// NvmfBasePort is the first NVMe-oF port storage nodes listen on.
	// +optional
	// +kubebuilder:default=4420
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="nvmfBasePort is immutable"
	NvmfBasePort int64 `json:"nvmfBasePort"`

	// RPCBasePort is the first SPDK RPC port on storage nodes.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="rpcBasePort is immutable"
	RPCBasePort int64 `json:"rpcBasePort"`

	// SnodeAPIPort is the port of the storage node agent's API.
	// +optional
	// +kubebuilder:default=50001
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="snodeApiPort is immutable"
	SnodeAPIPort int64 `json:"snodeApiPort"`

	// MaxSubsys is the maximum number of NVMe-oF subsystems per storage node;
	// 0 means the product default. Required: the backend rejects a create
	// without it, although its published spec does not list it.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=75
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxSubsys is immutable"
	MaxSubsys int64 `json:"maxSubsys"`

	// SpdkVcpuCount is the number of vCPUs given to SPDK on each storage
	// node. Required: the backend rejects a create without it, although its
	// published spec does not list it.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spdkVcpuCount is immutable"
	SpdkVcpuCount int64 `json:"spdkVcpuCount"`

	// HugepagesMem is the huge-page memory to reserve per storage node, as
	// a size such as 4Gi; empty means the backend default.
	// +optional
	// +kubebuilder:default=""
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([KkMmGgTtPp][Ii]?[Bb]?)?)?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="hugepagesMem is immutable"
	HugepagesMem string `json:"hugepagesMem,omitempty"`

	// EnableFailureDomain spreads a stripe's chunks across failure domains
	// (see StorageNode failureDomain).
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="enableFailureDomain is immutable"
	EnableFailureDomain bool `json:"enableFailureDomain,omitempty"`
}

// StorageClusterObservation is the observed state of a simplyblock cluster;
// it mirrors the backend's ClusterDTO except for the cluster secret, which is
// published only as a connection detail.
type StorageClusterObservation struct {
	// ID is the cluster's UUID in the backend (also its external name).
	// +optional
	ID string `json:"id,omitempty"`

	// Name of the cluster in the backend.
	// +optional
	Name string `json:"name,omitempty"`

	// NQN is the cluster's NVMe qualified name.
	// +optional
	NQN string `json:"nqn,omitempty"`

	// Status of the cluster in the backend, for example unready,
	// in_activation, active, degraded, suspended, read_only or in_expansion.
	// +optional
	Status string `json:"status,omitempty"`

	// IsReBalancing is true while data migration or rebalancing runs.
	// +optional
	IsReBalancing bool `json:"isReBalancing,omitempty"`

	// BlockSize is the cluster's logical block size in bytes.
	// +optional
	BlockSize int64 `json:"blockSize,omitempty"`

	// DistrNdcs is the number of data chunks of the erasure-coding scheme.
	// +optional
	DistrNdcs int64 `json:"distrNdcs,omitempty"`

	// DistrNpcs is the number of parity chunks of the erasure-coding scheme.
	// +optional
	DistrNpcs int64 `json:"distrNpcs,omitempty"`

	// HA is true for a cluster of haType ha.
	// +optional
	HA bool `json:"ha,omitempty"`

	// UtilizationWarning is the effective capacity warning threshold, in
	// percent.
	// +optional
	UtilizationWarning int64 `json:"utilizationWarning,omitempty"`

	// UtilizationCritical is the effective capacity critical threshold, in
	// percent.
	// +optional
	UtilizationCritical int64 `json:"utilizationCritical,omitempty"`

	// ProvisionedCapacityWarning is the effective provisioned capacity
	// warning threshold, in percent.
	// +optional
	ProvisionedCapacityWarning int64 `json:"provisionedCapacityWarning,omitempty"`

	// ProvisionedCapacityCritical is the effective provisioned capacity
	// critical threshold, in percent.
	// +optional
	ProvisionedCapacityCritical int64 `json:"provisionedCapacityCritical,omitempty"`

	// NodeAffinity is true when node affinity is enabled.
	// +optional
	NodeAffinity bool `json:"nodeAffinity,omitempty"`

	// AntiAffinity is true when strict node anti-affinity is enabled.
	// +optional
	AntiAffinity bool `json:"antiAffinity,omitempty"`

	// EnableFailureDomain is true when failure domains are enabled.
	// +optional
	EnableFailureDomain bool `json:"enableFailureDomain,omitempty"`

	// TLSEnabled is true when the cluster's data path uses TLS.
	// +optional
	TLSEnabled bool `json:"tlsEnabled,omitempty"`

	// MaxFaultTolerance is how many storage nodes may fail without data
	// loss.
	// +optional
	MaxFaultTolerance int64 `json:"maxFaultTolerance,omitempty"`

	// BackupEnabled is true when S3 backups are configured.
	// +optional
	BackupEnabled bool `json:"backupEnabled,omitempty"`

	// Capacity is the cluster's latest capacity sample.
	// +optional
	Capacity *CapacityObservation `json:"capacity,omitempty"`

	// ActiveOperation is the ClusterOps operation that currently holds this
	// cluster's lock, if any.
	// +optional
	ActiveOperation *OperationReference `json:"activeOperation,omitempty"`

	// OperationHistory lists the most recent finished operations on this
	// cluster, oldest first, at most 50.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	OperationHistory []OperationRecord `json:"operationHistory,omitempty"`
}

// A StorageClusterSpec defines the desired state of a StorageCluster.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || (size(self.providerConfigRef.name) <= 253 && size(self.providerConfigRef.kind) <= 63)",message="providerConfigRef.name may have at most 253 characters and providerConfigRef.kind at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.writeConnectionSecretToRef) || size(self.writeConnectionSecretToRef.name) <= 253",message="writeConnectionSecretToRef.name may have at most 253 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.managementPolicies) || size(self.managementPolicies) <= 6",message="managementPolicies may have at most 6 entries"
type StorageClusterSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	// ForProvider holds the cluster's parameters in the backend.
	ForProvider StorageClusterParameters `json:"forProvider"`
}

// A StorageClusterStatus represents the observed state of a StorageCluster.
type StorageClusterStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// AtProvider is the cluster as the backend reports it.
	// +optional
	AtProvider StorageClusterObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A StorageCluster is a simplyblock storage cluster. Creating one creates an
// empty cluster in the backend (status unready); storage nodes join it as
// StorageNode resources and a ClusterOps of type Activate brings it up. An
// existing cluster is imported by setting its UUID as the
// crossplane.io/external-name annotation. The connection secret holds the
// cluster id, NQN and cluster secret.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="STATUS",type="string",JSONPath=".status.atProvider.status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CLUSTER-NAME",type="string",JSONPath=".spec.forProvider.name",priority=1
// +kubebuilder:printcolumn:name="NDCS",type="integer",JSONPath=".status.atProvider.distrNdcs",priority=1
// +kubebuilder:printcolumn:name="NPCS",type="integer",JSONPath=".status.atProvider.distrNpcs",priority=1
// +kubebuilder:printcolumn:name="REBALANCING",type="boolean",JSONPath=".status.atProvider.isReBalancing",priority=1
// +kubebuilder:printcolumn:name="OPERATION",type="string",JSONPath=".status.atProvider.activeOperation.type",priority=1
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,simplyblock},shortName=sbcluster
type StorageCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StorageClusterSpec   `json:"spec"`
	Status StorageClusterStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StorageClusterList contains a list of StorageCluster.
type StorageClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageCluster `json:"items"`
}
