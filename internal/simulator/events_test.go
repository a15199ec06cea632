package simulator

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The event log follows sbcli at 754ff3e1; file:line references are to that
// commit (see events.go for the abbreviations).

// logOf reads a cluster's whole log through the API.
func logOf(t *testing.T, s *Simulator, cid string) []sb.ClusterLogEntry {
	t.Helper()
	r := call(t, s, adminToken, "GET", base(cid)+"/logs?limit=0", nil)
	if r.status != 200 {
		t.Fatalf("GET logs: %s", r)
	}
	return decode[[]sb.ClusterLogEntry](t, r)
}

// entriesWith returns the entries whose Message matches re.
func entriesWith(es []sb.ClusterLogEntry, re string) []sb.ClusterLogEntry {
	var out []sb.ClusterLogEntry
	rx := regexp.MustCompile(re)
	for _, e := range es {
		if rx.MatchString(e.Message) {
			out = append(out, e)
		}
	}
	return out
}

// messagesOf returns the node's status-change messages, in order.
func nodeMessages(es []sb.ClusterLogEntry, nid string) []string {
	var out []string
	for _, e := range es {
		if e.NodeID == nid && strings.HasPrefix(e.Message, "Storage node status changed") {
			out = append(out, e.Message)
		}
	}
	return out
}

func TestLogEntryShape(t *testing.T) {
	// get_logs builds each entry from exactly these keys, every value a
	// string and no id (cluster_ops.py:2401-2410); a cluster event has no
	// node, storage id, vuid or status, which read back as "None"
	// (base_model.py:105-110, cluster_events.py:13-20).
	s := newSim(t)
	r := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(map[string]any{"name": "shape"}))
	cid := decode[sb.ClusterDTO](t, r).ID
	logs := call(t, s, adminToken, "GET", base(cid)+"/logs", nil)
	var raw []map[string]any
	if err := json.Unmarshal(logs.body, &raw); err != nil || len(raw) != 1 {
		t.Fatalf("logs: %s (%v)", logs, err)
	}
	var keys []string
	for k, v := range raw[0] {
		keys = append(keys, k)
		if _, ok := v.(string); !ok {
			t.Errorf("%s is %T, want a string", k, v)
		}
	}
	sort.Strings(keys)
	if diff := cmp.Diff([]string{"Date", "Event", "Level", "Message", "NodeId", "Status", "Storage_ID", "VUID"}, keys); diff != "" {
		t.Errorf("entry keys: -want, +got:\n%s", diff)
	}
	got := decode[[]sb.ClusterLogEntry](t, logs)[0]
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})?$`).MatchString(got.Date) {
		t.Errorf("Date %q is not str(datetime)[:23]", got.Date)
	}
	got.Date = ""
	want := sb.ClusterLogEntry{NodeID: "None", Event: "OBJ_CREATED", Level: "Info", Message: "Cluster created " + cid,
		StorageID: "None", VUID: "None", Status: "None"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the create event (cluster_ops.py:704): -want, +got:\n%s", diff)
	}
}

func TestPyDate(t *testing.T) {
	// EventObj.get_date_string is str(datetime.fromtimestamp(ms/1000))[:23]
	// (models/events.py:33-37): milliseconds when they are not 0, none at
	// all when they are (str(datetime) drops a zero microsecond).
	base := time.Date(2026, 8, 22, 20, 15, 34, 0, time.UTC).UnixMilli()
	cases := map[string]struct {
		ms   int64
		want string
	}{
		"WithMilliseconds": {base + 123, "2026-08-22 20:15:34.123"},
		"TrailingZero":     {base + 120, "2026-08-22 20:15:34.120"},
		"LeadingZeros":     {base + 5, "2026-08-22 20:15:34.005"},
		"WholeSecond":      {base, "2026-08-22 20:15:34"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := pyDate(tc.ms); got != tc.want {
				t.Errorf("pyDate(%d) = %q, want %q", tc.ms, got, tc.want)
			}
		})
	}
	if got := msOf(time.UnixMilli(base).Add(1500 * time.Microsecond)); got != base+2 {
		t.Errorf("the date is round(time*1000) (events_controller.py:122): got %d, want %d", got, base+2)
	}
}

func TestLogsLimit(t *testing.T) {
	// C/:201-208, OPS:2380-2385: the newest `limit` events (default 50),
	// oldest first; 0 reads everything. A negative limit also returns all
	// here (backend-contract.md m7). limit is an int query parameter, so an
	// empty or non-numeric value is a 422 (backend-contract.md m1).
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Name: "n0"})
	for i := 1; i <= 59; i++ { // 60 events with the create
		if r := call(t, s, adminToken, "PUT", base(cid)+"/", map[string]any{"name": fmt.Sprintf("n%d", i)}); r.status != 204 {
			t.Fatalf("rename: %s", r)
		}
	}
	rename := func(i int) string { return fmt.Sprintf("Cluster name changed %s: n%d -> n%d", cid, i-1, i) }
	cases := map[string]struct {
		reason string
		query  string
		count  int
		first  string
		last   string
		status int
	}{
		"Default":  {"No limit: the newest 50.", "", 50, rename(10), rename(59), 200},
		"Two":      {"limit=2: the newest two, oldest first.", "?limit=2", 2, rename(58), rename(59), 200},
		"Zero":     {"limit=0: every event.", "?limit=0", 60, "Cluster created " + cid, rename(59), 200},
		"Negative": {"A negative limit: every event.", "?limit=-1", 60, "Cluster created " + cid, rename(59), 200},
		"Repeated": {"A repeated limit: Starlette keeps the last value.", "?limit=1&limit=3", 3, rename(57), rename(59), 200},
		"Empty":    {"limit= (empty) is a 422.", "?limit=", 0, "", "", 422},
		"NotInt":   {"limit=x is a 422.", "?limit=x", 0, "", "", 422},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, adminToken, "GET", base(cid)+"/logs"+tc.query, nil)
			if r.status != tc.status {
				t.Fatalf("\n%s\nstatus %d, want %d: %s", tc.reason, r.status, tc.status, r)
			}
			if tc.status != 200 {
				return
			}
			es := decode[[]sb.ClusterLogEntry](t, r)
			if len(es) != tc.count || es[0].Message != tc.first || es[len(es)-1].Message != tc.last {
				t.Errorf("\n%s\ngot %d entries, first %q, last %q", tc.reason, len(es), es[0].Message, es[len(es)-1].Message)
			}
			for i := 1; i < len(es); i++ {
				if es[i].Date < es[i-1].Date { // the fixed format sorts lexically
					t.Errorf("\n%s\nentries are not oldest first: %q after %q", tc.reason, es[i].Date, es[i-1].Date)
				}
			}
		})
	}
	if r := call(t, s, adminToken, "GET", base(cid)+"/logs?limit=", nil); !strings.Contains(string(r.body), `"type":"int_parsing","loc":["query","limit"]`) {
		t.Errorf("the empty limit's 422 names the parameter: %s", r)
	}
}

func TestLogsEmpty(t *testing.T) {
	// An empty result makes the handler raise ValueError: a plain-text 500
	// (C/:203-206). The log empties once every event is older than 30
	// days: the monitor deletes them (MON:804-810, constants.py:629).
	cases := map[string]struct {
		reason  string
		prepare func(s *Simulator, c *clusterState)
	}{
		"NoEvents": {
			reason:  "A log without events answers 500, not [].",
			prepare: func(_ *Simulator, c *clusterState) { c.events = nil },
		},
		"Retention": {
			reason: "Events older than 30 days are deleted; the empty log then answers 500.",
			prepare: func(s *Simulator, c *clusterState) {
				now := s.clk.now()
				for _, e := range c.events {
					e.dateMS = msOf(now.Add(-31 * 24 * time.Hour))
				}
				c.lastHousekeeping = time.Time{}
				s.eventHousekeepingLocked(c, now)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{})
			s.mu.Lock()
			tc.prepare(s, s.m.cluster(cid))
			s.mu.Unlock()
			r := call(t, s, adminToken, "GET", base(cid)+"/logs", nil)
			if r.String() != "500 Internal Server Error" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
				t.Errorf("\n%s\ngot %s (%s)", tc.reason, r, r.header.Get("Content-Type"))
			}
		})
	}
}

func TestLogOrder(t *testing.T) {
	// Events are keyed by their millisecond date (models/events.py:30-31),
	// so the log is in date order whatever the write order; events of the
	// same millisecond keep their write order here (sbcli orders them by a
	// random uuid).
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{})
	s.mu.Lock()
	c := s.m.cluster(cid)
	c.events = nil
	for _, e := range []struct {
		ms  int64
		msg string
	}{{2000, "b1"}, {2000, "b2"}, {3000, "c"}, {1000, "a"}, {2000, "b3"}} {
		s.logEventLocked(c, &eventRecord{dateMS: e.ms, event: evStatusChange, message: e.msg})
	}
	s.mu.Unlock()
	var got []string
	for _, e := range logOf(t, s, cid) {
		got = append(got, e.Message)
	}
	if diff := cmp.Diff([]string{"a", "b1", "b2", "b3", "c"}, got); diff != "" {
		t.Errorf("log order: -want, +got:\n%s", diff)
	}
}

func TestClusterEvents(t *testing.T) {
	// cluster_events.py:13-41: created, renamed (an OBJ_CREATED event, "->"
	// with one space each side, the old name as stored: "" for an unnamed
	// v2 create), status changes; NodeId is None for all three.
	s := newSim(t)
	r := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(nil))
	cid := decode[sb.ClusterDTO](t, r).ID
	call(t, s, adminToken, "PUT", base(cid)+"/", map[string]any{"name": "a"})
	call(t, s, adminToken, "PUT", base(cid)+"/", map[string]any{"name": "b"})
	call(t, s, adminToken, "PUT", base(cid)+"/", map[string]any{"name": nil}) // C/:166: no call, no event
	s.mu.Lock()                                                               // in_expansion: a status the monitor leaves alone
	s.setClusterStatusLocked(s.m.cluster(cid), sb.ClusterInExpansion, "test")
	s.setClusterStatusLocked(s.m.cluster(cid), sb.ClusterInExpansion, "test") // no change, no event (OPS:1804-1847)
	s.mu.Unlock()
	type ev struct{ NodeID, Event, Message string }
	var got []ev
	for _, e := range logOf(t, s, cid) {
		got = append(got, ev{e.NodeID, e.Event, e.Message})
	}
	want := []ev{
		{"None", "OBJ_CREATED", "Cluster created " + cid},
		{"None", "OBJ_CREATED", "Cluster name changed " + cid + ":  -> a"},
		{"None", "OBJ_CREATED", "Cluster name changed " + cid + ": a -> b"},
		{"None", "STATUS_CHANGE", "Cluster status changed from unready to in_expansion"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cluster events: -want, +got:\n%s", diff)
	}
	// update_cluster writes no event (OPS:2420-2559).
	call(t, s, adminToken, "POST", base(cid)+"/update", map[string]any{"management_image": "img", "spdk_image": nil})
	if n := len(logOf(t, s, cid)); n != len(want) {
		t.Errorf("update wrote %d events", n-len(want))
	}
}

func TestNodeStatusEvents(t *testing.T) {
	// storage_events.py:46-56: "from: X to: Y" with colons, NodeId = node.
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/suspend", nil)
	call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/resume", nil)
	es := logOf(t, s, cid)
	got := entriesWith(es, `^Storage node status changed`)
	want := []sb.ClusterLogEntry{
		{NodeID: nodes[0], Event: "STATUS_CHANGE", Level: "Info", Message: "Storage node status changed from: online to: suspended",
			StorageID: "None", VUID: "None", Status: "None"},
		{NodeID: nodes[0], Event: "STATUS_CHANGE", Level: "Info", Message: "Storage node status changed from: suspended to: online",
			StorageID: "None", VUID: "None", Status: "None"},
	}
	for i := range got {
		got[i].Date = ""
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node events: -want, +got:\n%s", diff)
	}
}

func TestFailedRestartLogsOfflineToOffline(t *testing.T) {
	// A restart that fails after its claim: the wrapper's cleanup assigns
	// OFFLINE before it builds the event, so the log reads "from: offline
	// to: offline" (storage_node_ops.py:4411-4425), never in_restart ->
	// offline.
	cases := map[string]struct {
		reason string
		run    func(t *testing.T, s *Simulator, cid string, nodes []string)
	}{
		"NodeRestart": {
			reason: "POST /restart on a node shut down on purpose whose host is still out. Shut down on purpose (auto_restart_disabled), it is not auto-restarted, so no restart task of the monitor's races the call.",
			run: func(t *testing.T, s *Simulator, cid string, nodes []string) {
				setNode(s, nodes[0], sb.NodeOffline)
				s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[0], NodeStatus: sb.NodeOffline, After: Duration(time.Hour)})
				call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
			},
		},
		"StuckRestart": {
			reason: "A restart stuck in_restart for the claim TTL.",
			run: func(t *testing.T, s *Simulator, cid string, nodes []string) {
				setNode(s, nodes[0], sb.NodeOffline)
				s.Faults().MustAdd(Fault{Kind: FaultNodeStuckInRestart, NodeID: nodes[0], Count: 1})
				call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
			},
		},
		"StartAbort": {
			reason: "A cluster start whose first node fails to come back.",
			run: func(t *testing.T, s *Simulator, cid string, nodes []string) {
				s.Faults().MustAdd(Fault{Kind: FaultStartAbort, ClusterID: cid, NodeIndex: 1, Count: 1})
				call(t, s, adminToken, "POST", base(cid)+"/start", nil)
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			tc.run(t, s, cid, nodes)
			failed := "Storage node status changed from: offline to: offline"
			eventually(t, "the failed restart's event", func() bool { return hasEvent(s, cid, failed) })
			msgs := nodeMessages(logOf(t, s, cid), nodes[0])
			if !hasEvent(s, cid, "Storage node status changed from: offline to: in_restart") {
				t.Errorf("\n%s\nno offline -> in_restart before the failure: %q", tc.reason, msgs)
			}
			for _, m := range msgs {
				if m == "Storage node status changed from: in_restart to: offline" {
					t.Errorf("\n%s\nlogged in_restart -> offline: %q", tc.reason, msgs)
				}
			}
			if got := nodeByID(s, cid, nodes[0]).Status; got != sb.NodeOffline && name == "StartAbort" {
				t.Errorf("\n%s\nnode is %s after the failure, want offline", tc.reason, got)
			}
		})
	}
}

func TestTaskEvents(t *testing.T) {
	// tasks_events.py:12-30: "Task created", OBJ_CREATED, NodeId = the
	// task's node or, without one, the task's uuid, Status = the task's
	// status (new). Balancing masters log "Re-balancing task created";
	// device_migration subtasks log nothing (tasks_controller.py:305-311,
	// 337-350).
	s := newSim(t)
	unready, _, _ := s.Seed(SeedCluster{})
	r := addNode(t, s, unready, "10.3.0.1:5000", false, "")
	addTask := strings.Trim(string(r.body), `"`)

	active, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	call(t, s, adminToken, "POST", base(active)+"/rebalance", nil)
	// An outage the monitor sees as offline: it queues an auto-restart,
	// whose attempts fail while the outage lasts (no further tasks).
	s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[2], NodeStatus: sb.NodeOffline, After: Duration(time.Hour)})
	eventually(t, "an auto node_restart", func() bool { return len(tasksOf(s, active, sb.TaskFunctionNodeRestart)) == 1 })

	type ev struct{ NodeID, Event, Message, Status string }
	collect := func(cid string) []ev {
		var out []ev
		for _, e := range entriesWith(logOf(t, s, cid), `(?i)task`) {
			out = append(out, ev{e.NodeID, e.Event, e.Message, e.Status})
		}
		return out
	}
	if diff := cmp.Diff([]ev{{addTask, "OBJ_CREATED", "Task created", "new"}}, collect(unready)); diff != "" {
		t.Errorf("node_add: NodeId is the task uuid (it has no node): -want, +got:\n%s", diff)
	}
	master := tasksOf(s, active, sb.TaskFunctionBalancingOnRestart)[0].ID
	want := []ev{
		{master, "OBJ_CREATED", "Re-balancing task created", "new"},
		{nodes[2], "OBJ_CREATED", "Task created", "new"},
	}
	if diff := cmp.Diff(want, collect(active)); diff != "" {
		t.Errorf("rebalance (one master, no subtask events) and node_restart: -want, +got:\n%s", diff)
	}
}

func TestForceRemoveCancelsTasks(t *testing.T) {
	// remove_storage_node refuses a node with active tasks unless
	// force_remove, which cancels them (storage_node_ops.py:3780-3786):
	// "Subtask canceled" for migration subtasks, with the task's status at
	// that moment (tasks_events.py:41-46, tasks_controller.py:607-624).
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
	call(t, s, adminToken, "POST", base(cid)+"/rebalance", nil)
	if r := call(t, s, adminToken, "DELETE", nodePath(cid, nodes[0])+"/", nil); r.String() != "500 Internal Server Error" {
		t.Fatalf("a node with an open migration task cannot be removed without force_remove: %s", r)
	}
	if r := call(t, s, adminToken, "DELETE", nodePath(cid, nodes[0])+"/?force_remove=true", nil); r.status != 204 {
		t.Fatalf("force_remove: %s", r)
	}
	var got []sb.ClusterLogEntry
	for _, e := range entriesWith(logOf(t, s, cid), `canceled`) {
		if e.Status != "new" && e.Status != "running" {
			t.Errorf("the cancel event carries the subtask's status when canceled (new or running): %q", e.Status)
		}
		e.Date, e.Status = "", ""
		got = append(got, e)
	}
	want := []sb.ClusterLogEntry{{NodeID: nodes[0], Event: "STATUS_CHANGE", Level: "Info", Message: "Subtask canceled",
		StorageID: "None", VUID: "None"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cancel events: -want, +got:\n%s", diff)
	}
	removal := entriesWith(logOf(t, s, cid), `^Task created$`)
	if len(removal) != 1 || removal[0].NodeID != nodes[0] {
		t.Errorf("the node_removal task logs Task created with the node's id: %+v", removal)
	}
}

func TestPoolEvents(t *testing.T) {
	// pool_events.py:11-44: NodeId is the cluster id.
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	p := decode[sb.StoragePoolDTO](t, call(t, s, adminToken, "POST", base(cid)+"/storage-pools/", map[string]any{"name": "p1"}))
	pp := base(cid) + "/storage-pools/" + p.ID + "/"
	call(t, s, adminToken, "PUT", pp, map[string]any{"name": "p2"})
	call(t, s, adminToken, "PUT", pp, map[string]any{"max_rw_iops": 1, "max_size": nil}) // refused: no event
	s.Faults().MustAdd(Fault{Kind: FaultPoolInactive, PoolID: p.ID})
	s.mu.Lock()
	s.m.pool(p.ID).status = sb.PoolActive
	s.mu.Unlock()
	call(t, s, adminToken, "DELETE", pp, nil)
	type ev struct{ NodeID, Event, Message string }
	var got []ev
	for _, e := range entriesWith(logOf(t, s, cid), `^Pool `) {
		got = append(got, ev{e.NodeID, e.Event, e.Message})
	}
	want := []ev{
		{cid, "OBJ_CREATED", "Pool created p1"},                               // PC:117
		{cid, "STATUS_CHANGE", "Pool updated p2"},                             // PC:333, the new name
		{cid, "STATUS_CHANGE", "Pool status changed from active to inactive"}, // PC:399-410
		{cid, "OBJ_DELETED", "Pool deleted p2"},                               // PC:357
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool events: -want, +got:\n%s", diff)
	}
}

func TestPoolPutVolumeMaxSize(t *testing.T) {
	// set_pool(..., pool_max=0, lvol_max=0, ...) gets only the fields sent
	// (SP/:104-121, pool_controller.py:210-212): lvol_max 0 resets the
	// volume maximum, so every PUT without volume_max_size clears it
	// (PC:308-309); a non-zero value is written to the POOL's max_size and
	// leaves the volume maximum alone (PC:310-318). An explicit null hits
	// `None > 0`: TypeError, plain 500, nothing written.
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	type limits struct {
		Name        string
		Max, VolMax int64
	}
	cases := map[string]struct {
		reason string
		body   map[string]any
		status int
		want   limits
	}{
		"Rename": {"A rename alone clears max_size and volume_max_size.",
			map[string]any{"name": "q"}, 204, limits{"q", 0, 0}},
		"MaxSizeOnly": {"max_size alone keeps max_size and clears volume_max_size.",
			map[string]any{"max_size": 100}, 204, limits{"p", 100, 0}},
		"VolumeMaxSize": {"A non-zero volume_max_size lands in max_size; the volume maximum stays.",
			map[string]any{"max_size": 100, "volume_max_size": 7}, 204, limits{"p", 7, 5}},
		"VolumeMaxSizeZero": {"volume_max_size 0 clears it.",
			map[string]any{"max_size": 100, "volume_max_size": 0}, 204, limits{"p", 100, 0}},
		"NullVolumeMaxSize": {"An explicit null volume_max_size is a 500 and changes nothing.",
			map[string]any{"max_size": 100, "volume_max_size": nil}, 500, limits{"p", 100, 5}},
		"NullMaxSize": {"An explicit null max_size is a 500 and changes nothing.",
			map[string]any{"max_size": nil, "name": "q"}, 500, limits{"p", 100, 5}},
		"EmptyName": {"An empty name is no rename (PC:228).",
			map[string]any{"name": "", "max_size": 100, "volume_max_size": 7}, 204, limits{"p", 7, 5}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, adminToken, "POST", base(cid)+"/storage-pools/", map[string]any{"name": "p", "pool_max": 100, "volume_max_size": 5})
			p := decode[sb.StoragePoolDTO](t, r)
			t.Cleanup(func() {
				s.mu.Lock()
				s.m.pool(p.ID).status = sb.PoolActive
				s.mu.Unlock()
				call(t, s, adminToken, "DELETE", base(cid)+"/storage-pools/"+p.ID+"/", nil)
			})
			if got := call(t, s, adminToken, "PUT", base(cid)+"/storage-pools/"+p.ID+"/", tc.body).status; got != tc.status {
				t.Errorf("\n%s\nstatus %d, want %d", tc.reason, got, tc.status)
			}
			g := decode[sb.StoragePoolDTO](t, call(t, s, adminToken, "GET", base(cid)+"/storage-pools/"+p.ID+"/", nil))
			if diff := cmp.Diff(tc.want, limits{g.Name, g.MaxSize, g.VolumeMaxSize}); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestShutdownConflictTexts(t *testing.T) {
	// check_node_shutdown_preconditions' reasons, in its order
	// (storage_node_ops.py:5780-5899): claim, peers, restart task,
	// migration tasks, status. The peer cases use an npcs=2 cluster, where
	// sbcli's FTT check (run first, SN/:214-219) lets one peer be down.
	ftt2 := &sb.ClusterParams{DistrNdcs: 1, DistrNpcs: 2, HAType: "ha", BlkSize: 4096, PageSizeInBlocks: 2097152}
	cases := map[string]struct {
		reason  string
		params  *sb.ClusterParams
		prepare func(s *Simulator, cid string, n []string) string // returns a task id for {t}
		want    string
	}{
		"PeerShuttingDown": {
			reason: "SNO:5834-5836: 'is already shutting down' (C6).",
			params: ftt2,
			prepare: func(s *Simulator, cid string, n []string) string {
				setNode(s, n[1], sb.NodeInShutdown)
				return ""
			},
			want: `409 {"detail":"Node {1} is already shutting down in this cluster, cannot shutdown {0} concurrently"}`,
		},
		"PeerRestarting": {
			reason: "SNO:5827-5829.",
			params: ftt2,
			prepare: func(s *Simulator, cid string, n []string) string {
				setNode(s, n[1], sb.NodeInRestart)
				return ""
			},
			want: `409 {"detail":"Node {1} is restarting in this cluster, cannot shutdown {0} concurrently"}`,
		},
		"RestartTask": {
			reason: "SNO:5842-5848: the open node_restart task's uuid.",
			prepare: func(s *Simulator, cid string, n []string) string {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.newTaskLocked(cid, n[0], sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{}).id
			},
			want: `409 {"detail":"Restart task found: {t}, can not shutdown storage node"}`,
		},
		"MigrationTask": {
			reason: "SNO:5858-5883: the count and the sorted function names.",
			prepare: func(s *Simulator, cid string, n []string) string {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.newTaskLocked(cid, n[0], sb.TaskFunctionNewDeviceMigration, -1, map[string]any{})
				s.newTaskLocked(cid, n[0], sb.TaskFunctionDeviceMigration, -1, map[string]any{})
				s.newTaskLocked(cid, n[0], sb.TaskFunctionDeviceMigration, -1, map[string]any{})
				return ""
			},
			want: `409 {"detail":"Migration task found: 3 (device_migration, new_device_migration), can not shutdown storage node or use --force"}`,
		},
		"MigrationTaskFTT2": {
			reason: "SNO:5664-5670,5866-5871: FTT=2 lets a shutdown through migration tasks.",
			params: ftt2,
			prepare: func(s *Simulator, cid string, n []string) string {
				s.mu.Lock()
				defer s.mu.Unlock()
				s.newTaskLocked(cid, n[0], sb.TaskFunctionDeviceMigration, -1, map[string]any{})
				return ""
			},
			want: `202 `,
		},
		"RestartClaim": {
			reason: "SNO:5816-5822: a live claim on the node itself comes first.",
			prepare: func(s *Simulator, cid string, n []string) string {
				s.mu.Lock()
				defer s.mu.Unlock()
				x := s.m.node(n[0])
				x.status, x.restartClaim, x.claimOwner = sb.NodeInRestart, true, "mgmt-1:42:0123abcd"
				s.newTaskLocked(cid, n[0], sb.TaskFunctionNodeRestart, nodeAddMaxRetry, map[string]any{})
				return ""
			},
			want: `409 {"detail":"Node {0} is in_restart under a live restart claim (mgmt-1:42:0123abcd); shutdown refused until the claim is released or expires"}`,
		},
		"Status": {
			reason: "SNO:5885-5897: last, the node's own status.",
			prepare: func(s *Simulator, cid string, n []string) string {
				setNode(s, n[0], sb.NodeOffline)
				return ""
			},
			want: `409 {"detail":"Node is in offline state; only online/suspended/down can be gracefully shut down. Use --force."}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 5, Status: sb.ClusterActive, Params: tc.params})
			tid := tc.prepare(s, cid, nodes)
			want := strings.NewReplacer("{0}", nodes[0], "{1}", nodes[1], "{t}", tid).Replace(tc.want)
			if diff := cmp.Diff(want, call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/shutdown", nil).String()); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDeviceEvents(t *testing.T) {
	// device_events.py:13-23: NodeId is the device's uuid, Storage_ID its
	// cluster_device_order. A graceful shutdown sets every device
	// unavailable (SNO:6034-6065, DE:57-58) between in_shutdown and
	// offline; a forced one does not; a restart logs "Device restarted,
	// status: online" per device before the node is online (SNO:5112-5123).
	cases := map[string]struct {
		reason string
		query  string
		want   []string
	}{
		"Graceful": {
			reason: "Graceful shutdown, then restart.",
			want: []string{
				"node: Storage node status changed from: online to: in_shutdown",
				"dev0: Device status changed from: online to: unavailable",
				"dev1: Device status changed from: online to: unavailable",
				"node: Storage node status changed from: in_shutdown to: offline",
				"node: Storage node status changed from: offline to: in_restart",
				"dev0: Device restarted, status: online",
				"dev1: Device restarted, status: online",
				"node: Storage node status changed from: in_restart to: online",
			},
		},
		"Forced": {
			reason: "A forced shutdown skips the device loop; the restart still logs the devices.",
			query:  "?force=true",
			want: []string{
				"node: Storage node status changed from: online to: in_shutdown",
				"node: Storage node status changed from: in_shutdown to: offline",
				"node: Storage node status changed from: offline to: in_restart",
				"dev0: Device restarted, status: online",
				"dev1: Device restarted, status: online",
				"node: Storage node status changed from: in_restart to: online",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 4, Status: sb.ClusterActive})
			s.mu.Lock()
			devs := map[string]string{nodes[0]: "node"}
			orders := map[string]string{}
			for i, d := range s.m.node(nodes[0]).devices {
				devs[d.id] = fmt.Sprintf("dev%d", i)
				orders[d.id] = fmt.Sprint(d.order)
			}
			s.mu.Unlock()
			if r := call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/shutdown"+tc.query, nil); r.status != 202 {
				t.Fatalf("shutdown: %s", r)
			}
			waitNode(t, s, cid, nodes[0], sb.NodeOffline)
			call(t, s, adminToken, "POST", nodePath(cid, nodes[0])+"/restart", map[string]any{})
			waitNode(t, s, cid, nodes[0], sb.NodeOnline)
			var got []string
			for _, e := range logOf(t, s, cid) {
				who, ok := devs[e.NodeID]
				if !ok || (who == "node" && !strings.HasPrefix(e.Message, "Storage node status")) {
					continue
				}
				got = append(got, who+": "+e.Message)
				if who != "node" && (e.StorageID != orders[e.NodeID] || e.Event != "STATUS_CHANGE") {
					t.Errorf("\n%s\ndevice event %+v: want Storage_ID %s, STATUS_CHANGE", tc.reason, e, orders[e.NodeID])
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNodeAddEvents(t *testing.T) {
	// add_node: the record's creation logs nothing; each device logs
	// "Device created: <id>" (SNO:1281-1288), then in_creation -> online.
	// Only on a running cluster (expansion) it goes on with the
	// cluster_expand task and "Storage node created <id>" (SNO:3598-3629).
	cases := map[string]struct {
		reason string
		status sb.ClusterStatus
		expand bool
		want   []string
	}{
		"Unready": {
			reason: "An add to an unready cluster.",
			want:   []string{"task: Task created", "dev: Device created", "dev: Device created", "node: Storage node status changed from: in_creation to: online"},
		},
		"Expansion": {
			reason: "An expansion add to an active cluster.",
			status: sb.ClusterActive, expand: true,
			want: []string{"task: Task created", "dev: Device created", "dev: Device created", "node: Storage node status changed from: in_creation to: online",
				"node: Task created", "node: Storage node created {n}"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: tc.status})
			s.mu.Lock()
			s.m.cluster(cid).events = nil
			s.mu.Unlock()
			r := addNode(t, s, cid, "10.4.0.1:5000", tc.expand, "")
			tid := strings.Trim(string(r.body), `"`)
			eventually(t, "task done", func() bool { return taskByID(s, cid, tid).Status == sb.TaskDone })
			var nid string
			for _, n := range s.Nodes(cid) {
				if n.MgmtIP == "10.4.0.1" {
					nid = n.ID
				}
			}
			var got []string
			for _, e := range logOf(t, s, cid) {
				if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "node: Storage node created") {
					break // the expansion's own events follow
				}
				msg := strings.TrimSuffix(e.Message, ": "+e.NodeID)
				switch {
				case e.NodeID == tid:
					got = append(got, "task: "+msg)
				case e.NodeID == nid:
					got = append(got, "node: "+msg)
				case strings.HasPrefix(e.Message, "Device created: "+e.NodeID):
					got = append(got, "dev: "+msg)
				}
			}
			want := strings.Split(strings.ReplaceAll(strings.Join(tc.want, "\n"), "{n}", nid), "\n")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
			for _, e := range s.Events(cid) {
				if strings.Contains(e, "with status in_creation") {
					t.Errorf("\n%s\ninvented event %q", tc.reason, e)
				}
			}
		})
	}
}

func TestDistribRows(t *testing.T) {
	// log_distr_event (events_controller.py:28-56): Level Error, NodeId =
	// the reporting node, Status new; get_logs appends " (<count>)"
	// (cluster_ops.py:2398-2400). The collector rewrites the verdict and the
	// count afterwards (main_distr_event_collector.py:231-444,492-511).
	cases := map[string]struct {
		reason  string
		outage  sb.NodeStatus
		lasts   time.Duration
		verdict string
	}{
		"Unreachable": {"The device's node is still unreachable (DEC:364-370).", sb.NodeUnreachable, time.Hour, "skipped:device_node_unreachable"},
		"Offline":     {"The monitor set the devices unavailable (DEC:348-352).", sb.NodeOffline, time.Hour, "skipped:dev_unavailable"},
		"Recovered":   {"The node is back online when the row is processed (DEC:420-423).", sb.NodeUnreachable, time.Second, "processed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Slower than the other tests, so that the rows are read
			// before the monitor rewrites them (6 s of backend time after
			// it wrote them, one 3 s tick after the outage).
			s := newSim(t, func(o *Options) { o.Speed = 100 })
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			s.mu.Lock()
			orders := []string{fmt.Sprint(s.m.node(nodes[0]).devices[0].order), fmt.Sprint(s.m.node(nodes[0]).devices[1].order)}
			s.mu.Unlock()
			s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[0], NodeStatus: tc.outage, After: Duration(tc.lasts)})
			rows := func() []sb.ClusterLogEntry {
				var out []sb.ClusterLogEntry
				for _, e := range s.Log(cid) {
					if e.Event == "device_status" {
						e.Date = ""
						out = append(out, e)
					}
				}
				return out
			}
			var fresh []sb.ClusterLogEntry
			eventually(t, "the rows", func() bool { fresh = rows(); return len(fresh) == 2 })
			want := []sb.ClusterLogEntry{
				{NodeID: nodes[1], Event: "device_status", Level: "Error", Message: "error_read (1)", StorageID: orders[0], VUID: "None", Status: "new"},
				{NodeID: nodes[2], Event: "device_status", Level: "Error", Message: "error_read (1)", StorageID: orders[1], VUID: "None", Status: "new"},
			}
			if diff := cmp.Diff(want, fresh); diff != "" {
				t.Fatalf("\n%s\nrows as written: -want, +got:\n%s", tc.reason, diff)
			}
			eventually(t, "the verdict", func() bool {
				r := rows()
				return len(r) == 2 && r[0].Status != "new" && r[1].Status != "new"
			})
			for i, r := range rows() {
				if r.Status != tc.verdict || !regexp.MustCompile(`^error_read \([2-4]\)$`).MatchString(r.Message) ||
					r.NodeID != want[i].NodeID || r.StorageID != want[i].StorageID {
					t.Errorf("\n%s\nrow %d after processing: %+v, want status %s and a new count", tc.reason, i, r, tc.verdict)
				}
			}
		})
	}
	noRows := map[string]struct {
		reason string
		status sb.ClusterStatus
		outage sb.NodeStatus
	}{
		"UnreadyCluster": {"Without lvstores no distrib uses the node's devices.", sb.ClusterUnready, sb.NodeUnreachable},
		"Down":           {"A down node's SPDK still serves.", sb.ClusterActive, sb.NodeDown},
	}
	for name, tc := range noRows {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: tc.status})
			s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[0], NodeStatus: tc.outage})
			time.Sleep(50 * time.Millisecond) // > 10 monitor ticks
			if rows := entriesWith(logOf(t, s, cid), `^error_read`); len(rows) != 0 {
				t.Errorf("\n%s\ndistrib rows: %+v", tc.reason, rows)
			}
		})
	}
}

func TestCapacityEvents(t *testing.T) {
	// cap_monitor.py:42-80: a Critical event at or above cap_crit, a
	// Warning strictly between cap_warn and cap_crit; NodeId = cluster id
	// (cluster_events.py:53-64).
	cases := map[string]struct {
		util  int64
		level string
	}{
		"Critical": {95, "Critical"},
		"Warning":  {85, "Warning"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			s.Faults().MustAdd(Fault{Kind: FaultUtilization, ClusterID: cid, Utilization: tc.util})
			msg := fmt.Sprintf("Cluster absolute capacity reached: %d%%", tc.util)
			eventually(t, "the capacity event", func() bool { return hasEvent(s, cid, msg) })
			e := entriesWith(logOf(t, s, cid), `capacity reached`)[0]
			if e.Event != "CAPACITY" || e.Level != tc.level || e.NodeID != cid {
				t.Errorf("capacity event: %+v, want CAPACITY/%s with NodeId %s", e, tc.level, cid)
			}
		})
	}
}
