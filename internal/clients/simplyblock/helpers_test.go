package simplyblock_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Fixed ids used across the tests.
const (
	clusterID = "6f1c2b8e-4b7a-4f3e-9d0a-1c2b3d4e5f60"
	nodeID    = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	poolID    = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
	taskID    = "12345678-9abc-4def-8123-456789abcdef"
	testToken = "s3cr3t-T0ken-xyz"
)

// recorded is what a test server saw of one request.
type recorded struct {
	Method string
	Path   string
	Query  string
	Body   string
	Header http.Header
}

// recorder is an http.Handler that records requests and answers with a
// fixed status and body.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
	status   int
	body     string
	header   http.Header
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests = append(r.requests, recorded{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Body: string(b), Header: req.Header.Clone()})
	status, body, header := r.status, r.body, r.header
	r.mu.Unlock()
	for k, v := range header {
		w.Header()[k] = v
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (r *recorder) last() recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.requests) == 0 {
		return recorded{}
	}
	return r.requests[len(r.requests)-1]
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// newClient starts an httptest server with h and returns a client for it.
func newClient(t *testing.T, h http.Handler, timeout time.Duration) (*simplyblock.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := simplyblock.New(simplyblock.Config{BaseURL: srv.URL, Token: testToken, Timeout: timeout, UserAgentVersion: "v0.0.1-test"})
	if err != nil {
		t.Fatalf("New(...): %v", err)
	}
	return c, srv
}

// hijackAndClose reads the request body, then drops the connection without
// answering.
func hijackAndClose(w http.ResponseWriter, r *http.Request) {
	_, _ = io.ReadAll(r.Body)
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}
