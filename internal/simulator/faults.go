package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// FaultKind names a fault mode. Each mode maps onto an entry of
// backend-behaviour.md §9 "Fault modes worth injecting".
type FaultKind string

// Fault kinds. "Armed" kinds stay until their Count is used up (0 = until
// removed); "immediate" kinds act once when added and are not stored.
const (
	// FaultFail fails matching calls with Status (default 500) and the
	// backend's body shape for it, without applying them. Armed.
	FaultFail FaultKind = "fail"
	// FaultRandom fails matching calls with Probability, with Status or a
	// random one of 500/502/503. Armed.
	FaultRandom FaultKind = "random"
	// FaultDelay delays matching responses by Delay (wall-clock time, not
	// scaled). The call is applied first unless Before is set, so a client
	// that times out has still changed the backend. Armed.
	FaultDelay FaultKind = "delay"
	// FaultDrop applies matching calls, then closes the connection without
	// writing the response (lost response). Armed.
	FaultDrop FaultKind = "drop"
	// FaultSilentRefusal answers a background action (activate, expand,
	// shutdown, start, node shutdown/restart/start) with its 202 and then
	// does nothing. Armed; Method/Path select the action.
	FaultSilentRefusal FaultKind = "silent_refusal"
	// FaultActivationFailure makes activations of ClusterID (any if empty)
	// fail After backend seconds into the run: the status reverts to the
	// one remembered at start and only a logs event tells. Armed.
	FaultActivationFailure FaultKind = "activation_failure"
	// FaultActivationDriverDeath kills the next activation's driver right
	// after it set in_activation: the watchdog later sets suspended and the
	// monitor auto-activates. Armed.
	FaultActivationDriverDeath FaultKind = "activation_driver_death"
	// FaultStickInActivation puts ClusterID into in_activation now, with no
	// driver (same outcome as a driver death). Immediate.
	FaultStickInActivation FaultKind = "stick_in_activation"
	// FaultExpansionException makes the next expansion raise after setting
	// in_expansion. On the legacy /expand path nothing reverts it: stuck
	// forever (OPS:1715-1718). In a cluster_expand task the status the
	// cluster had before is restored (EXE:559-563) and the task is
	// suspended "attempt <n> failed: injected expansion failure" and
	// retried (RCE:92-98). Armed.
	FaultExpansionException FaultKind = "expansion_exception"
	// FaultStickInExpansion puts ClusterID into in_expansion now, forever.
	// Immediate.
	FaultStickInExpansion FaultKind = "stick_in_expansion"
	// FaultStartAbort makes node NodeIndex (1-based, DB order) fail to come
	// online during a cluster start (or update restart pass): the run
	// aborts, later nodes stay offline. Armed.
	FaultStartAbort FaultKind = "start_abort"
	// FaultNodeStuckInShutdown makes the SPDK kill of NodeID (any if empty)
	// fail: the node stays in_shutdown until the monitor reconciles it to
	// offline after 120 s. Armed.
	FaultNodeStuckInShutdown FaultKind = "node_stuck_in_shutdown"
	// FaultNodeStuckInRestart leaves NodeID (any if empty) in_restart for the
	// claim TTL (180 s); it then goes offline and the node_restart task is
	// retried by the task runner. Armed.
	FaultNodeStuckInRestart FaultKind = "node_stuck_in_restart"
	// FaultNodeAddFailure makes node_add attempts for NodeAddress (any if
	// empty) fail after creating an in_creation record: the task goes
	// suspended, retry+1, backs off, and the next attempt replaces the
	// record with a new UUID. Count = failing attempts (>= 11 ends "max
	// retry reached"). Armed.
	FaultNodeAddFailure FaultKind = "node_add_failure"
	// FaultEnum500 forces the DTO-enum 500: Target "cluster" (GET cluster and
	// list, as if in_shrink) or "tasks" (GET tasks list) for ClusterID (any
	// if empty). The same 500s also happen naturally. Armed.
	FaultEnum500 FaultKind = "dto_enum_500"
	// FaultNodeOutage makes NodeID go NodeStatus (offline, unreachable, down
	// or schedulable; default unreachable) for After backend time (default
	// 60 s). The monitor derives the cluster status; offline/schedulable
	// nodes get an auto node_restart task; restarts fail until the outage
	// ends; unreachable/down nodes come back by themselves. Offline and
	// schedulable also set the node's devices unavailable, so they count
	// against the cluster's fault tolerance; unreachable and down keep their
	// devices online and do not (a management-plane outage: see
	// nextClusterStatusLocked). A node whose status another flow owns
	// (in_restart, in_shutdown; suspended for down) keeps it, and restarts
	// just fail until the outage ends. A schedulable node is restarted only
	// by a forced restart (SNO:4548-4550): its auto node_restart task, which
	// runs without force, waits. Immediate.
	FaultNodeOutage FaultKind = "node_outage"
	// FaultRotateSecret gives ClusterID a new secret; the old one gets 401.
	// The new secret is returned in Fault.Secret. Immediate.
	FaultRotateSecret FaultKind = "rotate_secret"
	// FaultNotReady makes /_meta/ready answer 503 "FDB not ready". Armed.
	FaultNotReady FaultKind = "not_ready"
	// FaultUtilization sets ClusterID's capacity size_util to Utilization;
	// at or above cap_crit the monitor sets read_only. Immediate.
	FaultUtilization FaultKind = "utilization"
	// FaultPoolInactive sets PoolID's status to inactive, logging "Pool
	// status changed from active to inactive". Immediate.
	FaultPoolInactive FaultKind = "pool_inactive"
)

// Duration is a time.Duration that reads and writes JSON as a Go duration
// string ("35s"); a bare JSON number is read as seconds.
type Duration time.Duration

// MarshalJSON renders the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts "35s" or 35.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*d = Duration(time.Duration(f * float64(time.Second)))
	return err
}

// Fault describes one injected fault. Which fields matter depends on Kind;
// see the FaultKind constants. Method and Path select API calls: Method ""
// matches any; Path is a path.Match pattern ("*" = one segment) matched
// against the full request path and against the path below /api/v2, e.g.
// "/clusters/*/activate". Path "" matches any.
type Fault struct {
	ID          string        `json:"id,omitempty"`
	Kind        FaultKind     `json:"kind"`
	Method      string        `json:"method,omitempty"`
	Path        string        `json:"path,omitempty"`
	Count       int           `json:"count,omitempty"`
	Status      int           `json:"status,omitempty"`
	Body        string        `json:"body,omitempty"`
	ContentType string        `json:"content_type,omitempty"`
	Probability float64       `json:"probability,omitempty"`
	Delay       Duration      `json:"delay,omitempty"`
	Before      bool          `json:"before,omitempty"`
	ClusterID   string        `json:"cluster_id,omitempty"`
	NodeID      string        `json:"node_id,omitempty"`
	NodeAddress string        `json:"node_address,omitempty"`
	NodeIndex   int           `json:"node_index,omitempty"`
	After       Duration      `json:"after,omitempty"`
	NodeStatus  sb.NodeStatus `json:"node_status,omitempty"`
	Target      string        `json:"target,omitempty"`
	Utilization int64         `json:"utilization,omitempty"`
	PoolID      string        `json:"pool_id,omitempty"`
	// Secret is set in the answer to a rotate_secret.
	Secret string `json:"secret,omitempty"`
	// Used counts how often an armed fault fired.
	Used int `json:"used,omitempty"`
}

// Faults is the fault injector of a Simulator. It is safe for concurrent use.
type Faults struct {
	s    *Simulator
	mu   sync.Mutex
	list []*Fault
	seq  int
}

// Add arms a fault (or applies an immediate one) and returns it with its ID.
func (f *Faults) Add(ft Fault) (Fault, error) {
	switch ft.Kind {
	case FaultStickInActivation, FaultStickInExpansion, FaultNodeOutage, FaultRotateSecret, FaultUtilization, FaultPoolInactive:
		return f.s.applyImmediate(ft)
	case FaultFail, FaultRandom, FaultDelay, FaultDrop, FaultSilentRefusal, FaultActivationFailure,
		FaultActivationDriverDeath, FaultExpansionException, FaultStartAbort, FaultNodeStuckInShutdown,
		FaultNodeStuckInRestart, FaultNodeAddFailure, FaultEnum500, FaultNotReady:
	default:
		return Fault{}, fmt.Errorf("unknown fault kind %q", ft.Kind)
	}
	if ft.Kind == FaultEnum500 && ft.Target != "cluster" && ft.Target != "tasks" {
		return Fault{}, fmt.Errorf("dto_enum_500 needs target cluster or tasks")
	}
	if ft.Kind == FaultStartAbort && ft.NodeIndex < 1 {
		return Fault{}, fmt.Errorf("start_abort needs node_index >= 1")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	ft.ID = fmt.Sprintf("f%d", f.seq)
	ft.Used = 0
	c := ft
	f.list = append(f.list, &c)
	return c, nil
}

// MustAdd is Add for tests and the demo: it panics on an invalid fault.
func (f *Faults) MustAdd(ft Fault) Fault {
	out, err := f.Add(ft)
	if err != nil {
		panic(err)
	}
	return out
}

// FailNext fails the next n matching calls with status (n 0 = until removed).
func (f *Faults) FailNext(method, pathPattern string, n, status int) string {
	return f.MustAdd(Fault{Kind: FaultFail, Method: method, Path: pathPattern, Count: n, Status: status}).ID
}

// DelayResponses delays the next n matching responses by d (wall clock).
func (f *Faults) DelayResponses(method, pathPattern string, n int, d time.Duration) string {
	return f.MustAdd(Fault{Kind: FaultDelay, Method: method, Path: pathPattern, Count: n, Delay: Duration(d)}).ID
}

// DropResponses applies the next n matching calls and drops their responses.
func (f *Faults) DropResponses(method, pathPattern string, n int) string {
	return f.MustAdd(Fault{Kind: FaultDrop, Method: method, Path: pathPattern, Count: n}).ID
}

// Remove disarms one fault; it reports whether it existed.
func (f *Faults) Remove(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.list {
		if x.ID == id {
			f.list = append(f.list[:i], f.list[i+1:]...)
			return true
		}
	}
	return false
}

// Clear disarms all faults.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = nil
}

// List returns the armed faults.
func (f *Faults) List() []Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Fault, 0, len(f.list))
	for _, x := range f.list {
		out = append(out, *x)
	}
	return out
}

// take consumes one use of the first armed fault of kind that pred accepts.
func (f *Faults) take(kind FaultKind, pred func(*Fault) bool) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.list {
		if x.Kind != kind || (pred != nil && !pred(x)) {
			continue
		}
		x.Used++
		c := *x
		if x.Count > 0 && x.Used >= x.Count {
			f.list = append(f.list[:i], f.list[i+1:]...)
		}
		return &c
	}
	return nil
}

// has reports whether a fault of kind that pred accepts is armed, without
// consuming it.
func (f *Faults) has(kind FaultKind, pred func(*Fault) bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range f.list {
		if x.Kind == kind && (pred == nil || pred(x)) {
			return true
		}
	}
	return false
}

func (f *Faults) notReady() bool { return f.has(FaultNotReady, nil) }

func (f *Faults) enum500(clusterID, target string) bool {
	return f.has(FaultEnum500, func(x *Fault) bool {
		return x.Target == target && (x.ClusterID == "" || x.ClusterID == clusterID)
	})
}

// matchesRequest applies the Method/Path selector.
func (x *Fault) matchesRequest(r *http.Request) bool {
	if x.Method != "" && !strings.EqualFold(x.Method, r.Method) {
		return false
	}
	if x.Path == "" {
		return true
	}
	p := r.URL.Path
	if ok, _ := path.Match(x.Path, p); ok {
		return true
	}
	ok, _ := path.Match(x.Path, strings.TrimPrefix(p, apiPrefix))
	return ok
}

func reqPred(r *http.Request) func(*Fault) bool {
	return func(x *Fault) bool { return x.matchesRequest(r) }
}

func clusterPred(cid string) func(*Fault) bool {
	return func(x *Fault) bool { return x.ClusterID == "" || x.ClusterID == cid }
}

func nodePred(nid string) func(*Fault) bool {
	return func(x *Fault) bool { return x.NodeID == "" || x.NodeID == nid }
}

// silentRefusal consumes a silent_refusal fault matching the request.
func (s *Simulator) silentRefusal(r *http.Request) bool {
	if s.faults.take(FaultSilentRefusal, reqPred(r)) != nil {
		s.logf("fault: %s %s accepted with 202 and silently refused", r.Method, r.URL.Path)
		return true
	}
	return false
}

// bufferedWriter holds a response so it can be delayed or dropped.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }
func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedWriter) flushTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// faultMiddleware applies the transport-level faults: fail, random, delay
// and drop.
func (s *Simulator) faultMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := s.faults
		if x := f.take(FaultFail, reqPred(r)); x != nil {
			status := x.Status
			if status == 0 {
				status = http.StatusInternalServerError
			}
			s.logf("fault: failing %s %s with %d", r.Method, r.URL.Path, status)
			writeFaultBody(w, status, x.Body, x.ContentType)
			return
		}
		if x := f.take(FaultRandom, func(x *Fault) bool { return x.matchesRequest(r) && s.chance(x.Probability) }); x != nil {
			status := x.Status
			if status == 0 {
				s.mu.Lock()
				status = []int{500, 502, 503}[s.rng.IntN(3)]
				s.mu.Unlock()
			}
			writeFaultBody(w, status, x.Body, x.ContentType)
			return
		}
		var delay time.Duration
		before := false
		if x := f.take(FaultDelay, reqPred(r)); x != nil {
			delay, before = time.Duration(x.Delay), x.Before
		}
		drop := f.take(FaultDrop, reqPred(r)) != nil
		if before && delay > 0 {
			if !s.wallSleep(delay) {
				// Closed while holding the request: it is never applied and
				// never answered.
				s.abort(w, r)
			}
			delay = 0
		}
		if delay == 0 && !drop {
			next.ServeHTTP(w, r)
			return
		}
		bw := &bufferedWriter{header: http.Header{}}
		next.ServeHTTP(bw, r)
		if delay > 0 && !s.wallSleep(delay) {
			s.abort(w, r) // closed while delaying the answer: it is lost
		}
		if drop {
			ci := callInfoFrom(r)
			ci.status, ci.dropped = bw.status, true
			s.logf("fault: dropping the %d response of %s %s", bw.status, r.Method, r.URL.Path)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
				return
			}
			panic(http.ErrAbortHandler)
		}
		bw.flushTo(w)
	})
}

// abort closes the connection without an answer.
func (s *Simulator) abort(w http.ResponseWriter, r *http.Request) {
	callInfoFrom(r).dropped = true
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
	panic(http.ErrAbortHandler)
}

// wallSleep sleeps real time d unless the simulator closes first.
func (s *Simulator) wallSleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (s *Simulator) chance(p float64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < p
}

// applyImmediate performs the immediate fault kinds.
func (s *Simulator) applyImmediate(ft Fault) (Fault, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clk.now()
	switch ft.Kind {
	case FaultStickInActivation, FaultStickInExpansion, FaultRotateSecret, FaultUtilization:
		c := s.m.cluster(ft.ClusterID)
		if c == nil {
			return Fault{}, fmt.Errorf("cluster %q not found", ft.ClusterID)
		}
		switch ft.Kind {
		case FaultStickInActivation:
			c.heartbeat, c.activationStart = now, now
			s.setClusterStatusLocked(c, sb.ClusterInActivation, "fault")
		case FaultStickInExpansion:
			s.setClusterStatusLocked(c, sb.ClusterInExpansion, "fault")
		case FaultRotateSecret:
			c.secret = randomSecret()
			ft.Secret = c.secret
		case FaultUtilization:
			c.sizeUtil = ft.Utilization
		}
	case FaultNodeOutage:
		n := s.m.node(ft.NodeID)
		if n == nil {
			return Fault{}, fmt.Errorf("node %q not found", ft.NodeID)
		}
		st := ft.NodeStatus
		if st == "" {
			st = sb.NodeUnreachable
		}
		switch st {
		case sb.NodeOffline, sb.NodeUnreachable, sb.NodeDown, sb.NodeSchedulable:
		default:
			return Fault{}, fmt.Errorf("node_outage status must be offline, unreachable, down or schedulable")
		}
		d := time.Duration(ft.After)
		if d <= 0 {
			d = time.Minute
		}
		n.outageUntil = now.Add(d)
		// The monitor leaves a node alone whose status another flow owns
		// (MON:1033-1035,1083-1085,1280,1298): the outage then only
		// makes restarts fail until it ends. In particular it never turns
		// in_restart into offline (set_node_status refuses that, SNO:6686-6700).
		skip := map[sb.NodeStatus][]sb.NodeStatus{
			sb.NodeOffline:     {sb.NodeInShutdown, sb.NodeInRestart},
			sb.NodeUnreachable: {sb.NodeInShutdown, sb.NodeInRestart},
			sb.NodeSchedulable: {sb.NodeInShutdown},
			sb.NodeDown:        {sb.NodeSuspended, sb.NodeInShutdown},
		}[st]
		if slices.Contains(skip, n.status) || n.status == st || n.status == sb.NodeRemoved {
			s.logf("fault: node %s is %s; the outage leaves its status", n.id, n.status)
			break
		}
		// A failure does not clear a deliberate stop's
		// auto_restart_disabled (only a return to online does,
		// SNO:6702-6708): a suspended node that fails is not
		// auto-restarted.
		s.setNodeStatusLocked(n, st)
		// The monitor's offline and schedulable paths also set the node's
		// devices unavailable (MON:1036-1043,1282-1289); unreachable and
		// down do not (MON:1079-1090,1296-1299).
		if st == sb.NodeOffline || st == sb.NodeSchedulable {
			s.devicesUnavailableLocked(n)
		}
	case FaultPoolInactive:
		p := s.m.pool(ft.PoolID)
		if p == nil {
			return Fault{}, fmt.Errorf("pool %q not found", ft.PoolID)
		}
		// pool_controller.set_status logs the change (PC:399-410, PE:34-44).
		old := p.status
		p.status = sb.PoolInactive
		if old != p.status {
			s.poolEventLocked(p, evStatusChange, fmt.Sprintf("Pool status changed from %s to %s", old, p.status))
		}
	}
	return ft, nil
}

// RotateSecret gives a cluster a new secret and returns it.
func (s *Simulator) RotateSecret(clusterID string) (string, error) {
	f, err := s.faults.Add(Fault{Kind: FaultRotateSecret, ClusterID: clusterID})
	return f.Secret, err
}
