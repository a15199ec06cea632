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

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewReconciler returns crossplane-runtime's managed reconciler for kind.
// Its status writes that would change nothing are not sent: the managed
// reconciler writes the status at the end of every reconcile, and for a
// resource that is up to date (a drift check, an operation waiting on the
// backend) that write is a request the API server answers by doing nothing.
func NewReconciler(mgr ctrl.Manager, kind resource.ManagedKind, opts ...managed.ReconcilerOption) *managed.Reconciler {
	return NewReconcilerWithClient(mgr, SkipUnchangedStatus(mgr.GetClient()), kind, opts...)
}

// NewReconcilerWithClient returns crossplane-runtime's managed reconciler
// for kind, reading and writing through c.
func NewReconcilerWithClient(mgr ctrl.Manager, c client.Client, kind resource.ManagedKind, opts ...managed.ReconcilerOption) *managed.Reconciler {
	return managed.NewReconciler(statusSkippingManager{Manager: mgr, client: c}, kind, opts...)
}

// statusSkippingManager is mgr with a client that skips unchanged status
// writes; the managed reconciler takes its client from the manager.
type statusSkippingManager struct {
	ctrl.Manager
	client client.Client
}

func (m statusSkippingManager) GetClient() client.Client { return m.client }

// SkipUnchangedStatus wraps c so that Status().Update of an object whose
// resource version and status equal those in c's cache is not sent. Such a
// write would change nothing: if the cache is behind the API server, it
// would have been refused as a conflict, and the newer version's watch
// event reconciles the object again anyway.
func SkipUnchangedStatus(c client.Client) client.Client {
	return statusSkippingClient{Client: c}
}

type statusSkippingClient struct {
	client.Client
}

func (c statusSkippingClient) Status() client.SubResourceWriter {
	return statusSkippingWriter{SubResourceWriter: c.Client.Status(), reader: c.Client}
}

type statusSkippingWriter struct {
	client.SubResourceWriter
	reader client.Reader
}

func (w statusSkippingWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if len(opts) == 0 && statusUnchanged(ctx, w.reader, obj) {
		return nil
	}
	return w.SubResourceWriter.Update(ctx, obj, opts...)
}

// statusUnchanged reports whether the cached copy of obj has obj's resource
// version and status. Any doubt (a failed read, a conversion error) means
// changed.
func statusUnchanged(ctx context.Context, r client.Reader, obj client.Object) bool {
	if obj.GetResourceVersion() == "" {
		return false
	}
	cached, ok := obj.DeepCopyObject().(client.Object)
	if !ok || r.Get(ctx, client.ObjectKeyFromObject(obj), cached) != nil {
		return false
	}
	if cached.GetResourceVersion() != obj.GetResourceVersion() {
		return false
	}
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false
	}
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cached)
	if err != nil {
		return false
	}
	return equality.Semantic.DeepEqual(want["status"], have["status"])
}
