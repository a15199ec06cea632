package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	"io"
	"net/http"
	"testing"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

const adminToken = "admin-token"

// testSpeed makes backend minutes take tens of milliseconds.
const testSpeed = 1000

// newSim starts a simulator for one test and closes it afterwards.
func newSim(t *testing.T, mutate ...func(*Options)) *Simulator {
	t.Helper()
	// Every response the simulator writes in these tests is checked against
	// the vendor OpenAPI spec (with the backend's documented deviations).
	opts := Options{Speed: testSpeed, AdminTokens: []string{adminToken}, Seed: 42, Middleware: contract.Load(t).Middleware}
	for _, m := range mutate {
		m(&opts)
	}
	s := New(opts)
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

// call sends one request to the API. A nil body sends none; a string body
// is sent verbatim; anything else is JSON-encoded. Redirects are not
// followed.
func call(t *testing.T, s *Simulator, token, method, path string, body any) response {
	t.Helper()
	r, err := tryCall(s, token, method, path, body, 10*time.Second)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

func tryCall(s *Simulator, token, method, path string, body any, timeout time.Duration) (response, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return response{}, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, s.URL()+path, rd)
	if err != nil {
		return response{}, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: data}, err
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
	return v
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func clusterStatus(s *Simulator, cid string) sb.ClusterStatus {
	c, _ := s.Cluster(cid)
	return c.Status
}

func waitCluster(t *testing.T, s *Simulator, cid string, want sb.ClusterStatus) {
	t.Helper()
	eventually(t, fmt.Sprintf("cluster %s", want), func() bool { return clusterStatus(s, cid) == want })
}

func nodeByID(s *Simulator, cid, nid string) sb.StorageNodeDTO {
	for _, n := range s.Nodes(cid) {
		if n.ID == nid {
			return n
		}
	}
	return sb.StorageNodeDTO{}
}

func waitNode(t *testing.T, s *Simulator, cid, nid string, want sb.NodeStatus) {
	t.Helper()
	eventually(t, fmt.Sprintf("node %s", want), func() bool { return nodeByID(s, cid, nid).Status == want })
}

func nodeStatuses(s *Simulator, cid string) []sb.NodeStatus {
	var out []sb.NodeStatus
	for _, n := range s.Nodes(cid) {
		out = append(out, n.Status)
	}
	return out
}

func tasksOf(s *Simulator, cid, fn string) []sb.TaskDTO {
	var out []sb.TaskDTO
	for _, t := range s.Tasks(cid) {
		if t.FunctionName == fn {
			out = append(out, t)
		}
	}
	return out
}

// hasEvent reports whether the cluster logged msg.
func hasEvent(s *Simulator, cid, msg string) bool {
	for _, e := range s.Events(cid) {
		if e == msg {
			return true
		}
	}
	return false
}

// addBareNode adds an online node without an lvstore (as an add to a
// cluster that is not activated would leave it), bypassing the API.
func addBareNode(s *Simulator, cid, ip string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.newNodeLocked(cid, ip+":5000", map[string]any{"node_addr": ip + ":5000"})
	n.status, n.onlineSince = sb.NodeOnline, s.clk.now()
	c := s.m.cluster(cid)
	for _, d := range n.devices { // created with the node: online, no events
		d.order, d.status = c.nextDeviceOrder, devOnline
		c.nextDeviceOrder++
	}
	return n.id
}

func base(cid string) string { return "/api/v2/clusters/" + cid }

func nodePath(cid, nid string) string { return base(cid) + "/storage-nodes/" + nid }
