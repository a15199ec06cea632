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
	"net/http"
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

func TestParseLogEntry(t *testing.T) {
	at := testLogStart
	withDate := func(e sb.ClusterLogEntry, date string) sb.ClusterLogEntry {
		e.Date = date
		return e
	}
	cases := map[string]struct {
		reason string
		entry  sb.ClusterLogEntry
		want   Event
		ok     bool
	}{
		"ClusterStatusChange": {
			reason: "A cluster status change (cluster_events.py:34-41) is parsed into from and to.",
			entry:  clusterStatusEntry(0, "unready", "in_activation"),
			want: Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", Subject: SubjectCluster, From: "unready", To: "in_activation",
				Message: "Cluster status changed from unready to in_activation"},
			ok: true,
		},
		"NodeStatusChange": {
			reason: "A storage node status change (storage_events.py:46-56, with colons) names its node in NodeId.",
			entry:  nodeStatusEntry(0, "n1", "online", "in_shutdown"),
			want: Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", NodeID: "n1", Subject: SubjectNode, From: "online", To: "in_shutdown",
				Message: "Storage node status changed from: online to: in_shutdown"},
			ok: true,
		},
		"NodeMessageWithoutColons": {
			reason: "A node message in the form the backend does not write is no status change.",
			entry:  logEntry(0, "STATUS_CHANGE", "n1", "Storage node status changed from online to offline"),
			want:   Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", NodeID: "n1", Message: "Storage node status changed from online to offline"},
			ok:     true,
		},
		"PoolStatusChange": {
			reason: "A pool's status change (pool_events.py:43) is neither a cluster's nor a node's.",
			entry:  logEntry(0, "STATUS_CHANGE", "c1", "Pool status changed from active to inactive"),
			want:   Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", NodeID: "c1", Message: "Pool status changed from active to inactive"},
			ok:     true,
		},
		"DeviceStatusChange": {
			reason: "A device's status change (device_events.py:57-58) names the device in NodeId: not a node's.",
			entry:  logEntry(0, "STATUS_CHANGE", "d1", "Device status changed from: online to: unavailable"),
			want:   Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", NodeID: "d1", Message: "Device status changed from: online to: unavailable"},
			ok:     true,
		},
		"HealthCheckChange": {
			reason: "A node's health check change (storage_events.py:70-80) is not a status change.",
			entry:  logEntry(0, "STATUS_CHANGE", "n1", "Storage node health check changed from: True to: False"),
			want:   Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "STATUS_CHANGE", NodeID: "n1", Message: "Storage node health check changed from: True to: False"},
			ok:     true,
		},
		"ClusterMessageOfAnotherKind": {
			reason: "Only a STATUS_CHANGE entry is a status change.",
			entry:  logEntry(0, "OBJ_CREATED", "", "Cluster status changed from unready to active"),
			want:   Event{Date: "2026-08-22 20:00:00.000", At: at, Kind: "OBJ_CREATED", Message: "Cluster status changed from unready to active"},
			ok:     true,
		},
		"DateWithoutMilliseconds": {
			reason: "The backend drops the fraction when the milliseconds are 0 (models/events.py:33-37).",
			entry:  withDate(clusterStatusEntry(0, "active", "degraded"), "2026-08-22 20:00:01"),
			want: Event{Date: "2026-08-22 20:00:01", At: at.Add(time.Second), Kind: "STATUS_CHANGE", Subject: SubjectCluster, From: "active", To: "degraded",
				Message: "Cluster status changed from active to degraded"},
			ok: true,
		},
		"DistribEvent": {
			reason: "A data-plane event (events_controller.py:28-56), rewritten by the backend after it is written, is left out.",
			entry: sb.ClusterLogEntry{Date: "2026-08-22 20:00:00.000", NodeID: "n2", Event: "device_status", Level: "Error",
				Message: "unavailable (2)", StorageID: "3", VUID: "None", Status: "processed"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, ok := ParseLogEntry(tc.entry)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nParseLogEntry(...): -want, +got:\n%s", tc.reason, diff)
			}
			if ok != tc.ok {
				t.Errorf("\n%s\nParseLogEntry(...): ok %t, want %t", tc.reason, ok, tc.ok)
			}
		})
	}
}

func TestEventsSince(t *testing.T) {
	window := parseEvents([]sb.ClusterLogEntry{clusterStatusEntry(1, "unready", "in_activation"), taskEntry(2), nodeStatusEntry(2, "n1", "online", "offline"),
		clusterStatusEntry(3, "in_activation", "active")})
	upTo := func(n int) string { return positionOf(window[:n]) }
	cases := map[string]struct {
		reason   string
		events   []Event
		baseline string
		want     []Event
	}{
		"BaselineInTheMiddle": {
			reason:   "Only the events after the baseline are returned.",
			events:   window,
			baseline: upTo(1),
			want:     window[1:],
		},
		"SameMillisecond": {
			reason:   "Of two entries with one date, the one the baseline did not hold is after it.",
			events:   window,
			baseline: upTo(2),
			want:     window[2:],
		},
		"BaselineIsNewest": {
			reason:   "Nothing happened after a baseline that is the newest event.",
			events:   window,
			baseline: upTo(4),
		},
		"BaselineLeftTheWindow": {
			reason:   "A baseline older than the window: every event of the window is newer, by date.",
			events:   window[2:],
			baseline: upTo(1),
			want:     window[2:],
		},
		"EmptyLogBaseline": {
			reason:   "A log empty before the call (the backend answered 500): every event since is the call's.",
			events:   window,
			baseline: emptyLog,
			want:     window,
		},
		"UnknownBaseline": {
			reason:   "An unknown baseline (none, or an event id written by an older provider) has no event after it: the window is never taken for the call's.",
			events:   window,
			baseline: "3f1c9a54-0c1e-4b1d-9a33-0b6c7f6f1e2a",
		},
		"NoEvents": {
			reason:   "Without events there is nothing since.",
			baseline: upTo(1),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Snapshot{Events: tc.events}
			if diff := cmp.Diff(tc.want, s.EventsSince(tc.baseline), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nEventsSince(%q): -want, +got:\n%s", tc.reason, tc.baseline, diff)
			}
		})
	}
}

func TestLogPosition(t *testing.T) {
	cases := map[string]struct {
		reason string
		events []Event
		want   string
	}{
		"NotRead":  {reason: "A snapshot that did not read the log has no position."},
		"Empty":    {reason: "An empty log has the empty position.", events: []Event{}, want: emptyLog},
		"Newest":   {reason: "The newest entry's date and key.", events: parseEvents([]sb.ClusterLogEntry{taskEntry(1), taskEntry(2)}), want: "2026-08-22 20:00:00.002|" + mustParse(taskEntry(2)).key()},
		"SameDate": {reason: "Every entry at the newest date.", events: parseEvents([]sb.ClusterLogEntry{taskEntry(1), clusterStatusEntry(1, "active", "degraded")}), want: "2026-08-22 20:00:00.001|" + mustParse(clusterStatusEntry(1, "active", "degraded")).key() + "|" + mustParse(taskEntry(1)).key()},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := &Snapshot{Events: tc.events}
			if diff := cmp.Diff(tc.want, s.LogPosition()); diff != "" {
				t.Errorf("\n%s\nLogPosition(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func mustParse(r sb.ClusterLogEntry) Event {
	e, _ := ParseLogEntry(r)
	return e
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
			return []sb.ClusterLogEntry{clusterStatusEntry(1, "unready", "in_activation")}, nil
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
	statusChange := func(n int) sb.ClusterLogEntry { return clusterStatusEntry(n, "active", "degraded") }
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
			first:  all, added: []sb.ClusterLogEntry{statusChange(2), statusChange(3)}, nodesAge: time.Second,
			want: online,
		},
		"NodeStatusChanges": {
			reason: "The status a node's last logged change after the mark went to is its status now (with no health check or uptime, which the backend shows only online): the node list is not read again.",
			first:  all, nodesAge: time.Second,
			added: []sb.ClusterLogEntry{
				nodeStatusEntry(2, "n1", "online", "suspended"), statusChange(3),
				nodeStatusEntry(4, "n1", "suspended", "in_shutdown"), taskEntry(4),
				nodeStatusEntry(5, "n1", "in_shutdown", "offline"),
			},
			want: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
		},
		"NodeCameOnline": {
			reason: "A node that came online may have moved (a restart with node_address changes its address and logs nothing, storage_node_ops.py:4614-4635) and has a new uptime: the node list is read again.",
			first:  all, nodesAge: time.Second,
			added:     []sb.ClusterLogEntry{nodeStatusEntry(2, "n2", "online", "offline"), nodeStatusEntry(3, "n2", "offline", "in_restart"), nodeStatusEntry(4, "n2", "in_restart", "online")},
			backend:   []sb.StorageNodeDTO{online[0], {ID: "n2", Status: sb.NodeOnline, MgmtIP: "10.9.0.1"}},
			nodeReads: 1,
			want:      []sb.StorageNodeDTO{online[0], {ID: "n2", Status: sb.NodeOnline, MgmtIP: "10.9.0.1"}},
		},
		"UnknownNode": {
			reason: "A status change of a node the list does not have (a new node) is read.",
			first:  all, nodesAge: time.Second,
			added:     []sb.ClusterLogEntry{nodeStatusEntry(2, "n3", "in_creation", "online")},
			backend:   append(slices.Clone(online), sb.StorageNodeDTO{ID: "n3", Status: sb.NodeOnline}),
			nodeReads: 1,
			want:      append(slices.Clone(online), sb.StorageNodeDTO{ID: "n3", Status: sb.NodeOnline}),
		},
		"NodeEventNotAStatusChange": {
			reason: "A node's event that is not a status change (here its health check, storage_events.py:70-80) may be a change the node list shows: it is read again.",
			first:  all, added: []sb.ClusterLogEntry{logEntry(2, "STATUS_CHANGE", "n1", "Storage node health check changed from: True to: False")}, nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"NodeDeleted": {
			reason: "A node record deleted (a stale in_creation record replaced, storage_node_ops.py:3037-3041) is no status change: the node list is read again.",
			first:  all, added: []sb.ClusterLogEntry{logEntry(2, "OBJ_DELETED", "n2", "Storage node deleted n2")}, nodesAge: time.Second,
			nodeReads: 1, want: online,
		},
		"EventsThatChangeNoNode": {
			reason: "Task, device and pool events change no node record: the node list is as it was.",
			first:  all, added: []sb.ClusterLogEntry{taskEntry(2), logEntry(3, "STATUS_CHANGE", "d1", "Device status changed from: online to: unavailable"),
				logEntry(4, "OBJ_CREATED", "c1", "Pool created pool1")}, nodesAge: time.Second,
			want: online,
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
			added:     []sb.ClusterLogEntry{nodeStatusEntry(2, "n1", "online", "offline")},
			backend:   []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
			nodeReads: 1,
			want:      []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOffline}, {ID: "n2", Status: sb.NodeOnline}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterActive},
				nodes: slices.Clone(online), events: []sb.ClusterLogEntry{statusChange(1)}}
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
		out = append(out, clusterStatusEntry(10+i, "active", "degraded"))
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
	// log is a backend log of n entries, oldest first; every third a
	// data-plane entry (which the window leaves out).
	log := func(n int) []sb.ClusterLogEntry {
		out := make([]sb.ClusterLogEntry, 0, n)
		for i := 1; i <= n; i++ {
			e := taskEntry(i)
			if i%3 == 0 {
				e.Event, e.Level, e.Message, e.Status = "device_status", "Error", "unavailable (1)", "processed"
			}
			out = append(out, e)
		}
		return out
	}
	// window is the window of entries k…n of log.
	window := func(k, n int, whole bool) logWindow {
		all := log(n)
		return logWindow{events: parseEvents(all[k-1:]), whole: whole}
	}
	serverError := &sb.Error{Kind: sb.KindServerError, Outcome: sb.OutcomeAnswered, StatusCode: http.StatusInternalServerError, Message: "Internal Server Error"}
	cases := map[string]struct {
		reason string
		prev   any
		log    int // entries in the backend's log
		err    error
		want   logWindow
		limits []int // of the reads made
		// wantErr: the read fails.
		wantErr bool
	}{
		"FirstRead": {
			reason: "Without a window to bring up to date the whole window is read.",
			log:    30, want: window(1, 30, true), limits: []int{eventWindow},
		},
		"ReachesBack": {
			reason: "The newest entries that reach back to the window's newest are appended to it: one small read.",
			prev:   window(1, 16, true), log: 30, want: window(1, 30, true), limits: []int{eventProbe},
		},
		"Unchanged": {
			reason: "A log with nothing new leaves the window as it was, after one small read.",
			prev:   window(1, 31, true), log: 31, want: window(1, 31, true), limits: []int{eventProbe},
		},
		"TooManyNew": {
			reason: "More new entries than a small read holds: the whole window is read again.",
			prev:   window(1, 4, true), log: 40, want: window(1, 40, true), limits: []int{eventProbe, eventWindow},
		},
		"ShortLog": {
			reason: "A small read answered with fewer entries than asked is the whole log.",
			prev:   logWindow{events: []Event{}, whole: true}, log: 5, want: window(1, 5, true), limits: []int{eventProbe},
		},
		"NotTheWholeLog": {
			reason: "A full read answered with as many entries as asked may not be the whole log.",
			log:    eventWindow + 10, want: window(11, eventWindow+10, false), limits: []int{eventWindow},
		},
		"EmptyLogAnswers500": {
			reason: "The backend answers an empty log with a plain-text 500 (cluster/__init__.py:203-206): an empty window, not a failure.",
			err:    serverError, want: logWindow{events: []Event{}, whole: true}, limits: []int{eventWindow},
		},
		"OtherErrorsFail": {
			reason: "A 502 from a proxy is no empty log: the read fails.",
			err:    &sb.Error{Kind: sb.KindServerError, Outcome: sb.OutcomeUnknown, StatusCode: http.StatusBadGateway, Message: "Bad Gateway"},
			limits: []int{eventWindow}, wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var limits []int
			api := &fake.MockClient{MockClusterLogs: func(_ context.Context, _ string, limit int) ([]sb.ClusterLogEntry, error) {
				limits = append(limits, limit)
				if tc.err != nil {
					return nil, tc.err
				}
				evs := log(tc.log)
				return evs[max(len(evs)-limit, 0):], nil
			}}
			got, err := readEvents(context.Background(), Source{Key: "k", API: api}, "c1", tc.prev)
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nreadEvents(...): %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(logWindow{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nreadEvents(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.limits, limits); diff != "" {
				t.Errorf("\n%s\nreads (limit): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
