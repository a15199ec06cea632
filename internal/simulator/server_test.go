package simulator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestRouting(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 1, Status: sb.ClusterActive})
	type want struct {
		status   int
		body     string
		location string
	}
	cases := map[string]struct {
		reason string
		method string
		path   string
		token  string
		want   want
	}{
		"InstanceWithoutSlash": {
			reason: "Instances are declared with a slash; the other spelling is a 307, before auth.",
			method: "GET", path: base(cid),
			want: want{status: 307, location: s.URL() + base(cid) + "/"},
		},
		"ActionWithSlash": {
			reason: "Actions are declared without a slash; the query string is kept.",
			method: "POST", path: base(cid) + "/activate/?x=1", token: adminToken,
			want: want{status: 307, location: s.URL() + base(cid) + "/activate?x=1"},
		},
		"CollectionWithoutSlash": {
			reason: "Collections are declared with a slash.",
			method: "GET", path: "/api/v2/clusters",
			want: want{status: 307, location: s.URL() + "/api/v2/clusters/"},
		},
		"UnknownPath": {
			reason: "Unknown paths are FastAPI's 404.",
			method: "GET", path: "/api/v2/nope/", token: adminToken,
			want: want{status: 404, body: `{"detail":"Not Found"}`},
		},
		"OutsidePrefix": {
			reason: "Everything lives under /api/v2.",
			method: "GET", path: "/clusters/",
			want: want{status: 404, body: `{"detail":"Not Found"}`},
		},
		"WrongMethod": {
			reason: "A path match with the wrong method is 405.",
			method: "PATCH", path: base(cid) + "/", token: adminToken,
			want: want{status: 405, body: `{"detail":"Method Not Allowed"}`},
		},
		"Health": {
			reason: "The health probe needs no auth and answers 204.",
			method: "GET", path: "/api/v2/_meta/health",
			want: want{status: 204},
		},
		"Ready": {
			reason: "The ready probe answers 204 while FDB is up.",
			method: "GET", path: "/api/v2/_meta/ready",
			want: want{status: 204},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, tc.token, tc.method, tc.path, nil)
			got := want{status: r.status, body: string(r.body), location: r.header.Get("Location")}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\n%s %s: -want, +got:\n%s", tc.reason, tc.method, tc.path, diff)
			}
		})
	}
}

func TestAuth(t *testing.T) {
	s := newSim(t)
	cid, secret, _ := s.Seed(SeedCluster{Nodes: 1})
	other, otherSecret, _ := s.Seed(SeedCluster{Nodes: 0})
	type want struct {
		status  int
		body    string
		wwwAuth string
	}
	cases := map[string]struct {
		reason string
		header string
		path   string
		want   want
	}{
		"MissingHeader": {
			reason: "A missing header is 401 Not authenticated with WWW-Authenticate (FastAPI >= 0.122).",
			path:   base(cid) + "/", want: want{401, `{"detail":"Not authenticated"}`, "Bearer"},
		},
		"WrongScheme": {
			reason: "A scheme other than Bearer counts as missing.",
			header: "Basic abc", path: base(cid) + "/", want: want{401, `{"detail":"Not authenticated"}`, "Bearer"},
		},
		"MissingHeaderMalformedUUID": {
			reason: "The header check comes before path validation.",
			path:   "/api/v2/clusters/xyz/", want: want{401, `{"detail":"Not authenticated"}`, "Bearer"},
		},
		"UnknownToken": {
			reason: "An unknown token is 401 Invalid token, without WWW-Authenticate.",
			header: "Bearer nope", path: base(cid) + "/", want: want{401, `{"detail":"Invalid token"}`, ""},
		},
		"OtherClustersSecret": {
			reason: "A cluster secret only works on its own cluster's routes.",
			header: "Bearer " + otherSecret, path: base(cid) + "/", want: want{401, `{"detail":"Invalid token"}`, ""},
		},
		"SecretOnOtherClustersNodes": {
			reason: "Node routes of another cluster are refused too.",
			header: "Bearer " + secret, path: base(other) + "/storage-nodes/", want: want{status: 401, body: `{"detail":"Invalid token"}`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL()+tc.path, nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body := make([]byte, 512)
			n, _ := resp.Body.Read(body)
			got := want{resp.StatusCode, string(body[:n]), resp.Header.Get("WWW-Authenticate")}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}

	statusCases := map[string]struct {
		reason string
		token  string
		method string
		path   string
		want   int
	}{
		"SecretOwnCluster":      {"A secret reads its own cluster.", secret, "GET", base(cid) + "/", 200},
		"SecretListsAll":        {"A secret may call routes without {cluster_id}, listing every cluster.", otherSecret, "GET", "/api/v2/clusters/", 200},
		"MalformedUUIDBadToken": {"A present but wrong token with a malformed id gets 422, not 401.", "nope", "GET", "/api/v2/clusters/xyz/", 422},
		"AdminUnknownCluster":   {"Admin tokens reach the 404.", adminToken, "GET", base("00000000-0000-0000-0000-000000000000") + "/", 404},
		"SecretUnknownCluster":  {"A secret on an unknown cluster id is 401.", secret, "GET", base("00000000-0000-0000-0000-000000000000") + "/", 401},
	}
	for name, tc := range statusCases {
		t.Run(name, func(t *testing.T) {
			if got := call(t, s, tc.token, tc.method, tc.path, nil).status; got != tc.want {
				t.Errorf("\n%s\nstatus: want %d, got %d", tc.reason, tc.want, got)
			}
		})
	}

	t.Run("RotatedSecret", func(t *testing.T) {
		newSecret, err := s.RotateSecret(cid)
		if err != nil {
			t.Fatal(err)
		}
		if got := call(t, s, secret, "GET", base(cid)+"/", nil).status; got != 401 {
			t.Errorf("the old secret should get 401 after a rotation, got %d", got)
		}
		if got := call(t, s, newSecret, "GET", base(cid)+"/", nil).status; got != 200 {
			t.Errorf("the new secret should work, got %d", got)
		}
	})
	t.Run("DeletedCluster", func(t *testing.T) {
		if got := call(t, s, adminToken, "DELETE", base(other)+"/", nil).status; got != 204 {
			t.Fatalf("delete empty cluster: %d", got)
		}
		if got := call(t, s, otherSecret, "GET", "/api/v2/clusters/", nil).status; got != 401 {
			t.Errorf("the secret of a deleted cluster should get 401, got %d", got)
		}
	})
}

func TestAuthBootstrapAnd403(t *testing.T) {
	s := newSim(t, func(o *Options) { o.MissingAuthStatus = 403 })
	body := map[string]any{"name": "first", "max_subsys": 0, "spdk_vcpu_count": 0}
	cases := map[string]struct {
		reason string
		header string
		want   response
	}{
		"Missing403":     {"Older FastAPI answers 403 for a missing header.", "", response{status: 403, body: []byte(`{"detail":"Not authenticated"}`)}},
		"WrongScheme403": {"Older FastAPI answers 403 Invalid authentication credentials for a wrong scheme.", "Basic x", response{status: 403, body: []byte(`{"detail":"Invalid authentication credentials"}`)}},
		"NoClusterNoSecret": {"With zero clusters no secret can match: bootstrap needs an admin token.", "Bearer whatever",
			response{status: 401, body: []byte(`{"detail":"Invalid token"}`)}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", s.URL()+"/api/v2/clusters/", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			buf := make([]byte, 512)
			n, _ := resp.Body.Read(buf)
			if diff := cmp.Diff(tc.want.String(), response{status: resp.StatusCode, body: buf[:n]}.String()); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if r := call(t, s, adminToken, "POST", "/api/v2/clusters/", body); r.status != 201 {
		t.Errorf("admin bootstrap create: %s", r)
	}
}

func TestTLS(t *testing.T) {
	s := newSim(t, func(o *Options) { o.TLS = true })
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CACertPEM()) {
		t.Fatal("CACertPEM is not a PEM certificate")
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Get(s.URL() + "/api/v2/_meta/health")
	if err != nil {
		t.Fatalf("HTTPS health: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || !regexp.MustCompile(`^https://127\.0\.0\.1:\d+$`).MatchString(s.URL()) {
		t.Errorf("want 204 over https, got %d at %s", resp.StatusCode, s.URL())
	}
}
