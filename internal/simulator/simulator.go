package simulator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// ctxT abbreviates the context type of background work.
type ctxT = context.Context

// Options configures a Simulator.
type Options struct {
	// Speed is the time scale: a backend duration d takes d/Speed of real
	// time. 1 is real time; tests use ~1000 and the demo ~20. <=0 means 1.
	Speed float64
	// AdminTokens are bearer tokens treated as admin service-account tokens.
	// They may do anything, including the bootstrap POST /clusters/.
	AdminTokens []string
	// TLS serves HTTPS with a generated self-signed CA and a certificate for
	// 127.0.0.1, ::1 and localhost. See CACertPEM.
	TLS bool
	// RequireClientCert, with TLS, refuses at the TLS handshake every client
	// without a certificate issued by a generated client CA, as the backend
	// does with SB_TLS_CLIENT_AUTH=required. See ClientCertPEM.
	RequireClientCert bool
	// Addr is the API listen address, default 127.0.0.1:0.
	Addr string
	// AdminAddr is the admin (faults, journal, state) listen address,
	// default 127.0.0.1:0.
	AdminAddr string
	// Seed seeds the randomness used to pick durations within the
	// documented ranges. 0 picks a fixed default seed.
	Seed int64
	// MissingAuthStatus is the status for a missing or non-Bearer
	// Authorization header: 401 (default, FastAPI >= 0.122) or 403.
	MissingAuthStatus int
	// Logf receives one line per API call and per notable background event.
	// nil means silent. It may be called with the model lock held, so it
	// must not call back into the Simulator.
	Logf func(format string, args ...any)
	// Middleware optionally wraps the API handler, e.g. to validate
	// requests and responses against the OpenAPI contract in tests.
	Middleware func(http.Handler) http.Handler
}

// Simulator is an in-process fake of the simplyblock control-plane REST API
// v2, faithful to the backend's state machines and faults. It is safe for
// concurrent use.
type Simulator struct {
	opts   Options
	clk    clock
	faults *Faults

	mu  sync.Mutex // guards m and rng; never held while sleeping
	m   model
	rng *rand.Rand

	journalMu sync.Mutex
	journal   []JournalEntry

	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	spawnMu  sync.Mutex // orders spawn against Close
	stopping bool

	handler  http.Handler
	apiSrv   *http.Server
	adminSrv *http.Server
	apiURL   string
	adminURL string
	caPEM    []byte
	tlsCfg   *tls.Config
	closed   sync.Once

	// clientPKI is the client CA and certificate when RequireClientCert.
	clientPKI *clientPKI

	routesOnce sync.Once
	routeList  []route
}

// New returns a Simulator. Its monitor starts immediately (so Handler can be
// used with httptest without Start); call Close to stop all background work.
func New(opts Options) *Simulator {
	if opts.MissingAuthStatus == 0 {
		opts.MissingAuthStatus = http.StatusUnauthorized
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.AdminAddr == "" {
		opts.AdminAddr = "127.0.0.1:0"
	}
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Simulator{
		opts:   opts,
		clk:    newClock(opts.Speed),
		rng:    rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x5eed)),
		ctx:    ctx,
		cancel: cancel,
		m:      model{creating: map[string]string{}},
	}
	s.faults = &Faults{s: s}
	var h http.Handler = http.HandlerFunc(s.serveAPI)
	h = s.faultMiddleware(h)
	if opts.Middleware != nil {
		h = opts.Middleware(h)
	}
	s.handler = s.journalMiddleware(h)
	s.spawn(s.monitorLoop)
	return s
}

// Start listens on the API and admin addresses and serves in the background.
func (s *Simulator) Start() error {
	if s.opts.RequireClientCert && !s.opts.TLS {
		return errClientCertWithoutTLS
	}
	apiLn, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen api: %w", err)
	}
	adminLn, err := net.Listen("tcp", s.opts.AdminAddr)
	if err != nil {
		_ = apiLn.Close()
		return fmt.Errorf("listen admin: %w", err)
	}
	scheme := "http"
	s.apiSrv = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second,
		// HTTP/1.1 only, so that a dropped response can hijack the connection.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}}
	if s.opts.TLS {
		cfg, err := s.serverTLS()
		if err != nil {
			_ = apiLn.Close()
			_ = adminLn.Close()
			return err
		}
		s.tlsCfg = cfg
		apiLn = tls.NewListener(apiLn, cfg)
		scheme = "https"
	}
	s.apiURL = scheme + "://" + apiLn.Addr().String()
	s.adminSrv = &http.Server{Handler: s.adminHandler(), ReadHeaderTimeout: 10 * time.Second}
	s.adminURL = "http://" + adminLn.Addr().String()
	go func() {
		if err := s.apiSrv.Serve(apiLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("api server: %v", err)
		}
	}()
	go func() {
		if err := s.adminSrv.Serve(adminLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logf("admin server: %v", err)
		}
	}()
	return nil
}

// Close stops the servers and all background work (actions, task runners,
// the monitor) and waits for it to finish.
func (s *Simulator) Close() {
	s.closed.Do(func() {
		s.spawnMu.Lock()
		s.stopping = true
		s.spawnMu.Unlock()
		s.cancel()
		for _, srv := range []*http.Server{s.apiSrv, s.adminSrv} {
			if srv != nil {
				_ = srv.Close()
			}
		}
		s.wg.Wait()
	})
}

// URL is the API base URL, e.g. https://127.0.0.1:PORT. Clients append
// /api/v2.
func (s *Simulator) URL() string { return s.apiURL }

// AdminURL is the admin endpoint's base URL.
func (s *Simulator) AdminURL() string { return s.adminURL }

// CACertPEM returns the PEM of the CA that signed the API certificate when
// Options.TLS is set, otherwise nil.
func (s *Simulator) CACertPEM() []byte { return s.caPEM }

// Handler returns the API handler (journal, faults, Middleware and routes),
// for use with httptest.
func (s *Simulator) Handler() http.Handler { return s.handler }

// Faults returns the fault injector.
func (s *Simulator) Faults() *Faults { return s.faults }

// Cluster returns a cluster's current state, bypassing auth and the DTO enum
// faults (so it also shows in_shrink).
func (s *Simulator) Cluster(id string) (sb.ClusterDTO, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(id)
	if c == nil {
		return sb.ClusterDTO{}, false
	}
	return c.dto(), true
}

// Nodes returns all node records of a cluster (including removed ones) in
// database order.
func (s *Simulator) Nodes(clusterID string) []sb.StorageNodeDTO {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clk.now()
	out := []sb.StorageNodeDTO{}
	for _, n := range s.m.clusterNodes(clusterID) {
		out = append(out, n.dto(now))
	}
	return out
}

// Tasks returns all tasks of a cluster, including the device_migration
// tasks the API hides, sorted by date.
func (s *Simulator) Tasks(clusterID string) []sb.TaskDTO {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []sb.TaskDTO{}
	for _, t := range s.m.clusterTasks(clusterID) {
		out = append(out, t.dto())
	}
	return out
}

// Pools returns the storage pools of a cluster.
func (s *Simulator) Pools(clusterID string) []sb.StoragePoolDTO {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []sb.StoragePoolDTO{}
	for _, p := range s.m.clusterPools(clusterID) {
		out = append(out, p.dto())
	}
	return out
}

// Events returns the Message of every event in a cluster's log, oldest
// first, as GET /logs renders it (distrib rows with their " (<count>)").
func (s *Simulator) Events(clusterID string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(clusterID)
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.events))
	for _, e := range c.events {
		out = append(out, e.renderedMessage())
	}
	return out
}

// Log returns a cluster's whole event log, oldest first, in the shape of
// GET /clusters/{id}/logs?limit=0 (but [] instead of the 500 for an empty
// log, and nil for an unknown cluster).
func (s *Simulator) Log(clusterID string) []sb.ClusterLogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(clusterID)
	if c == nil {
		return nil
	}
	out := make([]sb.ClusterLogEntry, 0, len(c.events))
	for _, e := range c.events {
		out = append(out, e.entry())
	}
	return out
}

// ---- helpers shared by the handlers and background work -------------------

func (s *Simulator) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// spawn runs fn in a goroutine that Close waits for. After Close it does
// nothing.
func (s *Simulator) spawn(fn func(ctx context.Context)) {
	s.spawnMu.Lock()
	defer s.spawnMu.Unlock()
	if s.stopping {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn(s.ctx)
	}()
}

// sleep waits for a backend duration; false means the simulator is closing.
func (s *Simulator) sleep(d time.Duration) bool { return s.clk.sleep(s.ctx, d) }

// randDur picks a duration uniformly in [lo, hi]. Callers hold no lock.
func (s *Simulator) randDur(lo, hi time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.randDurLocked(lo, hi)
}

func (s *Simulator) randDurLocked(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(s.rng.Int64N(int64(hi-lo)))
}

// setClusterStatusLocked changes a cluster's status and, on a real change
// only, writes "Cluster status changed from <old> to <new>" (CE:34-41,
// OPS:1804-1847). causedBy is not part of the entry GET /logs returns.
func (s *Simulator) setClusterStatusLocked(c *clusterState, st sb.ClusterStatus, causedBy string) {
	if c.status == st {
		return
	}
	old := c.status
	c.status = st
	if st == sb.ClusterActive || st == sb.ClusterDegraded || st == sb.ClusterReadOnly {
		// Leaving suspension for a healthy status ends the
		// suspend-recovery episode (OPS:1834-1841).
		c.suspendDrainComplete = false
	}
	s.clusterEventLocked(c, evStatusChange, fmt.Sprintf("Cluster status changed from %s to %s", old, st))
}

// setNodeStatusLocked is set_node_status (SNO:6652-6771): it changes a
// node's status, maintaining the timestamps the monitor needs, and on a
// real change writes "Storage node status changed from: <old> to: <new>".
// A node whose SPDK stops serving (online, suspended or down -> in_shutdown,
// offline, unreachable or schedulable) also gets the peers' distrib rows.
func (s *Simulator) setNodeStatusLocked(n *nodeState, st sb.NodeStatus) {
	if n.status == st {
		return
	}
	old := n.status
	n.status = st
	now := s.clk.now()
	n.statusSince = now
	if st == sb.NodeOnline {
		n.onlineSince = now
		n.killFailed = false
		// A node that returns online no longer carries a deliberate
		// shutdown's marker (SNO:6702-6708).
		n.autoRestartDisabled = false
		s.cancelPendingNodeRestartsLocked(n)
	}
	s.nodeStatusEventLocked(n, old, st)
	switch st {
	case sb.NodeInShutdown, sb.NodeOffline, sb.NodeUnreachable, sb.NodeSchedulable:
		if serving(old) {
			s.distribOutageLocked(n)
		}
	}
}

// cancelPendingNodeRestartsLocked is cancel_pending_node_restart_tasks
// (TC:526-546), called by set_node_status when a node goes online
// (SNO:6761-6769): every open node_restart task of the node ends
// done+canceled, "canceled: node back online".
func (s *Simulator) cancelPendingNodeRestartsLocked(n *nodeState) {
	for _, t := range s.m.clusterTasks(n.clusterID) {
		if t.nodeID == n.id && t.fn == sb.TaskFunctionNodeRestart && t.status != sb.TaskDone && !t.canceled {
			t.status, t.canceled, t.result = sb.TaskDone, true, nodeBackOnline
		}
	}
}

// newTaskLocked stores a task in status new and writes its "Task created"
// event (TC:300-311; none for device_migration subtasks).
func (s *Simulator) newTaskLocked(cid, nodeID, fn string, maxRetry int64, params map[string]any) *taskState {
	t := &taskState{id: newID(), clusterID: cid, nodeID: nodeID, fn: fn, status: sb.TaskNew,
		maxRetry: maxRetry, params: params, date: s.clk.now()}
	s.m.tasks = append(s.m.tasks, t)
	s.taskCreatedEventLocked(t)
	return t
}

// backoff is the task runners' retry delay: 10 s doubling to 3600 s.
func backoff(retry int64) time.Duration {
	d := 10 * time.Second
	for i := int64(1); i < retry && d < time.Hour; i++ {
		d *= 2
	}
	if d > time.Hour {
		d = time.Hour
	}
	return d
}
