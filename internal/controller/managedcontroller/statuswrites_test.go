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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestSkipUnchangedStatus(t *testing.T) {
	type args struct {
		// change modifies the object read back before its status write.
		change func(p *v1alpha1.StoragePool)
		opts   []client.SubResourceUpdateOption
	}
	type want struct {
		sent    bool
		errored bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Unchanged": {
			reason: "A status equal to the stored one at the same resource version is not sent.",
			args:   args{change: func(*v1alpha1.StoragePool) {}},
			want:   want{sent: false},
		},
		"StatusChanged": {
			reason: "A changed status is sent.",
			args:   args{change: func(p *v1alpha1.StoragePool) { p.Status.AtProvider.Status = "inactive" }},
			want:   want{sent: true},
		},
		"ConditionChanged": {
			reason: "A changed condition is sent.",
			args: args{change: func(p *v1alpha1.StoragePool) {
				p.Status.Conditions[0].Message = "new"
			}},
			want: want{sent: true},
		},
		"OlderResourceVersion": {
			reason: "A write based on another resource version is sent, so the API server can refuse it as a conflict.",
			args:   args{change: func(p *v1alpha1.StoragePool) { p.ResourceVersion = "1" }},
			want:   want{sent: true, errored: true},
		},
		"WithOptions": {
			reason: "A write with options (a dry run, a field manager) is always sent.",
			args:   args{change: func(*v1alpha1.StoragePool) {}, opts: []client.SubResourceUpdateOption{client.FieldOwner("x")}},
			want:   want{sent: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			stored := &v1alpha1.StoragePool{ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: "ns"}}
			stored.Status.AtProvider.Status = "active"
			stored.Status.Conditions = []xpv2.Condition{xpv2.Available()}
			sent := false
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(stored).WithStatusSubresource(stored).
				WithInterceptorFuncs(interceptor.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					sent = true
					return c.SubResource(sub).Update(ctx, obj, opts...)
				}}).Build()
			// A second write makes the stored resource version newer than 1.
			if err := kube.Status().Update(context.Background(), stored); err != nil {
				t.Fatal(err)
			}
			sent = false

			p := &v1alpha1.StoragePool{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(stored), p); err != nil {
				t.Fatal(err)
			}
			tc.args.change(p)
			err := SkipUnchangedStatus(kube).Status().Update(context.Background(), p, tc.args.opts...)
			if sent != tc.want.sent {
				t.Errorf("\n%s\nStatus().Update(...): sent = %t, want %t", tc.reason, sent, tc.want.sent)
			}
			if (err != nil) != tc.want.errored {
				t.Errorf("\n%s\nStatus().Update(...): error = %v, want error %t", tc.reason, err, tc.want.errored)
			}
		})
	}
}
