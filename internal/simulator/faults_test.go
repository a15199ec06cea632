package simulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestTransportFaults(t *testing.T) {
	cases := map[string]struct {
		reason string
		fault  Fault
		want   []string // responses of three GET /clusters/{id}/ calls
	}{
		"FailNext500": {
			reason: "fail: the next N calls get the status with the backend's plain-text 500 body.",
			fault:  Fault{Kind: FaultFail, Method: "GET", Path: "/clusters/*/", Count: 2},
			want:   []string{"500 Internal Server Error", "500 Internal Server Error", "200"},
		},
		"Fail503": {
			reason: "fail with 503 uses the proxy's plain-text body.",
			fault:  Fault{Kind: FaultFail, Path: "/api/v2/clusters/*/", Count: 1, Status: 503},
			want:   []string{"503 Service Unavailable", "200", "200"},
		},
		"Fail409CustomBody": {
			reason: "A custom JSON body is sent as application/json.",
			fault:  Fault{Kind: FaultFail, Count: 1, Status: 409, Body: `{"detail":"x"}`},
			want:   []string{`409 {"detail":"x"}`, "200", "200"},
		},
		"RandomAlways": {
			reason: "random with probability 1 fails every call with 500/502/503.",
			fault:  Fault{Kind: FaultRandom, Probability: 1, Status: 502},
			want:   []string{"502 Bad Gateway", "502 Bad Gateway", "502 Bad Gateway"},
		},
		"OtherMethodUntouched": {
			reason: "The method selector limits the fault.",
			fault:  Fault{Kind: FaultFail, Method: "POST"},
			want:   []string{"200", "200", "200"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Proxy-style 502/503 answers are outside the vendor spec on purpose.
			s := newSim(t, func(o *Options) { o.Middleware = nil })
			cid, _, _ := s.Seed(SeedCluster{})
			s.Faults().MustAdd(tc.fault)
			var got []string
			for i := 0; i < 3; i++ {
				r := call(t, s, adminToken, "GET", base(cid)+"/", nil)
				if r.status == 200 {
					got = append(got, "200")
				} else {
					got = append(got, r.String())
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestLostResponse(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	s.Faults().DropResponses("POST", "/clusters/*/shutdown", 1)
	if _, err := tryCall(s, adminToken, "POST", base(cid)+"/shutdown", nil, 5*time.Second); err == nil {
		t.Fatal("a dropped response should surface as a transport error")
	}
	waitCluster(t, s, cid, sb.ClusterSuspended)
	j := s.Journal()
	if diff := cmp.Diff([]any{1, 202, true}, []any{len(j), j[0].Status, j[0].Dropped}); diff != "" {
		t.Errorf("the call was applied (202) and its response dropped: -want, +got:\n%s", diff)
	}
	if r := call(t, s, adminToken, "POST", base(cid)+"/shutdown", nil); r.status != 202 {
		t.Errorf("count 1: the next call is answered, got %s", r)
	}
}

func TestSilentRefusalAndReady(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3})
	s.Faults().MustAdd(Fault{Kind: FaultSilentRefusal, Method: "POST", Path: "/clusters/*/activate", Count: 1})
	if r := call(t, s, adminToken, "POST", base(cid)+"/activate", nil); r.status != 202 {
		t.Fatalf("silent refusal still answers 202, got %s", r)
	}
	time.Sleep(50 * time.Millisecond)
	if got := clusterStatus(s, cid); got != sb.ClusterUnready {
		t.Errorf("202 then nothing: want unready, got %s", got)
	}
	id := s.Faults().MustAdd(Fault{Kind: FaultNotReady}).ID
	if got := call(t, s, "", "GET", "/api/v2/_meta/ready", nil).String(); got != "503 FDB not ready" {
		t.Errorf("ready with FDB down: %s", got)
	}
	s.Faults().Remove(id)
	if got := call(t, s, "", "GET", "/api/v2/_meta/ready", nil).status; got != 204 {
		t.Errorf("ready after removing the fault: %d", got)
	}
}

func TestEnum500Switch(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 1})
	cases := map[string]struct {
		reason string
		target string
		path   string
	}{
		"Cluster": {"target cluster fails GET cluster as if in_shrink.", "cluster", base(cid) + "/"},
		"List":    {"target cluster also fails the cluster list.", "cluster", "/api/v2/clusters/"},
		"Tasks":   {"target tasks fails the tasks list.", "tasks", base(cid) + "/tasks/"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := s.Faults().MustAdd(Fault{Kind: FaultEnum500, Target: tc.target, ClusterID: cid})
			defer s.Faults().Remove(f.ID)
			if got := call(t, s, adminToken, "GET", tc.path, nil).String(); got != "500 Internal Server Error" {
				t.Errorf("\n%s\ngot %s", tc.reason, got)
			}
		})
	}
	if got := call(t, s, adminToken, "GET", base(cid)+"/tasks/", nil).status; got != 200 {
		t.Errorf("after removal: %d", got)
	}
}

func TestNodeOutage(t *testing.T) {
	cases := map[string]struct {
		reason   string
		status   sb.NodeStatus
		restarts int
		active   bool // the cluster never leaves active
	}{
		"Offline": {
			reason: "An offline outage degrades the cluster, queues an auto node_restart that fails until the outage ends, then recovers.",
			status: sb.NodeOffline, restarts: 1,
		},
		"Unreachable": {
			reason: "An unreachable node keeps its devices online: it does not count against the fault tolerance " +
				"(MON:340-376), the cluster stays active; the node comes back by itself; no restart task.",
			status: sb.NodeUnreachable, restarts: 0, active: true,
		},
		"Down": {
			reason: "down never counts (MON:358-366): the cluster stays active; the node comes back by itself.",
			status: sb.NodeDown, restarts: 0, active: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSim(t)
			cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
			s.Faults().MustAdd(Fault{Kind: FaultNodeOutage, NodeID: nodes[1], NodeStatus: tc.status, After: Duration(100 * time.Second)})
			if !tc.active {
				waitCluster(t, s, cid, sb.ClusterDegraded)
			}
			waitNode(t, s, cid, nodes[1], sb.NodeOnline)
			waitCluster(t, s, cid, sb.ClusterActive)
			if h := statusHistory(s, cid); tc.active && h != nil {
				t.Errorf("\n%s\nthe cluster status must not change, got %v", tc.reason, h)
			}
			if got := len(tasksOf(s, cid, sb.TaskFunctionNodeRestart)); got != tc.restarts {
				t.Errorf("\n%s\nnode_restart tasks: want %d, got %d", tc.reason, tc.restarts, got)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	s.Faults().MustAdd(Fault{Kind: FaultUtilization, ClusterID: cid, Utilization: 95})
	waitCluster(t, s, cid, sb.ClusterReadOnly)
	s.Faults().MustAdd(Fault{Kind: FaultUtilization, ClusterID: cid, Utilization: 10})
	waitCluster(t, s, cid, sb.ClusterActive)
}

func TestJournalAndAdmin(t *testing.T) {
	s := newSim(t)
	admin := func(method, path string, body any) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, s.AdminURL()+path, rd)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	code, data := admin("POST", "/seed", SeedCluster{Name: "seeded", Nodes: 2, Status: sb.ClusterActive})
	seeded := SeedResult{}
	_ = json.Unmarshal(data, &seeded)
	if code != 201 || len(seeded.NodeIDs) != 2 || len(seeded.Secret) != 20 {
		t.Fatalf("POST /seed: %d %s", code, data)
	}
	if r := call(t, s, seeded.Secret, "GET", base(seeded.ClusterID)+"/", nil); r.status != 200 {
		t.Errorf("the seeded secret works: %s", r)
	}
	call(t, s, "", "GET", "/api/v2/_meta/health", nil)
	if got := s.Calls("GET", "/health"); got != 1 {
		t.Errorf("Calls counts by method and suffix: want 1, got %d", got)
	}
	code, data = admin("GET", "/journal", nil)
	var j []JournalEntry
	_ = json.Unmarshal(data, &j)
	if code != 200 || len(j) != 2 || j[1].Path != "/api/v2/_meta/health" || j[1].Status != 204 {
		t.Errorf("GET /journal lists API calls only: %d %s", code, data)
	}
	if code, _ := admin("DELETE", "/journal", nil); code != 204 || len(s.Journal()) != 0 {
		t.Errorf("DELETE /journal clears it")
	}

	code, data = admin("POST", "/faults", map[string]any{"kind": "fail", "path": "/_meta/health", "count": 1, "status": 503})
	var f Fault
	_ = json.Unmarshal(data, &f)
	if code != 201 || f.ID == "" {
		t.Fatalf("POST /faults: %d %s", code, data)
	}
	if got := call(t, s, "", "GET", "/api/v2/_meta/health", nil).status; got != 503 {
		t.Errorf("the fault posted over HTTP applies: %d", got)
	}
	if code, _ := admin("POST", "/faults", map[string]any{"kind": "nope"}); code != 400 {
		t.Errorf("an unknown kind is a 400, got %d", code)
	}
	code, data = admin("POST", "/faults", map[string]any{"kind": "rotate_secret", "cluster_id": seeded.ClusterID})
	_ = json.Unmarshal(data, &f)
	if code != 201 || f.Secret == "" || f.Secret == seeded.Secret {
		t.Errorf("rotate_secret answers the new secret: %d %s", code, data)
	}
	code, data = admin("POST", "/faults", map[string]any{"kind": "delay", "delay": "10ms", "count": 5})
	_ = json.Unmarshal(data, &f)
	if _, list := admin("GET", "/faults", nil); !strings.Contains(string(list), `"delay":"10ms"`) {
		t.Errorf("GET /faults lists the delay fault: %s", list)
	}
	if code, _ := admin("DELETE", "/faults/"+f.ID, nil); code != 204 {
		t.Errorf("DELETE /faults/{id}: %d", code)
	}
	if code, _ := admin("DELETE", "/faults/"+f.ID, nil); code != 404 {
		t.Errorf("a second DELETE /faults/{id}: %d", code)
	}
	admin("POST", "/faults", map[string]any{"kind": "not_ready"})
	if code, _ := admin("DELETE", "/faults", nil); code != 204 || len(s.Faults().List()) != 0 {
		t.Errorf("DELETE /faults clears all")
	}
	code, data = admin("GET", "/state", nil)
	var st State
	_ = json.Unmarshal(data, &st)
	if code != 200 || len(st.Clusters) != 1 || st.Clusters[0].Cluster.Secret == "" || len(st.Clusters[0].ActivatedNodeIDs) != 2 {
		t.Errorf("GET /state shows everything, secrets included: %d %s", code, data)
	}
}

func TestMiddlewareOption(t *testing.T) {
	seen := 0
	s := newSim(t, func(o *Options) {
		o.Middleware = func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen++; next.ServeHTTP(w, r) })
		}
	})
	call(t, s, "", "GET", "/api/v2/_meta/health", nil)
	if seen != 1 {
		t.Errorf("Options.Middleware wraps the API handler: saw %d calls", seen)
	}
}
