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

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ownwrites"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// An OperationKind is what tells the controllers of the operation kinds
// (ClusterOps, StorageNodeOps) apart; the rest of their wiring is shared.
type OperationKind[T ops.Managed] struct {
	// GroupKind and GroupVersionKind of the operation kind.
	GroupKind        string
	GroupVersionKind schema.GroupVersionKind
	// List is an empty list of the kind, for the state metrics.
	List resource.ManagedList
	// New returns an empty operation of the kind.
	New func() T
	// Lock is where the kind takes its lock and keeps its history; its
	// clients are filled in here.
	Lock *ops.Lock
	// Run builds the engine's view of one operation.
	Run ops.RunFunc[T]
	// WaitingOn maps a change of a StorageCluster's lock to the operations
	// of the kind to wake.
	WaitingOn func(kube client.Reader) handler.MapFunc
	// WaitingForTarget, when set, maps a StorageCluster that appeared or
	// got its backend id to the operations of the kind that may wait for it.
	WaitingForTarget func(kube client.Reader) handler.MapFunc
}

// SetupOperations adds the controller of an operation kind: the engine with
// the observer and watcher both kinds share, the managed reconciler, the
// wake-ups by the watcher and by StorageCluster lock changes, and its own
// rate limit.
func SetupOperations[T ops.Managed](mgr ctrl.Manager, o controller.Options, s ops.Settings, sh *ops.SharedObservation, k OperationKind[T]) error {
	name := managed.ControllerName(k.GroupKind)
	if err := ops.RegisterIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	opts, err := Options(mgr, o, name, k.List)
	if err != nil {
		return err
	}
	log := o.Logger.WithValues("controller", name)
	watcher := sh.Watcher
	// The operation, its lock and its slots are read no older than this
	// controller last wrote them.
	fresh := ownwrites.New(mgr.GetClient(), mgr.GetAPIReader())
	kube := OperationClient(k.GroupVersionKind.Kind, fresh)
	k.Lock.Kube, k.Lock.Reader = fresh, mgr.GetAPIReader()
	recorder := ops.CountedEvents(k.GroupVersionKind.Kind, event.NewAPIRecorder(mgr.GetEventRecorderFor(name)))
	engine := &ops.Engine{
		Kind:          k.GroupVersionKind.Kind,
		Kube:          kube,
		Lock:          k.Lock,
		Observer:      sh.Observer,
		Watcher:       watcher,
		Recorder:      recorder,
		Log:           log,
		EvidenceGrace: s.EvidenceGrace,
		HoldLimit:     s.HoldLimit,
		WindowNow:     s.WindowNow,
		Budgets:       &ops.Budgets{Kube: fresh, Reader: mgr.GetAPIReader()},
		Ledger:        &ops.Ledger{Kube: fresh, Reader: mgr.GetAPIReader()},
	}
	opts = append(opts, managed.WithRecorder(ops.Recorder(recorder)),
		// The finalizer's update also writes the resolved target
		// (ops.ReconcilerOptions); the operation client recognises the
		// reconciler's create-pending update after it without reading the
		// object again.
		managed.WithFinalizer(OperationFinalizer(kube)))
	opts = append(opts, ops.ReconcilerOptions(&ops.Connector[T]{
		Kube:    mgr.GetClient(),
		Usage:   resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apisv1alpha1.ProviderConfigUsage{}),
		Clients: providerconfig.Clients,
		Engine:  engine,
		Run:     k.Run,
	}, s)...)

	r := NewReconcilerWithClient(mgr, kube, resource.ManagedKind(k.GroupVersionKind), opts...)
	newObject := func() client.Object { return k.New() }
	cb := ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		// The kind's own events, at the priority of the operation's state,
		// but for those of its own writes.
		Watches(k.New(), ops.OperationEvents(mgr.GetClient()), builder.WithPredicates(NotOwnWrites(kube))).
		// A change of a StorageCluster's lock wakes the operation next in
		// its queue.
		Watches(&v1alpha1.StorageCluster{}, ops.WithPriority(handler.EnqueueRequestsFromMapFunc(k.WaitingOn(mgr.GetClient())), ops.PriorityActive),
			builder.WithPredicates(ops.LockChanged())).
		// A slot given back wakes the operations waiting for one.
		Watches(&v1alpha1.DisruptionBudget{}, ops.WithPriority(handler.EnqueueRequestsFromMapFunc(ops.BudgetWaiters(k.GroupVersionKind.Kind)), ops.PriorityActive))
	if k.WaitingForTarget != nil {
		// A StorageCluster that appears or gets its backend id wakes the
		// operations whose reference may resolve to it now.
		cb = cb.Watches(&v1alpha1.StorageCluster{}, ops.WithPriority(handler.EnqueueRequestsFromMapFunc(k.WaitingForTarget(mgr.GetClient())), ops.PriorityActive),
			builder.WithPredicates(ops.TargetAppeared()))
	}
	b, err := watcher.Register(mgr, cb, k.GroupVersionKind.Kind, newObject)
	if err != nil {
		return err
	}
	// Operations holding a lock are reconciled before queued and finished
	// ones, and outside the reconcile budget.
	newOp := func() ops.Object { return k.New() }
	return b.Complete(ops.Prioritized(ops.Budgeted(name, r, s.RateLimiter(o.GlobalRateLimiter), mgr.GetClient(), newOp),
		mgr.GetClient(), newOp))
}
