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

package ops

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// LockChanged passes the events of a StorageCluster that can move a queue:
// creation, deletion, and a change of the operation holding its lock or of
// its history (an operation finished). Its other status changes do not
// concern the operations waiting on it.
func LockChanged() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.StorageCluster)
		n, ok2 := e.ObjectNew.(*v1alpha1.StorageCluster)
		if !ok1 || !ok2 {
			return true
		}
		return !sameHolder(o.Status.AtProvider.ActiveOperation, n.Status.AtProvider.ActiveOperation) ||
			newestRecord(o) != newestRecord(n) ||
			meta.GetExternalName(o) != meta.GetExternalName(n) || n.GetDeletionTimestamp() != nil
	}}
}

// TargetAppeared passes the events of a StorageCluster that can let an
// operation waiting for its target resolve it: its creation, and a change of
// its external name (its backend id).
func TargetAppeared() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld == nil || e.ObjectNew == nil || meta.GetExternalName(e.ObjectOld) != meta.GetExternalName(e.ObjectNew)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// newestRecord identifies the newest history record (the history is capped,
// so its length stops changing).
func newestRecord(c *v1alpha1.StorageCluster) string {
	h := c.Status.AtProvider.OperationHistory
	if len(h) == 0 {
		return ""
	}
	return string(h[len(h)-1].UID) + "/" + string(h[len(h)-1].Phase)
}

func sameHolder(a, b *v1alpha1.OperationReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}
