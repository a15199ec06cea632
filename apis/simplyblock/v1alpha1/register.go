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
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Package type metadata.
const (
	Group   = "simplyblock.m.crossplane.io"
	Version = "v1alpha1"
)

var (
	// SchemeGroupVersion is the group and version of the types in this
	// package.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// GroupVersion is SchemeGroupVersion under the name kubebuilder uses.
	GroupVersion = SchemeGroupVersion

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: SchemeGroupVersion}

	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// StorageCluster type metadata.
var (
	StorageClusterKind             = reflect.TypeOf(StorageCluster{}).Name()
	StorageClusterGroupKind        = schema.GroupKind{Group: Group, Kind: StorageClusterKind}.String()
	StorageClusterKindAPIVersion   = StorageClusterKind + "." + SchemeGroupVersion.String()
	StorageClusterGroupVersionKind = SchemeGroupVersion.WithKind(StorageClusterKind)
)

// StorageNode type metadata.
var (
	StorageNodeKind             = reflect.TypeOf(StorageNode{}).Name()
	StorageNodeGroupKind        = schema.GroupKind{Group: Group, Kind: StorageNodeKind}.String()
	StorageNodeKindAPIVersion   = StorageNodeKind + "." + SchemeGroupVersion.String()
	StorageNodeGroupVersionKind = SchemeGroupVersion.WithKind(StorageNodeKind)
)

// StoragePool type metadata.
var (
	StoragePoolKind             = reflect.TypeOf(StoragePool{}).Name()
	StoragePoolGroupKind        = schema.GroupKind{Group: Group, Kind: StoragePoolKind}.String()
	StoragePoolKindAPIVersion   = StoragePoolKind + "." + SchemeGroupVersion.String()
	StoragePoolGroupVersionKind = SchemeGroupVersion.WithKind(StoragePoolKind)
)

// ClusterOps type metadata.
var (
	ClusterOpsKind             = reflect.TypeOf(ClusterOps{}).Name()
	ClusterOpsGroupKind        = schema.GroupKind{Group: Group, Kind: ClusterOpsKind}.String()
	ClusterOpsKindAPIVersion   = ClusterOpsKind + "." + SchemeGroupVersion.String()
	ClusterOpsGroupVersionKind = SchemeGroupVersion.WithKind(ClusterOpsKind)
)

// StorageNodeOps type metadata.
var (
	StorageNodeOpsKind             = reflect.TypeOf(StorageNodeOps{}).Name()
	StorageNodeOpsGroupKind        = schema.GroupKind{Group: Group, Kind: StorageNodeOpsKind}.String()
	StorageNodeOpsKindAPIVersion   = StorageNodeOpsKind + "." + SchemeGroupVersion.String()
	StorageNodeOpsGroupVersionKind = SchemeGroupVersion.WithKind(StorageNodeOpsKind)
)

// DisruptionBudget type metadata.
var (
	DisruptionBudgetKind             = reflect.TypeOf(DisruptionBudget{}).Name()
	DisruptionBudgetGroupVersionKind = SchemeGroupVersion.WithKind(DisruptionBudgetKind)
)

func init() {
	SchemeBuilder.Register(&StorageCluster{}, &StorageClusterList{})
	SchemeBuilder.Register(&StorageNode{}, &StorageNodeList{})
	SchemeBuilder.Register(&StoragePool{}, &StoragePoolList{})
	SchemeBuilder.Register(&ClusterOps{}, &ClusterOpsList{})
	SchemeBuilder.Register(&StorageNodeOps{}, &StorageNodeOpsList{})
	SchemeBuilder.Register(&DisruptionBudget{}, &DisruptionBudgetList{})
}
