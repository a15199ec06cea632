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

package managedcontroller

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestListWithoutCopies(t *testing.T) {
	cases := map[string]struct {
		reason string
		opts   []client.ListOption
	}{
		"NoOptions": {
			reason: "A list without options is made without copies.",
		},
		"KeepsOptions": {
			reason: "The caller's options are kept.",
			opts:   []client.ListOption{client.InNamespace("ns")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got client.ListOptions
			kube := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
				List: func(_ context.Context, _ client.WithWatch, _ client.ObjectList, opts ...client.ListOption) error {
					got.ApplyOptions(opts)
					return nil
				},
			}).Build()
			if err := (listWithoutCopies{Client: kube}).List(context.Background(), &v1alpha1.ClusterOpsList{}, tc.opts...); err != nil {
				t.Fatal(err)
			}
			if got.UnsafeDisableDeepCopy == nil || !*got.UnsafeDisableDeepCopy {
				t.Errorf("\n%s\nList(...): UnsafeDisableDeepCopy not set", tc.reason)
			}
			want := client.ListOptions{}
			want.ApplyOptions(tc.opts)
			if got.Namespace != want.Namespace {
				t.Errorf("\n%s\nList(...): namespace %q, want %q", tc.reason, got.Namespace, want.Namespace)
			}
		})
	}
}
