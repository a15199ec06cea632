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

// GetActiveOperation returns the operation holding the cluster's lock.
func (in *StorageCluster) GetActiveOperation() *OperationReference {
	return in.Status.AtProvider.ActiveOperation
}

// SetActiveOperation sets (or, with nil, clears) the cluster's lock holder.
func (in *StorageCluster) SetActiveOperation(r *OperationReference) {
	in.Status.AtProvider.ActiveOperation = r
}

// GetOperationHistory returns the cluster's finished operations.
func (in *StorageCluster) GetOperationHistory() []OperationRecord {
	return in.Status.AtProvider.OperationHistory
}

// SetOperationHistory replaces the cluster's finished operations.
func (in *StorageCluster) SetOperationHistory(h []OperationRecord) {
	in.Status.AtProvider.OperationHistory = h
}

// GetActiveOperation returns the operation holding the node's lock.
func (in *StorageNode) GetActiveOperation() *OperationReference {
	return in.Status.AtProvider.ActiveOperation
}

// SetActiveOperation sets (or, with nil, clears) the node's lock holder.
func (in *StorageNode) SetActiveOperation(r *OperationReference) {
	in.Status.AtProvider.ActiveOperation = r
}

// GetOperationHistory returns the node's finished operations.
func (in *StorageNode) GetOperationHistory() []OperationRecord {
	return in.Status.AtProvider.OperationHistory
}

// SetOperationHistory replaces the node's finished operations.
func (in *StorageNode) SetOperationHistory(h []OperationRecord) {
	in.Status.AtProvider.OperationHistory = h
}
