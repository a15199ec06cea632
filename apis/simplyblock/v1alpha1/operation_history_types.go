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

// MaxOperationHistory is the number of finished operations a StorageCluster
// or StorageNode keeps in status.atProvider.operationHistory. The operation
// engine drops the oldest entries beyond it.
const MaxOperationHistory = 50

// An OperationPhase is where an operation (ClusterOps, StorageNodeOps) is in
// its lifecycle: Pending, then Running, then Succeeded or Failed.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed
type OperationPhase string

// Operation phases.
const (
	OperationPending   OperationPhase = "Pending"
	OperationRunning   OperationPhase = "Running"
	OperationSucceeded OperationPhase = "Succeeded"
	OperationFailed    OperationPhase = "Failed"
)

// An OperationReference identifies the operation currently running against a
// StorageCluster or StorageNode. The operation engine sets it while it holds
// the target's lock and clears it when the operation finishes.
type OperationReference struct {
	// Name of the operation object, in the target's namespace.
	Name string `json:"name"`

	// UID of the operation object, which tells a re-created object with the
	// same name apart from the original.
	// +optional
	UID types.UID `json:"uid,omitempty"`

	// Type of the operation, for example Activate, Expand or Restart.
	// +optional
	Type string `json:"type,omitempty"`

	// Kind of the operation object: ClusterOps (the default) or
	// StorageNodeOps.
	// +optional
	Kind string `json:"kind,omitempty"`

	// Phase of the operation when it was last recorded here.
	// +optional
	Phase OperationPhase `json:"phase,omitempty"`
}

// An OperationRecord is one finished operation in the bounded history of a
// StorageCluster or StorageNode. It outlives the operation object, so the
// audit trail survives the object's deletion (for example by its TTL).
type OperationRecord struct {
	// Name of the operation object.
	Name string `json:"name"`

	// UID of the operation object.
	// +optional
	UID types.UID `json:"uid,omitempty"`

	// Type of the operation, for example Activate, Expand or Restart.
	// +optional
	Type string `json:"type,omitempty"`

	// Phase the operation ended in: Succeeded or Failed.
	// +optional
	Phase OperationPhase `json:"phase,omitempty"`

	// Reason is a machine-readable CamelCase word for the outcome, for
	// example Triggered, DeadlineExceeded, Cancelled or OutcomeUnknown.
	// +optional
	Reason string `json:"reason,omitempty"`

	// Message is a human-readable account of the outcome.
	// +optional
	Message string `json:"message,omitempty"`

	// StartedAt is when the operation left the queue and began running.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// CompletedAt is when the operation reached its final phase.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`

	// SpecHash identifies the operation's spec, so that an object
	// re-created with the same name and spec is recognised and not run
	// again.
	// +optional
	SpecHash string `json:"specHash,omitempty"`
}

// String names the operation for messages, e.g. "ClusterOps demo-restart
// (Restart)".
func (r *OperationReference) String() string {
	kind := r.Kind
	if kind == "" {
		kind = ClusterOpsKind
	}
	return kind + " " + r.Name + " (" + r.Type + ")"
}
