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

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/pkg/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ownwrites"
)

func TestKeepStatus(t *testing.T) {
	type want struct {
		finalizer bool
		status    string // status.atProvider.status after the call
		err       bool
	}
	cases := map[string]struct {
		reason    string
		stored    []string // finalizers of the stored object
		updateErr error
		call      func(f resource.Finalizer, obj resource.Object) error
		want      want
	}{
		"AddKeepsObservedStatus": {
			reason: "Adding the finalizer keeps the status Observe just wrote in memory; the update's answer (the stored status) does not replace it.",
			call: func(f resource.Finalizer, obj resource.Object) error {
				return f.AddFinalizer(context.Background(), obj)
			},
			want: want{finalizer: true, status: "active"},
		},
		"RemoveKeepsObservedStatus": {
			reason: "Removing the finalizer keeps the in-memory status too.",
			stored: []string{managed.FinalizerName},
			call: func(f resource.Finalizer, obj resource.Object) error {
				return f.RemoveFinalizer(context.Background(), obj)
			},
			want: want{finalizer: false, status: "active"},
		},
		"UpdateFails": {
			reason:    "A failed update is returned.",
			updateErr: errors.New("boom"),
			call: func(f resource.Finalizer, obj resource.Object) error {
				return f.AddFinalizer(context.Background(), obj)
			},
			want: want{finalizer: true, status: "active", err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			stored := &v1alpha1.StorageCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Finalizers: tc.stored}}
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(stored).WithStatusSubresource(stored).
				WithInterceptorFuncs(interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					if tc.updateErr != nil {
						return tc.updateErr
					}
					return c.Update(ctx, obj, opts...)
				}}).Build()
			obj := &v1alpha1.StorageCluster{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(stored), obj); err != nil {
				t.Fatal(err)
			}
			obj.Status.AtProvider.Status = "active" // what Observe saw

			err := tc.call(KeepStatus(resource.NewAPIFinalizer(kube, managed.FinalizerName)), obj)
			if (err != nil) != tc.want.err {
				t.Errorf("\n%s\nerror %v, want error %t", tc.reason, err, tc.want.err)
			}
			if got := meta.FinalizerExists(obj, managed.FinalizerName); got != tc.want.finalizer {
				t.Errorf("\n%s\nfinalizer present = %t, want %t", tc.reason, got, tc.want.finalizer)
			}
			if got := obj.Status.AtProvider.Status; got != tc.want.status {
				t.Errorf("\n%s\nstatus.atProvider.status = %q, want %q", tc.reason, got, tc.want.status)
			}
		})
	}
}

func TestOnceStarted(t *testing.T) {
	started := metav1.Now()
	cases := map[string]struct {
		reason string
		op     *v1alpha1.ClusterOps
		want   bool // the finalizer is on the stored object afterwards
	}{
		"Queued": {
			reason: "An operation that waits for its turn gets no finalizer: it has nothing to finish when deleted.",
			op:     &v1alpha1.ClusterOps{},
			want:   false,
		},
		"HoldsItsLockNothingIntended": {
			reason: "An operation that holds its lock but intended no call yet (waiting for a precondition) gets its finalizer: deleted, it releases its lock and leaves a record.",
			op: func() *v1alpha1.ClusterOps {
				o := &v1alpha1.ClusterOps{}
				o.Status.AtProvider.StartedAt, o.Status.AtProvider.Phase = &started, v1alpha1.OperationPending
				return o
			}(),
			want: true,
		},
		"IntendsACall": {
			reason: "An operation that holds its lock and intends a call gets its finalizer.",
			op: func() *v1alpha1.ClusterOps {
				o := &v1alpha1.ClusterOps{}
				o.Status.AtProvider.StartedAt, o.Status.AtProvider.Phase, o.Status.AtProvider.Attempts = &started, v1alpha1.OperationRunning, 1
				return o
			}(),
			want: true,
		},
		"Finished": {
			reason: "An operation that finished in the pass that started it released its lock: no finalizer.",
			op: func() *v1alpha1.ClusterOps {
				o := &v1alpha1.ClusterOps{}
				o.Status.AtProvider.StartedAt, o.Status.AtProvider.Phase = &started, v1alpha1.OperationSucceeded
				return o
			}(),
			want: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			tc.op.SetName("op")
			tc.op.SetNamespace("ns")
			kube := fake.NewClientBuilder().WithScheme(s).WithObjects(tc.op.DeepCopy()).WithStatusSubresource(tc.op).Build()
			obj := &v1alpha1.ClusterOps{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(tc.op), obj); err != nil {
				t.Fatal(err)
			}
			obj.Status = tc.op.Status // what Observe decided
			if err := OnceStarted(resource.NewAPIFinalizer(kube, managed.FinalizerName)).AddFinalizer(context.Background(), obj); err != nil {
				t.Fatal(err)
			}
			stored := &v1alpha1.ClusterOps{}
			if err := kube.Get(context.Background(), client.ObjectKeyFromObject(tc.op), stored); err != nil {
				t.Fatal(err)
			}
			if got := meta.FinalizerExists(stored, managed.FinalizerName); got != tc.want {
				t.Errorf("\n%s\nfinalizer stored = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestOperationFinalizerFencesReads(t *testing.T) {
	ctx := context.Background()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	created := &v1alpha1.ClusterOps{ObjectMeta: metav1.ObjectMeta{Name: "op", Namespace: "ns", UID: "uid-1"}}
	api := fake.NewClientBuilder().WithScheme(s).WithObjects(created.DeepCopy()).WithStatusSubresource(created).Build()
	// The cache never catches up: it shows the operation as created.
	cache := fake.NewClientBuilder().WithScheme(s).WithObjects(created.DeepCopy()).Build()
	stale := interceptor.NewClient(api, interceptor.Funcs{
		Get: func(ctx context.Context, _ client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return cache.Get(ctx, key, obj, opts...)
		},
	})
	kube := OperationClient(v1alpha1.ClusterOpsKind, ownwrites.New(stale, api))

	op := &v1alpha1.ClusterOps{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(created), op); err != nil {
		t.Fatal(err)
	}
	started := metav1.Now()
	op.Status.AtProvider.StartedAt, op.Status.AtProvider.Phase, op.Status.AtProvider.Attempts = &started, v1alpha1.OperationRunning, 1
	if err := OperationFinalizer(kube).AddFinalizer(ctx, op); err != nil {
		t.Fatal(err)
	}

	// The next reconcile reads the operation while the cache is still
	// behind the update that carried its first intent.
	next := &v1alpha1.ClusterOps{}
	if err := kube.Get(ctx, client.ObjectKeyFromObject(created), next); err != nil {
		t.Fatal(err)
	}
	if !meta.FinalizerExists(next, managed.FinalizerName) {
		t.Errorf("the operation read after its finalizer update has no finalizer: a reconcile would decide its first call anew on a copy from before its intent")
	}
}
