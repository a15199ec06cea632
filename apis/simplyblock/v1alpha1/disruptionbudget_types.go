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
	"k8s.io/apimachinery/pkg/types"
)

// A DisruptionBudgetSpec bounds how many of the storage clusters it selects
// may run a disruptive operation at once.
type DisruptionBudgetSpec struct {
	// ClusterSelector selects StorageClusters, in every namespace, by their
	// labels. An empty selector selects every StorageCluster.
	// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || size(self.matchLabels) <= 64",message="clusterSelector.matchLabels may have at most 64 labels"
	// +kubebuilder:validation:XValidation:rule="!has(self.matchExpressions) || size(self.matchExpressions) <= 16",message="clusterSelector.matchExpressions may have at most 16 expressions"
	ClusterSelector metav1.LabelSelector `json:"clusterSelector"`

	// MaxDisrupted is how many selected clusters may run a disruptive
	// operation (a shutdown, restart, rolling restart or upgrade; a node's
	// shutdown, restart, suspension, removal or migration) at once. The
	// others wait, Pending with reason WaitingForConcurrencySlot, in the
	// order they asked.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	MaxDisrupted int64 `json:"maxDisrupted"`
}

// A BudgetedOperation is an operation holding or waiting for a slot of a
// DisruptionBudget.
type BudgetedOperation struct {
	// Kind is ClusterOps or StorageNodeOps.
	Kind string `json:"kind"`
	// Namespace and Name name the operation.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// UID is the operation's UID: a re-created operation of the same name
	// is another one.
	UID types.UID `json:"uid"`
	// Type is the operation's type, e.g. NodeRollingRestart.
	Type string `json:"type"`
	// Cluster is the StorageCluster the operation disrupts, as
	// "<namespace>/<name>".
	Cluster string `json:"cluster"`
	// Since is when it took its slot, or asked for one.
	Since metav1.Time `json:"since"`
}

// A DisruptionBudgetStatus is who holds the budget's slots and who waits.
type DisruptionBudgetStatus struct {
	// Disrupting are the operations holding a slot.
	// +optional
	// +listType=atomic
	Disrupting []BudgetedOperation `json:"disrupting,omitempty"`
	// Waiting are the operations waiting for a slot, first in line first.
	// +optional
	// +listType=atomic
	Waiting []BudgetedOperation `json:"waiting,omitempty"`
}

// +kubebuilder:object:root=true

// A DisruptionBudget bounds how many storage clusters, of those it
// selects, may run a disruptive operation at once: with maxDisrupted 1, two
// production clusters never go down together. The operation engine takes
// a slot before an operation's first call and gives it back when the
// operation finished (docs/operations-engine.md, "Disruption budgets").
// +kubebuilder:printcolumn:name="MAX",type="integer",JSONPath=".spec.maxDisrupted"
// +kubebuilder:printcolumn:name="DISRUPTING",type="string",JSONPath=".status.disrupting[*].cluster"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,categories={crossplane,simplyblock},shortName=sbdb
type DisruptionBudget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DisruptionBudgetSpec   `json:"spec"`
	Status DisruptionBudgetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DisruptionBudgetList contains a list of DisruptionBudget.
type DisruptionBudgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DisruptionBudget `json:"items"`
}
