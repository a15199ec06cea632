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

package clusterops

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// SetupGated registers Setup to run once the ClusterOps CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.ClusterOpsGroupVersionKind, func(mgr ctrl.Manager, o controller.Options) error {
		return Setup(mgr, o, s)
	})
}

// Setup adds a controller that runs ClusterOps operations.
func Setup(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	name := managed.ControllerName(v1alpha1.ClusterOpsGroupKind)
	if err := ops.RegisterIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	opts, err := managedcontroller.Options(mgr, o, name, &v1alpha1.ClusterOpsList{})
	if err != nil {
		return err
	}
	observer := ops.NewObserver(s.ObserveMaxAge)
	watcher := s.NewWatcher(observer, func() client.Object { return &v1alpha1.ClusterOps{} }, o.Logger.WithValues("controller", name))
	engine := &ops.Engine{
		Kind: v1alpha1.ClusterOpsKind,
		Kube: mgr.GetClient(),
		Lock: &ops.Lock{
			Kube: mgr.GetClient(), Reader: mgr.GetAPIReader(),
			NewTarget: func() ops.Target { return &v1alpha1.StorageCluster{} },
			Kind:      v1alpha1.ClusterOpsKind,
			NewHolder: func() ops.Object { return &v1alpha1.ClusterOps{} },
			Holders:   map[string]func() ops.Object{v1alpha1.StorageNodeOpsKind: func() ops.Object { return &v1alpha1.StorageNodeOps{} }},
		},
		Observer:      observer,
		Watcher:       watcher,
		Recorder:      event.NewAPIRecorder(mgr.GetEventRecorderFor(name)),
		Log:           o.Logger.WithValues("controller", name),
		EvidenceGrace: s.EvidenceGrace,
	}
	opts = append(opts, ops.ReconcilerOptions(&ops.Connector[*v1alpha1.ClusterOps]{
		Kube:    mgr.GetClient(),
		Usage:   resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apisv1alpha1.ProviderConfigUsage{}),
		Clients: &providerconfig.ClientCache{NewClient: providerconfig.NewClient},
		Engine:  engine,
		Run:     runFor,
	}, s)...)

	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.ClusterOpsGroupVersionKind), opts...)
	b, err := watcher.Register(mgr, ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.ClusterOps{}).
		// A change of a StorageCluster (its lock released, its status
		// changed) wakes the operations waiting on it.
		Watches(&v1alpha1.StorageCluster{}, handler.EnqueueRequestsFromMapFunc(waitingOn(mgr.GetClient())), builder.WithPredicates(ops.LockChanged())))
	if err != nil {
		return err
	}
	return b.Complete(ratelimiter.NewReconciler(name, r, s.RateLimiter(o.GlobalRateLimiter)))
}

// waitingOn maps a change of a StorageCluster (its lock, history or external
// name) to the ClusterOps first in its queue, and to those not queued yet
// (their reference to it may resolve now).
func waitingOn(kube client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		sc, ok := o.(*v1alpha1.StorageCluster)
		if !ok {
			return nil
		}
		var reqs []reconcile.Request
		var all []ops.Object
		seen := map[types.NamespacedName]bool{}
		for _, key := range []string{ops.RefKey(o.GetName()), ops.IDKey(meta.GetExternalName(o))} {
			l := &v1alpha1.ClusterOpsList{}
			if err := kube.List(ctx, l, client.InNamespace(o.GetNamespace()), client.MatchingFields{ops.IndexClusterOpsCluster: key}); err != nil {
				continue
			}
			for i := range l.Items {
				op := &l.Items[i]
				nn := types.NamespacedName{Namespace: op.Namespace, Name: op.Name}
				if seen[nn] {
					continue
				}
				seen[nn] = true
				all = append(all, op)
				if st := op.Status.AtProvider; st.Phase == "" || st.Reason == ops.ReasonWaitingForTarget {
					reqs = append(reqs, reconcile.Request{NamespacedName: nn})
				}
			}
		}
		if next := ops.NextWaiting(all, sc.Status.AtProvider.ActiveOperation); next != nil {
			nn := types.NamespacedName{Namespace: next.GetNamespace(), Name: next.GetName()}
			if st := next.GetOperationStatus(); st.Phase != "" && st.Reason != ops.ReasonWaitingForTarget {
				reqs = append(reqs, reconcile.Request{NamespacedName: nn})
			}
		}
		return reqs
	}
}
