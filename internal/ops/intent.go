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
	"context"
	"encoding/json"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// The intent of an operation's first call is written with its finalizer
// (docs/operations-engine.md, "The first intent, with the finalizer"): an
// operation gets its finalizer only once it holds its lock and started, and
// when its first call is due in that pass (the usual case), the update that
// adds it carries the status as of that intent in an annotation, so that
// the two are one write.

// NeedsFinalizer reports whether o has something to finish when it is
// deleted: it holds its target's lock and started (its lock to release and
// its history record to write, whether or not it sent a call yet). One that
// waits for its turn leaves nothing behind: deleted, it goes at once, and
// a lock handed over to it is taken over by the next (Lock.Acquire). One
// that finished released its lock before its finished status was written.
func NeedsFinalizer(o Object) bool {
	return running(o.GetOperationStatus())
}

// CarryIntent records, in memory, the intent of the call Observe found due
// on an operation without its finalizer, and puts the status with it into
// the intent annotation, for the reconciler's finalizer update to write
// before Create. It changes nothing when the baseline cannot be read:
// Trigger then records the intent in the status as for any later call.
func (e *Engine) CarryIntent(ctx context.Context, r Run) {
	o := r.Object
	if meta.FinalizerExists(o, managed.FinalizerName) || meta.WasDeleted(o) || r.Decided == nil {
		return
	}
	st := o.GetOperationStatus()
	before := st.DeepCopy()
	if due, err := e.intend(ctx, r); !due || err != nil {
		*st = *before
		return
	}
	// The status in memory is made what readers of the annotation will
	// see (times to the second), so that the answer kept after the call
	// matches the intent they read (answers.restore).
	b, err := json.Marshal(st)
	if err == nil {
		*st = v1alpha1.OperationStatus{}
		err = json.Unmarshal(b, st)
	}
	if err != nil {
		*st = *before
		return
	}
	meta.AddAnnotations(o, map[string]string{v1alpha1.AnnotationOperationIntent: string(b)})
	r.Decided.carried = true
}

// carriedIntent is the status o's intent annotation carries; nil when it
// has none.
func carriedIntent(o Object) *v1alpha1.OperationStatus {
	v := o.GetAnnotations()[v1alpha1.AnnotationOperationIntent]
	if v == "" {
		return nil
	}
	st := &v1alpha1.OperationStatus{}
	if json.Unmarshal([]byte(v), st) != nil {
		return nil
	}
	return st
}

// ApplyCarriedIntent puts the status o's intent annotation carries in place
// of o's status when that status is older than the intent (fewer attempts):
// after a crash between the finalizer's update and the next status write,
// or on a copy read before that write. It reports whether it did.
func ApplyCarriedIntent(o Object) bool {
	c := carriedIntent(o)
	st := o.GetOperationStatus()
	if c == nil || c.Attempts <= st.Attempts {
		return false
	}
	*st = *c
	return true
}

// CarriesStatus reports whether o's intent annotation carries the status o
// holds in memory: an update of o writes that status as well.
func CarriesStatus(o Object) bool {
	v := o.GetAnnotations()[v1alpha1.AnnotationOperationIntent]
	b, err := json.Marshal(o.GetOperationStatus())
	return v != "" && err == nil && v == string(b)
}

// intentWritten reports whether the intent Observe carried in this
// reconcile is on the API server: o (as the finalizer's update answered)
// has its finalizer and the annotation with the intent it holds in memory.
func intentWritten(r Run) bool {
	if r.Decided == nil || !r.Decided.carried {
		return false
	}
	o := r.Object
	c, st := carriedIntent(o), o.GetOperationStatus()
	return c != nil && c.Guard != nil && st.Guard != nil && meta.FinalizerExists(o, managed.FinalizerName) &&
		c.Attempts == st.Attempts && c.Guard.Step == st.Guard.Step && c.Guard.Attempt == st.Guard.Attempt &&
		c.Guard.Outcome == v1alpha1.GuardIntended && st.Guard.Outcome == v1alpha1.GuardIntended
}

// CachedWithIntent wraps a cache transform so that cached operations show
// the status their intent annotation carries while it is newer than their
// status (what decides an operation's priority and budget reads the cache),
// and do not keep the annotation once their status superseded it: ten
// thousand finished operations need not hold a copy of their first status.
func CachedWithIntent(next toolscache.TransformFunc) toolscache.TransformFunc {
	return func(in any) (any, error) {
		out, err := next(in)
		if err != nil {
			return out, err
		}
		if o, ok := out.(Object); ok && !ApplyCarriedIntent(o) {
			meta.RemoveAnnotations(o, v1alpha1.AnnotationOperationIntent)
		}
		return out, nil
	}
}
