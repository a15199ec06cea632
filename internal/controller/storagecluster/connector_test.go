package storagecluster

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

var _ managed.TypedExternalConnector[*v1alpha1.StorageCluster] = &connector{}

func TestConnect(t *testing.T) {
	api := &fake.MockClient{}

	// kube serves a ClusterProviderConfig "default" and its token Secret.
	kube := &test.MockClient{MockGet: func(_ context.Context, key client.ObjectKey, obj client.Object) error {
		switch o := obj.(type) {
		case *apisv1alpha1.ClusterProviderConfig:
			o.SetName(key.Name)
			o.Spec = apisv1alpha1.ProviderConfigSpec{
				Endpoint: "https://sb.example:5000",
				Credentials: apisv1alpha1.ProviderCredentials{
					Source:    xpv2.CredentialsSourceSecret,
					SecretRef: apisv1alpha1.SecretKeySelector{Name: "sb", Namespace: "crossplane-system", Key: "token"},
				},
			}
		case *corev1.Secret:
			o.Data = map[string][]byte{"token": []byte("t0ken")}
		default:
			return errors.Errorf("unexpected Get of %T", obj)
		}
		return nil
	}}

	withRef := func(cr *v1alpha1.StorageCluster) {
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}
	}

	type fields struct {
		c *connector
	}
	type args struct {
		cr *v1alpha1.StorageCluster
	}
	type want struct {
		ext managed.TypedExternalClient[*v1alpha1.StorageCluster]
		err error
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Connected": {
			reason: "Connect returns an external client around the API client built from the provider config.",
			fields: fields{c: &connector{Connector: providerconfig.Connector{
				Kube:  kube,
				Usage: resource.ModernTrackerFn(func(_ context.Context, _ resource.ModernManaged) error { return nil }),
				NewClient: func(cfg simplyblock.Config) (simplyblock.API, error) {
					if cfg.Token != "t0ken" || cfg.BaseURL != "https://sb.example:5000" {
						return nil, errors.New("unexpected config")
					}
					return api, nil
				},
			}}},
			args: args{cr: cluster(withRef)},
			want: want{ext: &external{api: api}},
		},
		"TrackFailed": {
			reason: "A failure to track the ProviderConfig usage is returned.",
			fields: fields{c: &connector{Connector: providerconfig.Connector{
				Kube:  kube,
				Usage: resource.ModernTrackerFn(func(_ context.Context, _ resource.ModernManaged) error { return errBoom }),
			}}},
			args: args{cr: cluster(withRef)},
			want: want{err: errors.Wrap(errBoom, "cannot track ProviderConfig usage")},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.fields.c.Connect(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.ext, got, cmp.AllowUnexported(external{})); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}
