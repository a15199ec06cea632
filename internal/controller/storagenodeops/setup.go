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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagecluster"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenode"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// SetupGated registers Setup to run once the StorageNodeOps CRD is
// established.
func SetupGated(mgr ctrl.Manager, o controller.Options, s ops.Settings, sh *ops.SharedObservation) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.StorageNodeOpsGroupVersionKind, func(mgr ctrl.Manager, o controller.Options) error {
		return Setup(mgr, o, s, sh)
	})
}

// Setup adds a controller that runs StorageNodeOps operations.
func Setup(mgr ctrl.Manager, o controller.Options, s ops.Settings, sh *ops.SharedObservation) error {
	return managedcontroller.SetupOperations(mgr, o, s, sh, managedcontroller.OperationKind[*v1alpha1.StorageNodeOps]{
		GroupKind:        v1alpha1.StorageNodeOpsGroupKind,
		GroupVersionKind: v1alpha1.StorageNodeOpsGroupVersionKind,
		List:             &v1alpha1.StorageNodeOpsList{},
		New:              func() *v1alpha1.StorageNodeOps { return &v1alpha1.StorageNodeOps{} },
		Lock: &ops.Lock{
			// Node operations take their cluster's lock and keep their
			// history on their node.
			NewTarget:      func() ops.Target { return &v1alpha1.StorageCluster{} },
			NewHistory:     func() ops.Target { return &v1alpha1.StorageNode{} },
			Kind:           v1alpha1.StorageNodeOpsKind,
			ObserveTarget:  storagecluster.ShowSeen,
			ObserveHistory: storagenode.ShowSeen,
		},
		Run:       runFor,
		WaitingOn: waitingOn,
	})
}

// waitingOn maps a change of a StorageCluster's lock to the StorageNodeOps
// it wakes (ops.WokenByLockChange).
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
		holder := sc.Status.AtProvider.ActiveOperation
		var reqs []reconcile.Request
		for _, op := range ops.WokenByLockChange(nodeOps, holder) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: op.GetNamespace(), Name: op.GetName()}})
		}
		return reqs
	}
}
