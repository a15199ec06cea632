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

package admission_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
)

// providerConfig returns a manifest of the given kind (ProviderConfig or
// ClusterProviderConfig) with the given spec (YAML).
func providerConfig(kind, spec string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: " + kind + "\nspec:\n" + indent(2, spec)
}

func TestProviderConfigCreate(t *testing.T) {
	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is the spec as read back after an accepted create.
		want *v1alpha1.ProviderConfigSpec
	}{
		"MinimalGetsDefaults": {
			reason: "A ProviderConfig with an endpoint and a token Secret gets the Secret source and a 30 s timeout.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
`),
			want: &v1alpha1.ProviderConfigSpec{
				Endpoint:              "https://sb-api:5000",
				Credentials:           v1alpha1.ProviderCredentials{Source: "Secret", SecretRef: v1alpha1.SecretKeySelector{Name: "sb-token", Key: "token"}},
				RequestTimeoutSeconds: 30,
			},
		},
		"WithCABundle": {
			reason: "A CA bundle from a ConfigMap in the ProviderConfig's namespace is accepted.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  source: Secret
  secretRef: {name: sb-token, key: token}
tls:
  caBundleConfigMapRef: {name: sb-ca, key: ca.crt}
requestTimeoutSeconds: 5
`),
			want: &v1alpha1.ProviderConfigSpec{
				Endpoint:              "https://sb-api:5000",
				Credentials:           v1alpha1.ProviderCredentials{Source: "Secret", SecretRef: v1alpha1.SecretKeySelector{Name: "sb-token", Key: "token"}},
				TLS:                   &v1alpha1.TLSConfig{CABundleConfigMapRef: &v1alpha1.ConfigMapKeySelector{Name: "sb-ca", Key: "ca.crt"}},
				RequestTimeoutSeconds: 5,
			},
		},
		"PlainHTTPAccepted": {
			reason: "The backend serves plain HTTP by default.",
			manifest: providerConfig("ProviderConfig", `
endpoint: http://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
`),
		},
		"BadEndpointScheme": {
			reason: "The endpoint must be an http(s) URL.",
			manifest: providerConfig("ProviderConfig", `
endpoint: ftp://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
`),
			wantErr: "endpoint must start with http:// or https://",
		},
		"EndpointWithoutScheme": {
			reason: "A bare host:port is not a URL.",
			manifest: providerConfig("ProviderConfig", `
endpoint: sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
`),
			wantErr: "endpoint must start with http:// or https://",
		},
		"TimeoutAboveAnHour": {
			reason: "A request timeout is at most an hour: the hold limit and the evidence grace are measured against it.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
requestTimeoutSeconds: 3601
`),
			wantErr: "spec.requestTimeoutSeconds in body should be less than or equal to 3600",
		},
		"SecretNameTooLong": {
			reason: "A Secret name longer than an object name is refused.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: `+strings.Repeat("s", 254)+`, key: token}
`),
			wantErr: "spec.credentials.secretRef.name: Too long: may not be more than 253",
		},
		"SecretKeyTooLong": {
			reason: "A Secret key longer than 253 characters is refused.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: `+strings.Repeat("k", 254)+`}
`),
			wantErr: "spec.credentials.secretRef.key: Too long: may not be more than 253",
		},
		"CABundleNamespaceTooLong": {
			reason: "A namespace longer than 63 characters is refused.",
			manifest: providerConfig("ClusterProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, namespace: crossplane-system, key: token}
tls:
  caBundleConfigMapRef: {name: ca, namespace: `+strings.Repeat("n", 64)+`, key: ca.crt}
`),
			wantErr: "spec.tls.caBundleConfigMapRef.namespace: Too long: may not be more than 63",
		},
		"ZeroTimeout": {
			reason: "A request timeout must be at least one second.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
requestTimeoutSeconds: 0
`),
			wantErr: "spec.requestTimeoutSeconds in body should be greater than or equal to 1",
		},
		"UnsupportedSource": {
			reason: "Only Secret credentials are supported.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  source: Environment
  secretRef: {name: sb-token, key: token}
`),
			wantErr: `spec.credentials.source: Unsupported value: "Environment"`,
		},
		"NamespacedSecretElsewhere": {
			reason: "A ProviderConfig reads Secrets from its own namespace only.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, namespace: crossplane-system, key: token}
`),
			wantErr: "a ProviderConfig reads its Secret from its own namespace",
		},
		"TwoCABundles": {
			reason: "Only one CA bundle source may be set.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
tls:
  caBundleSecretRef: {name: sb-ca, key: ca.crt}
  caBundleConfigMapRef: {name: sb-ca, key: ca.crt}
`),
			wantErr: "set at most one of caBundleSecretRef and caBundleConfigMapRef",
		},
		"ClusterConfigAccepted": {
			reason: "A ClusterProviderConfig names the namespace of its Secret and CA bundle.",
			manifest: providerConfig("ClusterProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, namespace: crossplane-system, key: token}
tls:
  caBundleSecretRef: {name: sb-ca, namespace: crossplane-system, key: ca.crt}
`),
		},
		"ClusterConfigWithoutSecretNamespace": {
			reason: "A ClusterProviderConfig has no namespace of its own to read the Secret from.",
			manifest: providerConfig("ClusterProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
`),
			wantErr: "a ClusterProviderConfig must name the namespace of its Secret",
		},
		"ClusterConfigWithoutCANamespace": {
			reason: "A ClusterProviderConfig has no namespace of its own to read the CA bundle from.",
			manifest: providerConfig("ClusterProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, namespace: crossplane-system, key: token}
tls:
  caBundleConfigMapRef: {name: sb-ca, key: ca.crt}
`),
			wantErr: "a ClusterProviderConfig must name the namespace of its CA bundle",
		},
		"WithClientCertificate": {
			reason: "A client certificate and key from a kubernetes.io/tls Secret in the ProviderConfig's namespace are accepted.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
tls:
  clientCertSecretRef: {name: sb-client-tls, key: tls.crt}
  clientKeySecretRef: {name: sb-client-tls, key: tls.key}
`),
			want: &v1alpha1.ProviderConfigSpec{
				Endpoint:    "https://sb-api:5000",
				Credentials: v1alpha1.ProviderCredentials{Source: "Secret", SecretRef: v1alpha1.SecretKeySelector{Name: "sb-token", Key: "token"}},
				TLS: &v1alpha1.TLSConfig{
					ClientCertSecretRef: &v1alpha1.SecretKeySelector{Name: "sb-client-tls", Key: "tls.crt"},
					ClientKeySecretRef:  &v1alpha1.SecretKeySelector{Name: "sb-client-tls", Key: "tls.key"},
				},
				RequestTimeoutSeconds: 30,
			},
		},
		"ClientCertificateWithoutKey": {
			reason: "A client certificate is useless without its key.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
tls:
  clientCertSecretRef: {name: sb-client-tls, key: tls.crt}
`),
			wantErr: "set both clientCertSecretRef and clientKeySecretRef, or neither",
		},
		"NamespacedClientKeyElsewhere": {
			reason: "A ProviderConfig reads its client key from its own namespace only.",
			manifest: providerConfig("ProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, key: token}
tls:
  clientCertSecretRef: {name: sb-client-tls, key: tls.crt}
  clientKeySecretRef: {name: sb-client-tls, namespace: crossplane-system, key: tls.key}
`),
			wantErr: "a ProviderConfig reads its client certificate and key from its own namespace",
		},
		"ClusterConfigWithoutClientCertNamespace": {
			reason: "A ClusterProviderConfig has no namespace of its own to read the client certificate from.",
			manifest: providerConfig("ClusterProviderConfig", `
endpoint: https://sb-api:5000
credentials:
  secretRef: {name: sb-token, namespace: crossplane-system, key: token}
tls:
  clientCertSecretRef: {name: sb-client-tls, key: tls.crt}
  clientKeySecretRef: {name: sb-client-tls, namespace: crossplane-system, key: tls.key}
`),
			wantErr: "a ClusterProviderConfig must name the namespace of its client certificate and key",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &v1alpha1.ProviderConfig{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec); diff != "" {
				t.Errorf("\n%s\nspec as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
