package providerconfig

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// keyPair returns a self-signed client certificate and its key, both PEM.
func keyPair(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: "provider-simplyblock"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// errNotFound is the fake API server's answer for a missing object.
func errNotFound(kind, name string) error {
	return kerrors.NewNotFound(schema.GroupResource{Resource: kind}, name)
}

// pairError is crypto/tls's verdict on a certificate and key.
func pairError(cert, key string) error {
	_, err := tls.X509KeyPair([]byte(cert), []byte(key))
	return err
}

func withClientCert(certNS, certName, certKey, keyNS, keyName, keyKey string) specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) {
		if s.TLS == nil {
			s.TLS = &v1alpha1.TLSConfig{}
		}
		if certName != "" {
			s.TLS.ClientCertSecretRef = &v1alpha1.SecretKeySelector{Namespace: certNS, Name: certName, Key: certKey}
		}
		if keyName != "" {
			s.TLS.ClientKeySecretRef = &v1alpha1.SecretKeySelector{Namespace: keyNS, Name: keyName, Key: keyKey}
		}
	}
}

// TestClientConfigClientCertificate covers spec.tls.clientCertSecretRef and
// clientKeySecretRef: the pair is read, checked, and its key never shows in
// an error (which ends up in the managed resources' conditions and events).
func TestClientConfigClientCertificate(t *testing.T) {
	cert, key := keyPair(t)
	_, otherKey := keyPair(t)

	type fields struct {
		objects *objects
	}
	type args struct {
		mg resource.ModernManaged
	}
	type want struct {
		cfg  simplyblock.Config
		err  error
		gets []string
	}

	tokenSecret := func(ns string) objectsModifier {
		return withSecret(ns, "sb", map[string]string{"token": token})
	}
	tlsSecret := func(ns, crt, k string) objectsModifier {
		return withSecret(ns, "client-tls", map[string]string{"tls.crt": crt, "tls.key": k})
	}
	inOwnSecret := withClientCert("", "client-tls", "tls.crt", "", "client-tls", "tls.key")
	withPair := func(c *simplyblock.Config) { c.ClientCert, c.ClientKey = []byte(cert), []byte(key) }

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"KubernetesTLSSecret": {
			reason: "The certificate and key are read from the keys of a kubernetes.io/tls Secret, as cert-manager writes it.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace), tlsSecret(mrNamespace, cert, key))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				cfg:  config(withPair),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls", "Secret storage/client-tls"},
			},
		},
		"ClusterProviderConfigTwoSecrets": {
			reason: "A ClusterProviderConfig reads certificate and key from the Secrets and namespaces it names, with a CA bundle alongside.",
			fields: fields{objects: newObjects(
				withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"), withCASecret(sysNamespace, "ca", "ca.crt"),
					withClientCert(sysNamespace, "client-cert", "cert.pem", sysNamespace, "client-key", "key.pem"))),
				tokenSecret(sysNamespace), withSecret(sysNamespace, "ca", map[string]string{"ca.crt": caPEM}),
				withSecret(sysNamespace, "client-cert", map[string]string{"cert.pem": cert}),
				withSecret(sysNamespace, "client-key", map[string]string{"key.pem": key}))},
			args: args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				cfg: config(withPair, func(c *simplyblock.Config) { c.CABundle = []byte(caPEM) }),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb", "Secret crossplane-system/ca",
					"Secret crossplane-system/client-cert", "Secret crossplane-system/client-key"},
			},
		},
		"CertificateNotPEM": {
			reason: "A certificate that is not PEM is an error naming both Secret keys, and quoting neither.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace), tlsSecret(mrNamespace, "MIIB-not-pem", key))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrapf(pairError("MIIB-not-pem", key), errClientCertPair, mrNamespace, "client-tls", "tls.crt", mrNamespace, "client-tls", "tls.key"),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls", "Secret storage/client-tls"},
			},
		},
		"KeyOfAnotherCertificate": {
			reason: "A key that does not match the certificate is an error, without the key.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace), tlsSecret(mrNamespace, cert, otherKey))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrapf(pairError(cert, otherKey), errClientCertPair, mrNamespace, "client-tls", "tls.crt", mrNamespace, "client-tls", "tls.key"),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls", "Secret storage/client-tls"},
			},
		},
		"SwappedCertificateAndKey": {
			reason: "A key given as the certificate is an error that does not quote it.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace), tlsSecret(mrNamespace, key, cert))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrapf(pairError(key, cert), errClientCertPair, mrNamespace, "client-tls", "tls.crt", mrNamespace, "client-tls", "tls.key"),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls", "Secret storage/client-tls"},
			},
		},
		"MissingKeyEntry": {
			reason: "A Secret without the referenced key entry is an error about the client key naming the Secret.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace),
				withSecret(mrNamespace, "client-tls", map[string]string{"tls.crt": cert}))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Errorf(errSecretKey, mrNamespace, "client-tls", "tls.key"), errGetClientKey),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls", "Secret storage/client-tls"},
			},
		},
		"CertificateSecretNotFound": {
			reason: "A missing certificate Secret is an error about the client certificate; the key is not read.",
			fields: fields{objects: newObjects(withPC("default", spec(inOwnSecret)), tokenSecret(mrNamespace))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Wrap(errNotFound("Secret", "client-tls"), errGetSecret), errGetClientCert),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/client-tls"},
			},
		},
		"CertificateWithoutKey": {
			reason: "A certificate without a key (admission forbids it) is an error before any Secret of the pair is read.",
			fields: fields{objects: newObjects(withPC("default", spec(withClientCert("", "client-tls", "tls.crt", "", "", ""))), tokenSecret(mrNamespace),
				tlsSecret(mrNamespace, cert, key))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.New(errClientCertHalf),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"ForeignNamespace": {
			reason: "A namespaced ProviderConfig may not read a client certificate from another namespace.",
			fields: fields{objects: newObjects(withPC("default", spec(withClientCert(sysNamespace, "client-tls", "tls.crt", "", "client-tls", "tls.key"))),
				tokenSecret(mrNamespace), tlsSecret(sysNamespace, cert, key))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Errorf(errForeignNamespace, mrNamespace, sysNamespace), errGetClientCert),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"ClusterConfigWithoutKeyNamespace": {
			reason: "A ClusterProviderConfig must name the namespace of the client key too.",
			fields: fields{objects: newObjects(withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"),
				withClientCert(sysNamespace, "client-tls", "tls.crt", "", "client-tls", "tls.key"))),
				tokenSecret(sysNamespace), tlsSecret(sysNamespace, cert, key))},
			args: args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.New(errSecretNamespace), errGetClientKey),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb", "Secret crossplane-system/client-tls"},
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ClientConfig(context.Background(), tc.fields.objects.kube(), tc.args.mg)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nClientConfig(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.cfg, got); diff != "" {
				t.Errorf("\n%s\nClientConfig(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.gets, tc.fields.objects.gets); diff != "" {
				t.Errorf("\n%s\nClientConfig(...): -want Gets, +got Gets:\n%s\n", tc.reason, diff)
			}
			if err != nil && (leaks(err.Error(), key) || leaks(err.Error(), otherKey) || strings.Contains(err.Error(), token)) {
				t.Errorf("\n%s\nClientConfig(...): error %q contains the key or the token", tc.reason, err)
			}
		})
	}
}

// leaks reports whether msg quotes any line of the base64 body of the PEM
// key.
func leaks(msg, keyPEM string) bool {
	for _, line := range strings.Split(keyPEM, "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") && strings.Contains(msg, line) {
			return true
		}
	}
	return false
}
