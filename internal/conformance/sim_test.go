package conformance_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/conformance/opsclassify"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const adminToken = "conformance-admin-token"

// methodRecorder records the methods of the requests a server receives
// while it is on.
type methodRecorder struct {
	on      atomic.Bool
	mu      sync.Mutex
	methods map[string]int
}

func (m *methodRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m.on.Load() {
			m.mu.Lock()
			if m.methods == nil {
				m.methods = map[string]int{}
			}
			m.methods[r.Method]++
			m.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// onlyGETs fails t when anything but a GET was recorded.
func (m *methodRecorder) onlyGETs(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for method, n := range m.methods {
		if method != http.MethodGet {
			t.Errorf("the check sent %d %s request(s): it must only send GETs", n, method)
		}
	}
	if m.methods[http.MethodGet] == 0 {
		t.Errorf("the check sent no GET")
	}
}

// simWorld is a simulator served on TLS, as the provider reaches a real
// control plane, with content for every check: an active cluster whose log
// holds node and cluster status changes and which has a pool, and a
// cluster activated through the API.
type simWorld struct {
	sim      *simulator.Simulator
	rec      *methodRecorder
	cfg      sb.Config
	active   string
	secret   string
	unready  string
	nodeIDs  []string
	activate string
}

func newSimWorld(t *testing.T) *simWorld {
	t.Helper()
	rec := &methodRecorder{}
	// Every answer is also checked against the vendor spec.
	validate := contract.Load(t).Middleware
	sim := simulator.New(simulator.Options{Speed: 1000, AdminTokens: []string{adminToken}, TLS: true, Seed: 7,
		Middleware: func(h http.Handler) http.Handler { return rec.wrap(validate(h)) }})
	if err := sim.Start(); err != nil {
		t.Fatalf("simulator Start: %v", err)
	}
	t.Cleanup(sim.Close)
	w := &simWorld{sim: sim, rec: rec, cfg: sb.Config{BaseURL: sim.URL(), Token: adminToken, CABundle: sim.CACertPEM(), Timeout: 10 * time.Second}}
	w.active, w.secret, w.nodeIDs = sim.Seed(simulator.SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	w.activate, _, _ = sim.Seed(simulator.SeedCluster{Nodes: 3})

	c, err := sb.New(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateStoragePool(ctx, w.active, sb.StoragePoolParams{Name: "pool1"}); err != nil {
		t.Fatalf("CreateStoragePool: %v", err)
	}
	if err := c.SuspendStorageNode(ctx, w.active, w.nodeIDs[0], false); err != nil {
		t.Fatalf("SuspendStorageNode: %v", err)
	}
	if err := c.ResumeStorageNode(ctx, w.active, w.nodeIDs[0]); err != nil {
		t.Fatalf("ResumeStorageNode: %v", err)
	}
	if err := c.ActivateCluster(ctx, w.activate); err != nil {
		t.Fatalf("ActivateCluster: %v", err)
	}
	for {
		cl, err := c.GetCluster(ctx, w.activate)
		if err == nil && cl.Status == sb.ClusterActive {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("cluster %s not active: %v %v", w.activate, cl, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return w
}

// TestRunAgainstSimulator runs every check against the simulator, which
// answers as sbcli 754ff3e1 does: nothing may fail, and the check sends
// only GETs and never prints the token or a secret.
func TestRunAgainstSimulator(t *testing.T) {
	w := newSimWorld(t)
	type want struct {
		status map[string]conformance.Status
		detail map[string]string // a substring of the Detail
	}
	all := func(overrides map[string]conformance.Status) map[string]conformance.Status {
		m := map[string]conformance.Status{}
		for _, id := range []string{conformance.CheckHealth, conformance.CheckAuthInvalidToken, conformance.CheckClusters,
			conformance.CheckClusterDetail, conformance.CheckRedirect, conformance.CheckClusterNotFound, conformance.CheckNodes,
			conformance.CheckNodeDetail, conformance.CheckPools, conformance.CheckTasks, conformance.CheckLogShape,
			conformance.CheckLogLimit, conformance.CheckLogClassification} {
			m[id] = conformance.Pass
		}
		for k, v := range overrides {
			m[k] = v
		}
		return m
	}
	cases := map[string]struct {
		reason string
		opts   func(w *simWorld) conformance.Options
		setup  func(t *testing.T, w *simWorld)
		want   want
	}{
		"AdminToken": {
			reason: "With an admin token and the active cluster, every check passes; the unknown cluster is a quoted 404.",
			opts: func(w *simWorld) conformance.Options {
				return conformance.Options{Config: w.cfg, ClusterID: w.active, Classify: opsclassify.Classify, LogLimit: 3}
			},
			want: want{status: all(nil), detail: map[string]string{
				conformance.CheckClusterNotFound:   "answered 404",
				conformance.CheckLogClassification: `and 2 "Storage node status changed from: X to: Y" as their node's`,
			}},
		},
		"ActivatedCluster": {
			reason: "The cluster activated through the API has cluster status changes; its log is read with the default limit.",
			opts: func(w *simWorld) conformance.Options {
				return conformance.Options{Config: w.cfg, ClusterID: w.activate, Classify: opsclassify.Classify}
			},
			want: want{status: all(nil)},
		},
		"ClusterSecretToken": {
			reason: "A cluster secret picks its own cluster, and another cluster's id is refused with 401 before the lookup.",
			opts: func(w *simWorld) conformance.Options {
				cfg := w.cfg
				cfg.Token = w.secret
				return conformance.Options{Config: cfg, Classify: opsclassify.Classify}
			},
			want: want{status: all(nil), detail: map[string]string{conformance.CheckClusterNotFound: "cluster-secret token"}},
		},
		"NoClassifier": {
			reason: "Without the provider's classifier the classification is skipped, not passed.",
			opts: func(w *simWorld) conformance.Options {
				return conformance.Options{Config: w.cfg, ClusterID: w.active}
			},
			want: want{status: all(map[string]conformance.Status{conformance.CheckLogClassification: conformance.Skip})},
		},
		"TaskOutsideEnum": {
			reason: "While a task outside TaskDTO's enum exists the task list is the plain-text 500, which passes as such.",
			setup: func(t *testing.T, w *simWorld) {
				f := w.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultEnum500, Target: "tasks", ClusterID: w.active})
				t.Cleanup(func() { w.sim.Faults().Remove(f.ID) })
			},
			opts: func(w *simWorld) conformance.Options {
				return conformance.Options{Config: w.cfg, ClusterID: w.active, Classify: opsclassify.Classify}
			},
			want: want{status: all(nil), detail: map[string]string{conformance.CheckTasks: "plain-text 500"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.setup != nil {
				tc.setup(t, w)
			}
			w.rec.mu.Lock()
			w.rec.methods = nil
			w.rec.mu.Unlock()
			w.rec.on.Store(true)
			rep, err := conformance.Run(context.Background(), tc.opts(w))
			w.rec.on.Store(false)
			if err != nil {
				t.Fatalf("\n%s\nRun(...): %v", tc.reason, err)
			}
			var out bytes.Buffer
			if err := rep.Write(&out); err != nil {
				t.Fatal(err)
			}
			got := map[string]conformance.Status{}
			for _, r := range rep.Results {
				got[r.ID] = r.Status
			}
			if diff := cmp.Diff(tc.want.status, got); diff != "" {
				t.Errorf("\n%s\nRun(...): -want status, +got status:\n%s\nreport:\n%s", tc.reason, diff, out.String())
			}
			for id, sub := range tc.want.detail {
				if r, _ := rep.Result(id); !strings.Contains(r.Detail, sub) {
					t.Errorf("\n%s\nRun(...): %s detail %q does not contain %q", tc.reason, id, r.Detail, sub)
				}
			}
			for _, secret := range []string{adminToken, w.secret} {
				if strings.Contains(out.String(), secret) {
					t.Errorf("\n%s\nRun(...): the report prints a token or secret:\n%s", tc.reason, out.String())
				}
			}
			w.rec.onlyGETs(t)
			t.Log("\n" + out.String())
		})
	}
}

// TestProbeAgainstSimulator runs the provider's connect-time subset: the
// simulator is conformant, and the probe is complete once a cluster with a
// log exists.
func TestProbeAgainstSimulator(t *testing.T) {
	w := newSimWorld(t)
	cases := map[string]struct {
		reason string
		token  func(w *simWorld) string
		want   conformance.State
		wantCl func(w *simWorld) string
	}{
		"AdminToken": {
			reason: "An admin token reads the first cluster's log.",
			token:  func(*simWorld) string { return adminToken },
			want:   conformance.Conformant,
		},
		"ClusterSecret": {
			reason: "A cluster secret reads its own cluster's log, the only one it may.",
			token:  func(w *simWorld) string { return w.secret },
			want:   conformance.Conformant,
			wantCl: func(w *simWorld) string { return w.active },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := w.cfg
			cfg.Token = tc.token(w)
			c, err := sb.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			w.rec.mu.Lock()
			w.rec.methods = nil
			w.rec.mu.Unlock()
			w.rec.on.Store(true)
			v := conformance.Probe(context.Background(), c, cfg.Token, opsclassify.Classify)
			w.rec.on.Store(false)
			if v.State != tc.want || !v.Complete {
				t.Errorf("\n%s\nProbe(...): got %s (complete %t, %q), want %s complete; results %+v", tc.reason, v.State, v.Complete, v.Reason,
					tc.want, v.Results)
			}
			if tc.wantCl != nil && v.Cluster != tc.wantCl(w) {
				t.Errorf("\n%s\nProbe(...): read the log of %s, want %s", tc.reason, v.Cluster, tc.wantCl(w))
			}
			w.rec.onlyGETs(t)
		})
	}
}
