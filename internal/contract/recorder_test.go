package contract

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewRecorder(t *testing.T) {
	spec := loadSpec(t)
	v := NewRecorder(spec)
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	})))
	req, _ := http.NewRequest("GET", srv.URL+"/api/v2/clusters/"+cid+"/logs", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("Do(...): %v", err)
	}
	_ = resp.Body.Close()
	srv.Close() // wait for the handler, so the middleware has recorded

	// A recorder fails no test: the harness reads Failures.
	got := v.Failures()
	if len(got) != 1 || !strings.Contains(got[0], "response body is an empty array") {
		t.Errorf("\nA recorder records what its Middleware sees.\nFailures(): want one empty-log violation, got %q", got)
	}
}
