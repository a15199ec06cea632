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

// GetOperationStatus returns the operation engine's part of the status.
func (in *StorageNodeOps) GetOperationStatus() *OperationStatus {
	return &in.Status.AtProvider.OperationStatus
}

// GetOperationPolicy returns the operation's deadlines, retries, TTL and
// cancel switch.
func (in *StorageNodeOps) GetOperationPolicy() OperationPolicy {
	return in.Spec.ForProvider.OperationPolicy
}

// GetOperationType returns the operation's type, for example Restart.
func (in *StorageNodeOps) GetOperationType() string {
	return string(in.Spec.ForProvider.Type)
}
