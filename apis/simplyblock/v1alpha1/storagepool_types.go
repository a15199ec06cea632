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

// StoragePoolParameters are the parameters of a storage pool; they mirror
// the backend's StoragePoolParams. The name, size limits and QoS limits can
// be changed later; dhchap and the cluster cannot.
//
// Sizes are in bytes and QoS limits in IOPS or MB/s; 0 means unlimited. The
// backend can raise a QoS limit but never lower or clear it, so once a QoS
// limit is set, it may only grow.
// +kubebuilder:validation:XValidation:rule="has(self.clusterId) || has(self.clusterIdRef) || has(self.clusterIdSelector)",message="one of clusterId, clusterIdRef or clusterIdSelector is required"
// +kubebuilder:validation:XValidation:rule="(!has(self.clusterIdRef) || !has(self.clusterIdRef.__namespace__)) && (!has(self.clusterIdSelector) || !has(self.clusterIdSelector.__namespace__))",message="clusterIdRef and clusterIdSelector resolve in the StoragePool's own namespace: leave their namespace unset"
// +kubebuilder:validation:XValidation:rule="self.maxRwMbytes == 0 || (self.maxRMbytes <= self.maxRwMbytes && self.maxWMbytes <= self.maxRwMbytes)",message="maxRMbytes and maxWMbytes must not exceed maxRwMbytes when maxRwMbytes is set"
type StoragePoolParameters struct {
	// ClusterID is the UUID of the cluster the pool belongs to. Set it
	// directly, or let clusterIdRef or clusterIdSelector fill it in from a
	// StorageCluster in the same namespace.
	// +optional
	// +crossplane:generate:reference:type=StorageCluster
	// +crossplane:generate:reference:extractor=github.com/crossplane/crossplane-runtime/v2/pkg/reference.ExternalName()
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterId is immutable: a storage pool cannot move to another cluster"
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

	// Name of the pool, unique within its cluster.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// PoolMax is the pool's maximum size in bytes; 0 means unlimited.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	PoolMax int64 `json:"poolMax,omitempty"`

	// VolumeMaxSize is the maximum size of one volume in the pool, in
	// bytes; 0 means unlimited. It is immutable: the backend's pool update
	// writes a new volume_max_size into the pool's maximum size instead,
	// and resets the one set to 0, so a pool with one is never updated
	// (its Synced condition says why; docs/backend.md, "Pool updates").
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="volumeMaxSize is immutable: the backend cannot change it after creation"
	VolumeMaxSize int64 `json:"volumeMaxSize,omitempty"`

	// MaxRWIOPS limits the pool's read plus write IOPS; 0 means unlimited.
	// Once set it can only be raised.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="oldSelf == 0 || self >= oldSelf",message="maxRwIops can only be raised once set: the backend cannot lower or clear a QoS limit"
	MaxRWIOPS int64 `json:"maxRwIops,omitempty"`

	// MaxRWMBytes limits the pool's read plus write throughput in MB/s; 0
	// means unlimited. Once set it can only be raised.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="oldSelf == 0 || self >= oldSelf",message="maxRwMbytes can only be raised once set: the backend cannot lower or clear a QoS limit"
	MaxRWMBytes int64 `json:"maxRwMbytes,omitempty"`

	// MaxRMBytes limits the pool's read throughput in MB/s; 0 means
	// unlimited. Once set it can only be raised.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="oldSelf == 0 || self >= oldSelf",message="maxRMbytes can only be raised once set: the backend cannot lower or clear a QoS limit"
	MaxRMBytes int64 `json:"maxRMbytes,omitempty"`

	// MaxWMBytes limits the pool's write throughput in MB/s; 0 means
	// unlimited. Once set it can only be raised.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="oldSelf == 0 || self >= oldSelf",message="maxWMbytes can only be raised once set: the backend cannot lower or clear a QoS limit"
	MaxWMBytes int64 `json:"maxWMbytes,omitempty"`

	// DHCHAP requires NVMe in-band authentication (DH-HMAC-CHAP) for hosts
	// connecting to the pool's volumes.
	// +optional
	// +kubebuilder:default=false
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="dhchap is immutable"
	DHCHAP bool `json:"dhchap,omitempty"`
}

// StoragePoolObservation is the observed state of a storage pool; it mirrors
// the backend's StoragePoolDTO.
type StoragePoolObservation struct {
	// ID is the pool's UUID in the backend (also its external name).
	// +optional
	ID string `json:"id,omitempty"`

	// ClusterID is the UUID of the pool's cluster.
	// +optional
	ClusterID string `json:"clusterId,omitempty"`

	// Name of the pool.
	// +optional
	Name string `json:"name,omitempty"`

	// Status of the pool in the backend: active or inactive.
	// +optional
	Status string `json:"status,omitempty"`

	// MaxSize is the pool's maximum size in bytes; 0 means unlimited.
	// +optional
	MaxSize int64 `json:"maxSize,omitempty"`

	// VolumeMaxSize is the maximum size of one volume in bytes; 0 means
	// unlimited.
	// +optional
	VolumeMaxSize int64 `json:"volumeMaxSize,omitempty"`

	// MaxRWIOPS is the read plus write IOPS limit; 0 means unlimited.
	// +optional
	MaxRWIOPS int64 `json:"maxRwIops,omitempty"`

	// MaxRWMBytes is the read plus write throughput limit in MB/s.
	// +optional
	MaxRWMBytes int64 `json:"maxRwMbytes,omitempty"`

	// MaxRMBytes is the read throughput limit in MB/s.
	// +optional
	MaxRMBytes int64 `json:"maxRMbytes,omitempty"`

	// MaxWMBytes is the write throughput limit in MB/s.
	// +optional
	MaxWMBytes int64 `json:"maxWMbytes,omitempty"`

	// Capacity is the pool's latest capacity sample; unset while the
	// backend has no statistics for it.
	// +optional
	Capacity *CapacityObservation `json:"capacity,omitempty"`

	// DHCHAP is true when the pool requires DH-HMAC-CHAP authentication.
	// +optional
	DHCHAP bool `json:"dhchap,omitempty"`

	// AllowedHosts are the host NQNs allowed to connect to the pool's
	// volumes.
	// +optional
	// +listType=atomic
	AllowedHosts []string `json:"allowedHosts,omitempty"`
}

// A StoragePoolSpec defines the desired state of a StoragePool.
// +kubebuilder:validation:XValidation:rule="!has(self.providerConfigRef) || (size(self.providerConfigRef.name) <= 253 && size(self.providerConfigRef.kind) <= 63)",message="providerConfigRef.name may have at most 253 characters and providerConfigRef.kind at most 63"
// +kubebuilder:validation:XValidation:rule="!has(self.writeConnectionSecretToRef) || size(self.writeConnectionSecretToRef.name) <= 253",message="writeConnectionSecretToRef.name may have at most 253 characters"
// +kubebuilder:validation:XValidation:rule="!has(self.managementPolicies) || size(self.managementPolicies) <= 6",message="managementPolicies may have at most 6 entries"
type StoragePoolSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`

	// ForProvider holds the pool's parameters in the backend.
	ForProvider StoragePoolParameters `json:"forProvider"`
}

// A StoragePoolStatus represents the observed state of a StoragePool.
type StoragePoolStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`

	// AtProvider is the pool as the backend reports it.
	// +optional
	AtProvider StoragePoolObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A StoragePool is a storage pool of a simplyblock cluster: a named share of
// the cluster's capacity with optional size and QoS limits, from which
// volumes are provisioned.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="STATUS",type="string",JSONPath=".status.atProvider.status"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="POOL-NAME",type="string",JSONPath=".spec.forProvider.name",priority=1
// +kubebuilder:printcolumn:name="MAX-SIZE",type="integer",JSONPath=".status.atProvider.maxSize",priority=1
// +kubebuilder:printcolumn:name="CLUSTER",type="string",JSONPath=".spec.forProvider.clusterId",priority=1
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,simplyblock},shortName=sbpool
type StoragePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StoragePoolSpec   `json:"spec"`
	Status StoragePoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StoragePoolList contains a list of StoragePool.
type StoragePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StoragePool `json:"items"`
}
