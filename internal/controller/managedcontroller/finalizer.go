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
	"reflect"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// A statusKeepingFinalizer adds and removes the managed reconciler's
// finalizer without losing the status the reconcile observed.
//
// The managed reconciler adds its finalizer after Observe. The update
// answers with the stored status, which replaced what Observe had just
// seen, so a resource's first observation (an imported StorageCluster's
// atProvider and Ready condition) was written only at the next poll, a
// minute later: the finalizer's own update event is not a desired-state
// change and does not reconcile again.
//
// Putting the observed status back loses no one else's write: the finalizer
// update carries the resource version the status was observed at, so it
// fails if anything else changed the object in between, and the status
// write that follows carries the new version.
type statusKeepingFinalizer struct {
	resource.Finalizer
}

// KeepStatus wraps f so that its updates keep the object's in-memory status.
func KeepStatus(f resource.Finalizer) resource.Finalizer {
	return statusKeepingFinalizer{Finalizer: f}
}

func (f statusKeepingFinalizer) AddFinalizer(ctx context.Context, obj resource.Object) error {
	return keepStatus(obj, func() error { return f.Finalizer.AddFinalizer(ctx, obj) })
}

func (f statusKeepingFinalizer) RemoveFinalizer(ctx context.Context, obj resource.Object) error {
	return keepStatus(obj, func() error { return f.Finalizer.RemoveFinalizer(ctx, obj) })
}

// keepStatus runs update and puts obj's Status field back as it was.
func keepStatus(obj resource.Object, update func() error) error {
	saved := obj.DeepCopyObject()
	if err := update(); err != nil {
		return err
	}
	dst := reflect.ValueOf(obj).Elem().FieldByName("Status")
	src := reflect.ValueOf(saved).Elem().FieldByName("Status")
	if dst.IsValid() && dst.CanSet() && src.IsValid() && src.Type() == dst.Type() {
		dst.Set(src)
	}
	return nil
}

// An onceStartedFinalizer adds an operation's finalizer only once the
// operation has something to finish when it is deleted (ops.NeedsFinalizer):
// an operation that waits for its turn is deleted at once, and one whose
// first call is due in the pass that started it gets its finalizer with
// that call's intent, in one write (ops.Engine.CarryIntent).
type onceStartedFinalizer struct {
	resource.Finalizer
}

// OnceStarted wraps f so that it adds an operation's finalizer only once
// the operation holds its lock.
func OnceStarted(f resource.Finalizer) resource.Finalizer {
	return onceStartedFinalizer{Finalizer: f}
}

func (f onceStartedFinalizer) AddFinalizer(ctx context.Context, obj resource.Object) error {
	if o, ok := obj.(ops.Object); ok && !ops.NeedsFinalizer(o) && !meta.FinalizerExists(obj, managed.FinalizerName) {
		return nil
	}
	return f.Finalizer.AddFinalizer(ctx, obj)
}

// OperationFinalizer is the finalizer of an operation kind, added and
// removed through kube, the kind's OperationClient over an ownwrites client:
// the update that adds it carries the intent of the operation's first call
// (ops.Engine.CarryIntent), so no later reconcile may read a copy from
// before it, which would decide that call anew (docs/operations-engine.md,
// "Reading what it wrote").
func OperationFinalizer(kube client.Client) resource.Finalizer {
	return OnceStarted(KeepStatus(resource.NewAPIFinalizer(kube, managed.FinalizerName)))
}
