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

// CapacityObservation is the backend's latest capacity sample of a cluster,
// node or pool, in bytes (sizeUtil in percent). All values are 0 until the
// backend's statistics collector has run.
type CapacityObservation struct {
	// SizeTotal is the total capacity.
	// +optional
	SizeTotal int64 `json:"sizeTotal,omitempty"`

	// SizeProv is the provisioned (thin) capacity.
	// +optional
	SizeProv int64 `json:"sizeProv,omitempty"`

	// SizeUsed is the capacity in use.
	// +optional
	SizeUsed int64 `json:"sizeUsed,omitempty"`

	// SizeFree is the free capacity.
	// +optional
	SizeFree int64 `json:"sizeFree,omitempty"`

	// SizeUtil is the utilization in percent.
	// +optional
	SizeUtil int64 `json:"sizeUtil,omitempty"`
}
