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
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

// A backendView is a cluster and its nodes whose status a test changes.
type backendView struct {
	mu      sync.Mutex
	cluster sb.ClusterDTO
	nodes   []sb.StorageNodeDTO
	events  []sb.ClusterLogEntry // oldest first
}

func (b *backendView) set(f func(b *backendView)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b)
}

func (b *backendView) api() *fake.MockClient {
	return &fake.MockClient{
		MockListClusters: func(context.Context) ([]sb.ClusterDTO, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return []sb.ClusterDTO{b.cluster}, nil
		},
		MockListStorageNodes: func(context.Context, string) ([]sb.StorageNodeDTO, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return append([]sb.StorageNodeDTO(nil), b.nodes...), nil
		},
		MockClusterLogs: func(_ context.Context, _ string, limit int) ([]sb.ClusterLogEntry, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			evs := b.events
			if len(evs) == 0 {
				// The backend's answer to an empty log (cluster/__init__.py:203-206).
				return nil, &sb.Error{Kind: sb.KindServerError, Outcome: sb.OutcomeAnswered, StatusCode: 500, Message: "Internal Server Error"}
			}
			if limit > 0 && len(evs) > limit {
				evs = evs[len(evs)-limit:]
			}
			return append([]sb.ClusterLogEntry(nil), evs...), nil
		},
	}
}

// readCounts counts the reads of a backendView's log and node list.
type readCounts struct{ logs, nodes int }

// countedAPI is b's API, counting its log and node-list reads.
func countedAPI(b *backendView) (*fake.MockClient, *readCounts) {
	api, reads := b.api(), &readCounts{}
	logs, nodes := api.MockClusterLogs, api.MockListStorageNodes
	api.MockClusterLogs = func(ctx context.Context, id string, limit int) ([]sb.ClusterLogEntry, error) {
		reads.logs++
		return logs(ctx, id, limit)
	}
	api.MockListStorageNodes = func(ctx context.Context, id string) ([]sb.StorageNodeDTO, error) {
		reads.nodes++
		return nodes(ctx, id)
	}
	return api, reads
}

// newTestWatcher is a watcher on a fake clock at t0, waking ClusterOps.
func newTestWatcher(linger time.Duration) (*Watcher, *clocktesting.FakeClock, <-chan event.GenericEvent) {
	clk := clocktesting.NewFakeClock(t0)
	w := &Watcher{Observer: NewObserver(0), Interval: time.Second, Linger: linger, Clock: clk, Log: logging.NewNopLogger()}
	return w, clk, w.events(v1alpha1.ClusterOpsKind, func() client.Object { return &v1alpha1.ClusterOps{} })
}

// drain returns the wake-ups sent so far (the watcher sends them before a
// poll returns).
func drain(events <-chan event.GenericEvent) []types.NamespacedName {
	var got []types.NamespacedName
	for {
		select {
		case ev := <-events:
			got = append(got, types.NamespacedName{Namespace: ev.Object.GetNamespace(), Name: ev.Object.GetName()})
		default:
			return got
		}
	}
}

func TestWatcherWakes(t *testing.T) {
	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	cases := map[string]struct {
		reason string
		need   Needs
		// change alters the backend after the operation decided on it.
		change func(b *backendView)
		// after is how long after the operation asked the watcher polls.
		after time.Duration
		wake  bool
	}{
		"ClusterStatusChanged": {
			reason: "A cluster status change wakes the operation that saw the old status.",
			change: func(b *backendView) { b.cluster.Status = sb.ClusterActive },
			after:  time.Second,
			wake:   true,
		},
		"NodeStatusChangedAndNodesNeeded": {
			reason: "A node status change wakes an operation that looks at nodes.",
			need:   Needs{Nodes: true},
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			after:  time.Second,
			wake:   true,
		},
		"NodeStatusChangedButNodesNotNeeded": {
			reason: "A node status change does not wake an operation that only looks at the cluster.",
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			after:  time.Second,
		},
		"NothingChanged": {
			reason: "Polls that show what the operation saw wake nobody.",
			change: func(*backendView) {},
			after:  time.Second,
		},
		"InterestLapsed": {
			reason: "An operation that stopped asking (its linger, a minute, passed) is not woken any more.",
			change: func(b *backendView) { b.cluster.Status = sb.ClusterActive },
			after:  time.Minute + time.Second,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterUnready},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}}
			src := Source{Key: "k", API: b.api()}
			w, clk, events := newTestWatcher(time.Minute)
			ctx := context.Background()

			seen, err := w.Observer.Fresh(ctx, src, "c1", Needs{Nodes: true})
			if err != nil {
				t.Fatal(err)
			}
			w.Watch(v1alpha1.ClusterOpsKind, src, "c1", tc.need, false, seen, op)
			b.set(tc.change)
			clk.Step(tc.after)
			// Two polls see the change: one wake-up per change.
			w.pollAll(ctx)
			w.pollAll(ctx)

			var want []types.NamespacedName
			if tc.wake {
				want = []types.NamespacedName{op}
			}
			if diff := cmp.Diff(want, drain(events)); diff != "" {
				t.Errorf("\n%s\nwake-ups: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestWatcherWakesEachKind: one watcher serves both operation kinds and
// wakes each operation through its own kind's channel.
func TestWatcherWakesEachKind(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterUnready}}
	src := Source{Key: "k", API: b.api()}
	w, _, clusterOps := newTestWatcher(time.Minute)
	nodeOps := w.events(v1alpha1.StorageNodeOpsKind, func() client.Object { return &v1alpha1.StorageNodeOps{} })
	ctx := context.Background()
	seen := &Snapshot{Cluster: b.cluster}
	a, n := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "n"}
	w.Watch(v1alpha1.ClusterOpsKind, src, "c1", Needs{}, false, seen, a)
	w.Watch(v1alpha1.StorageNodeOpsKind, src, "c1", Needs{}, false, seen, n)
	b.set(func(b *backendView) { b.cluster.Status = sb.ClusterActive })
	w.pollAll(ctx)
	if diff := cmp.Diff([]types.NamespacedName{a}, drain(clusterOps)); diff != "" {
		t.Errorf("ClusterOps wake-ups: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]types.NamespacedName{n}, drain(nodeOps)); diff != "" {
		t.Errorf("StorageNodeOps wake-ups: -want, +got:\n%s", diff)
	}
}

// TestWatcherStopsPolling: a cluster nobody waits on is not polled.
func TestWatcherStopsPolling(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterUnready}}
	var mu sync.Mutex
	calls := 0
	api := b.api()
	list := api.MockListClusters
	api.MockListClusters = func(ctx context.Context) ([]sb.ClusterDTO, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return list(ctx)
	}
	src := Source{Key: "k", API: api}
	w, _, _ := newTestWatcher(time.Minute)
	ctx := context.Background()

	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	w.Watch(v1alpha1.ClusterOpsKind, src, "c1", Needs{}, false, &Snapshot{Cluster: b.cluster}, op)
	w.pollAll(ctx)
	w.Unwatch(v1alpha1.ClusterOpsKind, src, "c1", op)
	w.pollAll(ctx)
	w.pollAll(ctx)
	if calls != 1 {
		t.Errorf("the backend was read %d times, want once: while the operation waited, and not after", calls)
	}
}

// TestWatcherTiers: the node list is read again at once when the cluster
// record or the newest event changed, and otherwise only once it is older
// than DetailMaxAge.
func TestWatcherTiers(t *testing.T) {
	cases := map[string]struct {
		reason string
		change func(b *backendView)
		// after is how long after the first poll the second one runs.
		after time.Duration
		// endInRecord: the waiter (on the node list and the log) waits for
		// an end that shows in the cluster record; otherwise it waits on
		// the node list alone.
		endInRecord bool
		nodeReads   int
		// woken: the second poll wakes the waiter.
		woken bool
	}{
		"RecordUnchangedDetailYoung": {
			reason: "While neither the cluster record nor the newest event shows anything new, a node list younger than DetailMaxAge is not read again (a change the backend does not log waits for the floor).",
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			after:  500 * time.Millisecond, nodeReads: 1,
		},
		"RecordUnchangedDetailOld": {
			reason: "A node list older than DetailMaxAge is read again (the floor for what the record cannot show).",
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			after:  1500 * time.Millisecond, nodeReads: 2, woken: true,
		},
		"RecordChanged": {
			reason: "A changed cluster record makes the node list be read again at once.",
			change: func(b *backendView) { b.cluster.Status = sb.ClusterDegraded },
			after:  500 * time.Millisecond, nodeReads: 2, woken: true,
		},
		"NewEvent": {
			reason: "A new event (the backend logs every node status change) makes the node list be read again at once.",
			change: func(b *backendView) {
				b.nodes[0].Status = sb.NodeOffline
				b.events = append(b.events, nodeStatusEntry(2, "n1", "online", "offline"))
			},
			after: 500 * time.Millisecond, nodeReads: 2, woken: true,
		},
		"NewEventEndInRecord": {
			reason: "For a waiter whose end shows in the cluster record, a new event alone (progress, or a failure part-way, which the log shows) does not make the node list be read again before DetailMaxAge.",
			change: func(b *backendView) {
				b.nodes[0].Status = sb.NodeOffline
				b.events = append(b.events, nodeStatusEntry(2, "n1", "online", "offline"))
			},
			after: 500 * time.Millisecond, endInRecord: true, nodeReads: 1, woken: true,
		},
		"RecordChangedEndInRecord": {
			reason: "For a waiter whose end shows in the cluster record, a changed record makes the node list be read again at once when the log does not show what changed since it was read (here a node's health check change, which is not a status change).",
			change: func(b *backendView) {
				b.cluster.Status = sb.ClusterDegraded
				b.events = append(b.events, logEntry(2, "STATUS_CHANGE", "n1", "Storage node health check changed from: True to: False"))
			},
			after: 500 * time.Millisecond, endInRecord: true, nodeReads: 2, woken: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
			api := b.api()
			need := Needs{Nodes: true}
			if tc.endInRecord {
				need.Events = true
			}
			reads := 0
			list := api.MockListStorageNodes
			api.MockListStorageNodes = func(ctx context.Context, id string) ([]sb.StorageNodeDTO, error) {
				reads++
				return list(ctx, id)
			}
			src := Source{Key: "k", API: api}
			w, clk, wakes := newTestWatcher(time.Minute)
			w.Observer = &Observer{MaxAge: 0, DetailMaxAge: time.Second, Now: clk.Now}
			ctx := context.Background()
			op := types.NamespacedName{Namespace: "ns", Name: "op"}
			w.Watch(v1alpha1.ClusterOpsKind, src, "c1", need, tc.endInRecord, &Snapshot{Cluster: b.cluster}, op)
			w.pollAll(ctx)
			drain(wakes)
			b.set(tc.change)
			clk.Step(tc.after)
			w.pollAll(ctx)
			if reads != tc.nodeReads {
				t.Errorf("\n%s\nnode list read %d times, want %d", tc.reason, reads, tc.nodeReads)
			}
			if woken := len(drain(wakes)) > 0; woken != tc.woken {
				t.Errorf("\n%s\nwoken by the second poll: %t, want %t", tc.reason, woken, tc.woken)
			}
		})
	}
}

func TestWatcherProbes(t *testing.T) {
	cases := map[string]struct {
		reason string
		need   Needs
		// endInRecord: the waiter's end shows in the cluster record;
		// alsoPrompt adds a waiter on the same cluster whose end does not.
		endInRecord, alsoPrompt bool
		// queued: the waiters, woken by the first poll (what they saw
		// differs from the backend), are not reconciled; otherwise they ask
		// again after each poll, as their reconcile does.
		queued bool
		// logReads are the reads of the log over three polls.
		logReads int
	}{
		"EndInRecord": {
			reason:      "A waiter whose end shows in the cluster record is probed at a quarter of the pace (every 2 s here).",
			need:        Needs{Nodes: true},
			endInRecord: true,
			logReads:    2,
		},
		"EndInRecordBesideAPromptWaiter": {
			reason:      "Any waiter whose end does not show in the record keeps the cluster probed at the full pace.",
			need:        Needs{Nodes: true},
			endInRecord: true, alsoPrompt: true,
			logReads: 3,
		},
		"Nodes": {
			reason:   "A waiter on node states is probed for new events (the backend logs node status changes) at every poll past ProbeInterval.",
			need:     Needs{Nodes: true},
			logReads: 3,
		},
		"Events": {
			reason:   "A waiter on events is probed too; the window the first poll read for it is that poll's probe.",
			need:     Needs{Events: true},
			logReads: 3,
		},
		"WokenAndQueued": {
			reason:   "A waiter woken and not reconciled since is probed at a quarter of the pace: a change seen meanwhile would only wake it again.",
			need:     Needs{Nodes: true},
			queued:   true,
			logReads: 2,
		},
		"WokenAndQueuedBesideAPromptWaiter": {
			reason: "Any waiter not woken keeps the cluster probed at the full pace.",
			need:   Needs{Nodes: true},
			queued: true, alsoPrompt: true,
			logReads: 3,
		},
		"TasksOnly": {
			reason: "A waiter on tasks alone is not probed: task changes are not logged; the record (is_re_balancing) and the detail floor show them.",
			need:   Needs{Tasks: true},
		},
		"RecordOnly": {
			reason: "A waiter on the cluster record alone reads nothing but the shared list.",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
			api := b.api()
			logReads := 0
			logs := api.MockClusterLogs
			api.MockClusterLogs = func(ctx context.Context, id string, limit int) ([]sb.ClusterLogEntry, error) {
				logReads++
				return logs(ctx, id, limit)
			}
			api.MockListTasks = func(context.Context, string) ([]sb.TaskDTO, error) { return nil, nil }
			w, clk, _ := newTestWatcher(time.Minute)
			w.ProbeInterval = 500 * time.Millisecond
			w.Observer = &Observer{MaxAge: 0, DetailMaxAge: time.Hour, Now: clk.Now}
			ctx := context.Background()
			watch := func() {
				w.Watch(v1alpha1.ClusterOpsKind, Source{Key: "k", API: api}, "c1", tc.need, tc.endInRecord, &Snapshot{Cluster: b.cluster},
					types.NamespacedName{Namespace: "ns", Name: "op"})
			}
			watch()
			if tc.alsoPrompt {
				// Not woken: it saw what the backend shows.
				seen, err := w.Observer.Snapshot(ctx, Source{Key: "k", API: api}, "c1", tc.need)
				if err != nil {
					t.Fatal(err)
				}
				logReads = 0
				w.Watch(v1alpha1.ClusterOpsKind, Source{Key: "k", API: api}, "c1", tc.need, false, seen,
					types.NamespacedName{Namespace: "ns", Name: "other"})
			}
			for range 3 {
				w.pollAll(ctx)
				clk.Step(time.Second)
				if !tc.queued {
					watch()
				}
			}
			if logReads != tc.logReads {
				t.Errorf("\n%s\nlog reads: %d, want %d", tc.reason, logReads, tc.logReads)
			}
		})
	}
}

func TestWatcherAnswered(t *testing.T) {
	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	all := Needs{Nodes: true, Events: true}
	cases := map[string]struct {
		reason string
		// watched: the operation asked to be watched on what it read
		// before its call (for all); polled: the watcher polled once since.
		watched, polled bool
		// answered: its call was accepted then, its step watching need
		// and its end showing in the record or not (endInRecord);
		// unobserved: without the observation it was decided on.
		answered, endInRecord, unobserved bool
		need                              Needs
		// What the next poll, a quarter second later (half the probe
		// interval), does after the backend logged the action's end.
		logReads, nodeReads int
		woken               bool
	}{
		"AnEndOnlyTheLogShows": {
			reason:  "After an answered call the next poll reads the log again, though it was read less than the probe interval before, and the action's end it shows wakes the operation.",
			watched: true, polled: true, answered: true, need: all,
			logReads: 1, nodeReads: 1, woken: true,
		},
		"WatchingLessAfterTheCall": {
			reason:  "After its call an operation waits for what its step's evidence and check read: an end the log shows costs no read of the node list.",
			watched: true, polled: true, answered: true, need: Needs{Events: true},
			logReads: 1, woken: true,
		},
		"AtTheFirstPollOfTheCluster": {
			reason:   "The newest event the operation decided on is what the first probe of a cluster compares with: the end it shows wakes the operation.",
			answered: true, need: all,
			logReads: 1, nodeReads: 1, woken: true,
		},
		"NotAnswered": {
			reason:  "Without a call the log read a quarter second before is probe enough: nothing is read, nobody is woken.",
			watched: true, polled: true, need: all,
		},
		"AnEndTheRecordShows": {
			reason:  "A step whose end shows in the cluster record is not probed for at the next poll: every poll reads the record.",
			watched: true, polled: true, answered: true, endInRecord: true, need: all,
		},
		"WithoutTheObservation": {
			reason:   "Without the observation the call was decided on the operation is woken at once: its reconcile asks for the watch.",
			answered: true, unobserved: true, need: all,
			woken: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
			api, reads := countedAPI(b)
			src := Source{Key: "k", API: api}
			w, clk, wakes := newTestWatcher(time.Minute)
			w.Interval, w.ProbeInterval = 250*time.Millisecond, 500*time.Millisecond
			w.Observer = &Observer{MaxAge: 0, DetailMaxAge: time.Hour, Now: clk.Now}
			ctx := context.Background()
			seen, err := w.Observer.Snapshot(ctx, src, "c1", all)
			if err != nil {
				t.Fatal(err)
			}
			if tc.watched {
				w.Watch(v1alpha1.ClusterOpsKind, src, "c1", all, false, seen, op)
			}
			if tc.polled {
				w.pollAll(ctx)
				drain(wakes)
			}
			*reads = readCounts{}
			if tc.answered {
				decided := seen
				if tc.unobserved {
					decided = nil
				}
				w.Answered(v1alpha1.ClusterOpsKind, src, "c1", tc.need, tc.endInRecord, decided, op)
			}
			b.set(func(b *backendView) {
				// A node added meanwhile: the log cannot bring the node list up to date.
				b.nodes = append(b.nodes, sb.StorageNodeDTO{ID: "n2", Status: sb.NodeOnline})
				b.events = append(b.events, taskEntry(2), nodeStatusEntry(3, "n2", "in_creation", "online"))
			})
			clk.Step(w.Interval)
			w.pollAll(ctx)
			if reads.logs != tc.logReads || reads.nodes != tc.nodeReads {
				t.Errorf("\n%s\nreads at the next poll: log %d, node list %d; want %d, %d", tc.reason, reads.logs, reads.nodes, tc.logReads, tc.nodeReads)
			}
			if woken := len(drain(wakes)) > 0; woken != tc.woken {
				t.Errorf("\n%s\nwoken: %t, want %t", tc.reason, woken, tc.woken)
			}
		})
	}
}

// watchingNodesAndEvents is a watcher (details shared for an hour) on one
// operation that waits on the node list and log of cluster c, polled once.
func watchingNodesAndEvents(api sb.API, c sb.ClusterDTO) (*Watcher, *clocktesting.FakeClock, <-chan event.GenericEvent, types.NamespacedName) {
	w, clk, wakes := newTestWatcher(time.Minute)
	w.Observer = &Observer{MaxAge: 0, DetailMaxAge: time.Hour, Now: clk.Now}
	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	w.Watch(v1alpha1.ClusterOpsKind, Source{Key: "k", API: api}, c.ID, Needs{Nodes: true, Events: true}, false, &Snapshot{Cluster: c}, op)
	w.pollAll(context.Background())
	drain(wakes)
	return w, clk, wakes, op
}

// TestWatcherReadsTheLogOncePerChange: the probe that shows a new event has
// brought the shared log window up to date, so the details read for the
// change do not read the log again.
func TestWatcherReadsTheLogOncePerChange(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
		nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
	api, reads := countedAPI(b)
	w, clk, wakes, op := watchingNodesAndEvents(api, b.cluster)
	ctx := context.Background()
	b.set(func(b *backendView) {
		// A node added: the log shows it, and the node list is read for it.
		b.nodes = append(b.nodes, sb.StorageNodeDTO{ID: "n2", Status: sb.NodeOnline})
		b.events = append(b.events, nodeStatusEntry(2, "n2", "in_creation", "online"))
	})
	*reads = readCounts{}
	clk.Step(time.Second)
	w.pollAll(ctx)
	if reads.logs != 1 || reads.nodes != 1 {
		t.Errorf("a new event: log read %d times, node list %d times; want each once", reads.logs, reads.nodes)
	}
	if diff := cmp.Diff([]types.NamespacedName{op}, drain(wakes)); diff != "" {
		t.Errorf("a new event: wake-ups: -want, +got:\n%s", diff)
	}
}

func TestWatcherSeesAChangeBetweenItsReads(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
		nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeInShutdown}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
	api := b.api()
	// Once armed, the node goes offline (and logs so) right after a read of
	// the node list: between the watcher's reads of one poll.
	armed := false
	nodes := api.MockListStorageNodes
	api.MockListStorageNodes = func(ctx context.Context, id string) ([]sb.StorageNodeDTO, error) {
		ns, err := nodes(ctx, id)
		if armed {
			armed = false
			b.set(func(b *backendView) {
				b.nodes[0].Status = sb.NodeOffline
				b.events = append(b.events, nodeStatusEntry(3, "n1", "in_shutdown", "offline"))
			})
		}
		return ns, err
	}
	w, clk, wakes, op := watchingNodesAndEvents(api, b.cluster)
	ctx := context.Background()

	// The cluster record changes after a node's change: the poll reads the
	// details again, and the node goes offline in the middle of it.
	b.set(func(b *backendView) {
		b.cluster.Status = sb.ClusterSuspended
		b.events = append(b.events, logEntry(2, "STATUS_CHANGE", "n1", "Storage node health check changed from: True to: False"))
	})
	armed = true
	clk.Step(time.Second)
	w.pollAll(ctx)
	drain(wakes)

	// Nothing changes any more: the next poll must still show the operation
	// the node offline, not leave it with what the torn read showed.
	clk.Step(time.Second)
	w.pollAll(ctx)
	if diff := cmp.Diff([]types.NamespacedName{op}, drain(wakes)); diff != "" {
		t.Errorf("a change between the node list and the log read: wake-ups at the next poll: -want, +got:\n%s", diff)
	}
}

// TestWatcherRecordChanges: what a change of the cluster record makes the
// watcher read again at once, and what it leaves to the probe and the
// detail floor.
func TestWatcherRecordChanges(t *testing.T) {
	statusEvent := clusterStatusEntry(2, "active", "degraded")
	nodeEvent := nodeStatusEntry(2, "n1", "online", "offline")
	cases := map[string]struct {
		reason string
		need   Needs
		change func(b *backendView)
		// reads: of the log, the node list and the task list, by the poll
		// after the change.
		reads readCounts
		tasks int
	}{
		"StatusChangedLogShowsTheNodes": {
			reason: "A changed status reads the log again; a node list read after the log's newest event, which only cluster status changes follow, is not read again (the backend logs every node status change).",
			need:   Needs{Nodes: true, Events: true},
			change: func(b *backendView) {
				b.cluster.Status = sb.ClusterDegraded
				b.events = append(b.events, statusEvent)
			},
			reads: readCounts{logs: 1},
		},
		"StatusChangedAfterANodeStatusChange": {
			reason: "A changed status whose log shows a node's status change since the node list was read: the log brings the node list up to date.",
			need:   Needs{Nodes: true, Events: true},
			change: func(b *backendView) {
				b.cluster.Status = sb.ClusterDegraded
				b.nodes[0].Status = sb.NodeOffline
				b.events = append(b.events, nodeEvent)
			},
			reads: readCounts{logs: 1},
		},
		"StatusChangedAfterAnotherNodeEvent": {
			reason: "A changed status whose log shows a node's event that is not a status change reads the node list again.",
			need:   Needs{Nodes: true, Events: true},
			change: func(b *backendView) {
				b.cluster.Status = sb.ClusterDegraded
				b.events = append(b.events, logEntry(2, "STATUS_CHANGE", "n1", "Storage node health check changed from: True to: False"))
			},
			reads: readCounts{logs: 1, nodes: 1},
		},
		"StatusChangedWithoutTheLog": {
			reason: "A waiter on the node list alone has no log to bring it up to date: a changed status reads it again.",
			need:   Needs{Nodes: true},
			change: func(b *backendView) { b.cluster.Status = sb.ClusterDegraded },
			reads:  readCounts{nodes: 1},
		},
		"StatusChangedTasks": {
			reason: "A changed status reads the task list again.",
			need:   Needs{Tasks: true},
			change: func(b *backendView) { b.cluster.Status = sb.ClusterDegraded },
			tasks:  1,
		},
		"RebalancingChangedTasks": {
			reason: "is_re_balancing follows the task list: its change reads the task list again.",
			need:   Needs{Tasks: true},
			change: func(b *backendView) { b.cluster.IsReBalancing = true },
			tasks:  1,
		},
		"RebalancingChangedNodesAndEvents": {
			reason: "is_re_balancing follows the task list alone, and nothing logs it: its change reads neither the log nor the node list again.",
			need:   Needs{Nodes: true, Events: true},
			change: func(b *backendView) { b.cluster.IsReBalancing = true },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
			api, reads := countedAPI(b)
			tasks := 0
			api.MockListTasks = func(context.Context, string) ([]sb.TaskDTO, error) {
				tasks++
				return nil, nil
			}
			w, clk, wakes := newTestWatcher(time.Minute)
			// No probe is due and no detail grows old within the test: what
			// is read is read for the change.
			w.ProbeInterval = time.Hour
			w.Observer = &Observer{MaxAge: 0, DetailMaxAge: time.Hour, Now: clk.Now}
			ctx := context.Background()
			op := types.NamespacedName{Namespace: "ns", Name: "op"}
			w.Watch(v1alpha1.ClusterOpsKind, Source{Key: "k", API: api}, "c1", tc.need, false, &Snapshot{Cluster: b.cluster}, op)
			w.pollAll(ctx)
			drain(wakes)
			*reads, tasks = readCounts{}, 0
			b.set(tc.change)
			clk.Step(time.Second)
			w.pollAll(ctx)
			if *reads != tc.reads || tasks != tc.tasks {
				t.Errorf("\n%s\nreads: log %d, node list %d, task list %d; want %d, %d, %d", tc.reason,
					reads.logs, reads.nodes, tasks, tc.reads.logs, tc.reads.nodes, tc.tasks)
			}
			if diff := cmp.Diff([]types.NamespacedName{op}, drain(wakes)); diff != "" {
				t.Errorf("\n%s\nwake-ups: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestWatcherNodeStatusFromLog: a node's status change that the probe shows
// wakes the operation on the node list the log brought up to date, without
// reading the node list again.
func TestWatcherNodeStatusFromLog(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
		nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, events: []sb.ClusterLogEntry{taskEntry(1)}}
	api, reads := countedAPI(b)
	w, clk, wakes, op := watchingNodesAndEvents(api, b.cluster)
	ctx := context.Background()
	b.set(func(b *backendView) {
		b.nodes[0].Status = sb.NodeOffline
		b.events = append(b.events, nodeStatusEntry(2, "n1", "online", "offline"))
	})
	*reads = readCounts{}
	clk.Step(time.Second)
	w.pollAll(ctx)
	if reads.logs != 1 || reads.nodes != 0 {
		t.Errorf("a node's status change: log read %d times, node list %d times; want 1 and 0", reads.logs, reads.nodes)
	}
	if diff := cmp.Diff([]types.NamespacedName{op}, drain(wakes)); diff != "" {
		t.Errorf("a node's status change: wake-ups: -want, +got:\n%s", diff)
	}
	s, err := w.Observer.Snapshot(ctx, Source{Key: "k", API: api}, "c1", Needs{Nodes: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Node("n1"); n.Status != sb.NodeOffline || reads.nodes != 0 {
		t.Errorf("the operation's reconcile: node n1 %s after %d node-list reads, want offline after none", n.Status, reads.nodes)
	}
}
