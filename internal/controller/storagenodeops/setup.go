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

package storagenodeops

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

// SetupGated registers Setup to run once the StorageNodeOps CRD is
// established.
func SetupGated(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.StorageNodeOpsGroupVersionKind, func(mgr ctrl.Manager, o controller.Options) error {
		return Setup(mgr, o, s)
	})
}

// Setup adds a controller that runs StorageNodeOps operations.
func Setup(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	name := managed.ControllerName(v1alpha1.StorageNodeOpsGroupKind)
	if err := ops.RegisterIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	opts, err := managedcontroller.Options(mgr, o, name, &v1alpha1.StorageNodeOpsList{})
	if err != nil {
		return err
	}
	observer := ops.NewObserver(s.ObserveMaxAge)
	watcher := s.NewWatcher(observer, func() client.Object { return &v1alpha1.StorageNodeOps{} }, o.Logger.WithValues("controller", name))
	engine := &ops.Engine{
		Kind: v1alpha1.StorageNodeOpsKind,
		Kube: mgr.GetClient(),
		Lock: &ops.Lock{
			Kube: mgr.GetClient(), Reader: mgr.GetAPIReader(),
			// Node operations take their cluster's lock and keep their
			// history on their node.
			NewTarget:  func() ops.Target { return &v1alpha1.StorageCluster{} },
			NewHistory: func() ops.Target { return &v1alpha1.StorageNode{} },
			Kind:       v1alpha1.StorageNodeOpsKind,
			NewHolder:  func() ops.Object { return &v1alpha1.StorageNodeOps{} },
			Holders:    map[string]func() ops.Object{v1alpha1.ClusterOpsKind: func() ops.Object { return &v1alpha1.ClusterOps{} }},
		},
		Observer:      observer,
		Watcher:       watcher,
		Recorder:      event.NewAPIRecorder(mgr.GetEventRecorderFor(name)),
		Log:           o.Logger.WithValues("controller", name),
		EvidenceGrace: s.EvidenceGrace,
	}
	opts = append(opts, ops.ReconcilerOptions(&ops.Connector[*v1alpha1.StorageNodeOps]{
		Kube:    mgr.GetClient(),
		Usage:   resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apisv1alpha1.ProviderConfigUsage{}),
		Clients: &providerconfig.ClientCache{NewClient: providerconfig.NewClient},
		Engine:  engine,
		Run:     runFor,
	}, s)...)

	r := managed.NewReconciler(mgr, resource.ManagedKind(v1alpha1.StorageNodeOpsGroupVersionKind), opts...)
	b, err := watcher.Register(mgr, ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(&v1alpha1.StorageNodeOps{}).
		// A change of a StorageCluster (its lock released) wakes the node
		// operations queued on it.
		Watches(&v1alpha1.StorageCluster{}, handler.EnqueueRequestsFromMapFunc(waitingOn(mgr.GetClient())), builder.WithPredicates(ops.LockChanged())))
	if err != nil {
		return err
	}
	return b.Complete(ratelimiter.NewReconciler(name, r, s.RateLimiter(o.GlobalRateLimiter)))
}

// waitingOn maps a change of a StorageCluster's lock to the StorageNodeOps
// first in its queue.
func waitingOn(kube client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		sc, ok := o.(*v1alpha1.StorageCluster)
		if !ok {
			return nil
		}
		key := types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
		queue, err := ops.ClusterQueue(ctx, kube, key, meta.GetExternalName(o))
		if err != nil {
			return nil
		}
		var nodeOps []ops.Object
		for _, q := range queue {
			if _, isNodeOp := q.(*v1alpha1.StorageNodeOps); isNodeOp {
				nodeOps = append(nodeOps, q)
			}
		}
		next := ops.NextWaiting(nodeOps, sc.Status.AtProvider.ActiveOperation)
		if next == nil {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: next.GetNamespace(), Name: next.GetName()}}}
	}
}
