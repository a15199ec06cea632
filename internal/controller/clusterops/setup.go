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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagecluster"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// SetupGated registers Setup to run once the ClusterOps CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options, s ops.Settings, sh *ops.SharedObservation) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.ClusterOpsGroupVersionKind, func(mgr ctrl.Manager, o controller.Options) error {
		return Setup(mgr, o, s, sh)
	})
}

// Setup adds a controller that runs ClusterOps operations.
func Setup(mgr ctrl.Manager, o controller.Options, s ops.Settings, sh *ops.SharedObservation) error {
	return managedcontroller.SetupOperations(mgr, o, s, sh, managedcontroller.OperationKind[*v1alpha1.ClusterOps]{
		GroupKind:        v1alpha1.ClusterOpsGroupKind,
		GroupVersionKind: v1alpha1.ClusterOpsGroupVersionKind,
		List:             &v1alpha1.ClusterOpsList{},
		New:              func() *v1alpha1.ClusterOps { return &v1alpha1.ClusterOps{} },
		Lock: &ops.Lock{
			NewTarget:     func() ops.Target { return &v1alpha1.StorageCluster{} },
			Kind:          v1alpha1.ClusterOpsKind,
			ObserveTarget: storagecluster.ShowSeen,
		},
		Run:              runFor,
		WaitingOn:        waitingOn,
		WaitingForTarget: waitingForTarget,
	})
}

// waitingOn maps a change of a StorageCluster's lock or history to the
// ClusterOps it wakes (ops.WokenByLockChange).
func waitingOn(kube client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		sc, ok := o.(*v1alpha1.StorageCluster)
		if !ok {
			return nil
		}
		return requests(ops.WokenByLockChange(clusterOpsOn(ctx, kube, sc), sc.Status.AtProvider.ActiveOperation))
	}
}

// waitingForTarget maps a StorageCluster that appeared or got its backend
// id to the ClusterOps not queued yet: their reference to it may resolve
// now. A lock change does not concern them (ops.TargetAppeared).
func waitingForTarget(kube client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		sc, ok := o.(*v1alpha1.StorageCluster)
		if !ok {
			return nil
		}
		var waiting []ops.Object
		for _, op := range clusterOpsOn(ctx, kube, sc) {
			if st := op.GetOperationStatus(); st.Phase == "" || st.Reason == ops.ReasonWaitingForTarget {
				waiting = append(waiting, op)
			}
		}
		return requests(waiting)
	}
}

// clusterOpsOn lists the ClusterOps that name sc, by reference or by id.
func clusterOpsOn(ctx context.Context, kube client.Reader, sc *v1alpha1.StorageCluster) []ops.Object {
	var all []ops.Object
	seen := map[types.UID]bool{}
	for _, key := range []string{ops.RefKey(sc.GetName()), ops.IDKey(meta.GetExternalName(sc))} {
		l := &v1alpha1.ClusterOpsList{}
		if err := kube.List(ctx, l, client.InNamespace(sc.GetNamespace()), client.MatchingFields{ops.IndexClusterOpsCluster: key}); err != nil {
			continue
		}
		for i := range l.Items {
			if op := &l.Items[i]; !seen[op.UID] {
				seen[op.UID] = true
				all = append(all, op)
			}
		}
	}
	return all
}

func requests(objs []ops.Object) []reconcile.Request {
	reqs := make([]reconcile.Request, 0, len(objs))
	for _, op := range objs {
		reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: op.GetNamespace(), Name: op.GetName()}})
	}
	return reqs
}
