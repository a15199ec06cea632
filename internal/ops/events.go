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
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// What wakes an operation. Its own status writes only when they carry
// progress the next reconcile can build on (Engine.Continues); the Watcher
// wakes it when the backend changes, and a change of its target's lock
// while it is queued. Waking on every own status write cost a reconcile,
// and an API request, per write for nothing.

// OperationChanged passes the events of an operation that someone other
// than the engine caused (creation, deletion, a spec edit such as cancel,
// changes of annotations such as pause, labels or finalizers), and the
// engine's own status writes that it wants to continue from.
func OperationChanged(e *Engine) builder.Predicates {
	return builder.WithPredicates(predicate.Or(
		predicate.Funcs{UpdateFunc: func(ev event.UpdateEvent) bool {
			o, ok1 := ev.ObjectOld.(Object)
			n, ok2 := ev.ObjectNew.(Object)
			// Only a write that changed the status can be the one to continue from.
			return ok1 && ok2 && !equality.Semantic.DeepEqual(o.GetOperationStatus(), n.GetOperationStatus()) && e.Continues(n)
		}},
		predicate.GenerationChangedPredicate{},
		predicate.AnnotationChangedPredicate{},
		predicate.LabelChangedPredicate{},
		predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectNew.GetDeletionTimestamp() != nil ||
				len(e.ObjectOld.GetFinalizers()) != len(e.ObjectNew.GetFinalizers())
		}},
	))
}

// LockChanged passes the events of a StorageCluster that can move a queue:
// creation, deletion, and a change of the operation holding its lock or of
// its history (an operation finished). Its other status changes do not
// concern the operations waiting on it.
func LockChanged() builder.Predicates {
	return builder.WithPredicates(predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, ok1 := e.ObjectOld.(*v1alpha1.StorageCluster)
		n, ok2 := e.ObjectNew.(*v1alpha1.StorageCluster)
		if !ok1 || !ok2 {
			return true
		}
		return !sameHolder(o.Status.AtProvider.ActiveOperation, n.Status.AtProvider.ActiveOperation) ||
			newestRecord(o) != newestRecord(n) ||
			meta.GetExternalName(o) != meta.GetExternalName(n) || n.GetDeletionTimestamp() != nil
	}})
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
