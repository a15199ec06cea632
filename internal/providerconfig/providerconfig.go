// Package providerconfig turns the ProviderConfig or ClusterProviderConfig a
// managed resource references into a simplyblock client configuration:
// endpoint, bearer token from a Secret, optional CA bundle, optional client
// certificate and key, request timeout.
package providerconfig

import (
	"context"
	"crypto/tls"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/version"
)

// maxRequestTimeoutSeconds is the admission bound of requestTimeoutSeconds;
// a larger value (from before the bound) is read as it.
const maxRequestTimeoutSeconds = 3600

const (
	errNoRef            = "managed resource does not reference a ProviderConfig"
	errUnknownKind      = "unsupported provider config kind %q: use ProviderConfig or ClusterProviderConfig"
	errGetPC            = "cannot get ProviderConfig"
	errGetCPC           = "cannot get ClusterProviderConfig"
	errSource           = "unsupported credentials source %q: only Secret is supported"
	errGetSecret        = "cannot get credentials Secret"
	errSecretKey        = "credentials Secret %s/%s has no key %q"
	errEmptyToken       = "credentials Secret %s/%s key %q is empty"
	errSecretNamespace  = "a ClusterProviderConfig must name the namespace of its credentials Secret"
	errGetCABundle      = "cannot get CA bundle"
	errCABundleKey      = "CA bundle %s/%s has no key %q"
	errForeignNamespace = "a namespaced ProviderConfig may only reference objects in its own namespace %q, not %q"
	errClientCertHalf   = "set both spec.tls.clientCertSecretRef and spec.tls.clientKeySecretRef, or neither"
	errGetClientCert    = "cannot get client certificate"
	errGetClientKey     = "cannot get client key"
	errClientCertPair   = "cannot use the client certificate in Secret %s/%s key %q with the client key in Secret %s/%s key %q"
)

// ClientConfig resolves the provider config referenced by mg into a client
// configuration. The token and the client key are read from the referenced
// Secrets; neither is ever part of an error message.
func ClientConfig(ctx context.Context, kube client.Client, mg resource.ModernManaged) (simplyblock.Config, error) {
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return simplyblock.Config{}, errors.New(errNoRef)
	}
	var (
		spec      v1alpha1.ProviderConfigSpec
		namespace string // where the config's Secrets and ConfigMaps live; empty for cluster-scoped
	)
	switch ref.Kind {
	case "ProviderConfig":
		pc := &v1alpha1.ProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Namespace: mg.GetNamespace(), Name: ref.Name}, pc); err != nil {
			return simplyblock.Config{}, errors.Wrap(err, errGetPC)
		}
		spec, namespace = pc.Spec, pc.GetNamespace()
	case "ClusterProviderConfig", "":
		cpc := &v1alpha1.ClusterProviderConfig{}
		if err := kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
			return simplyblock.Config{}, errors.Wrap(err, errGetCPC)
		}
		spec = cpc.Spec
	default:
		return simplyblock.Config{}, errors.Errorf(errUnknownKind, ref.Kind)
	}
	return fromSpec(ctx, kube, spec, namespace)
}

func fromSpec(ctx context.Context, kube client.Client, spec v1alpha1.ProviderConfigSpec, namespace string) (simplyblock.Config, error) {
	if spec.Credentials.Source != xpv2.CredentialsSourceSecret {
		return simplyblock.Config{}, errors.Errorf(errSource, spec.Credentials.Source)
	}
	token, err := secretValue(ctx, kube, spec.Credentials.SecretRef, namespace)
	if err != nil {
		return simplyblock.Config{}, err
	}
	cfg := simplyblock.Config{
		BaseURL:          spec.Endpoint,
		Token:            strings.TrimSpace(string(token)),
		Timeout:          time.Duration(min(max(spec.RequestTimeoutSeconds, 0), maxRequestTimeoutSeconds)) * time.Second,
		UserAgentVersion: version.Version,
	}
	if spec.TLS == nil {
		return cfg, nil
	}
	cfg.InsecureSkipVerify = spec.TLS.InsecureSkipVerify
	switch {
	case spec.TLS.CABundleSecretRef != nil:
		ca, err := secretValue(ctx, kube, *spec.TLS.CABundleSecretRef, namespace)
		if err != nil {
			return simplyblock.Config{}, errors.Wrap(err, errGetCABundle)
		}
		cfg.CABundle = ca
	case spec.TLS.CABundleConfigMapRef != nil:
		ca, err := configMapValue(ctx, kube, *spec.TLS.CABundleConfigMapRef, namespace)
		if err != nil {
			return simplyblock.Config{}, errors.Wrap(err, errGetCABundle)
		}
		cfg.CABundle = ca
	}
	if spec.TLS.ClientCertSecretRef != nil || spec.TLS.ClientKeySecretRef != nil {
		if cfg.ClientCert, cfg.ClientKey, err = clientCertificate(ctx, kube, *spec.TLS, namespace); err != nil {
			return simplyblock.Config{}, err
		}
	}
	return cfg, nil
}

// clientCertificate reads the client certificate and key and checks that
// they are a usable PEM pair, so that a wrong Secret is reported with its
// name rather than as a failing client. crypto/tls's reasons name PEM block
// types and mismatches, never key material.
func clientCertificate(ctx context.Context, kube client.Client, t v1alpha1.TLSConfig, namespace string) (cert, key []byte, err error) {
	if t.ClientCertSecretRef == nil || t.ClientKeySecretRef == nil {
		return nil, nil, errors.New(errClientCertHalf)
	}
	certRef, keyRef := *t.ClientCertSecretRef, *t.ClientKeySecretRef
	if cert, err = secretValue(ctx, kube, certRef, namespace); err != nil {
		return nil, nil, errors.Wrap(err, errGetClientCert)
	}
	if key, err = secretValue(ctx, kube, keyRef, namespace); err != nil {
		return nil, nil, errors.Wrap(err, errGetClientKey)
	}
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		// Both were read, so their namespaces resolve.
		certNS, _ := resolveNamespace(namespace, certRef.Namespace)
		keyNS, _ := resolveNamespace(namespace, keyRef.Namespace)
		return nil, nil, errors.Wrapf(err, errClientCertPair, certNS, certRef.Name, certRef.Key, keyNS, keyRef.Name, keyRef.Key)
	}
	return cert, key, nil
}

// resolveNamespace applies the namespace rules: a namespaced config reads
// only from its own namespace; a cluster-scoped one must name a namespace.
func resolveNamespace(configNamespace, refNamespace string) (string, error) {
	if configNamespace == "" {
		if refNamespace == "" {
			return "", errors.New(errSecretNamespace)
		}
		return refNamespace, nil
	}
	if refNamespace != "" && refNamespace != configNamespace {
		return "", errors.Errorf(errForeignNamespace, configNamespace, refNamespace)
	}
	return configNamespace, nil
}

func secretValue(ctx context.Context, kube client.Client, sel v1alpha1.SecretKeySelector, configNamespace string) ([]byte, error) {
	ns, err := resolveNamespace(configNamespace, sel.Namespace)
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: sel.Name}, s); err != nil {
		return nil, errors.Wrap(err, errGetSecret)
	}
	v, ok := s.Data[sel.Key]
	if !ok {
		return nil, errors.Errorf(errSecretKey, ns, sel.Name, sel.Key)
	}
	if len(strings.TrimSpace(string(v))) == 0 {
		return nil, errors.Errorf(errEmptyToken, ns, sel.Name, sel.Key)
	}
	return v, nil
}

func configMapValue(ctx context.Context, kube client.Client, sel v1alpha1.ConfigMapKeySelector, configNamespace string) ([]byte, error) {
	ns, err := resolveNamespace(configNamespace, sel.Namespace)
	if err != nil {
		return nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: sel.Name}, cm); err != nil {
		return nil, err
	}
	v, ok := cm.Data[sel.Key]
	if !ok {
		return nil, errors.Errorf(errCABundleKey, ns, sel.Name, sel.Key)
	}
	return []byte(v), nil
}
