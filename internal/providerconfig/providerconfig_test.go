package providerconfig

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mrv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/version"
)

const (
	mrNamespace  = "storage"
	sysNamespace = "crossplane-system"
	endpoint     = "https://sb.example:5000"
	token        = "sb-T0KEN-do-not-leak"
	caPEM        = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
)

var errBoom = errors.New("boom")

// objects is a fake API server: Get copies the stored object of the same
// type and key into obj, or answers NotFound. Every Get key is recorded.
type objects struct {
	pcs     map[types.NamespacedName]*v1alpha1.ProviderConfig
	cpcs    map[types.NamespacedName]*v1alpha1.ClusterProviderConfig
	secrets map[types.NamespacedName]*corev1.Secret
	cms     map[types.NamespacedName]*corev1.ConfigMap
	errs    map[string]error // by Go type name, e.g. "*v1.Secret"
	gets    []string
}

func (o *objects) kube() *test.MockClient {
	return &test.MockClient{MockGet: func(_ context.Context, key client.ObjectKey, obj client.Object) error {
		o.gets = append(o.gets, typeName(obj)+" "+key.String())
		if err := o.errs[typeName(obj)]; err != nil {
			return err
		}
		notFound := kerrors.NewNotFound(schema.GroupResource{Resource: typeName(obj)}, key.Name)
		switch t := obj.(type) {
		case *v1alpha1.ProviderConfig:
			src, ok := o.pcs[key]
			if !ok {
				return notFound
			}
			src.DeepCopyInto(t)
		case *v1alpha1.ClusterProviderConfig:
			src, ok := o.cpcs[key]
			if !ok {
				return notFound
			}
			src.DeepCopyInto(t)
		case *corev1.Secret:
			src, ok := o.secrets[key]
			if !ok {
				return notFound
			}
			src.DeepCopyInto(t)
		case *corev1.ConfigMap:
			src, ok := o.cms[key]
			if !ok {
				return notFound
			}
			src.DeepCopyInto(t)
		default:
			return errors.Errorf("unexpected Get of %T", obj)
		}
		return nil
	}}
}

func typeName(obj client.Object) string {
	switch obj.(type) {
	case *v1alpha1.ProviderConfig:
		return "ProviderConfig"
	case *v1alpha1.ClusterProviderConfig:
		return "ClusterProviderConfig"
	case *corev1.Secret:
		return "Secret"
	case *corev1.ConfigMap:
		return "ConfigMap"
	}
	return "unknown"
}

type objectsModifier func(*objects)

func withPC(name string, spec v1alpha1.ProviderConfigSpec) objectsModifier {
	return func(o *objects) {
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: mrNamespace, Name: name}, Spec: spec}
		o.pcs[types.NamespacedName{Namespace: mrNamespace, Name: name}] = pc
	}
}

func withCPC(name string, spec v1alpha1.ProviderConfigSpec) objectsModifier {
	return func(o *objects) {
		cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
		o.cpcs[types.NamespacedName{Name: name}] = cpc
	}
}

func withSecret(ns, name string, data map[string]string) objectsModifier {
	return func(o *objects) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		o.secrets[types.NamespacedName{Namespace: ns, Name: name}] = s
	}
}

func withConfigMap(ns, name string, data map[string]string) objectsModifier {
	return func(o *objects) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
		o.cms[types.NamespacedName{Namespace: ns, Name: name}] = cm
	}
}

func withGetError(kind string, err error) objectsModifier {
	return func(o *objects) { o.errs[kind] = err }
}

func newObjects(m ...objectsModifier) *objects {
	o := &objects{
		pcs:     map[types.NamespacedName]*v1alpha1.ProviderConfig{},
		cpcs:    map[types.NamespacedName]*v1alpha1.ClusterProviderConfig{},
		secrets: map[types.NamespacedName]*corev1.Secret{},
		cms:     map[types.NamespacedName]*corev1.ConfigMap{},
		errs:    map[string]error{},
	}
	for _, f := range m {
		f(o)
	}
	return o
}

type specModifier func(*v1alpha1.ProviderConfigSpec)

func withSecretRef(ns, name, key string) specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) {
		s.Credentials.SecretRef = v1alpha1.SecretKeySelector{Namespace: ns, Name: name, Key: key}
	}
}

func withSource(src xpv2.CredentialsSource) specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) { s.Credentials.Source = src }
}

func withCASecret(ns, name, key string) specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) {
		if s.TLS == nil {
			s.TLS = &v1alpha1.TLSConfig{}
		}
		s.TLS.CABundleSecretRef = &v1alpha1.SecretKeySelector{Namespace: ns, Name: name, Key: key}
	}
}

func withCAConfigMap(ns, name, key string) specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) {
		if s.TLS == nil {
			s.TLS = &v1alpha1.TLSConfig{}
		}
		s.TLS.CABundleConfigMapRef = &v1alpha1.ConfigMapKeySelector{Namespace: ns, Name: name, Key: key}
	}
}

func withInsecure() specModifier {
	return func(s *v1alpha1.ProviderConfigSpec) {
		if s.TLS == nil {
			s.TLS = &v1alpha1.TLSConfig{}
		}
		s.TLS.InsecureSkipVerify = true
	}
}

func spec(m ...specModifier) v1alpha1.ProviderConfigSpec {
	s := v1alpha1.ProviderConfigSpec{
		Endpoint: endpoint,
		Credentials: v1alpha1.ProviderCredentials{
			Source:    xpv2.CredentialsSourceSecret,
			SecretRef: v1alpha1.SecretKeySelector{Name: "sb", Key: "token"},
		},
		RequestTimeoutSeconds: 15,
	}
	for _, f := range m {
		f(&s)
	}
	return s
}

// mr is a namespaced managed resource referencing the given config.
func mr(kind, name string) *mrv1alpha1.StorageCluster {
	cr := &mrv1alpha1.StorageCluster{}
	cr.SetNamespace(mrNamespace)
	cr.SetName("prod")
	if kind != "-" {
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: kind, Name: name}
	}
	return cr
}

func config(m ...func(*simplyblock.Config)) simplyblock.Config {
	c := simplyblock.Config{BaseURL: endpoint, Token: token, Timeout: 15 * time.Second, UserAgentVersion: version.Version}
	for _, f := range m {
		f(&c)
	}
	return c
}

func TestClientConfig(t *testing.T) {
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
		return withSecret(ns, "sb", map[string]string{"token": token + "\n"})
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"NoReference": {
			reason: "A managed resource without a provider config reference is an error.",
			fields: fields{objects: newObjects()},
			args:   args{mg: mr("-", "")},
			want:   want{err: errors.New(errNoRef)},
		},
		"UnknownKind": {
			reason: "A reference to an unsupported kind is an error naming it.",
			fields: fields{objects: newObjects()},
			args:   args{mg: mr("SomethingElse", "default")},
			want:   want{err: errors.Errorf(errUnknownKind, "SomethingElse")},
		},
		"ProviderConfig": {
			reason: "A ProviderConfig is read from the managed resource's namespace, and its Secret from the same namespace; the token is trimmed.",
			fields: fields{objects: newObjects(withPC("default", spec()), tokenSecret(mrNamespace))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				cfg:  config(),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"ProviderConfigOwnNamespaceExplicit": {
			reason: "A ProviderConfig may name its own namespace explicitly.",
			fields: fields{objects: newObjects(withPC("default", spec(withSecretRef(mrNamespace, "sb", "token"))), tokenSecret(mrNamespace))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				cfg:  config(),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"ProviderConfigForeignNamespace": {
			reason: "A namespaced ProviderConfig may not read a Secret in another namespace; the Secret is not even read.",
			fields: fields{objects: newObjects(withPC("default", spec(withSecretRef(sysNamespace, "sb", "token"))), tokenSecret(sysNamespace))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Errorf(errForeignNamespace, mrNamespace, sysNamespace),
				gets: []string{"ProviderConfig storage/default"},
			},
		},
		"ProviderConfigNotFound": {
			reason: "A missing ProviderConfig is returned wrapped.",
			fields: fields{objects: newObjects(withGetError("ProviderConfig", errBoom))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errBoom, errGetPC),
				gets: []string{"ProviderConfig storage/default"},
			},
		},
		"ClusterProviderConfig": {
			reason: "A ClusterProviderConfig is read by name alone, and its Secret from the namespace it names.",
			fields: fields{objects: newObjects(withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"))), tokenSecret(sysNamespace))},
			args:   args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				cfg:  config(),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb"},
			},
		},
		"EmptyKindIsClusterProviderConfig": {
			reason: "A reference without a kind means a ClusterProviderConfig.",
			fields: fields{objects: newObjects(withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"))), tokenSecret(sysNamespace))},
			args:   args{mg: mr("", "default")},
			want: want{
				cfg:  config(),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb"},
			},
		},
		"ClusterProviderConfigWithoutSecretNamespace": {
			reason: "A ClusterProviderConfig must name the namespace of its Secret; the managed resource's namespace is not used.",
			fields: fields{objects: newObjects(withCPC("default", spec()), tokenSecret(mrNamespace))},
			args:   args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				err:  errors.New(errSecretNamespace),
				gets: []string{"ClusterProviderConfig /default"},
			},
		},
		"ClusterProviderConfigNotFound": {
			reason: "A missing ClusterProviderConfig is returned wrapped.",
			fields: fields{objects: newObjects(withGetError("ClusterProviderConfig", errBoom))},
			args:   args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errBoom, errGetCPC),
				gets: []string{"ClusterProviderConfig /default"},
			},
		},
		"UnsupportedSource": {
			reason: "A credentials source other than Secret is an error naming it.",
			fields: fields{objects: newObjects(withPC("default", spec(withSource(xpv2.CredentialsSourceEnvironment))))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Errorf(errSource, xpv2.CredentialsSourceEnvironment),
				gets: []string{"ProviderConfig storage/default"},
			},
		},
		"SecretNotFound": {
			reason: "A Secret that cannot be read is returned wrapped.",
			fields: fields{objects: newObjects(withPC("default", spec()), withGetError("Secret", errBoom))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errBoom, errGetSecret),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"MissingSecretKey": {
			reason: "A Secret without the referenced key is an error naming the Secret and key.",
			fields: fields{objects: newObjects(withPC("default", spec()), withSecret(mrNamespace, "sb", map[string]string{"other": token}))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Errorf(errSecretKey, mrNamespace, "sb", "token"),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"EmptyToken": {
			reason: "A token that is empty or only whitespace is an error.",
			fields: fields{objects: newObjects(withPC("default", spec()), withSecret(mrNamespace, "sb", map[string]string{"token": " \n"}))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Errorf(errEmptyToken, mrNamespace, "sb", "token"),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"CABundleFromSecret": {
			reason: "A CA bundle is read from the referenced Secret, with InsecureSkipVerify passed through.",
			fields: fields{objects: newObjects(withPC("default", spec(withCASecret("", "ca", "ca.crt"), withInsecure())), tokenSecret(mrNamespace),
				withSecret(mrNamespace, "ca", map[string]string{"ca.crt": caPEM}))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				cfg:  config(func(c *simplyblock.Config) { c.CABundle = []byte(caPEM); c.InsecureSkipVerify = true }),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/ca"},
			},
		},
		"CABundleFromConfigMap": {
			reason: "A CA bundle is read from the referenced ConfigMap.",
			fields: fields{objects: newObjects(withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"), withCAConfigMap(sysNamespace, "ca", "ca.crt"))),
				tokenSecret(sysNamespace), withConfigMap(sysNamespace, "ca", map[string]string{"ca.crt": caPEM}))},
			args: args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				cfg:  config(func(c *simplyblock.Config) { c.CABundle = []byte(caPEM) }),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb", "ConfigMap crossplane-system/ca"},
			},
		},
		"CABundleSecretMissingKey": {
			reason: "A CA bundle Secret without the key is an error about the CA bundle.",
			fields: fields{objects: newObjects(withPC("default", spec(withCASecret("", "ca", "ca.crt"))), tokenSecret(mrNamespace),
				withSecret(mrNamespace, "ca", map[string]string{"tls.crt": caPEM}))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Errorf(errSecretKey, mrNamespace, "ca", "ca.crt"), errGetCABundle),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "Secret storage/ca"},
			},
		},
		"CABundleConfigMapMissingKey": {
			reason: "A CA bundle ConfigMap without the key is an error naming the ConfigMap and key.",
			fields: fields{objects: newObjects(withPC("default", spec(withCAConfigMap("", "ca", "ca.crt"))), tokenSecret(mrNamespace),
				withConfigMap(mrNamespace, "ca", map[string]string{}))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Errorf(errCABundleKey, mrNamespace, "ca", "ca.crt"), errGetCABundle),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "ConfigMap storage/ca"},
			},
		},
		"CABundleConfigMapNotFound": {
			reason: "A CA bundle ConfigMap that cannot be read is returned wrapped.",
			fields: fields{objects: newObjects(withPC("default", spec(withCAConfigMap("", "ca", "ca.crt"))), tokenSecret(mrNamespace),
				withGetError("ConfigMap", errBoom))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errBoom, errGetCABundle),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb", "ConfigMap storage/ca"},
			},
		},
		"CABundleConfigMapForeignNamespace": {
			reason: "A namespaced ProviderConfig may not read a CA bundle ConfigMap in another namespace.",
			fields: fields{objects: newObjects(withPC("default", spec(withCAConfigMap(sysNamespace, "ca", "ca.crt"))), tokenSecret(mrNamespace),
				withConfigMap(sysNamespace, "ca", map[string]string{"ca.crt": caPEM}))},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.Errorf(errForeignNamespace, mrNamespace, sysNamespace), errGetCABundle),
				gets: []string{"ProviderConfig storage/default", "Secret storage/sb"},
			},
		},
		"CABundleClusterConfigWithoutNamespace": {
			reason: "A ClusterProviderConfig must name the namespace of its CA bundle too.",
			fields: fields{objects: newObjects(withCPC("default", spec(withSecretRef(sysNamespace, "sb", "token"), withCASecret("", "ca", "ca.crt"))),
				tokenSecret(sysNamespace))},
			args: args{mg: mr("ClusterProviderConfig", "default")},
			want: want{
				err:  errors.Wrap(errors.New(errSecretNamespace), errGetCABundle),
				gets: []string{"ClusterProviderConfig /default", "Secret crossplane-system/sb"},
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
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("\n%s\nClientConfig(...): error %q contains the token", tc.reason, err)
			}
		})
	}
}

func TestResolveNamespace(t *testing.T) {
	type want struct {
		ns  string
		err error
	}
	cases := map[string]struct {
		reason          string
		configNamespace string
		refNamespace    string
		want            want
	}{
		"NamespacedDefault":  {reason: "A namespaced config defaults to its own namespace.", configNamespace: "a", want: want{ns: "a"}},
		"NamespacedSame":     {reason: "A namespaced config may name its own namespace.", configNamespace: "a", refNamespace: "a", want: want{ns: "a"}},
		"NamespacedForeign":  {reason: "A namespaced config may not name another namespace.", configNamespace: "a", refNamespace: "b", want: want{err: errors.Errorf(errForeignNamespace, "a", "b")}},
		"ClusterNamed":       {reason: "A cluster config uses the namespace it names.", refNamespace: "b", want: want{ns: "b"}},
		"ClusterWithoutName": {reason: "A cluster config must name a namespace.", want: want{err: errors.New(errSecretNamespace)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := resolveNamespace(tc.configNamespace, tc.refNamespace)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nresolveNamespace(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.ns, got); diff != "" {
				t.Errorf("\n%s\nresolveNamespace(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}
