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
	"encoding/json"
	"hash/fnv"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// coalesceWindow is how long after an operation's last status write a
// write that changes only what is shown (its message, queue position and
// progress) waits: it goes out with the next write that carries a decision,
// or at a reconcile past the window. A running operation is reconciled at
// least every 5 s (PollIntervals.Watched), a queued one every 30 s.
const coalesceWindow = 5 * time.Second

// maxRemembered bounds how many operations' last status writes an
// OperationClient remembers; past it, it forgets them all (a forgotten
// write only costs one unskipped no-op write).
const maxRemembered = 4096

// OperationClient wraps c, the client the operation controllers (the
// managed reconciler and the engine) write operations with, so that only
// writes that carry a decision reach the API server (docs/operations-engine.md,
// "What an operation costs the API server"):
//
//   - an Update whose only change is crossplane-runtime's create-pending
//     annotation is not sent: for an operation the write-ahead intent in its
//     status is the guard, and the intent write carries the optimistic
//     concurrency check the annotation write was for;
//   - an operation's Ready condition is always the engine's (SetReady), not
//     the Creating the reconciler marks after each Create;
//   - a status write equal to the last one written at the same resource
//     version, or to the cached copy, is not sent;
//   - a status write that changes only what is shown (message, queue
//     position, progress) within coalesceWindow of the last one is not
//     sent either;
//   - nor is the status of an operation that only waits to start, within
//     ops.WaitShownAfter of its creation, unless this client wrote it last.
//
// It counts the status writes it sends in ops.Metrics.StatusWrites under
// kind.
func OperationClient(kind string, c client.Client) client.Client {
	return newOperationClient(kind, c, time.Now)
}

// NotOwnWrites drops an operation's update events that show only a write
// kube (an OperationClient) made itself and that leave nothing to decide:
// its finalizer update (the reconcile that made it goes on), and the status
// of an operation that is not running (a queued one is woken by its lock,
// a finished one needs nothing but its TTL). The reconcile that wrote had
// read every change before it: the write carried the version it read. A
// running operation's own status writes still reconcile it again: a pass
// that resolved a lost answer by evidence or finished a step leaves the
// next decision to the next pass (docs/operations-engine.md, "What an
// operation costs the API server").
func NotOwnWrites(kube client.Client) predicate.Predicate {
	c, ok := kube.(operationClient)
	if !ok {
		return predicate.Funcs{}
	}
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		if e.ObjectOld == nil || e.ObjectNew == nil || e.ObjectOld.GetResourceVersion() == e.ObjectNew.GetResourceVersion() {
			return true
		}
		uid, rv := e.ObjectNew.GetUID(), e.ObjectNew.GetResourceVersion()
		if c.updated.version(uid) == rv {
			return false
		}
		o, isOp := e.ObjectNew.(ops.Object)
		return !isOp || c.last.version(uid) != rv || ops.IsRunning(o)
	}}
}

func newOperationClient(kind string, c client.Client, now func() time.Time) client.Client {
	return operationClient{Client: c, kind: kind, last: &lastWrites{byUID: map[types.UID]lastWrite{}, now: now}, updated: &lastUpdates{byUID: map[types.UID]lastUpdate{}}}
}

type operationClient struct {
	client.Client
	kind    string
	last    *lastWrites
	updated *lastUpdates
}

func (c operationClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if len(opts) == 0 && (c.updated.onlyCreatePendingChanged(obj) || onlyCreatePendingChanged(ctx, c.Client, obj)) {
		return nil
	}
	// An update that carries the operation's intent (ops.CarriesStatus)
	// wrote its status as far as this client is concerned: the same status
	// written after it at its version is not sent again.
	var carried hashes
	o, isOp := obj.(ops.Object)
	carries := isOp && ops.CarriesStatus(o)
	if carries {
		withReady, _ := o.DeepCopyObject().(ops.Object)
		ops.SetReady(withReady)
		carried, carries = statusHashes(withReady)
	}
	if err := c.Client.Update(ctx, obj, opts...); err != nil {
		return err
	}
	c.updated.remember(obj)
	if carries {
		c.last.remember(obj.GetUID(), obj.GetResourceVersion(), carried)
	}
	return nil
}

// lastUpdates remembers, per operation, the resource version and the hash
// of the object (without its status and the create-pending annotation) of
// its last Update through the client: the reconciler's create-pending
// update right after the finalizer was added in the same reconcile is
// recognised without waiting for the cache to show the finalizer's write.
type lastUpdates struct {
	mu    sync.Mutex
	byUID map[types.UID]lastUpdate
}

type lastUpdate struct {
	resourceVersion string
	hash            uint64
}

func (l *lastUpdates) remember(obj client.Object) {
	if _, isOp := obj.(ops.Object); !isOp || obj.GetResourceVersion() == "" {
		return
	}
	h, ok := objectHash(obj)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byUID) >= maxRemembered {
		l.byUID = map[types.UID]lastUpdate{}
	}
	l.byUID[obj.GetUID()] = lastUpdate{resourceVersion: obj.GetResourceVersion(), hash: h}
}

// version is the resource version of the operation's last Update.
func (l *lastUpdates) version(uid types.UID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byUID[uid].resourceVersion
}

// onlyCreatePendingChanged reports whether obj is the operation as this
// client last updated it, but for the create-pending annotation.
func (l *lastUpdates) onlyCreatePendingChanged(obj client.Object) bool {
	if _, ok := obj.(ops.Object); !ok || obj.GetResourceVersion() == "" || obj.GetAnnotations()[meta.AnnotationKeyExternalCreatePending] == "" {
		return false
	}
	l.mu.Lock()
	u, ok := l.byUID[obj.GetUID()]
	l.mu.Unlock()
	if !ok || u.resourceVersion != obj.GetResourceVersion() {
		return false
	}
	h, ok := objectHash(obj)
	return ok && h == u.hash
}

// objectHash hashes obj without its status and create-pending annotation.
func objectHash(obj client.Object) (uint64, bool) {
	u, err := withoutStatusAndCreatePending(obj)
	if err != nil {
		return 0, false
	}
	h, err := hashJSON(u)
	return h, err == nil
}

func (c operationClient) Status() client.SubResourceWriter {
	return operationStatusWriter{SubResourceWriter: c.Client.Status(), reader: c.Client, kind: c.kind, last: c.last}
}

type operationStatusWriter struct {
	client.SubResourceWriter
	reader client.Reader
	kind   string
	last   *lastWrites
}

func (w operationStatusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	o, isOp := obj.(ops.Object)
	if isOp {
		ops.SetReady(o)
	}
	if len(opts) > 0 {
		return w.SubResourceWriter.Update(ctx, obj, opts...)
	}
	h, hashed := statusHashes(obj)
	covered, known := false, false
	if hashed {
		covered, known = w.last.covers(obj.GetUID(), obj.GetResourceVersion(), h)
	}
	// Only a status this client did not write last is compared with the
	// cached copy: the cache is likely behind the client's own last write,
	// and reading around it would cost a GET.
	if covered || (!known && (isOp && ops.WaitNotShownYet(o, w.last.now()) || statusUnchanged(ctx, w.reader, obj))) {
		return nil
	}
	if err := w.SubResourceWriter.Update(ctx, obj); err != nil {
		return err
	}
	if isOp {
		ops.DefaultMetrics().StatusWrites.WithLabelValues(w.kind, ops.StatusWriteOf(o)).Inc()
	}
	if h, ok := statusHashes(obj); ok {
		w.last.remember(obj.GetUID(), obj.GetResourceVersion(), h)
	}
	return nil
}

// lastWrites remembers, per operation, the resource version, status hashes
// and time of its last status write.
type lastWrites struct {
	mu    sync.Mutex
	now   func() time.Time
	byUID map[types.UID]lastWrite
}

type lastWrite struct {
	resourceVersion string
	hashes          hashes
	at              time.Time
}

// hashes are the hash of a whole status and of its decisions: the status
// without what is only shown (its message, queue position and progress, and
// its conditions' messages, times and observed generation: the finalizer's
// update, which writes the resolved target, moves the generation on).
type hashes struct {
	status, decisions uint64
}

// covers reports whether writing a status with hashes h at resource
// version rv can be left out: it equals the last write, or changes only
// what is shown, within coalesceWindow of it. known reports whether the
// last write is at rv, so that what the API server has is known.
func (l *lastWrites) covers(uid types.UID, rv string, h hashes) (covered, known bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.byUID[uid]
	if !ok || rv == "" || w.resourceVersion != rv {
		return false, false
	}
	return w.hashes.status == h.status || (w.hashes.decisions == h.decisions && l.now().Sub(w.at) < coalesceWindow), true
}

// version is the resource version of the operation's last status write.
func (l *lastWrites) version(uid types.UID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byUID[uid].resourceVersion
}

func (l *lastWrites) remember(uid types.UID, rv string, h hashes) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.byUID) >= maxRemembered {
		l.byUID = map[types.UID]lastWrite{}
	}
	l.byUID[uid] = lastWrite{resourceVersion: rv, hashes: h, at: l.now()}
}

// statusHashes hashes obj's status, whole and without what is only shown.
func statusHashes(obj client.Object) (hashes, bool) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return hashes{}, false
	}
	status, ok := u["status"].(map[string]any)
	if !ok {
		return hashes{}, false
	}
	whole, err := hashJSON(status)
	if err != nil {
		return hashes{}, false
	}
	if ap, ok := status["atProvider"].(map[string]any); ok {
		delete(ap, "message")
		delete(ap, "queuePosition")
		delete(ap, "progress")
	}
	if conds, ok := status["conditions"].([]any); ok {
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				delete(m, "message")
				delete(m, "lastTransitionTime")
				delete(m, "observedGeneration")
			}
		}
	}
	decisions, err := hashJSON(status)
	if err != nil {
		return hashes{}, false
	}
	return hashes{status: whole, decisions: decisions}, true
}

func hashJSON(v any) (uint64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64(), nil
}

// onlyCreatePendingChanged reports whether obj differs from its cached copy
// at the same resource version in nothing but crossplane-runtime's
// create-pending annotation (and its status, which an Update does not
// write). Any doubt means no.
func onlyCreatePendingChanged(ctx context.Context, r client.Reader, obj client.Object) bool {
	if _, ok := obj.(ops.Object); !ok || obj.GetResourceVersion() == "" || obj.GetAnnotations()[meta.AnnotationKeyExternalCreatePending] == "" {
		return false
	}
	cached, ok := obj.DeepCopyObject().(client.Object)
	if !ok || r.Get(ctx, client.ObjectKeyFromObject(obj), cached) != nil || cached.GetResourceVersion() != obj.GetResourceVersion() {
		return false
	}
	want, err := withoutStatusAndCreatePending(obj)
	if err != nil {
		return false
	}
	have, err := withoutStatusAndCreatePending(cached)
	if err != nil {
		return false
	}
	return equality.Semantic.DeepEqual(want, have)
}

func withoutStatusAndCreatePending(obj client.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(u, "status")
	if m, ok := u["metadata"].(map[string]any); ok {
		delete(m, "managedFields")
		if a, ok := m["annotations"].(map[string]any); ok {
			delete(a, meta.AnnotationKeyExternalCreatePending)
			if len(a) == 0 {
				delete(m, "annotations")
			}
		}
	}
	return u, nil
}
