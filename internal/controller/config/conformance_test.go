package config

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

const token = "sb-T0KEN-do-not-leak"

type reconcilerFn func(context.Context, reconcile.Request) (reconcile.Result, error)

func (f reconcilerFn) Reconcile(ctx context.Context, r reconcile.Request) (reconcile.Result, error) {
	return f(ctx, r)
}

func pc(mods ...func(*v1alpha1.ProviderConfig)) *v1alpha1.ProviderConfig {
	p := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "storage", Name: "default"},
		Spec: v1alpha1.ProviderConfigSpec{Endpoint: "https://sb.example:5000", Credentials: v1alpha1.ProviderCredentials{
			Source: xpv2.CredentialsSourceSecret, SecretRef: v1alpha1.SecretKeySelector{Name: "sb", Key: "token"}}}}
	for _, m := range mods {
		m(p)
	}
	return p
}

func TestConformanceReconciler(t *testing.T) {
	nonconformant := conformance.Verdict{State: conformance.Nonconformant, Complete: true, Results: []conformance.Result{
		{ID: conformance.CheckLogShape, Status: conformance.Fail, Detail: "response body at /0: not a log entry"}}}
	conformant := conformance.Verdict{State: conformance.Conformant, Complete: true}
	type want struct {
		result  reconcile.Result
		err     error
		patched *xpv2.Condition // the condition patched in, nil for no patch
	}
	cases := map[string]struct {
		reason   string
		pc       *v1alpha1.ProviderConfig
		verdict  *conformance.Verdict // nil: the cache checks nothing
		innerErr error
		want     want
	}{
		"Nonconformant": {
			reason:  "A nonconformant control plane sets BackendConformant False and requeues for the next check.",
			pc:      pc(),
			verdict: &nonconformant,
			want: want{result: reconcile.Result{RequeueAfter: providerconfig.RecheckNonconformant},
				patched: ptr(providerconfig.BackendConformant(nonconformant, true))},
		},
		"Conformant": {
			reason:  "A complete conformant verdict sets the condition True and needs no requeue.",
			pc:      pc(),
			verdict: &conformant,
			want:    want{patched: ptr(providerconfig.BackendConformant(conformant, true))},
		},
		"AlreadySet": {
			reason: "An unchanged condition is not written again.",
			pc: pc(func(p *v1alpha1.ProviderConfig) {
				p.SetConditions(providerconfig.BackendConformant(conformant, true))
			}),
			verdict: &conformant,
			want:    want{},
		},
		"Deleted": {
			reason: "A config being deleted is left to crossplane-runtime's reconciler.",
			pc: pc(func(p *v1alpha1.ProviderConfig) {
				now := metav1.Now()
				p.SetDeletionTimestamp(&now)
			}),
			verdict: &conformant,
			want:    want{},
		},
		"NotChecking": {
			reason: "With --backend-conformance=off no condition is written.",
			pc:     pc(),
			want:   want{},
		},
		"InnerError": {
			reason:   "An error of crossplane-runtime's reconciler is returned before anything is checked.",
			pc:       pc(),
			verdict:  &conformant,
			innerErr: errors.New("boom"),
			want:     want{err: errors.New("boom")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var patched *xpv2.Condition
			kube := &test.MockClient{
				MockGet: func(_ context.Context, key client.ObjectKey, obj client.Object) error {
					switch o := obj.(type) {
					case *v1alpha1.ProviderConfig:
						tc.pc.DeepCopyInto(o)
					case *corev1.Secret:
						if key != (types.NamespacedName{Namespace: "storage", Name: "sb"}) {
							return errors.Errorf("unexpected Secret %s", key)
						}
						o.Data = map[string][]byte{"token": []byte(token)}
					default:
						return errors.Errorf("unexpected Get of %T", obj)
					}
					return nil
				},
				MockStatusPatch: func(_ context.Context, obj client.Object, _ client.Patch, _ ...client.SubResourcePatchOption) error {
					c := obj.(*v1alpha1.ProviderConfig).GetCondition(providerconfig.TypeBackendConformant)
					patched = &c
					return nil
				},
			}
			clients := &providerconfig.ClientCache{NewClient: func(simplyblock.Config) (simplyblock.API, error) { return &fake.MockClient{}, nil }}
			if tc.verdict != nil {
				clients.Verify = func(context.Context, simplyblock.API, simplyblock.Config) conformance.Verdict { return *tc.verdict }
			}
			r := &conformanceReconciler{
				inner: reconcilerFn(func(context.Context, reconcile.Request) (reconcile.Result, error) {
					return reconcile.Result{}, tc.innerErr
				}),
				kube:      kube,
				newConfig: func() resource.ProviderConfig { return &v1alpha1.ProviderConfig{} },
				clients:   clients,
			}
			res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "storage", Name: "default"}})
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nReconcile(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.result, res); diff != "" {
				t.Errorf("\n%s\nReconcile(...): -want result, +got result:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.patched, patched, test.EquateConditions()); diff != "" {
				t.Errorf("\n%s\nReconcile(...): -want patched condition, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
