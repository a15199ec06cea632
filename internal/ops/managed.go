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
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/api/equality"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// How the engine maps onto crossplane-runtime's managed reconciler, for
// every operation kind:
//
//   - Observe lets the engine advance the operation (queue, lock,
//     preconditions, evidence, completion, deadlines, TTL) and reports the
//     "external resource" as missing exactly when the current step's
//     backend call is due;
//   - Create sends that call under the write-ahead guard;
//   - Update never runs (an operation is always "up to date");
//   - a deleted operation runs on to its next safe point: Observe advances
//     it and reports it gone once it stopped and released its lock, and
//     Delete sends a call that is due on the way (docs/operations-engine.md,
//     "Stopping").

const (
	errTrackUsage = "cannot track ProviderConfig usage"
	errNewClient  = "cannot create simplyblock client"
	// errResolveReferences words it as crossplane-runtime does.
	errResolveReferences = "cannot resolve references"
)

// A Managed is an operation kind the managed reconciler can run.
type Managed interface {
	Object
	resource.ModernManaged
}

// A RunFunc builds the engine's view of one operation for one reconcile:
// its target, history, backend cluster, plan and queue.
type RunFunc[T Managed] func(ctx context.Context, kube client.Client, src Source, o T) (Run, error)

// A Connector resolves an operation's provider config into a client (one
// per configuration, shared through Clients) and hands the operation to
// the engine. Usage tracks the ProviderConfig usage of an operation that
// its StorageCluster's usage does not cover (External.trackUsage).
type Connector[T Managed] struct {
	Kube    client.Client
	Usage   resource.ModernTracker
	Clients *providerconfig.ClientCache
	Engine  *Engine
	Run     RunFunc[T]
}

// Connect returns the external client of one reconcile.
func (c *Connector[T]) Connect(ctx context.Context, o T) (managed.TypedExternalClient[T], error) {
	cfg, err := providerconfig.ClientConfig(ctx, c.Kube, o)
	if err != nil {
		return nil, err
	}
	api, key, err := c.Clients.Get(cfg)
	if err != nil {
		return nil, errors.Wrap(err, errNewClient)
	}
	return &External[T]{kube: c.Kube, usage: c.Usage, engine: c.Engine, source: Source{Key: key, API: api}, run: c.Run}, nil
}

// An External is the external client of one reconcile of an operation.
type External[T Managed] struct {
	kube   client.Client
	usage  resource.ModernTracker
	engine *Engine
	source Source
	run    RunFunc[T]
	// callDue is set by Observe of a deleted operation whose next call is
	// due on its way to a safe point; Delete sends it.
	callDue bool
	// decided is the observation Observe decided a call on (made after
	// the step started and after its last call); Create and Delete, later
	// in the same reconcile, use it as the call's baseline.
	decided Decided
}

// Observe advances the operation and says whether a backend call is due.
func (e *External[T]) Observe(ctx context.Context, o T) (managed.ExternalObservation, error) {
	ApplyCarriedIntent(o)
	r, err := e.run(ctx, e.kube, e.source, o)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	r.Decided = &e.decided
	if err := e.trackUsage(ctx, r, o); err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errTrackUsage)
	}
	if meta.WasDeleted(o) {
		return e.observeDeleted(ctx, r, o)
	}
	due, err := e.engine.Observe(ctx, r)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if due {
		e.engine.CarryIntent(ctx, r)
	}
	return managed.ExternalObservation{ResourceExists: !due, ResourceUpToDate: true}, nil
}

// trackUsage records that o uses its ProviderConfig, before any call is
// sent, unless the usage of the StorageCluster whose lock it takes records
// the same ProviderConfig: an operation cannot run without that
// StorageCluster, so its own usage would protect nothing more, and it would
// cost a write and a cached object per operation (docs/operations-engine.md,
// "What an operation costs the API server").
func (e *External[T]) trackUsage(ctx context.Context, r Run, o T) error {
	if r.Target.Name != "" {
		t := e.engine.Lock.NewTarget()
		err := e.kube.Get(ctx, r.Target, t)
		if err != nil && !kerrors.IsNotFound(err) {
			return err
		}
		if err == nil {
			covered, err := providerconfig.CoveredBy(ctx, e.kube, t, o)
			if err != nil || covered {
				return err
			}
		}
	}
	return e.usage.Track(ctx, o)
}

// Create sends the current step's backend call under the guard.
func (e *External[T]) Create(ctx context.Context, o T) (managed.ExternalCreation, error) {
	r, err := e.run(ctx, e.kube, e.source, o)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	r.Decided = &e.decided
	return managed.ExternalCreation{}, e.engine.Trigger(ctx, r)
}

// Update is never called: Observe always reports the operation up to date.
func (e *External[T]) Update(_ context.Context, _ T) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, nil
}

// observeDeleted advances a deleted operation toward its next safe point.
// It reports the operation gone once it finished and released its lock.
func (e *External[T]) observeDeleted(ctx context.Context, r Run, o T) (managed.ExternalObservation, error) {
	if IsTerminal(o) {
		if err := e.engine.observeFinished(ctx, r); err != nil {
			return managed.ExternalObservation{}, err
		}
	} else {
		due, err := e.engine.Observe(ctx, r)
		if err != nil {
			return managed.ExternalObservation{}, err
		}
		if due {
			e.callDue = true
			return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
		}
		if IsTerminal(o) {
			// Finishing released the lock and wrote the record.
			return managed.ExternalObservation{ResourceExists: false, ResourceUpToDate: true}, nil
		}
	}
	// While it runs, Delete does nothing and the reconciler writes the
	// status.
	released, err := e.engine.Released(ctx, r)
	return managed.ExternalObservation{ResourceExists: !released, ResourceUpToDate: true}, err
}

// Delete sends the call a deleted operation needs on its way to its next
// safe point, under the guard; otherwise it does nothing.
func (e *External[T]) Delete(ctx context.Context, o T) (managed.ExternalDelete, error) {
	if !e.callDue {
		return managed.ExternalDelete{}, nil
	}
	r, err := e.run(ctx, e.kube, e.source, o)
	if err != nil {
		return managed.ExternalDelete{}, err
	}
	r.Decided = &e.decided
	return managed.ExternalDelete{}, e.engine.Trigger(ctx, r)
}

// Disconnect does nothing; clients are shared.
func (e *External[T]) Disconnect(_ context.Context) error { return nil }

// ReconcilerOptions are the managed reconciler options of an operation
// kind: its connector, the poll-interval hook, and two settings the guard
// needs.
func ReconcilerOptions[T Managed](c *Connector[T], s Settings) []managed.ReconcilerOption {
	pi := s.Poll
	if s.WatchInterval <= 0 {
		pi.Watched = 0 // no watcher wakes running operations: they poll
	}
	hook := pi.Hook(nil)
	return []managed.ReconcilerOption{
		managed.WithTypedExternalConnector[T](c),
		managed.WithPollIntervalHook(func(mg resource.Managed, d time.Duration) time.Duration {
			return hook(mg.(Object), d) //nolint:forcetypeassert // an operation reconciler only sees operations.
		}),
		// The guard in status is the durable record of every backend call;
		// the reconciler need not refuse to proceed when its own
		// create-pending annotation is left behind by a crash.
		managed.WithDeterministicExternalName(true),
		// For the same reason the create-succeeded annotation is not
		// written after each call: the outcome in status records it.
		managed.WithCriticalAnnotationUpdater(managed.CriticalAnnotationUpdateFn(func(context.Context, client.Object) error { return nil })),
		// "Not existing" right after a Create means the next step's call is
		// due, not an eventually consistent read: no grace period.
		managed.WithCreationGracePeriod(0),
		managed.WithReferenceResolver(targetResolver{kube: c.Kube}),
	}
}

// Recorder is the managed reconciler's event recorder for operations. It
// drops the reconciler's events that only echo the engine's: "Successfully
// requested creation of external resource" after each call (the engine's
// Triggered event names the call and its answer), and "Successfully
// requested deletion of external resource", which for a deleted operation
// on its way to a safe point would repeat at every reconcile and mean
// nothing (the engine's Stopping event says what happens). Each event is an
// API write.
func Recorder(r event.Recorder) event.Recorder { return withoutEchoes{r} }

// CountedEvents returns r counting the events it records for operations of
// kind in Metrics.Events.
func CountedEvents(kind string, r event.Recorder) event.Recorder {
	return countedEvents{Recorder: r, kind: kind}
}

type countedEvents struct {
	event.Recorder
	kind string
}

func (r countedEvents) Event(o runtime.Object, e event.Event) {
	DefaultMetrics().Events.WithLabelValues(r.kind, string(e.Reason)).Inc()
	r.Recorder.Event(o, e)
}

func (r countedEvents) WithAnnotations(keysAndValues ...string) event.Recorder {
	return countedEvents{Recorder: r.Recorder.WithAnnotations(keysAndValues...), kind: r.kind}
}

type withoutEchoes struct{ event.Recorder }

func (r withoutEchoes) Event(o runtime.Object, e event.Event) {
	if e.Reason == "CreatedExternalResource" || e.Reason == "DeletedExternalResource" {
		return
	}
	r.Recorder.Event(o, e)
}

func (r withoutEchoes) WithAnnotations(keysAndValues ...string) event.Recorder {
	return withoutEchoes{r.Recorder.WithAnnotations(keysAndValues...)}
}

// A targetResolver resolves an operation's references like crossplane-
// runtime's, but leaves one whose target does not exist, matches nothing or
// has no backend id yet unresolved instead of failing every reconcile:
// the engine then waits for the target, and fails the operation with
// TargetNotFound once its precondition timeout (from creation) passed.
type targetResolver struct {
	kube client.Client
}

// ResolveReferences resolves mg's references, tolerating missing targets.
// Until mg has its finalizer it resolves them in memory only: the
// reconciler adds the finalizer after Observe with an update of the whole
// object, which writes the resolved target too, before any backend call;
// a write of its own would be one more API write per operation. Once it
// has, it resolves them on a copy first and hands mg to crossplane-runtime's
// resolver (which writes what changed) only if the copy changed: a set
// target does not, and the runtime's comparison is the costliest part of
// an operation's reconcile.
func (r targetResolver) ResolveReferences(ctx context.Context, mg resource.Managed) error {
	rr, ok := mg.(referencer)
	if !ok {
		return nil
	}
	var err error
	if meta.FinalizerExists(mg, managed.FinalizerName) {
		err = r.resolveAndWrite(ctx, mg, rr)
	} else {
		err = rr.ResolveReferences(ctx, r.kube)
	}
	if err != nil && targetMissing(err) {
		return nil
	}
	return err
}

// resolveAndWrite resolves mg's references and writes what changed.
func (r targetResolver) resolveAndWrite(ctx context.Context, mg resource.Managed, rr referencer) error {
	if resolved, ok := mg.DeepCopyObject().(referencer); ok {
		if err := resolved.ResolveReferences(ctx, r.kube); err != nil {
			return errors.Wrap(err, errResolveReferences)
		}
		if equality.Semantic.DeepEqual(resolved, rr) {
			return nil
		}
	}
	return managed.NewAPISimpleReferenceResolver(r.kube).ResolveReferences(ctx, mg)
}

// A referencer resolves its references (angryjet generates the method).
type referencer interface {
	ResolveReferences(ctx context.Context, r client.Reader) error
}

// targetMissing reports a resolution error that says the target is not
// there (yet): not found, no match for the selector, or no external name
// (crossplane-runtime's reference package words the last two).
func targetMissing(err error) bool {
	if kerrors.IsNotFound(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "no resources matched selector") || strings.Contains(msg, "referenced field was empty")
}
