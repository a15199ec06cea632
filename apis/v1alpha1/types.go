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

// A ProviderConfigSpec tells the provider how to reach and authenticate to a
// simplyblock control plane. ProviderConfig and ClusterProviderConfig share
// it; they differ only in where referenced Secrets and ConfigMaps live.
type ProviderConfigSpec struct {
	// Endpoint is the base URL of the simplyblock control-plane API, for
	// example https://sb-api:5000. The provider appends /api/v2/... to it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.startsWith('http://') || self.startsWith('https://')",message="endpoint must start with http:// or https://, for example https://sb-api:5000"
	Endpoint string `json:"endpoint"`

	// Credentials the provider presents to the control plane.
	Credentials ProviderCredentials `json:"credentials"`

	// TLS configures how the provider verifies an https:// endpoint, and the
	// client certificate it presents to a control plane that requires one.
	// Without it the system trust store is used, verification is on and no
	// client certificate is presented.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`

	// RequestTimeoutSeconds bounds each HTTP request to the control plane.
	// At most an hour.
	// +optional
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	RequestTimeoutSeconds int64 `json:"requestTimeoutSeconds"`
}

// ProviderCredentials are the credentials the provider presents to the
// control plane: a bearer token (a cluster secret or a Kubernetes
// service-account token the control plane accepts) read from a Secret.
type ProviderCredentials struct {
	// Source of the credentials. Only Secret is supported.
	// +optional
	// +kubebuilder:default=Secret
	// +kubebuilder:validation:Enum=Secret
	Source xpv2.CredentialsSource `json:"source"`

	// SecretRef selects the Secret key that holds the bearer token.
	SecretRef SecretKeySelector `json:"secretRef"`
}

// TLSConfig configures how the provider verifies the control plane's
// certificate, and the client certificate it presents.
// +kubebuilder:validation:XValidation:rule="!(has(self.caBundleSecretRef) && has(self.caBundleConfigMapRef))",message="set at most one of caBundleSecretRef and caBundleConfigMapRef"
// +kubebuilder:validation:XValidation:rule="has(self.clientCertSecretRef) == has(self.clientKeySecretRef)",message="set both clientCertSecretRef and clientKeySecretRef, or neither"
type TLSConfig struct {
	// CABundleSecretRef selects a Secret key holding PEM-encoded CA
	// certificates to trust, in addition to the system trust store.
	// +optional
	CABundleSecretRef *SecretKeySelector `json:"caBundleSecretRef,omitempty"`

	// CABundleConfigMapRef selects a ConfigMap key holding PEM-encoded CA
	// certificates to trust, in addition to the system trust store.
	// +optional
	CABundleConfigMapRef *ConfigMapKeySelector `json:"caBundleConfigMapRef,omitempty"`

	// ClientCertSecretRef selects a Secret key holding the PEM-encoded client
	// certificate (optionally followed by its intermediates) the provider
	// presents when the control plane requires client certificates
	// (SB_TLS_CLIENT_AUTH). Set it together with ClientKeySecretRef; for a
	// kubernetes.io/tls Secret, such as cert-manager writes, the key is
	// tls.crt.
	// +optional
	ClientCertSecretRef *SecretKeySelector `json:"clientCertSecretRef,omitempty"`

	// ClientKeySecretRef selects a Secret key holding the PEM-encoded private
	// key of the client certificate; tls.key in a kubernetes.io/tls Secret.
	// It never appears in logs, events, conditions or status.
	// +optional
	ClientKeySecretRef *SecretKeySelector `json:"clientKeySecretRef,omitempty"`

	// InsecureSkipVerify turns certificate verification off. Only for tests:
	// anyone on the network path can then read the bearer token.
	// +optional
	// +kubebuilder:default=false
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// A SecretKeySelector selects one key of a Secret.
type SecretKeySelector struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret. Required in a ClusterProviderConfig; must be
	// left unset in a ProviderConfig, which always reads from its own
	// namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key within the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// A ConfigMapKeySelector selects one key of a ConfigMap.
type ConfigMapKeySelector struct {
	// Name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the ConfigMap. Required in a ClusterProviderConfig; must
	// be left unset in a ProviderConfig, which always reads from its own
	// namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key within the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// A ProviderConfigStatus is the observed state of a ProviderConfig or
// ClusterProviderConfig.
type ProviderConfigStatus struct {
	xpv2.ProviderConfigStatus `json:",inline"`
}

// +kubebuilder:object:root=true

// A ProviderConfig configures how the provider reaches a simplyblock control
// plane, for managed resources in its own namespace. Secrets and ConfigMaps
// it refers to are read from its own namespace.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="SECRET-NAME",type="string",JSONPath=".spec.credentials.secretRef.name"
// +kubebuilder:printcolumn:name="ENDPOINT",type="string",JSONPath=".spec.endpoint",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,simplyblock}
// +kubebuilder:validation:XValidation:rule="!has(self.spec.credentials.secretRef.__namespace__)",message="a ProviderConfig reads its Secret from its own namespace: leave spec.credentials.secretRef.namespace unset (use a ClusterProviderConfig to read from another namespace)"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.tls) || ((!has(self.spec.tls.caBundleSecretRef) || !has(self.spec.tls.caBundleSecretRef.__namespace__)) && (!has(self.spec.tls.caBundleConfigMapRef) || !has(self.spec.tls.caBundleConfigMapRef.__namespace__)))",message="a ProviderConfig reads its CA bundle from its own namespace: leave the namespace of spec.tls.caBundleSecretRef and spec.tls.caBundleConfigMapRef unset"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.tls) || ((!has(self.spec.tls.clientCertSecretRef) || !has(self.spec.tls.clientCertSecretRef.__namespace__)) && (!has(self.spec.tls.clientKeySecretRef) || !has(self.spec.tls.clientKeySecretRef.__namespace__)))",message="a ProviderConfig reads its client certificate and key from its own namespace: leave the namespace of spec.tls.clientCertSecretRef and spec.tls.clientKeySecretRef unset"
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProviderConfigList contains a list of ProviderConfig.
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true

// A ClusterProviderConfig configures how the provider reaches a simplyblock
// control plane, for managed resources in any namespace. It must name the
// namespace of every Secret and ConfigMap it refers to.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="SECRET-NAME",type="string",JSONPath=".spec.credentials.secretRef.name"
// +kubebuilder:printcolumn:name="SECRET-NAMESPACE",type="string",JSONPath=".spec.credentials.secretRef.namespace",priority=1
// +kubebuilder:printcolumn:name="ENDPOINT",type="string",JSONPath=".spec.endpoint",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,simplyblock}
// +kubebuilder:validation:XValidation:rule="has(self.spec.credentials.secretRef.__namespace__)",message="a ClusterProviderConfig must name the namespace of its Secret: set spec.credentials.secretRef.namespace"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.tls) || ((!has(self.spec.tls.caBundleSecretRef) || has(self.spec.tls.caBundleSecretRef.__namespace__)) && (!has(self.spec.tls.caBundleConfigMapRef) || has(self.spec.tls.caBundleConfigMapRef.__namespace__)))",message="a ClusterProviderConfig must name the namespace of its CA bundle: set the namespace of spec.tls.caBundleSecretRef or spec.tls.caBundleConfigMapRef"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.tls) || ((!has(self.spec.tls.clientCertSecretRef) || has(self.spec.tls.clientCertSecretRef.__namespace__)) && (!has(self.spec.tls.clientKeySecretRef) || has(self.spec.tls.clientKeySecretRef.__namespace__)))",message="a ClusterProviderConfig must name the namespace of its client certificate and key: set the namespace of spec.tls.clientCertSecretRef and spec.tls.clientKeySecretRef"
type ClusterProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterProviderConfigList contains a list of ClusterProviderConfig.
type ClusterProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true

// A ProviderConfigUsage records that a managed resource uses a ProviderConfig
// or a ClusterProviderConfig, so that a config in use is not deleted. It
// lives in the managed resource's namespace and serves both config kinds.
// +kubebuilder:printcolumn:name="CONFIG-KIND",type="string",JSONPath=".providerConfigRef.kind"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,simplyblock}
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.TypedProviderConfigUsage `json:",inline"`
}

// +kubebuilder:object:root=true

// ProviderConfigUsageList contains a list of ProviderConfigUsage.
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}
