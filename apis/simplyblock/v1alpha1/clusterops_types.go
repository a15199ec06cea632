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

// A ClusterOperationType names a cluster-level operation.
// +kubebuilder:validation:Enum=Activate;Expand;Shutdown;Start;Restart;NodeRollingRestart;Upgrade;Rebalance
type ClusterOperationType string

// Cluster operation types.
const (
	ClusterActivate           ClusterOperationType = "Activate"
	ClusterExpand             ClusterOperationType = "Expand"
	ClusterShutdown           ClusterOperationType = "Shutdown"
	ClusterStart              ClusterOperationType = "Start"
	ClusterRestart            ClusterOperationType = "Restart"
	ClusterNodeRollingRestart ClusterOperationType = "NodeRollingRestart"
	ClusterUpgrade            ClusterOperationType = "Upgrade"
	ClusterRebalance          ClusterOperationType = "Rebalance"
)

// ActivateParameters are the parameters of an Activate operation.
type ActivateParameters struct {
	// ExpectedNodes is the number of storage nodes (not removed) that must
	// be online before the activation starts; the operation waits for them
	// (nodes being added) until preconditionTimeoutSeconds. Without it, the
	// nodes online when the operation's turn comes are activated.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ExpectedNodes *int64 `json:"expectedNodes,omitempty"`
}

// ExpandParameters are the parameters of an Expand operation.
type ExpandParameters struct {
	// ExpectedNodes is the number of storage nodes (not removed) that must
	// be online before the expansion starts; the operation waits for them
	// (nodes being added) until preconditionTimeoutSeconds.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ExpectedNodes *int64 `json:"expectedNodes,omitempty"`
}

// NodeRollingRestartParameters are the parameters of a NodeRollingRestart.
type NodeRollingRestartParameters struct {
	// HealthGate makes each node wait until every other node is online and
	// the cluster is not rebalancing before it is shut down.
	// +optional
	// +kubebuilder:default=true
	HealthGate *bool `json:"healthGate,omitempty"`

	// PerNodeTimeoutSeconds bounds each step on one node: its health gate
	// and shutdown, its restart until it is back online, and the wait for
	// the rebalancing that follows. At most 30 days.
	// +optional
	// +kubebuilder:default=1800
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=2592000
	PerNodeTimeoutSeconds *int64 `json:"perNodeTimeoutSeconds,omitempty"`

	// Order lists the node UUIDs in the order to restart them. Nodes of the
	// cluster not listed are restarted afterwards, in the backend's order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=128
	// +kubebuilder:validation:items:MaxLength=36
	Order []string `json:"order,omitempty"`
}

// UpgradeParameters are the parameters of an Upgrade operation. They mirror
// the backend's update call.
// +kubebuilder:validation:XValidation:rule="has(self.managementImage) || has(self.spdkImage) || (has(self.restart) && self.restart)",message="upgrade needs managementImage, spdkImage or restart"
type UpgradeParameters struct {
	// ManagementImage is the new control-plane image.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ManagementImage *string `json:"managementImage,omitempty"`

	// SpdkImage is the new SPDK image for the storage nodes.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	SpdkImage *string `json:"spdkImage,omitempty"`

	// Restart restarts every storage node with the new image (a rolling
	// outage managed by the backend).
	// +optional
	// +kubebuilder:default=false
	Restart bool `json:"restart,omitempty"`
}

// ClusterOpsParameters are the parameters of a cluster operation. Every
// field but cancel is immutable: an operation runs once, as it was written.
// +kubebuilder:validation:XValidation:rule="has(self.clusterId) || has(self.clusterIdRef) || has(self.clusterIdSelector)",message="one of clusterId, clusterIdRef or clusterIdSelector is required"
// +kubebuilder:validation:XValidation:rule="oldSelf.hasValue() || !has(self.clusterId) || (!has(self.clusterIdRef) && !has(self.clusterIdSelector))",message="set clusterId or clusterIdRef/clusterIdSelector, not both: a reference fills clusterId in",optionalOldSelf=true
// +kubebuilder:validation:XValidation:rule="(!has(self.clusterIdRef) || !has(self.clusterIdRef.__namespace__)) && (!has(self.clusterIdSelector) || !has(self.clusterIdSelector.__namespace__))",message="clusterIdRef and clusterIdSelector resolve in the ClusterOps' own namespace: leave their namespace unset"
// +kubebuilder:validation:XValidation:rule="!has(self.activate) || self.type == 'Activate'",message="activate parameters are only allowed when type is Activate"
// +kubebuilder:validation:XValidation:rule="!has(self.expand) || self.type == 'Expand'",message="expand parameters are only allowed when type is Expand"
// +kubebuilder:validation:XValidation:rule="!has(self.nodeRollingRestart) || self.type == 'NodeRollingRestart'",message="nodeRollingRestart parameters are only allowed when type is NodeRollingRestart"
// +kubebuilder:validation:XValidation:rule="!has(self.upgrade) || self.type == 'Upgrade'",message="upgrade parameters are only allowed when type is Upgrade"
// +kubebuilder:validation:XValidation:rule="self.type != 'Upgrade' || has(self.upgrade)",message="type Upgrade requires upgrade parameters"
// +kubebuilder:validation:XValidation:rule="(has(self.approval) ? has(oldSelf.approval) && self.approval == oldSelf.approval : !has(oldSelf.approval)) && (has(self.window) ? has(oldSelf.window) && self.window == oldSelf.window : !has(oldSelf.window)) && (has(self.activate) ? has(oldSelf.activate) && self.activate == oldSelf.activate : !has(oldSelf.activate)) && (has(self.expand) ? has(oldSelf.expand) && self.expand == oldSelf.expand : !has(oldSelf.expand)) && (has(self.nodeRollingRestart) ? has(oldSelf.nodeRollingRestart) && self.nodeRollingRestart == oldSelf.nodeRollingRestart : !has(oldSelf.nodeRollingRestart)) && (has(self.upgrade) ? has(oldSelf.upgrade) && self.upgrade == oldSelf.upgrade : !has(oldSelf.upgrade)) && (has(self.timeoutSeconds) ? has(oldSelf.timeoutSeconds) && self.timeoutSeconds == oldSelf.timeoutSeconds : !has(oldSelf.timeoutSeconds)) && (has(self.preconditionTimeoutSeconds) ? has(oldSelf.preconditionTimeoutSeconds) && self.preconditionTimeoutSeconds == oldSelf.preconditionTimeoutSeconds : !has(oldSelf.preconditionTimeoutSeconds)) && (has(self.retry) ? has(oldSelf.retry) && self.retry == oldSelf.retry : !has(oldSelf.retry)) && (has(self.ttlSecondsAfterFinished) ? has(oldSelf.ttlSecondsAfterFinished) && self.ttlSecondsAfterFinished == oldSelf.ttlSecondsAfterFinished : !has(oldSelf.ttlSecondsAfterFinished)) && (has(self.approvalTimeoutSeconds) ? has(oldSelf.approvalTimeoutSeconds) && self.approvalTimeoutSeconds == oldSelf.approvalTimeoutSeconds : !has(oldSelf.approvalTimeoutSeconds))",messageExpression="(!(has(self.approval) ? has(oldSelf.approval) && self.approval == oldSelf.approval : !has(oldSelf.approval)) ? 'approval' : !(has(self.window) ? has(oldSelf.window) && self.window == oldSelf.window : !has(oldSelf.window)) ? 'window' : !(has(self.activate) ? has(oldSelf.activate) && self.activate == oldSelf.activate : !has(oldSelf.activate)) ? 'activate' : !(has(self.expand) ? has(oldSelf.expand) && self.expand == oldSelf.expand : !has(oldSelf.expand)) ? 'expand' : !(has(self.nodeRollingRestart) ? has(oldSelf.nodeRollingRestart) && self.nodeRollingRestart == oldSelf.nodeRollingRestart : !has(oldSelf.nodeRollingRestart)) ? 'nodeRollingRestart' : !(has(self.upgrade) ? has(oldSelf.upgrade) && self.upgrade == oldSelf.upgrade : !has(oldSelf.upgrade)) ? 'upgrade' : !(has(self.timeoutSeconds) ? has(oldSelf.timeoutSeconds) && self.timeoutSeconds == oldSelf.timeoutSeconds : !has(oldSelf.timeoutSeconds)) ? 'timeoutSeconds' : !(has(self.preconditionTimeoutSeconds) ? has(oldSelf.preconditionTimeoutSeconds) && self.preconditionTimeoutSeconds == oldSelf.preconditionTimeoutSeconds : !has(oldSelf.preconditionTimeoutSeconds)) ? 'preconditionTimeoutSeconds' : !(has(self.retry) ? has(oldSelf.retry) && self.retry == oldSelf.retry : !has(oldSelf.retry)) ? 'retry' : !(has(self.ttlSecondsAfterFinished) ? has(oldSelf.ttlSecondsAfterFinished) && self.ttlSecondsAfterFinished == oldSelf.ttlSecondsAfterFinished : !has(oldSelf.ttlSecondsAfterFinished)) ? 'ttlSecondsAfterFinished' : 'approvalTimeoutSeconds') + ' is immutable: create a new operation instead'"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.cancel) || !oldSelf.cancel || (has(self.cancel) && self.cancel)",message="cancel cannot be undone"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.approved) || !oldSelf.approved || (has(self.approved) && self.approved)",message="approved cannot be undone"
// +kubebuilder:validation:XValidation:rule="!has(self.approved) || !self.approved || (has(self.approval) && self.approval == 'Required')",message="approved applies only to an operation with approval: Required"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterId) || (has(self.clusterId) && self.clusterId == oldSelf.clusterId)",message="clusterId is immutable once set"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterIdRef) || (has(self.clusterIdRef) && self.clusterIdRef.name == oldSelf.clusterIdRef.name)",message="clusterIdRef is immutable once set"
type ClusterOpsParameters struct {
	// Type is the operation to run.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="type is immutable: create a new operation instead"
	Type ClusterOperationType `json:"type"`

	// ClusterID is the UUID of the target cluster. Set it directly, or let
	// clusterIdRef or clusterIdSelector fill it in from a StorageCluster in
	// the same namespace.
	// +optional
	// +crossplane:generate:reference:type=StorageCluster
	// +crossplane:generate:reference:extractor=github.com/crossplane/crossplane-runtime/v2/pkg/reference.ExternalName()
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:MinLength=1
	ClusterID string `json:"clusterId,omitempty"`

	// ClusterIDRef references the target StorageCluster in the same
	// namespace.
	// +optional
	// +kubebuilder:validation:XValidation:rule="size(self.name) <= 253",message="clusterIdRef.name may have at most 253 characters"
	ClusterIDRef *xpv2.NamespacedReference `json:"clusterIdRef,omitempty"`

	// ClusterIDSelector selects the target StorageCluster in the same
	// namespace.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || size(self.matchLabels) <= 64",message="clusterIdSelector.matchLabels may have at most 64 labels"
	ClusterIDSelector *xpv2.NamespacedSelector `json:"clusterIdSelector,omitempty"`

	// Activate holds the parameters of an Activate.
	// +optional
	Activate *ActivateParameters `json:"activate,omitempty"`

	// Expand holds the parameters of an Expand.
	// +optional
	Expand *ExpandParameters `json:"expand,omitempty"`

	// NodeRollingRestart holds the parameters of a NodeRollingRestart.
	// +optional
	NodeRollingRestart *NodeRollingRestartParameters `json:"nodeRollingRestart,omitempty"`

	// Upgrade holds the parameters of an Upgrade (required for it).
	// +optional
	Upgrade *UpgradeParameters `json:"upgrade,omitempty"`

	OperationPolicy `json:",inline"`
}

// ClusterOpsObservation is the observed state of a cluster operation.
type ClusterOpsObservation struct {
	OperationStatus `json:",inline"`

	// ClusterName is the name of the target StorageCluster object.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`
}

// A ClusterOpsSpec defines the desired state of a ClusterOps.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || (size(self.providerConfigRef.name) <= 253 && size(self.providerConfigRef.kind) <= 63)",message="providerConfigRef.name may have at most 253 characters and providerConfigRef.kind at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.writeConnectionSecretToRef) || size(self.writeConnectionSecretToRef.name) <= 253",message="writeConnectionSecretToRef.name may have at most 253 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.managementPolicies) || size(self.managementPolicies) <= 6",message="managementPolicies may have at most 6 entries"
type ClusterOpsSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	// ForProvider holds the operation and its policy.
	ForProvider ClusterOpsParameters `json:"forProvider"`
}

// A ClusterOpsStatus represents the observed state of a ClusterOps.
type ClusterOpsStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// AtProvider is the operation's progress.
	// +optional
	AtProvider ClusterOpsObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A ClusterOps is one run of a cluster-level operation (activate, expand,
// shutdown, start, restart, node rolling restart, upgrade, rebalance) on a
// StorageCluster. It waits its turn in the cluster's queue, sends each
// backend call at most once (a write-ahead guard survives crashes), watches
// the backend until the result is known, records it in the cluster's
// operation history, and never runs again.
// +kubebuilder:printcolumn:name="TYPE",type="string",JSONPath=".spec.forProvider.type"
// +kubebuilder:printcolumn:name="CLUSTER",type="string",JSONPath=".status.atProvider.clusterName"
// +kubebuilder:printcolumn:name="PHASE",type="string",JSONPath=".status.atProvider.phase"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.atProvider.reason"
// +kubebuilder:printcolumn:name="PROGRESS",type="string",JSONPath=".status.atProvider.progress.current"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="QUEUE",type="integer",JSONPath=".status.atProvider.queuePosition",priority=1
// +kubebuilder:printcolumn:name="ATTEMPTS",type="integer",JSONPath=".status.atProvider.attempts",priority=1
// +kubebuilder:validation:XValidation:rule="!(oldSelf.?status.?atProvider.?phase.orValue('Pending') in ['Succeeded', 'Failed']) || (self.spec.forProvider.?cancel.orValue(false) == oldSelf.spec.forProvider.?cancel.orValue(false) && (has(self.spec.forProvider.confirmResend) ? has(oldSelf.spec.forProvider.confirmResend) && self.spec.forProvider.confirmResend == oldSelf.spec.forProvider.confirmResend : !has(oldSelf.spec.forProvider.confirmResend)) && self.spec.forProvider.?approved.orValue(false) == oldSelf.spec.forProvider.?approved.orValue(false))",messageExpression="'spec.forProvider.' + (!(self.spec.forProvider.?cancel.orValue(false) == oldSelf.spec.forProvider.?cancel.orValue(false)) ? 'cancel' : !(has(self.spec.forProvider.confirmResend) ? has(oldSelf.spec.forProvider.confirmResend) && self.spec.forProvider.confirmResend == oldSelf.spec.forProvider.confirmResend : !has(oldSelf.spec.forProvider.confirmResend)) ? 'confirmResend' : 'approved') + ' cannot change: the operation has finished (' + oldSelf.status.atProvider.phase + '), so it would have no effect'"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,simplyblock},shortName=sbcops
type ClusterOps struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterOpsSpec   `json:"spec"`
	Status ClusterOpsStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterOpsList contains a list of ClusterOps.
type ClusterOpsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterOps `json:"items"`
}
