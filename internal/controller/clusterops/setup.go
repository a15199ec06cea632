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
			NewTarget: func() ops.Target { return &v1alpha1.StorageCluster{} },
			Kind:      v1alpha1.ClusterOpsKind,
		},
		Run:       runFor,
		WaitingOn: waitingOn,
	})
}

// waitingOn maps a change of a StorageCluster (its lock, history or external
// name) to the ClusterOps it wakes (ops.WokenByLockChange) and to those not
// queued yet (their reference to it may resolve now).
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
		holder := sc.Status.AtProvider.ActiveOperation
		for _, op := range ops.WokenByLockChange(all, holder) {
			if st := op.GetOperationStatus(); st.Phase != "" && st.Reason != ops.ReasonWaitingForTarget {
				reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: op.GetNamespace(), Name: op.GetName()}})
			}
		}
		return reqs
	}
}
