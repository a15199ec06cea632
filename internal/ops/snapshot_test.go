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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pkg/errors"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

func TestParseEvent(t *testing.T) {
	cases := map[string]struct {
		reason string
		entry  sb.ClusterLogEntry
		want   Event
	}{
		"ClusterStatusChange": {
			reason: "A cluster status change is parsed into from and to.",
			entry: sb.ClusterLogEntry{"id": "ev-1", "object_name": "Cluster", "object_id": "c1",
				"message": "Cluster status changed from unready to in_activation"},
			want: Event{ID: "ev-1", Object: "Cluster", ObjectID: "c1", From: "unready", To: "in_activation",
				Message: "Cluster status changed from unready to in_activation"},
		},
		"NodeStatusChange": {
			reason: "A storage node status change is parsed the same way.",
			entry: sb.ClusterLogEntry{"id": "ev-2", "object_name": "StorageNode", "object_id": "n1",
				"message": "Storage node status changed from online to in_shutdown"},
			want: Event{ID: "ev-2", Object: "StorageNode", ObjectID: "n1", From: "online", To: "in_shutdown",
				Message: "Storage node status changed from online to in_shutdown"},
		},
		"NotAStatusChange": {
			reason: "Any other message keeps from and to empty.",
			entry: sb.ClusterLogEntry{"id": "ev-3", "object_name": "Cluster", "object_id": "c1",
				"message": "Device added to cluster"},
			want: Event{ID: "ev-3", Object: "Cluster", ObjectID: "c1", Message: "Device added to cluster"},
		},
		"NonStringFields": {
			reason: "Fields of unexpected types read as empty rather than panicking.",
			entry:  sb.ClusterLogEntry{"id": 17, "object_name": nil, "message": []string{"x"}},
			want:   Event{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := parseEvent(tc.entry)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nparseEvent(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEventsSince(t *testing.T) {
	evs := []Event{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	cases := map[string]struct {
		reason   string
		events   []Event
		baseline string
		want     []Event
		latest   string
	}{
		"BaselineInTheMiddle": {
			reason:   "Only the events after the baseline are returned.",
			events:   evs,
			baseline: "a",
			want:     []Event{{ID: "b"}, {ID: "c"}},
			latest:   "c",
		},
		"BaselineIsNewest": {
			reason:   "Nothing happened after a baseline that is the newest event.",
			events:   evs,
			baseline: "c",
			want:     []Event{},
			latest:   "c",
		},
		"BaselineLeftTheWindow": {
			reason:   "A baseline no longer in the window means every event in the window is newer.",
			events:   evs,
			baseline: "gone",
			want:     evs,
			latest:   "c",
		},
		"EmptyBaseline": {
			reason:   "An empty baseline (no events before the call) returns every event.",
			events:   evs,
			baseline: "",
			want:     evs,
			latest:   "c",
		},
		"NoEvents": {
			reason:   "Without events there is nothing since and no latest id.",
			events:   nil,
			baseline: "a",
			want:     nil,
			latest:   "",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Snapshot{Events: tc.events}
			if diff := cmp.Diff(tc.want, s.EventsSince(tc.baseline), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nEventsSince(%q): -want, +got:\n%s", tc.reason, tc.baseline, diff)
			}
			if diff := cmp.Diff(tc.latest, s.LatestEventID()); diff != "" {
				t.Errorf("\n%s\nLatestEventID(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestLiveNodes(t *testing.T) {
	cases := map[string]struct {
		reason string
		nodes  []sb.StorageNodeDTO
		want   []sb.StorageNodeDTO
	}{
		"RemovedDropped": {
			reason: "Removed nodes are not live; the others keep the backend's order.",
			nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}, {ID: "n2", Status: sb.NodeRemoved},
				{ID: "n3", Status: sb.NodeOffline}},
			want: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}, {ID: "n3", Status: sb.NodeOffline}},
		},
		"NoNodes": {
			reason: "No nodes means no live nodes.",
			want:   []sb.StorageNodeDTO{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Snapshot{Nodes: tc.nodes}
			if diff := cmp.Diff(tc.want, s.LiveNodes(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nLiveNodes(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSnapshotNode(t *testing.T) {
	s := &Snapshot{Nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}, {ID: "n2", Status: sb.NodeRemoved}}}
	cases := map[string]struct {
		reason string
		id     string
		want   sb.StorageNodeDTO
		ok     bool
	}{
		"Live":    {reason: "A live node is found.", id: "n1", want: sb.StorageNodeDTO{ID: "n1", Status: sb.NodeOnline}, ok: true},
		"Removed": {reason: "A removed node record is still found.", id: "n2", want: sb.StorageNodeDTO{ID: "n2", Status: sb.NodeRemoved}, ok: true},
		"Unknown": {reason: "An unknown id is not found.", id: "n9"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := s.Node(tc.id)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nNode(%q): -want, +got:\n%s", tc.reason, tc.id, diff)
			}
			if ok != tc.ok {
				t.Errorf("\n%s\nNode(%q) found = %t, want %t", tc.reason, tc.id, ok, tc.ok)
			}
		})
	}
}

// counting is a backend whose read calls are counted.
type counting struct {
	clusters, nodes, logs, tasks atomic.Int64
	delay                        time.Duration
	clusterList                  []sb.ClusterDTO
	listErr, nodesErr, tasksErr  error
	getErr                       error
	got                          *sb.ClusterDTO
}

func (c *counting) api() *fake.MockClient {
	return &fake.MockClient{
		MockListClusters: func(_ context.Context) ([]sb.ClusterDTO, error) {
			c.clusters.Add(1)
			time.Sleep(c.delay)
			return c.clusterList, c.listErr
		},
		MockGetCluster: func(_ context.Context, _ string) (*sb.ClusterDTO, error) {
			return c.got, c.getErr
		},
		MockListStorageNodes: func(_ context.Context, _ string) ([]sb.StorageNodeDTO, error) {
			c.nodes.Add(1)
			return []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}, c.nodesErr
		},
		MockClusterLogs: func(_ context.Context, _ string, limit int) ([]sb.ClusterLogEntry, error) {
			c.logs.Add(1)
			if limit != eventWindow && limit != eventProbe {
				return nil, errors.Errorf("ClusterLogs limit %d, want %d or %d", limit, eventWindow, eventProbe)
			}
			return []sb.ClusterLogEntry{{"id": "e1", "object_name": "Cluster", "object_id": "c1",
				"message": "Cluster status changed from unready to in_activation"}}, nil
		},
		MockListTasks: func(_ context.Context, _ string) ([]sb.TaskDTO, error) {
			c.tasks.Add(1)
			if c.tasksErr != nil {
				return nil, c.tasksErr
			}
			return []sb.TaskDTO{{ID: "t1", FunctionName: "cluster_expand", Status: sb.TaskRunning}}, nil
		},
	}
}

func TestObserverSharing(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	all := Needs{Nodes: true, Events: true, Tasks: true}

	type call struct {
		at    time.Duration // since t0
		fresh bool
		// since, when set, asks for parts requested at or after t0+since
		// (Observer.Since).
		since *time.Duration
		key   string
		need  Needs
	}
	after := func(d time.Duration) *time.Duration { return &d }
	type want struct {
		clusters, nodes, logs, tasks int64
	}
	cases := map[string]struct {
		reason string
		calls  []call
		want   want
	}{
		"WithinMaxAgeShared": {
			reason: "Two snapshots within MaxAge read the backend once.",
			calls:  []call{{at: 0, key: "k", need: all}, {at: 500 * time.Millisecond, key: "k", need: all}},
			want:   want{clusters: 1, nodes: 1, logs: 1, tasks: 1},
		},
		"AtMaxAgeShared": {
			reason: "An observation exactly MaxAge old is still used.",
			calls:  []call{{at: 0, key: "k", need: all}, {at: time.Second, key: "k", need: all}},
			want:   want{clusters: 1, nodes: 1, logs: 1, tasks: 1},
		},
		"AfterMaxAgeRefetched": {
			reason: "A snapshot after MaxAge reads the backend again.",
			calls:  []call{{at: 0, key: "k", need: all}, {at: 1500 * time.Millisecond, key: "k", need: all}},
			want:   want{clusters: 2, nodes: 2, logs: 2, tasks: 2},
		},
		"FreshAlwaysFetches": {
			reason: "Fresh bypasses the shared observation even within MaxAge.",
			calls:  []call{{at: 0, key: "k", need: all}, {at: 0, fresh: true, key: "k", need: all}, {at: 0, fresh: true, key: "k", need: all}},
			want:   want{clusters: 3, nodes: 3, logs: 3, tasks: 3},
		},
		"FreshRefreshesShared": {
			reason: "A fresh observation replaces the shared one, so a following Snapshot reuses it.",
			calls:  []call{{at: 0, fresh: true, key: "k", need: all}, {at: 0, key: "k", need: all}},
			want:   want{clusters: 1, nodes: 1, logs: 1, tasks: 1},
		},
		"OnlyWhatIsNeeded": {
			reason: "Nodes, logs and tasks are read only when a step needs them.",
			calls:  []call{{at: 0, key: "k"}, {at: 0, key: "k", need: Needs{Events: true}}},
			want:   want{clusters: 1, logs: 1},
		},
		"SinceReadsOnlyOlderParts": {
			reason: "Since reads again only the parts requested before its bound: the node list from before it, not the newer log.",
			calls: []call{{at: 0, key: "k", need: Needs{Nodes: true}}, {at: 500 * time.Millisecond, key: "k", need: Needs{Events: true}},
				{at: 600 * time.Millisecond, since: after(300 * time.Millisecond), key: "k", need: Needs{Nodes: true, Events: true}}},
			want: want{clusters: 2, nodes: 2, logs: 1},
		},
		"LogReadMakesNodeListReadAfterIt": {
			reason: "A decision (Since) that reads the log reads the node list after it, even one recent enough: a node change between the two reads then shows in both.",
			calls: []call{{at: 0, key: "k", need: Needs{Events: true}}, {at: 500 * time.Millisecond, key: "k", need: Needs{Nodes: true}},
				{at: 600 * time.Millisecond, since: after(300 * time.Millisecond), key: "k", need: Needs{Nodes: true, Events: true}}},
			want: want{clusters: 2, nodes: 2, logs: 2},
		},
		"SourcesNotShared": {
			reason: "Two control planes (source keys) never share observations.",
			calls:  []call{{at: 0, key: "a", need: all}, {at: 0, key: "b", need: all}},
			want:   want{clusters: 2, nodes: 2, logs: 2, tasks: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &counting{clusterList: []sb.ClusterDTO{{ID: "c0"}, {ID: "c1", Status: sb.ClusterActive}}}
			api := c.api()
			var now time.Time
			o := NewObserver(time.Second)
			o.Now = func() time.Time { return now }
			for i, cl := range tc.calls {
				now = t0.Add(cl.at)
				get := o.Snapshot
				switch {
				case cl.fresh:
					get = o.Fresh
				case cl.since != nil:
					get = func(ctx context.Context, src Source, id string, need Needs) (*Snapshot, error) {
						return o.Since(ctx, src, id, need, t0.Add(*cl.since))
					}
				}
				s, err := get(context.Background(), Source{Key: cl.key, API: api}, "c1", cl.need)
				if err != nil {
					t.Fatalf("\n%s\ncall %d: unexpected error: %v", tc.reason, i, err)
				}
				if s.Cluster.ID != "c1" || s.Cluster.Status != sb.ClusterActive {
					t.Errorf("\n%s\ncall %d: snapshot of cluster %q (%s), want c1 (active)", tc.reason, i, s.Cluster.ID, s.Cluster.Status)
				}
				if !s.At.Equal(now) {
					t.Errorf("\n%s\ncall %d: snapshot At %s, want %s", tc.reason, i, s.At, now)
				}
				if (s.Nodes != nil) != cl.need.Nodes || (s.Events != nil) != cl.need.Events || (s.Tasks != nil) != cl.need.Tasks {
					t.Errorf("\n%s\ncall %d: snapshot has nodes=%t events=%t tasks=%t, want %+v", tc.reason, i,
						s.Nodes != nil, s.Events != nil, s.Tasks != nil, cl.need)
				}
			}
			got := want{clusters: c.clusters.Load(), nodes: c.nodes.Load(), logs: c.logs.Load(), tasks: c.tasks.Load()}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nbackend reads: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestObserverNodeListFromLog(t *testing.T) {
	all := Needs{Nodes: true, Events: true}
	clusterEvent := func(id, msg string) sb.ClusterLogEntry {
		return sb.ClusterLogEntry{"id": id, "object_name": "Cluster", "object_id": "c1", "message": msg}
	}
	statusChange := func(id string) sb.ClusterLogEntry {
		return clusterEvent(id, "Cluster status changed from active to degraded")
	}
	nodeEvent := func(id, node, msg string) sb.ClusterLogEntry {
		return sb.ClusterLogEntry{"id": id, "object_name": "StorageNode", "object_id": node, "message": msg}
	}
	healthy, uptime := true, "PT1H"
	online := []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline, HealthCheck: &healthy, Uptime: &uptime}, {ID: "n2", Status: sb.NodeOnline}}
	cases := map[string]struct {
		reason string
		// first is what the node list was read with, at t0.
		first Needs
		// added are the events logged after it (the backend's node list
		// changes with them); nodesAge is how long after t0 the log is read
		// again (freshDetail, or a decision's Since).
		added    []sb.ClusterLogEntry
		backend  []sb.StorageNodeDTO
		decision bool
		nodesAge time.Duration
		// nodeReads: of the node list by the second observation, and the
		// node statuses it shows.
		nodeReads int
		want      []sb.StorageNodeDTO
	}{
		"NothingNew": {
			reason: "A log that shows nothing after the node list's mark shows that the node list is as it was.",
			first:  all, nodesAge: time.Second,
			want: online,
		},
		"OnlyClusterStatusChanges": {
			reason: "Cluster status changes change no node record: the node list is as it was.",
			first:  all, added: []sb.ClusterLogEntry{statusChange("e2"), statusChange("e3")}, nodesAge: time.Second,
			want: online,
		},
		"NodeStatusChanges": {
			reason: "The status a node's last logged change after the mark went to is its status now (with no health check or uptime, which the backend shows only online): the node list is not read again.",
			first:  all, nodesAge: time.Second,
			added: []sb.ClusterLogEntry{
				nodeEvent("e2", "n1", "Storage node status changed from online to suspended"), statusChange("e3"),
				nodeEvent("e4", "n1", "Storage node status changed from suspended to in_shutdown"),
				nodeEvent("e5", "n1", "Storage node status changed from in_shutdown to offline"),
			},
			want: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
		},
		"UnknownNode": {
			reason: "A status change of a node the list does not have (a new node) is read.",
			first:  all, nodesAge: time.Second,
			added:     []sb.ClusterLogEntry{nodeEvent("e2", "n3", "Storage node status changed from in_creation to online")},
			backend:   append(slices.Clone(online), sb.StorageNodeDTO{ID: "n3", Status: sb.NodeOnline}),
			nodeReads: 1,
			want:      append(slices.Clone(online), sb.StorageNodeDTO{ID: "n3", Status: sb.NodeOnline}),
		},
		"NodeEventNotAStatusChange": {
			reason: "A node's event that is not a status change may be a change the node list does not show: it is read again.",
			first:  all, added: []sb.ClusterLogEntry{nodeEvent("e2", "n1", "Storage node address changed to 10.0.0.9")}, nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"OtherClusterEvent": {
			reason: "A cluster event that is not a status change (here a name change) leaves the node list unknown: it is read again.",
			first:  all, added: []sb.ClusterLogEntry{clusterEvent("e2", "name change from a to b")}, nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"MarkLeftTheWindow": {
			reason: "When the mark left the event window, what happened after it is unknown: the node list is read again.",
			first:  all, added: manyStatusChanges(eventWindow + 1), nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"ReadWithoutTheLog": {
			reason: "A node list read without a log read before it has no mark: it is read again.",
			first:  Needs{Nodes: true}, nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"OlderThanTheFloor": {
			reason: "A node list older than DetailMaxAge is read again, whatever the log shows.",
			first:  all, nodesAge: 2 * time.Minute,
			nodeReads: 1, want: online,
		},
		"Decision": {
			reason: "A decision reads what it decides on: the node list is read again though the log brings it up to date.",
			first:  all, decision: true, nodesAge: time.Second,
			added:     []sb.ClusterLogEntry{nodeEvent("e2", "n1", "Storage node status changed from online to offline")},
			backend:   []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
			nodeReads: 1,
			want:      []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: slices.Clone(online), events: []sb.ClusterLogEntry{statusChange("e1")}}
			api, reads := countedAPI(b)
			src := Source{Key: "k", API: api}
			now := t0
			o := &Observer{MaxAge: 0, DetailMaxAge: time.Minute, Now: func() time.Time { return now }}
			ctx := context.Background()
			if _, err := o.Snapshot(ctx, src, "c1", tc.first); err != nil {
				t.Fatal(err)
			}
			b.set(func(b *backendView) {
				b.events = append(b.events, tc.added...)
				if tc.backend != nil {
					b.nodes = tc.backend
				}
			})
			*reads = readCounts{}
			now = t0.Add(tc.nodesAge)
			var got *Snapshot
			var err error
			if tc.decision {
				got, err = o.Since(ctx, src, "c1", all, now)
			} else {
				got, err = o.freshDetail(ctx, src, "c1", all, now)
			}
			if err != nil {
				t.Fatal(err)
			}
			if reads.logs == 0 {
				t.Errorf("\n%s\nthe log was not read again", tc.reason)
			}
			if reads.nodes != tc.nodeReads {
				t.Errorf("\n%s\nnode list read %d times, want %d", tc.reason, reads.nodes, tc.nodeReads)
			}
			if diff := cmp.Diff(tc.want, got.Nodes); diff != "" {
				t.Errorf("\n%s\nnodes: -want, +got:\n%s", tc.reason, diff)
			}
			// What a finishing write shows: the same, without a read.
			seen := o.Seen(src, "c1", now)
			if seen == nil {
				t.Fatalf("\n%s\nSeen: nothing", tc.reason)
			}
			if diff := cmp.Diff(tc.want, seen.Nodes); diff != "" {
				t.Errorf("\n%s\nSeen nodes: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// manyStatusChanges returns n cluster status change events.
func manyStatusChanges(n int) []sb.ClusterLogEntry {
	out := make([]sb.ClusterLogEntry, 0, n)
	for i := range n {
		out = append(out, sb.ClusterLogEntry{"id": fmt.Sprintf("s%d", i), "object_name": "Cluster", "message": "Cluster status changed from active to degraded"})
	}
	return out
}

func TestObserverSeen(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type read struct {
		at   time.Duration // since t0
		need Needs
	}
	type want struct {
		found   bool
		nodes   bool
		backend int64 // cluster and node reads in all
	}
	cases := map[string]struct {
		reason string
		reads  []read
		since  time.Duration
		want   want
	}{
		"NothingRead": {
			reason: "With nothing observed there is nothing to show, and Seen reads nothing itself.",
			since:  0,
			want:   want{},
		},
		"RecordAfterSince": {
			reason: "A record requested after since is shown; without a node list read then, no nodes.",
			reads:  []read{{at: 2 * time.Second}},
			since:  time.Second,
			want:   want{found: true, backend: 1},
		},
		"RecordAtSince": {
			reason: "A record requested exactly at since is shown.",
			reads:  []read{{at: time.Second, need: Needs{Nodes: true}}},
			since:  time.Second,
			want:   want{found: true, nodes: true, backend: 2},
		},
		"RecordBeforeSince": {
			reason: "A record requested before since (before the operation's last call) is not shown.",
			reads:  []read{{at: 0, need: Needs{Nodes: true}}},
			since:  time.Second,
			want:   want{backend: 2},
		},
		"NodesBeforeSince": {
			reason: "A node list older than since is left out even when the record is recent.",
			reads:  []read{{at: 0, need: Needs{Nodes: true}}, {at: 2 * time.Second}},
			since:  time.Second,
			want:   want{found: true, backend: 3},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &counting{clusterList: []sb.ClusterDTO{{ID: "c0"}, {ID: "c1", Status: sb.ClusterActive}}}
			src := Source{Key: "k", API: c.api()}
			var now time.Time
			o := NewObserver(0)
			o.Now = func() time.Time { return now }
			for i, r := range tc.reads {
				now = t0.Add(r.at)
				if _, err := o.Fresh(context.Background(), src, "c1", r.need); err != nil {
					t.Fatalf("\n%s\nread %d: %v", tc.reason, i, err)
				}
			}
			now = t0.Add(time.Hour)
			s := o.Seen(src, "c1", t0.Add(tc.since))
			got := want{found: s != nil, backend: c.clusters.Load() + c.nodes.Load()}
			if s != nil {
				got.nodes = s.Nodes != nil
				if s.Cluster.ID != "c1" || s.Cluster.Status != sb.ClusterActive {
					t.Errorf("\n%s\nSeen(...): cluster %q (%s), want c1 (active)", tc.reason, s.Cluster.ID, s.Cluster.Status)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nSeen(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestObserverConcurrentSnapshotsFetchOnce(t *testing.T) {
	c := &counting{clusterList: []sb.ClusterDTO{{ID: "c1", Status: sb.ClusterActive}}, delay: 20 * time.Millisecond}
	api := c.api()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	o := NewObserver(time.Second)
	o.Now = func() time.Time { return now }

	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			s, err := o.Snapshot(context.Background(), Source{Key: "k", API: api}, "c1", Needs{Nodes: true, Events: true})
			if err == nil && (s.Cluster.ID != "c1" || len(s.Nodes) != 1 || len(s.Events) != 1) {
				err = errors.Errorf("incomplete snapshot: %+v", s)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Snapshot(...): %v", err)
		}
	}
	got := []int64{c.clusters.Load(), c.nodes.Load(), c.logs.Load()}
	if diff := cmp.Diff([]int64{1, 1, 1}, got); diff != "" {
		t.Errorf("\n%d concurrent snapshots within MaxAge read clusters, nodes and logs once each.\nreads: -want, +got:\n%s", n, diff)
	}
}

func TestObserverErrors(t *testing.T) {
	errBoom := errors.New("boom")
	type want struct {
		err      string // substring; "" means no error
		tasksErr string // substring; "" means none
		tasks    int
	}
	cases := map[string]struct {
		reason  string
		backend *counting
		need    Needs
		want    want
	}{
		"ClusterMissing": {
			reason:  "A cluster the backend does not list is an error naming it.",
			backend: &counting{clusterList: []sb.ClusterDTO{{ID: "other"}}},
			want:    want{err: "cluster c1 does not exist in the backend"},
		},
		"ListClustersAndGetFail": {
			reason:  "A failed cluster list falls back to reading the cluster alone; when that fails too the snapshot fails, wrapped.",
			backend: &counting{listErr: errBoom, getErr: errBoom},
			want:    want{err: errGetCluster + ": boom"},
		},
		"ListClustersFailsGetWorks": {
			reason:  "The backend fails the whole list while any cluster is in_shrink; the cluster read alone still works.",
			backend: &counting{listErr: errBoom, got: &sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive}},
		},
		"ListNodesFails": {
			reason:  "A failed node list fails a snapshot that needs nodes.",
			backend: &counting{clusterList: []sb.ClusterDTO{{ID: "c1"}}, nodesErr: errBoom},
			need:    Needs{Nodes: true},
			want:    want{err: errListNodes + ": boom"},
		},
		"TasksFailRecorded": {
			reason:  "A failed task list does not fail the snapshot: the error is kept for the step to judge.",
			backend: &counting{clusterList: []sb.ClusterDTO{{ID: "c1"}}, tasksErr: errBoom},
			need:    Needs{Tasks: true},
			want:    want{tasksErr: errListTasks + ": boom"},
		},
		"TasksRead": {
			reason:  "Tasks that can be listed are in the snapshot and TasksErr is nil.",
			backend: &counting{clusterList: []sb.ClusterDTO{{ID: "c1"}}},
			need:    Needs{Tasks: true},
			want:    want{tasks: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := NewObserver(time.Second)
			s, err := o.Snapshot(context.Background(), Source{Key: "k", API: tc.backend.api()}, "c1", tc.need)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("\n%s\nSnapshot(...): error %v, want one containing %q", tc.reason, err, tc.want.err)
				}
				if s != nil {
					t.Errorf("\n%s\nSnapshot(...): a snapshot returned with the error", tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("\n%s\nSnapshot(...): unexpected error %v", tc.reason, err)
			}
			gotTasksErr := ""
			if s.TasksErr != nil {
				gotTasksErr = s.TasksErr.Error()
			}
			if !strings.Contains(gotTasksErr, tc.want.tasksErr) || (tc.want.tasksErr == "") != (gotTasksErr == "") {
				t.Errorf("\n%s\nTasksErr = %q, want %q", tc.reason, gotTasksErr, tc.want.tasksErr)
			}
			if len(s.Tasks) != tc.want.tasks {
				t.Errorf("\n%s\nlen(Tasks) = %d, want %d", tc.reason, len(s.Tasks), tc.want.tasks)
			}
		})
	}
}

func TestReadEvents(t *testing.T) {
	// log is a backend log of events e1…en, oldest first.
	log := func(n int) []sb.ClusterLogEntry {
		out := make([]sb.ClusterLogEntry, 0, n)
		for i := 1; i <= n; i++ {
			out = append(out, sb.ClusterLogEntry{"id": fmt.Sprintf("e%d", i)})
		}
		return out
	}
	// window is the parsed events ek…en.
	window := func(k, n int) []Event {
		out := make([]Event, 0, n-k+1)
		for i := k; i <= n; i++ {
			out = append(out, Event{ID: fmt.Sprintf("e%d", i)})
		}
		return out
	}
	cases := map[string]struct {
		reason string
		prev   any
		log    int // events in the backend's log
		want   []Event
		limits []int // of the reads made
	}{
		"FirstRead": {
			reason: "Without a window to bring up to date the whole window is read.",
			log:    30, want: window(1, 30), limits: []int{eventWindow},
		},
		"ReachesBack": {
			reason: "The newest events that reach back to the window's newest are appended to it: one small read.",
			prev:   window(1, 15), log: 30, want: window(1, 30), limits: []int{eventProbe},
		},
		"Unchanged": {
			reason: "A log with nothing new leaves the window as it was, after one small read.",
			prev:   window(1, 30), log: 30, want: window(1, 30), limits: []int{eventProbe},
		},
		"TooManyNew": {
			reason: "More new events than a small read holds: the whole window is read again.",
			prev:   window(1, 3), log: 40, want: window(1, 40), limits: []int{eventProbe, eventWindow},
		},
		"ShortLog": {
			reason: "A small read answered with fewer events than asked is the whole log.",
			prev:   []Event{}, log: 5, want: window(1, 5), limits: []int{eventProbe},
		},
		"CappedAtTheWindow": {
			reason: "The window keeps the newest eventWindow events.",
			prev:   window(1, eventWindow), log: eventWindow + 5, want: window(6, eventWindow+5), limits: []int{eventProbe},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var limits []int
			api := &fake.MockClient{MockClusterLogs: func(_ context.Context, _ string, limit int) ([]sb.ClusterLogEntry, error) {
				limits = append(limits, limit)
				evs := log(tc.log)
				return evs[max(len(evs)-limit, 0):], nil
			}}
			got, err := readEvents(context.Background(), Source{Key: "k", API: api}, "c1", tc.prev)
			if err != nil {
				t.Fatalf("\n%s\nreadEvents(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nreadEvents(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.limits, limits); diff != "" {
				t.Errorf("\n%s\nreads (limit): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
