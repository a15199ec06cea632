package simplyblock_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestGetRaw covers the raw GET the conformance check reads the backend
// with: every answer as received, one GET each, no redirect followed, no
// retry, the token only when asked.
func TestGetRaw(t *testing.T) {
	type seen struct {
		method, path, query, auth string
	}
	type want struct {
		status int
		body   string
		header string // the Location header
		seen   []seen
	}
	cases := map[string]struct {
		reason string
		path   string
		query  url.Values
		noAuth bool
		status int
		body   string
		want   want
	}{
		"OK": {
			reason: "A 200 is returned with its body, and the path is sent as given.",
			path:   "/clusters/",
			status: http.StatusOK,
			body:   `[]`,
			want:   want{status: 200, body: `[]`, seen: []seen{{"GET", "/api/v2/clusters/", "", "Bearer " + testToken}}},
		},
		"Redirect": {
			reason: "A 307 is returned as it is, not followed.",
			path:   "/clusters",
			status: http.StatusTemporaryRedirect,
			want: want{status: 307, header: "http://elsewhere.invalid/api/v2/clusters/",
				seen: []seen{{"GET", "/api/v2/clusters", "", "Bearer " + testToken}}},
		},
		"ServerErrorNotRetried": {
			reason: "A 503 is an answer: returned, and not retried as the typed GETs are.",
			path:   "/clusters/x/logs",
			query:  url.Values{"limit": {"0"}},
			status: http.StatusServiceUnavailable,
			body:   "busy",
			want:   want{status: 503, body: "busy", seen: []seen{{"GET", "/api/v2/clusters/x/logs", "limit=0", "Bearer " + testToken}}},
		},
		"NoAuth": {
			reason: "A probe without a token sends none.",
			path:   "/_meta/health",
			noAuth: true,
			status: http.StatusNoContent,
			want:   want{status: 204, seen: []seen{{"GET", "/api/v2/_meta/health", "", ""}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var got []seen
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				got = append(got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization")})
				mu.Unlock()
				if tc.status == http.StatusTemporaryRedirect {
					w.Header().Set("Location", "http://elsewhere.invalid/api/v2/clusters/")
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, err := simplyblock.New(simplyblock.Config{BaseURL: srv.URL, Token: testToken, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.GetRaw(context.Background(), tc.path, tc.query, tc.noAuth)
			if err != nil {
				t.Fatalf("\n%s\nGetRaw(...): %v", tc.reason, err)
			}
			mu.Lock()
			defer mu.Unlock()
			g := want{status: resp.StatusCode, body: string(resp.Body), header: resp.Header.Get("Location"), seen: got}
			if diff := cmp.Diff(tc.want, g, cmp.AllowUnexported(want{}, seen{})); diff != "" {
				t.Errorf("\n%s\nGetRaw(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestGetRawRelativePath(t *testing.T) {
	c, err := simplyblock.New(simplyblock.Config{BaseURL: "http://127.0.0.1:1", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRaw(context.Background(), "clusters/", nil, false); err == nil {
		t.Errorf("GetRaw(relative path): want an error, got none")
	}
}
