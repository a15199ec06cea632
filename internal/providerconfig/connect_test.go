package providerconfig

import (
	"context"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

var _ NewClientFn = NewClient

func TestConnect(t *testing.T) {
	api := &fake.MockClient{}

	type fields struct {
		objects   *objects
		trackErr  error
		newClient NewClientFn
	}
	type args struct {
		mg resource.ModernManaged
	}
	type want struct {
		api   simplyblock.API
		err   error
		calls []string
	}

	okObjects := func() *objects {
		return newObjects(withPC("default", spec()), withSecret(mrNamespace, "sb", map[string]string{"token": token}))
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Connected": {
			reason: "Connect tracks the usage, then resolves the config and builds a client from it.",
			fields: fields{
				objects: okObjects(),
				newClient: func(cfg simplyblock.Config) (simplyblock.API, error) {
					if diff := cmp.Diff(config(), cfg); diff != "" {
						return nil, errors.Errorf("NewClient(...): -want, +got config:\n%s", diff)
					}
					return api, nil
				},
			},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				api:   api,
				calls: []string{"Track", "Get ProviderConfig storage/default", "Get Secret storage/sb", "NewClient"},
			},
		},
		"TrackFailed": {
			reason: "A tracking error is returned wrapped before anything is resolved.",
			fields: fields{objects: okObjects(), trackErr: errBoom},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:   errors.Wrap(errBoom, errTrackUsage),
				calls: []string{"Track"},
			},
		},
		"ResolveFailed": {
			reason: "An error resolving the config is returned as is, and no client is built.",
			fields: fields{objects: newObjects(withGetError("ProviderConfig", errBoom))},
			args:   args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:   errors.Wrap(errBoom, errGetPC),
				calls: []string{"Track", "Get ProviderConfig storage/default"},
			},
		},
		"NewClientFailed": {
			reason: "An error building the client is returned wrapped.",
			fields: fields{
				objects:   okObjects(),
				newClient: func(simplyblock.Config) (simplyblock.API, error) { return nil, errBoom },
			},
			args: args{mg: mr("ProviderConfig", "default")},
			want: want{
				err:   errors.Wrap(errBoom, errNewClient),
				calls: []string{"Track", "Get ProviderConfig storage/default", "Get Secret storage/sb", "NewClient"},
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var calls []string
			kube := tc.fields.objects.kube()
			get := kube.MockGet
			kube.MockGet = func(ctx context.Context, key client.ObjectKey, obj client.Object) error {
				calls = append(calls, "Get "+typeName(obj)+" "+key.String())
				return get(ctx, key, obj)
			}
			c := &Connector{
				Kube: kube,
				Usage: resource.ModernTrackerFn(func(_ context.Context, mg resource.ModernManaged) error {
					calls = append(calls, "Track")
					if mg != tc.args.mg {
						t.Errorf("Track(...): called with %v, want the managed resource", mg)
					}
					return tc.fields.trackErr
				}),
				NewClient: func(cfg simplyblock.Config) (simplyblock.API, error) {
					calls = append(calls, "NewClient")
					if tc.fields.newClient == nil {
						t.Errorf("NewClient(...): unexpected call")
						return nil, nil
					}
					return tc.fields.newClient(cfg)
				},
			}
			got, err := c.Connect(context.Background(), tc.args.mg)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if got != tc.want.api {
				t.Errorf("\n%s\nc.Connect(...): got client %v, want %v\n", tc.reason, got, tc.want.api)
			}
			if diff := cmp.Diff(tc.want.calls, calls); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want calls, +got calls:\n%s\n", tc.reason, diff)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("\n%s\nc.Connect(...): error %q contains the token", tc.reason, err)
			}
		})
	}
}

func TestNewClient(t *testing.T) {
	type want struct {
		ok bool
	}
	cases := map[string]struct {
		reason string
		cfg    simplyblock.Config
		want   want
	}{
		"Valid": {
			reason: "A valid endpoint yields a client; nothing is sent.",
			cfg:    simplyblock.Config{BaseURL: "https://sb.example:5000", Token: token},
			want:   want{ok: true},
		},
		"InvalidScheme": {
			reason: "An endpoint without http or https is refused, and the error does not carry the token.",
			cfg:    simplyblock.Config{BaseURL: "ftp://sb.example", Token: token},
		},
		"BadCABundle": {
			reason: "A CA bundle without any PEM certificate is refused, and the error does not carry the token.",
			cfg:    simplyblock.Config{BaseURL: "https://sb.example", Token: token, CABundle: []byte("not pem")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := NewClient(tc.cfg)
			if tc.want.ok != (err == nil) {
				t.Fatalf("\n%s\nNewClient(...): unexpected error result: %v", tc.reason, err)
			}
			if tc.want.ok && got == nil {
				t.Errorf("\n%s\nNewClient(...): got nil client", tc.reason)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("\n%s\nNewClient(...): error %q contains the token", tc.reason, err)
			}
		})
	}
}
