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
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"k8s.io/apimachinery/pkg/types"
	utilclock "k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// A Watcher polls the backend for the clusters that running operations wait
// on, and wakes those operations as soon as what the backend shows changes.
// An operation holding a lock therefore need not poll on its own: a change is
// seen within one Interval however many operations run, and an operation is
// reconciled when something happened rather than on a timer. One Watcher
// serves both operation kinds, and its backend reads are shared through the
// Observer: one poll per watched cluster.
type Watcher struct {
	// Observer makes the observations the watcher compares.
	Observer *Observer
	// Interval is how often a watched cluster's record is polled.
	Interval time.Duration
	// ProbeInterval is how often a watched cluster's newest event is
	// probed when a waiter needs more than its record (a read of its log
	// by a reconcile counts); zero probes at every poll. When every such
	// waiter's end shows in the record, or it was woken and its reconcile
	// has not asked again yet, it is probed at a quarter of that pace. A
	// call answered on the cluster is probed for at the next poll.
	ProbeInterval time.Duration
	// Linger is how long an operation stays watched after it last asked.
	Linger time.Duration
	// Clock is the watcher's clock; the real one when nil.
	Clock utilclock.WithTicker
	// Log is the watcher's logger.
	Log logging.Logger

	once     sync.Once
	started  sync.Once
	mu       sync.Mutex
	ctx      context.Context //nolint:containedctx // the manager's context, for the pollers it starts.
	kinds    map[string]*watchedKind
	clusters map[string]*clusterWatch
}

// A watchedKind is an operation kind whose operations the watcher wakes.
type watchedKind struct {
	events    chan event.GenericEvent
	newObject func() client.Object
}

// A clusterWatch is one watched cluster and the operations waiting on it.
type clusterWatch struct {
	src     Source
	id      string
	waiters map[waiterKey]*waiter
	// polled: status and rebalancing are what the last poll's cluster
	// record showed.
	polled      bool
	status      sb.ClusterStatus
	rebalancing bool
	newest      string // the newest event id last probed
	// answeredAt: a call on the cluster was answered then; the next poll
	// probes a log read after it.
	answeredAt time.Time
}

// A waiterKey names one operation of one kind.
type waiterKey struct {
	kind string
	op   types.NamespacedName
}

// A waiter is one operation waiting on a cluster.
type waiter struct {
	until time.Time // when the interest lapses unless renewed
	need  Needs     // what the operation looks at
	seen  string    // the fingerprint of what it last saw
	// endInRecord: the end it waits for shows in the cluster record.
	endInRecord bool
	// woken: it was woken and has not asked again since (its reconcile
	// is still queued).
	woken bool
}

// slowProbes is how many times longer the probe interval is when every
// waiter that needs more than the record waits for an end that shows in it
// or was woken and not reconciled since: a change seen meanwhile would only
// wake it again.
const slowProbes = 4

func (w *Watcher) init() {
	w.once.Do(func() {
		w.kinds = map[string]*watchedKind{}
		w.clusters = map[string]*clusterWatch{}
		if w.Clock == nil {
			w.Clock = utilclock.RealClock{}
		}
	})
}

// events returns the wake-ups of kind, registering it with newObject (an
// empty operation of the kind) on first use.
func (w *Watcher) events(kind string, newObject func() client.Object) <-chan event.GenericEvent {
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	k, ok := w.kinds[kind]
	if !ok {
		k = &watchedKind{events: make(chan event.GenericEvent, 1024), newObject: newObject}
		w.kinds[kind] = k
	}
	return k.events
}

// Wake asks for a reconcile of the operation op of kind now, as a change
// the watcher saw would; it never blocks (a full channel drops the wake-up:
// the operation's own requeue still comes).
func (w *Watcher) Wake(kind string, op types.NamespacedName) {
	if w == nil {
		return
	}
	w.init()
	w.mu.Lock()
	k, ok := w.kinds[kind]
	w.mu.Unlock()
	if !ok {
		return
	}
	select {
	case k.events <- k.wakeUp(op):
	default:
	}
}

// wakeUp is the event that wakes operation op of the kind.
func (k *watchedKind) wakeUp(op types.NamespacedName) event.GenericEvent {
	obj := k.newObject()
	obj.SetNamespace(op.Namespace)
	obj.SetName(op.Name)
	return event.GenericEvent{Object: obj}
}

// Start runs the watcher until ctx is done; it implements the manager's
// Runnable. Pollers started before Start wait for it.
func (w *Watcher) Start(ctx context.Context) error {
	w.init()
	w.mu.Lock()
	w.ctx = ctx
	pending := make([]*clusterWatch, 0, len(w.clusters))
	for _, cw := range w.clusters {
		pending = append(pending, cw)
	}
	w.mu.Unlock()
	for _, cw := range pending {
		go w.run(ctx, cw)
	}
	<-ctx.Done()
	return nil
}

// Watch asks to wake operation op of kind when the backend's view of
// cluster id differs from seen, the snapshot the operation just decided on
// (only what need covers counts). endInRecord says that the end the
// operation waits for shows in the cluster record, so what only the log
// and the node list show may be seen at the slow pace. The interest lasts
// Linger and is renewed by asking again.
func (w *Watcher) Watch(kind string, src Source, id string, need Needs, endInRecord bool, seen *Snapshot, op types.NamespacedName) {
	if w == nil {
		return
	}
	w.init()
	key := src.Key + "|" + id
	w.mu.Lock()
	defer w.mu.Unlock()
	cw, ok := w.clusters[key]
	if !ok {
		cw = &clusterWatch{src: src, id: id, waiters: map[waiterKey]*waiter{}}
		w.clusters[key] = cw
		if w.ctx != nil {
			go w.run(w.ctx, cw)
		}
	}
	cw.src = src // the newest client for this control plane
	if cw.newest == "" && need.Events && seen != nil {
		// A new event after what the operation saw is new to the probe.
		cw.newest = seen.LogPosition()
	}
	cw.waiters[waiterKey{kind: kind, op: op}] = &waiter{until: w.Clock.Now().Add(w.Linger), need: need, seen: fingerprint(seen, need),
		endInRecord: endInRecord}
}

// Answered tells the watcher that operation op of kind had a call on
// cluster id accepted: from now on it waits for what need covers (its
// step's Watches), on seen, the observation the call was decided on; and
// the next poll probes the cluster's newest event on a read made after the
// call (unless the step's end shows in the record, endInRecord, which every
// poll reads), so an action that takes effect at once is seen within one
// Interval. Without seen it wakes op, as a change would.
func (w *Watcher) Answered(kind string, src Source, id string, need Needs, endInRecord bool, seen *Snapshot, op types.NamespacedName) {
	if w == nil {
		return
	}
	if seen == nil {
		w.Wake(kind, op)
		return
	}
	w.Watch(kind, src, id, need, endInRecord, seen, op)
	if endInRecord {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if cw, ok := w.clusters[src.Key+"|"+id]; ok {
		cw.answeredAt = w.Clock.Now()
	}
}

// Unwatch ends the interest of an operation, e.g. when it finished.
func (w *Watcher) Unwatch(kind string, src Source, id string, op types.NamespacedName) {
	if w == nil {
		return
	}
	w.init()
	w.mu.Lock()
	defer w.mu.Unlock()
	if cw, ok := w.clusters[src.Key+"|"+id]; ok {
		delete(cw.waiters, waiterKey{kind: kind, op: op})
	}
}

// run polls one cluster every Interval while anyone waits on it.
func (w *Watcher) run(ctx context.Context, cw *clusterWatch) {
	t := w.Clock.NewTicker(w.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if !w.poll(ctx, cw) {
			return
		}
	}
}

// pollAll polls every watched cluster once, in the caller's goroutine (for
// tests, which drive the watcher without Start).
func (w *Watcher) pollAll(ctx context.Context) {
	w.init()
	w.mu.Lock()
	all := make([]*clusterWatch, 0, len(w.clusters))
	for _, cw := range w.clusters {
		all = append(all, cw)
	}
	w.mu.Unlock()
	for _, cw := range all {
		w.poll(ctx, cw)
	}
}

// poll observes one cluster and wakes each waiter whose view changed. It
// reports false once nobody waits on the cluster any more.
func (w *Watcher) poll(ctx context.Context, cw *clusterWatch) bool {
	w.mu.Lock()
	now := w.Clock.Now()
	need := Needs{}
	probeEvery := slowProbes * w.ProbeInterval
	// endsInRecord: every waiter's end shows in the cluster record, so a
	// new event alone (progress, a failure part-way, which the log shows)
	// does not need the node and task lists read again at once.
	endsInRecord := true
	for k, wt := range cw.waiters {
		if now.After(wt.until) {
			delete(cw.waiters, k)
			continue
		}
		need = need.or(wt.need)
		if (wt.need.Nodes || wt.need.Events) && !wt.endInRecord && !wt.woken {
			probeEvery = w.ProbeInterval
		}
		endsInRecord = endsInRecord && wt.endInRecord
	}
	if len(cw.waiters) == 0 {
		delete(w.clusters, cw.src.Key+"|"+cw.id)
		w.mu.Unlock()
		return false
	}
	src := cw.src
	w.mu.Unlock()

	// Tiered: the cluster record (one shared list per control plane) every
	// Interval, the newest event (one small read) every ProbeInterval; the
	// log window, task list and node list again at once when the cluster's
	// status or newest event changed (the node list only when the log does
	// not bring it up to date), the task list alone when only is_re_balancing
	// did, otherwise once they are older than the Observer's DetailMaxAge.
	snap, err := w.Observer.Snapshot(ctx, src, cw.id, need)
	if err == nil && (need.Nodes || need.Events || need.Tasks) {
		w.mu.Lock()
		// The monitor derives the cluster's status from its nodes, so a
		// change of it reads the details again; is_re_balancing follows
		// the task list alone (a migration or balancing task is open),
		// and the backend logs no event for it.
		statusChanged := cw.polled && cw.status != snap.Cluster.Status
		rebalancingChanged := cw.polled && cw.rebalancing != snap.Cluster.IsReBalancing
		cw.polled, cw.status, cw.rebalancing = true, snap.Cluster.Status, snap.Cluster.IsReBalancing
		// The newest event shows cluster and node status changes (the
		// backend logs those), not task changes: a waiter on tasks alone
		// (a rebalance) learns of them from the record (is_re_balancing)
		// or at the detail floor, and is not probed for.
		probe := need.Nodes || need.Events
		// A log window read (by a probe or a reconcile) less than the probe
		// interval ago, give or take half a poll for the ticker's jitter,
		// is probe enough; after an answered call only a read made after
		// it is.
		probeSince := now.Add(w.Interval/2 - probeEvery)
		if !cw.answeredAt.Before(probeSince) {
			probeSince = cw.answeredAt.Add(time.Nanosecond)
		}
		cw.answeredAt = time.Time{}
		w.mu.Unlock()
		// Details requested from here on are fresh enough; the probe brings
		// the log window up to date, so a change it shows costs no second
		// read of the log.
		since := w.Observer.since(-1)
		newEvent := false
		if !statusChanged && probe {
			if newest, at, perr := w.Observer.probeEvents(ctx, src, cw.id, probeSince); perr == nil {
				w.mu.Lock()
				newEvent = cw.newest != "" && cw.newest != newest
				cw.newest, since = newest, at
				w.mu.Unlock()
			}
		}
		tasksChanged := rebalancingChanged && need.Tasks
		switch {
		case statusChanged || newEvent && !endsInRecord:
			snap, err = w.Observer.freshDetail(ctx, src, cw.id, need, since)
		case tasksChanged:
			snap, err = w.Observer.freshTasks(ctx, src, cw.id, need, w.Observer.since(-1))
		case newEvent:
			// The probe brought the log up to date; the node and task
			// lists may be as old as the detail floor.
			snap, err = w.Observer.Snapshot(ctx, src, cw.id, need)
		}
		if err == nil && need.Events && (statusChanged || newEvent || tasksChanged) {
			w.mu.Lock()
			cw.newest = snap.LogPosition()
			w.mu.Unlock()
		}
	}
	if err != nil {
		// The operations see the error on their own next reconcile; the
		// watcher keeps trying.
		return true
	}

	w.mu.Lock()
	var wake []waiterKey
	for k, wt := range cw.waiters {
		if fp := fingerprint(snap, wt.need); fp != wt.seen {
			wt.seen, wt.woken = fp, true
			wake = append(wake, k)
		}
	}
	kinds := w.kinds
	w.mu.Unlock()
	for _, k := range wake {
		kind, ok := kinds[k.kind]
		if !ok {
			continue
		}
		select {
		case kind.events <- kind.wakeUp(k.op):
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// fingerprint summarises what operations decide on, as far as need covers
// it: the cluster's status and rebalancing, each node's status and health,
// the newest event, and the tasks.
func fingerprint(s *Snapshot, need Needs) string {
	if s == nil {
		return ""
	}
	h := fnv.New64a()
	_, _ = fmt.Fprintf(h, "c=%s/%t;", s.Cluster.Status, s.Cluster.IsReBalancing)
	if need.Nodes {
		for _, n := range s.Nodes {
			health := "?"
			if n.HealthCheck != nil {
				health = fmt.Sprint(*n.HealthCheck)
			}
			_, _ = fmt.Fprintf(h, "n=%s/%s/%s;", n.ID, n.Status, health)
		}
	}
	if need.Events {
		_, _ = fmt.Fprintf(h, "e=%s;", s.LogPosition())
	}
	if need.Tasks {
		for _, t := range s.Tasks {
			_, _ = fmt.Fprintf(h, "t=%s/%s;", t.ID, t.Status)
		}
		if s.TasksErr != nil {
			_, _ = fmt.Fprint(h, "terr;")
		}
	}
	return fmt.Sprintf("%x", h.Sum64())
}

// Register feeds the watcher's wake-ups of kind (newObject returns an empty
// operation of it) to the controller being built, and runs the watcher with
// the manager (once, however many kinds it serves); a nil watcher changes
// nothing.
func (w *Watcher) Register(mgr manager.Manager, b *builder.Builder, kind string, newObject func() client.Object) (*builder.Builder, error) {
	if w == nil {
		return b, nil
	}
	var err error
	w.started.Do(func() { err = mgr.Add(w) })
	if err != nil {
		return nil, err
	}
	return b.WatchesRawSource(w.wakeUps(kind, newObject)), nil
}

// wakeUps is the source of the watcher's wake-ups of kind, enqueued at
// PriorityChanged.
func (w *Watcher) wakeUps(kind string, newObject func() client.Object) source.Source {
	return source.Channel(w.events(kind, newObject), WithPriority(&handler.EnqueueRequestForObject{}, PriorityChanged))
}
