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

package providerconfig

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
)

func TestCoveredBy(t *testing.T) {
	holder := &sbv1alpha1.StorageCluster{}
	holder.SetNamespace("ns")
	holder.SetUID("holder-uid")
	op := func(ns, kind, name string) *sbv1alpha1.ClusterOps {
		o := &sbv1alpha1.ClusterOps{}
		o.SetNamespace(ns)
		o.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: kind, Name: name})
		return o
	}
	// usage answers a Get of holder's usage with one that records the
	// ProviderConfig kind/name.
	usage := func(kind, name string) test.MockGetFn {
		return func(_ context.Context, key client.ObjectKey, obj client.Object) error {
			if key != (types.NamespacedName{Namespace: "ns", Name: "holder-uid"}) {
				return errors.Errorf("Get(%s): want the usage named after the holder's UID", key)
			}
			u, ok := obj.(*v1alpha1.ProviderConfigUsage)
			if !ok {
				return errors.Errorf("Get(%T): want a ProviderConfigUsage", obj)
			}
			u.ProviderConfigReference = xpv2.ProviderConfigReference{Kind: kind, Name: name}
			return nil
		}
	}
	errBoom := errors.New("boom")

	type want struct {
		covered bool
		err     error
	}
	cases := map[string]struct {
		reason string
		get    test.MockGetFn
		mg     *sbv1alpha1.ClusterOps
		want   want
	}{
		"SameProviderConfig": {
			reason: "The holder's usage records the ProviderConfig the resource uses: covered.",
			get:    usage("ProviderConfig", "sim"),
			mg:     op("ns", "ProviderConfig", "sim"),
			want:   want{covered: true},
		},
		"OtherName": {
			reason: "The holder uses another ProviderConfig: not covered.",
			get:    usage("ProviderConfig", "other"),
			mg:     op("ns", "ProviderConfig", "sim"),
			want:   want{covered: false},
		},
		"OtherKind": {
			reason: "A ClusterProviderConfig is not the ProviderConfig of the same name: not covered.",
			get:    usage("ClusterProviderConfig", "sim"),
			mg:     op("ns", "ProviderConfig", "sim"),
			want:   want{covered: false},
		},
		"HolderHasNoUsage": {
			reason: "A holder whose usage does not exist (yet) covers nothing.",
			get:    test.NewMockGetFn(kerrors.NewNotFound(schema.GroupResource{}, "holder-uid")),
			mg:     op("ns", "ProviderConfig", "sim"),
			want:   want{covered: false},
		},
		"OtherNamespace": {
			reason: "A namespaced ProviderConfig of the same name in another namespace is another ProviderConfig.",
			get:    usage("ProviderConfig", "sim"),
			mg:     op("elsewhere", "ProviderConfig", "sim"),
			want:   want{covered: false},
		},
		"CannotRead": {
			reason: "An error reading the usage is returned, not taken as covered.",
			get:    test.NewMockGetFn(errBoom),
			mg:     op("ns", "ProviderConfig", "sim"),
			want:   want{err: errors.Wrap(errBoom, errGetUsage)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			covered, err := CoveredBy(context.Background(), &test.MockClient{MockGet: tc.get}, holder, tc.mg)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nCoveredBy(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if covered != tc.want.covered {
				t.Errorf("\n%s\nCoveredBy(...) = %t, want %t", tc.reason, covered, tc.want.covered)
			}
		})
	}
}
