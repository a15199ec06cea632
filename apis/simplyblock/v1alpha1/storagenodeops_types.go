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

// A StorageNodeOperationType names a node-level operation.
// +kubebuilder:validation:Enum=Suspend;Resume;Shutdown;Restart;Start;Remove;Migrate
type StorageNodeOperationType string

// Storage node operation types.
const (
	NodeSuspend  StorageNodeOperationType = "Suspend"
	NodeResume   StorageNodeOperationType = "Resume"
	NodeShutdown StorageNodeOperationType = "Shutdown"
	NodeRestart  StorageNodeOperationType = "Restart"
	NodeStart    StorageNodeOperationType = "Start"
	NodeRemove   StorageNodeOperationType = "Remove"
	NodeMigrate  StorageNodeOperationType = "Migrate"
)

// NodeShutdownParameters are the parameters of a node Shutdown. They mirror
// the backend's shutdown call.
type NodeShutdownParameters struct {
	// Force shuts the node down from any status (not only online, suspended
	// or down), skips the checks on its peers and kills SPDK without
	// notifying them. A graceful shutdown is refused while a peer restarts
	// or shuts down, or while a migration involves the node.
	// +optional
	// +kubebuilder:default=false
	Force bool `json:"force,omitempty"`
}

// NodeRestartParameters are the parameters of a node Restart or Start. They
// mirror the body of the backend's restart and start calls, which are the
// same call.
type NodeRestartParameters struct {
	// Force restarts the node from any status; without it the backend only
	// restarts an offline node. Forcing a restart of a node that is online
	// kills SPDK on it: a full outage of the node.
	// +optional
	// +kubebuilder:default=false
	Force bool `json:"force,omitempty"`

	// ReattachVolume reattaches the node's volumes after the restart.
	// +optional
	// +kubebuilder:default=false
	ReattachVolume bool `json:"reattachVolume,omitempty"`

	// NodeAddress is a new address of the node's agent, for example
	// "10.0.0.12:5000", for a node that moved to another host or address.
	// +optional
	// +kubebuilder:validation:MaxLength=259
	// +kubebuilder:validation:MinLength=1
	NodeAddress *string `json:"nodeAddress,omitempty"`

	// NewSsdPcie lists the PCIe addresses of new NVMe devices to use after
	// the restart, for example "0000:00:04.0".
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=32
	NewSsdPcie []string `json:"newSsdPcie,omitempty"`
}

// NodeMigrateParameters are the parameters of a node Migrate: the node
// moves to another host and keeps its identity (docs/steps.md, "Node
// migration").
type NodeMigrateParameters struct {
	// NodeAddress is the address of the storage node agent on the new host,
	// host:port, for example "10.0.0.21:5000".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=259
	// +kubebuilder:validation:Pattern=`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):[0-9]{1,5}$`
	NodeAddress string `json:"nodeAddress"`

	// NewSsdPcie lists the PCIe addresses of the NVMe devices to use on the
	// new host, for example "0000:00:04.0".
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=32
	NewSsdPcie []string `json:"newSsdPcie,omitempty"`

	// Force shuts the node down and restarts it from any status, skipping
	// the backend's checks: for a node whose old host is gone.
	// +optional
	// +kubebuilder:default=false
	Force bool `json:"force,omitempty"`
}

// NodeRemoveParameters are the parameters of a node Remove. They mirror the
// query parameters of the backend's delete call.
type NodeRemoveParameters struct {
	// ForceRemove removes the node even while it has open tasks.
	// +optional
	// +kubebuilder:default=false
	ForceRemove bool `json:"forceRemove,omitempty"`

	// ForceMigrate sets the backend's force_migrate flag on the removal.
	// +optional
	// +kubebuilder:default=false
	ForceMigrate bool `json:"forceMigrate,omitempty"`

	// ForceDelete also deletes the node record once it is removed. The
	// backend can only do that for a node that is already removed when the
	// call arrives, so for a node being removed it refuses the deletion
	// even though the removal was queued.
	// +optional
	// +kubebuilder:default=false
	ForceDelete bool `json:"forceDelete,omitempty"`
}

// StorageNodeOpsParameters are the parameters of a storage node operation.
// Every field but cancel is immutable: an operation runs once, as it was
// written.
// +kubebuilder:validation:XValidation:rule="has(self.nodeId) || has(self.nodeIdRef) || has(self.nodeIdSelector)",message="one of nodeId, nodeIdRef or nodeIdSelector is required"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.nodeId) || (!has(self.nodeIdRef) && !has(self.nodeIdSelector))",message="set nodeId or nodeIdRef/nodeIdSelector, not both: a reference fills nodeId in",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="(!has(self.nodeIdRef) || !has(self.nodeIdRef.__namespace__)) && (!has(self.nodeIdSelector) || !has(self.nodeIdSelector.__namespace__))",message="nodeIdRef and nodeIdSelector resolve in the StorageNodeOps' own namespace: leave their namespace unset"
// +kubebuilder:validation:XValidation:rule="!has(self.shutdown) || self.type == 'Shutdown'",message="shutdown parameters are only allowed when type is Shutdown"
// +kubebuilder:validation:XValidation:rule="!has(self.restart) || self.type == 'Restart' || self.type == 'Start'",message="restart parameters are only allowed when type is Restart or Start"
// +kubebuilder:validation:XValidation:rule="!has(self.remove) || self.type == 'Remove'",message="remove parameters are only allowed when type is Remove"
// +kubebuilder:validation:XValidation:rule="(self.type == 'Migrate') == has(self.migrate)",message="a Migrate needs migrate parameters (migrate.nodeAddress), and only a Migrate has them"
// +kubebuilder:validation:XValidation:rule="(has(self.approval) ? has(oldSelf.approval) && self.approval == oldSelf.approval : !has(oldSelf.approval)) && (has(self.window) ? has(oldSelf.window) && self.window == oldSelf.window : !has(oldSelf.window)) && (has(self.shutdown) ? has(oldSelf.shutdown) && self.shutdown == oldSelf.shutdown : !has(oldSelf.shutdown)) && (has(self.restart) ? has(oldSelf.restart) && self.restart == oldSelf.restart : !has(oldSelf.restart)) && (has(self.remove) ? has(oldSelf.remove) && self.remove == oldSelf.remove : !has(oldSelf.remove)) && (has(self.migrate) ? has(oldSelf.migrate) && self.migrate == oldSelf.migrate : !has(oldSelf.migrate)) && (has(self.timeoutSeconds) ? has(oldSelf.timeoutSeconds) && self.timeoutSeconds == oldSelf.timeoutSeconds : !has(oldSelf.timeoutSeconds)) && (has(self.preconditionTimeoutSeconds) ? has(oldSelf.preconditionTimeoutSeconds) && self.preconditionTimeoutSeconds == oldSelf.preconditionTimeoutSeconds : !has(oldSelf.preconditionTimeoutSeconds)) && (has(self.retry) ? has(oldSelf.retry) && self.retry == oldSelf.retry : !has(oldSelf.retry)) && (has(self.ttlSecondsAfterFinished) ? has(oldSelf.ttlSecondsAfterFinished) && self.ttlSecondsAfterFinished == oldSelf.ttlSecondsAfterFinished : !has(oldSelf.ttlSecondsAfterFinished)) && (has(self.approvalTimeoutSeconds) ? has(oldSelf.approvalTimeoutSeconds) && self.approvalTimeoutSeconds == oldSelf.approvalTimeoutSeconds : !has(oldSelf.approvalTimeoutSeconds))",messageExpression="(!(has(self.approval) ? has(oldSelf.approval) && self.approval == oldSelf.approval : !has(oldSelf.approval)) ? 'approval' : !(has(self.window) ? has(oldSelf.window) && self.window == oldSelf.window : !has(oldSelf.window)) ? 'window' : !(has(self.shutdown) ? has(oldSelf.shutdown) && self.shutdown == oldSelf.shutdown : !has(oldSelf.shutdown)) ? 'shutdown' : !(has(self.restart) ? has(oldSelf.restart) && self.restart == oldSelf.restart : !has(oldSelf.restart)) ? 'restart' : !(has(self.remove) ? has(oldSelf.remove) && self.remove == oldSelf.remove : !has(oldSelf.remove)) ? 'remove' : !(has(self.migrate) ? has(oldSelf.migrate) && self.migrate == oldSelf.migrate : !has(oldSelf.migrate)) ? 'migrate' : !(has(self.timeoutSeconds) ? has(oldSelf.timeoutSeconds) && self.timeoutSeconds == oldSelf.timeoutSeconds : !has(oldSelf.timeoutSeconds)) ? 'timeoutSeconds' : !(has(self.preconditionTimeoutSeconds) ? has(oldSelf.preconditionTimeoutSeconds) && self.preconditionTimeoutSeconds == oldSelf.preconditionTimeoutSeconds : !has(oldSelf.preconditionTimeoutSeconds)) ? 'preconditionTimeoutSeconds' : !(has(self.retry) ? has(oldSelf.retry) && self.retry == oldSelf.retry : !has(oldSelf.retry)) ? 'retry' : !(has(self.ttlSecondsAfterFinished) ? has(oldSelf.ttlSecondsAfterFinished) && self.ttlSecondsAfterFinished == oldSelf.ttlSecondsAfterFinished : !has(oldSelf.ttlSecondsAfterFinished)) ? 'ttlSecondsAfterFinished' : 'approvalTimeoutSeconds') + ' is immutable: create a new operation instead'"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.cancel) || !oldSelf.cancel || (has(self.cancel) && self.cancel)",message="cancel cannot be undone"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approved) || !oldSelf.approved || (has(self.approved) && self.approved)",message="approved cannot be undone"
// +kubebuilder:validation:XValidation:rule="!has(self.approved) || !self.approved || (has(self.approval) && self.approval == 'Required')",message="approved applies only to an operation with approval: Required"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.nodeId) || (has(self.nodeId) && self.nodeId == oldSelf.nodeId)",message="nodeId is immutable once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.nodeIdRef) || (has(self.nodeIdRef) && self.nodeIdRef.name == oldSelf.nodeIdRef.name)",message="nodeIdRef is immutable once set"
type StorageNodeOpsParameters struct {
	// Type is the operation to run.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="type is immutable: create a new operation instead"
	Type StorageNodeOperationType `json:"type"`

	// NodeID is the UUID of the target storage node. Set it directly, or
	// let nodeIdRef or nodeIdSelector fill it in from a StorageNode in the
	// same namespace.
	// +optional
	// +crossplane:generate:reference:type=StorageNode
	// +crossplane:generate:reference:extractor=github.com/crossplane/crossplane-runtime/v2/pkg/reference.ExternalName()
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:MinLength=1
	NodeID string `json:"nodeId,omitempty"`

	// NodeIDRef references the target StorageNode in the same namespace.
	// +optional
	// +kubebuilder:validation:XValidation:rule="size(self.name) <= 253",message="nodeIdRef.name may have at most 253 characters"
	NodeIDRef *xpv2.NamespacedReference `json:"nodeIdRef,omitempty"`

	// NodeIDSelector selects the target StorageNode in the same namespace.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || size(self.matchLabels) <= 64",message="nodeIdSelector.matchLabels may have at most 64 labels"
	NodeIDSelector *xpv2.NamespacedSelector `json:"nodeIdSelector,omitempty"`

	// Shutdown holds the parameters of a Shutdown.
	// +optional
	Shutdown *NodeShutdownParameters `json:"shutdown,omitempty"`

	// Restart holds the parameters of a Restart or a Start (the backend's
	// two calls are the same).
	// +optional
	Restart *NodeRestartParameters `json:"restart,omitempty"`

	// Remove holds the parameters of a Remove.
	// +optional
	Remove *NodeRemoveParameters `json:"remove,omitempty"`

	// Migrate holds the parameters of a Migrate.
	// +optional
	Migrate *NodeMigrateParameters `json:"migrate,omitempty"`

	OperationPolicy `json:",inline"`
}

// StorageNodeOpsObservation is the observed state of a storage node
// operation.
type StorageNodeOpsObservation struct {
	OperationStatus `json:",inline"`

	// NodeName is the name of the target StorageNode object.
	// +optional
	NodeName string `json:"nodeName,omitempty"`

	// ClusterID is the UUID of the cluster the target node belongs to.
	// +optional
	ClusterID string `json:"clusterId,omitempty"`
}

// A StorageNodeOpsSpec defines the desired state of a StorageNodeOps.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || (size(self.providerConfigRef.name) <= 253 && size(self.providerConfigRef.kind) <= 63)",message="providerConfigRef.name may have at most 253 characters and providerConfigRef.kind at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.writeConnectionSecretToRef) || size(self.writeConnectionSecretToRef.name) <= 253",message="writeConnectionSecretToRef.name may have at most 253 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.managementPolicies) || size(self.managementPolicies) <= 6",message="managementPolicies may have at most 6 entries"
type StorageNodeOpsSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	// ForProvider holds the operation and its policy.
	ForProvider StorageNodeOpsParameters `json:"forProvider"`
}

// A StorageNodeOpsStatus represents the observed state of a StorageNodeOps.
type StorageNodeOpsStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// AtProvider is the operation's progress.
	// +optional
	AtProvider StorageNodeOpsObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A StorageNodeOps is one run of a node-level operation (suspend, resume,
// shutdown, restart, start, remove) on a StorageNode. It waits its turn in
// the node's queue, and also while a cluster operation that touches the
// node (for example a NodeRollingRestart or a cluster Shutdown) runs on the
// node's cluster. It sends each backend call at most once (a write-ahead
// guard survives crashes), watches the backend until the result is known,
// records it in the node's operation history, and never runs again.
// +kubebuilder:printcolumn:name="TYPE",type="string",JSONPath=".spec.forProvider.type"
// +kubebuilder:printcolumn:name="NODE",type="string",JSONPath=".status.atProvider.nodeName"
// +kubebuilder:printcolumn:name="PHASE",type="string",JSONPath=".status.atProvider.phase"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.atProvider.reason"
// +kubebuilder:printcolumn:name="PROGRESS",type="string",JSONPath=".status.atProvider.progress.current"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="QUEUE",type="integer",JSONPath=".status.atProvider.queuePosition",priority=1
// +kubebuilder:printcolumn:name="ATTEMPTS",type="integer",JSONPath=".status.atProvider.attempts",priority=1
// +kubebuilder:validation:XValidation:rule="!(oldSelf.?status.?atProvider.?phase.orValue('Pending') in ['Succeeded', 'Failed']) || (self.spec.forProvider.?cancel.orValue(false) == oldSelf.spec.forProvider.?cancel.orValue(false) && (has(self.spec.forProvider.confirmResend) ? has(oldSelf.spec.forProvider.confirmResend) && self.spec.forProvider.confirmResend == oldSelf.spec.forProvider.confirmResend : !has(oldSelf.spec.forProvider.confirmResend)) && self.spec.forProvider.?approved.orValue(false) == oldSelf.spec.forProvider.?approved.orValue(false))",messageExpression="'spec.forProvider.' + (!(self.spec.forProvider.?cancel.orValue(false) == oldSelf.spec.forProvider.?cancel.orValue(false)) ? 'cancel' : !(has(self.spec.forProvider.confirmResend) ? has(oldSelf.spec.forProvider.confirmResend) && self.spec.forProvider.confirmResend == oldSelf.spec.forProvider.confirmResend : !has(oldSelf.spec.forProvider.confirmResend)) ? 'confirmResend' : 'approved') + ' cannot change: the operation has finished (' + oldSelf.status.atProvider.phase + '), so it would have no effect'"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,simplyblock},shortName=sbnops
type StorageNodeOps struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StorageNodeOpsSpec   `json:"spec"`
	Status StorageNodeOpsStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StorageNodeOpsList contains a list of StorageNodeOps.
type StorageNodeOpsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StorageNodeOps `json:"items"`
}
