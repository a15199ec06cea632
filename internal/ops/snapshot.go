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
	"time"

	"github.com/pkg/errors"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// eventWindow is how many of the newest backend log events a snapshot
// holds. Evidence is looked for among the events after a call's baseline.
const eventWindow = 200

// eventProbe is how many of the newest events a read of the log asks for
// when it has a window to bring up to date: enough to reach back to the
// window's newest event after the few events a cluster logs between two
// reads (docs/operations-engine.md, "What an operation costs the backend").
const eventProbe = 20

const (
	errListClusters = "cannot list clusters"
	errGetCluster   = "cannot get the cluster"
	errListNodes    = "cannot list storage nodes"
	errReadLogs     = "cannot read cluster logs"
	errListTasks    = "cannot list tasks"
	errNoCluster    = "cluster %s does not exist in the backend"
)

// A Source is one simplyblock control plane, as seen with one set of
// credentials. Key identifies it for sharing observations.
type Source struct {
	Key string
	API sb.API
}

// Needs says what a step must see besides the cluster record.
type Needs struct {
	Nodes  bool
	Events bool
	Tasks  bool
}

func (n Needs) or(o Needs) Needs {
	return Needs{Nodes: n.Nodes || o.Nodes, Events: n.Events || o.Events, Tasks: n.Tasks || o.Tasks}
}

// A Snapshot is what the backend showed at one moment.
type Snapshot struct {
	// At is when the snapshot was assembled.
	At time.Time
	// ObservedAt is when the oldest of its parts (shared ones may be older
	// than At) was requested from the backend: everything the backend
	// finished before ObservedAt shows in the snapshot.
	ObservedAt time.Time
	Cluster    sb.ClusterDTO
	// Nodes is every node record, removed ones included; nil unless needed.
	Nodes []sb.StorageNodeDTO
	// Events are the newest control-plane events of the cluster's log,
	// oldest first (eventlog.go); nil unless needed, empty when the log is
	// (the backend then answers 500).
	Events []Event
	// log is the window Events come from.
	log logWindow
	// Tasks are the cluster's listed tasks; nil unless needed. TasksErr is
	// why they could not be read: the backend fails the list while some
	// task types exist, so a step decides what that means.
	Tasks    []sb.TaskDTO
	TasksErr error
}

// LogPosition is the position after the newest event of the window
// (eventlog.go), "" when the log was not read.
func (s *Snapshot) LogPosition() string { return positionOf(s.Events) }

// EventsSince returns the events of the window after position pos; none
// for an unknown position.
func (s *Snapshot) EventsSince(pos string) []Event { return eventsAfter(s.Events, pos) }

// LiveNodes returns the nodes that are not removed, in backend order.
func (s *Snapshot) LiveNodes() []sb.StorageNodeDTO {
	out := make([]sb.StorageNodeDTO, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		if n.Status != sb.NodeRemoved {
			out = append(out, n)
		}
	}
	return out
}

// Node returns the node with id, if it exists.
func (s *Snapshot) Node(id string) (sb.StorageNodeDTO, bool) {
	for _, n := range s.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return sb.StorageNodeDTO{}, false
}

// An Observer shares backend observations between operations: every
// operation on one control plane reads the same cluster list, and every
// operation on one cluster the same node list and log window, each fetched
// at most once per MaxAge. Backend load therefore grows with the number of
// clusters being worked on, not with the number of operations.
type Observer struct {
	// MaxAge is how old a shared cluster record may be.
	MaxAge time.Duration
	// DetailMaxAge is how old a shared node list, log window or task list
	// may be (at least MaxAge): the Watcher reads them again as soon as
	// the cluster's status or the newest event changes, and otherwise once
	// per DetailMaxAge (docs/operations-engine.md, "What an operation costs
	// the backend").
	DetailMaxAge time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	mu  sync.Mutex
	at  time.Time
	val any
	err error
}

// NewObserver returns an Observer whose observations are at most maxAge old.
func NewObserver(maxAge time.Duration) *Observer {
	return &Observer{MaxAge: maxAge, entries: map[string]*cacheEntry{}}
}

func (o *Observer) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// get returns the cached value for key, fetching it when it was requested
// before validSince, when it was requested, and whether this call fetched
// it; concurrent callers for one key wait for a single fetch. fetch is
// passed the value it replaces (nil when there is none or it was an error).
func (o *Observer) get(key string, validSince time.Time, fetch func(prev any) (any, error)) (any, time.Time, bool, error) {
	o.mu.Lock()
	if o.entries == nil {
		o.entries = map[string]*cacheEntry{}
	}
	e, ok := o.entries[key]
	if !ok {
		e = &cacheEntry{}
		o.entries[key] = e
	}
	o.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.at.IsZero() && !e.at.Before(validSince) {
		return e.val, e.at, false, e.err
	}
	var prev any
	if e.err == nil {
		prev = e.val
	}
	// The request time, not the answer's: a change the backend made while
	// the request was in flight may or may not show.
	e.at = o.now()
	e.val, e.err = fetch(prev)
	return e.val, e.at, true, e.err
}

// since is the time from which a part at most maxAge old was requested;
// a negative maxAge asks for a read now.
func (o *Observer) since(maxAge time.Duration) time.Time {
	if maxAge < 0 {
		return o.now().Add(time.Nanosecond)
	}
	return o.now().Add(-maxAge)
}

// Snapshot returns a shared observation of cluster id on src.
func (o *Observer) Snapshot(ctx context.Context, src Source, id string, need Needs) (*Snapshot, error) {
	return o.snapshot(ctx, src, id, need, o.shared())
}

// Fresh returns an observation made now, bypassing (and refreshing) the
// shared one. The guard uses it for a call's baseline.
func (o *Observer) Fresh(ctx context.Context, src Source, id string, need Needs) (*Snapshot, error) {
	now := o.since(-1)
	return o.snapshot(ctx, src, id, need, freshness{record: now, detail: now, tasks: now})
}

// Since returns an observation of cluster id every part of which was
// requested at or after since: shared parts that were are reused, the
// others are read now. A call or its skip is decided on one made after the
// step started and after its last call (Engine.run).
func (o *Observer) Since(ctx context.Context, src Source, id string, need Needs, since time.Time) (*Snapshot, error) {
	f := o.shared()
	if since.IsZero() {
		return o.snapshot(ctx, src, id, need, f)
	}
	return o.snapshot(ctx, src, id, need, freshness{record: latest(f.record, since), detail: latest(f.detail, since), tasks: latest(f.tasks, since)})
}

// Seen returns the newest observation of cluster id the Observer holds,
// without reading the backend: the cluster record, and the node list when
// it too was requested at or after since, or a log window requested then
// brings it up to date (nodeList). Nil when no record was, or when a read
// of it is in flight (its answer may be newer).
func (o *Observer) Seen(src Source, id string, since time.Time) *Snapshot {
	s := &Snapshot{At: o.now()}
	var clusters []sb.ClusterDTO
	for _, key := range []string{src.Key + "|clusters", src.Key + "|cluster|" + id} {
		v, at, ok := o.cached(key, since)
		if ok {
			clusters, s.ObservedAt = v.([]sb.ClusterDTO), at //nolint:forcetypeassert // the cache holds what the fetch stored.
			break
		}
	}
	found := false
	for _, c := range clusters {
		if c.ID == id {
			s.Cluster, found = c, true
			break
		}
	}
	if !found {
		return nil
	}
	if v, at, ok := o.cached(src.Key+"|nodes|"+id, since); ok {
		s.Nodes = v.(nodeList).nodes //nolint:forcetypeassert // as above.
		if at.Before(s.ObservedAt) {
			s.ObservedAt = at
		}
		return s
	}
	if w, _, ok := o.cached(src.Key+"|logs|"+id, since); ok {
		if nodes, at, ok := o.nodesByLog(src, id, w.(logWindow)); ok { //nolint:forcetypeassert // as above.
			s.Nodes = nodes
			if at.Before(s.ObservedAt) {
				s.ObservedAt = at
			}
		}
	}
	return s
}

// cached returns the value held for key when it was read without error at
// or after since and no read of it is in flight.
func (o *Observer) cached(key string, since time.Time) (any, time.Time, bool) {
	o.mu.Lock()
	e, ok := o.entries[key]
	o.mu.Unlock()
	if !ok || !e.mu.TryLock() {
		return nil, time.Time{}, false
	}
	defer e.mu.Unlock()
	if e.at.IsZero() || e.at.Before(since) || e.err != nil || e.val == nil {
		return nil, time.Time{}, false
	}
	return e.val, e.at, true
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// A freshness says from when each part of an observation must have been
// requested.
type freshness struct {
	record, detail time.Time
	// tasks is for the task list; the other details follow detail.
	tasks time.Time
	// nodesByLog: a node list younger than the detail floor that the
	// log brings up to date (nodeList) needs no read. Never for a
	// decision, which reads what it decides on.
	nodesByLog bool
}

// shared is the freshness of a shared observation: each part at most its
// MaxAge old.
func (o *Observer) shared() freshness {
	detail := o.since(o.detailMaxAge())
	return freshness{record: o.since(o.MaxAge), detail: detail, tasks: detail, nodesByLog: true}
}

// freshDetail returns an observation whose cluster record is shared and
// whose log and task list were requested at or after since, and its node
// list too unless the log brings it up to date: what the Watcher reads once the
// cluster status or the newest event changed.
func (o *Observer) freshDetail(ctx context.Context, src Source, id string, need Needs, since time.Time) (*Snapshot, error) {
	f := o.shared()
	f.detail, f.tasks = since, since
	return o.snapshot(ctx, src, id, need, f)
}

// freshTasks returns a shared observation whose task list was requested at
// or after since: what the Watcher reads once only is_re_balancing changed,
// which follows the task list alone.
func (o *Observer) freshTasks(ctx context.Context, src Source, id string, need Needs, since time.Time) (*Snapshot, error) {
	f := o.shared()
	f.tasks = since
	return o.snapshot(ctx, src, id, need, f)
}

// A nodeList is a read of a cluster's node list, with the position of the
// log window read before it (mark, when marked). The backend logs every
// node status change, so a later read of the log brings it up to date: the
// status of each node whose change it logged after mark is the one it logged
// last (docs/operations-engine.md, "What an operation costs the backend").
type nodeList struct {
	nodes  []sb.StorageNodeDTO
	mark   string
	marked bool
}

// after returns the node list brought up to date with w, a log window read
// after it was, or false when w may lack events after the mark, or shows
// after it an event about a node other than a status change of a listed
// node (a new record's first change, a deletion, a health check change),
// or a node coming online: a restart changes what the log does not show,
// its uptime and, when it moved the node, its address
// (storage_node_ops.py:4614-4635, which logs nothing).
func (l nodeList) after(w logWindow) ([]sb.StorageNodeDTO, bool) {
	if !l.marked || !w.reaches(l.mark) {
		return nil, false
	}
	latest := map[string]sb.NodeStatus{}
	for _, e := range eventsAfter(w.events, l.mark) {
		switch {
		case e.Subject == SubjectCluster:
		case e.Subject == SubjectNode && e.To == string(sb.NodeOnline):
			return nil, false
		case e.Subject == SubjectNode && slices.ContainsFunc(l.nodes, func(n sb.StorageNodeDTO) bool { return n.ID == e.NodeID }):
			latest[e.NodeID] = sb.NodeStatus(e.To)
		case strings.HasPrefix(e.Message, "Storage node"):
			return nil, false
		}
	}
	if len(latest) == 0 {
		return l.nodes, true
	}
	nodes := slices.Clone(l.nodes)
	for i := range nodes {
		n := &nodes[i]
		st, ok := latest[n.ID]
		if !ok || st == n.Status {
			continue
		}
		n.Status = st
		// The backend shows an uptime only online, and a health check only
		// online or down (st is never online here).
		n.Uptime = nil
		if st != sb.NodeDown {
			n.HealthCheck = nil
		}
	}
	return nodes, true
}

// probeEvents brings cluster id's shared log window up to date when it was
// read before since, with one small read when the window has a newest event
// to reach back to (readEvents), and returns the window's position and when
// it was read: the Watcher's change detector for what the cluster record
// does not show.
func (o *Observer) probeEvents(ctx context.Context, src Source, id string, since time.Time) (string, time.Time, error) {
	v, at, _, err := o.get(src.Key+"|logs|"+id, since, func(prev any) (any, error) {
		return readEvents(ctx, src, id, prev)
	})
	if err != nil {
		return "", at, err
	}
	return positionOf(v.(logWindow).events), at, nil //nolint:forcetypeassert // the cache holds what the fetch stored.
}

// readEvents reads cluster id's log window: the newest eventProbe entries,
// appended to prev (the window they replace) when they reach back to it,
// else the newest eventWindow. The backend answers an empty log with a 500
// (cluster/__init__.py:203-206; events are deleted after 30 days): on a
// cluster whose record was just read, a 500 is an empty window.
func readEvents(ctx context.Context, src Source, id string, prev any) (logWindow, error) {
	read := func(limit int) ([]sb.ClusterLogEntry, error) {
		raw, err := src.API.ClusterLogs(ctx, id, limit)
		if e := (*sb.Error)(nil); errors.As(err, &e) && e.StatusCode == http.StatusInternalServerError {
			return []sb.ClusterLogEntry{}, nil
		}
		return raw, errors.Wrap(err, errReadLogs)
	}
	if w, ok := prev.(logWindow); ok {
		raw, err := read(eventProbe)
		if err != nil {
			return logWindow{}, err
		}
		if next, ok := w.appendNewer(raw, eventProbe); ok {
			return next, nil
		}
	}
	raw, err := read(eventWindow)
	if err != nil {
		return logWindow{}, err
	}
	return logWindow{events: parseEvents(raw), whole: len(raw) < eventWindow}, nil
}

func (o *Observer) detailMaxAge() time.Duration {
	return max(o.MaxAge, o.DetailMaxAge)
}

// snapshot observes cluster id, reading again each part requested before
// what f asks of it.
func (o *Observer) snapshot(ctx context.Context, src Source, id string, need Needs, f freshness) (*Snapshot, error) {
	s := &Snapshot{At: o.now()}
	s.ObservedAt = s.At
	seen := func(at time.Time) {
		if at.Before(s.ObservedAt) {
			s.ObservedAt = at
		}
	}
	v, at, _, err := o.get(src.Key+"|clusters", f.record, func(any) (any, error) {
		cs, err := src.API.ListClusters(ctx)
		return cs, errors.Wrap(err, errListClusters)
	})
	if err != nil {
		// The backend fails the whole list while any cluster is in_shrink
		// (a node removal): read this cluster alone instead.
		v, at, _, err = o.get(src.Key+"|cluster|"+id, f.record, func(any) (any, error) {
			c, err := src.API.GetCluster(ctx, id)
			if err != nil {
				return nil, errors.Wrap(err, errGetCluster)
			}
			return []sb.ClusterDTO{*c}, nil
		})
		if err != nil {
			return nil, err
		}
	}
	seen(at)
	found := false
	for _, c := range v.([]sb.ClusterDTO) { //nolint:forcetypeassert // the cache holds what the fetch stored.
		if c.ID == id {
			s.Cluster, found = c, true
			break
		}
	}
	if !found {
		return nil, errors.Errorf(errNoCluster, id)
	}
	// The log before the node list: the backend logs every node status
	// change, so a change made between the two reads shows in the node list
	// and later as a new event, which the Watcher's probe sees. Read the
	// other way round, a node list older than the newest event hid the
	// change until the detail floor (5 s). So a log read by this snapshot
	// makes it read the node list after it, even one recent enough, unless
	// the log brings that one up to date (nodeList).
	nodesSince := f.detail
	if need.Events {
		v, at, read, err := o.get(src.Key+"|logs|"+id, f.detail, func(prev any) (any, error) {
			return readEvents(ctx, src, id, prev)
		})
		if err != nil {
			return nil, err
		}
		seen(at)
		s.log = v.(logWindow) //nolint:forcetypeassert // as above.
		s.Events = s.log.events
		if read {
			nodesSince = latest(nodesSince, at)
		}
	}
	if need.Nodes {
		nodes, err := o.nodes(ctx, src, id, nodesSince, f.nodesByLog && need.Events, s, seen)
		if err != nil {
			return nil, err
		}
		s.Nodes = nodes
	}
	if need.Tasks {
		v, at, _, err := o.get(src.Key+"|tasks|"+id, f.tasks, func(any) (any, error) {
			ts, err := src.API.ListTasks(ctx, id)
			return ts, errors.Wrap(err, errListTasks)
		})
		s.TasksErr = err
		seen(at)
		if err == nil {
			s.Tasks = v.([]sb.TaskDTO) //nolint:forcetypeassert // as above.
		}
	}
	return s, nil
}

// nodes returns cluster id's node list, read again when it was requested
// before since; byLog: one younger than the detail floor that the log window
// of s, read after it, brings up to date (nodeList) is that, without a read.
func (o *Observer) nodes(ctx context.Context, src Source, id string, since time.Time, byLog bool, s *Snapshot, seen func(time.Time)) ([]sb.StorageNodeDTO, error) {
	if byLog {
		if nodes, at, ok := o.nodesByLog(src, id, s.log); ok {
			seen(at)
			return nodes, nil
		}
	}
	v, at, _, err := o.get(src.Key+"|nodes|"+id, since, func(any) (any, error) {
		ns, err := src.API.ListStorageNodes(ctx, id)
		return nodeList{nodes: ns, mark: s.LogPosition(), marked: s.Events != nil}, errors.Wrap(err, errListNodes)
	})
	if err != nil {
		return nil, err
	}
	seen(at)
	return v.(nodeList).nodes, nil //nolint:forcetypeassert // the cache holds what the fetch stored.
}

// nodesByLog returns the node list of cluster id the Observer holds, at most
// the detail floor old, brought up to date by window (nodeList.after), and
// when it was requested; false when there is none or window cannot.
func (o *Observer) nodesByLog(src Source, id string, window logWindow) ([]sb.StorageNodeDTO, time.Time, bool) {
	v, at, ok := o.cached(src.Key+"|nodes|"+id, o.since(o.detailMaxAge()))
	if !ok {
		return nil, time.Time{}, false
	}
	nodes, ok := v.(nodeList).after(window) //nolint:forcetypeassert // the cache holds what the fetch stored.
	return nodes, at, ok
}
