package storagenode

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

func TestConnect(t *testing.T) {
	errBoom := errors.New("boom")

	type want struct {
		ext managed.TypedExternalClient[*v1alpha1.StorageNode]
		err error
	}
	cases := map[string]struct {
		reason string
		c      *connector
		want   want
	}{
		"TrackFailed": {
			reason: "A failure to track the ProviderConfig usage is returned and no client is built.",
			c: &connector{Connector: providerconfig.Connector{
				Usage: resource.ModernTrackerFn(func(_ context.Context, _ resource.ModernManaged) error { return errBoom }),
			}},
			want: want{err: errors.Wrap(errBoom, "cannot track ProviderConfig usage")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := tc.c.Connect(context.Background(), storageNode())
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.ext, got); diff != "" {
				t.Errorf("\n%s\nc.Connect(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}
