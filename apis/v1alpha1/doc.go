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

// Package v1alpha1 contains the provider-level configuration types of
// provider-simplyblock: ProviderConfig (namespaced), ClusterProviderConfig
// (cluster-scoped) and the ProviderConfigUsage that records which managed
// resource uses which of the two.
//
// A managed resource names its config with spec.providerConfigRef
// {kind, name}. A ProviderConfig is looked up in the managed resource's own
// namespace, and every Secret or ConfigMap it refers to is read from that
// same namespace. A ClusterProviderConfig can be used from any namespace and
// must name the namespace of each Secret or ConfigMap it refers to.
//
// +kubebuilder:object:generate=true
// +groupName=simplyblock.m.crossplane.io
// +versionName=v1alpha1
package v1alpha1
