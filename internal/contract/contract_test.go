package contract

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	cid = "6f1c2b8e-4b7a-4f3e-9d0a-1c2b3d4e5f60"
	nid = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
	pid = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f"
)

func loadSpec(t *testing.T) *Spec {
	t.Helper()
	return Load(t).Spec()
}

func clusterDTO() map[string]any {
	return map[string]any{
		"id": cid, "name": nil, "nqn": "nqn.2023-02.io.simplyblock:" + cid, "status": "unready", "is_re_balancing": false,
		"block_size": 512, "distr_ndcs": 1, "distr_npcs": 1, "ha": true, "utilization_critical": 90, "utilization_warning": 80,
		"provisioned_capacity_critical": 190, "provisioned_capacity_warning": 180, "node_affinity": false, "anti_affinity": false,
		"enable_failure_domain": false, "secret": "abcdefghijklmnopqrst", "tls_enabled": false, "max_fault_tolerance": 1,
		"backup_enabled": false, "capacity": capacity(),
	}
}

func capacity() map[string]any {
	return map[string]any{"date": 0, "size_total": 0, "size_prov": 0, "size_used": 0, "size_free": 0, "size_util": 0}
}

func poolDTO() map[string]any {
	return map[string]any{"id": pid, "cluster_id": cid, "name": "p", "status": "active", "max_size": 0, "volume_max_size": 0,
		"max_rw_iops": 0, "max_rw_mbytes": 0, "max_r_mbytes": 0, "max_w_mbytes": 0, "capacity": nil, "dhchap": false, "allowed_hosts": []any{}}
}

func clusterParams() map[string]any {
	return map[string]any{"name": "c1", "distr_ndcs": 1, "distr_npcs": 1, "max_subsys": 0, "spdk_vcpu_count": 0, "backup_config": nil}
}

func with(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

func without(m map[string]any, k string) map[string]any {
	delete(m, k)
	return m
}

func js(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	authJSON = http.Header{"Authorization": {"Bearer tok"}, "Content-Type": {"application/json"}}
	jsonType = http.Header{"Content-Type": {"application/json"}}
	textType = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
)

// matchAll reports whether got has one message per wanted substring, in
// any order. Most messages are worded by kin-openapi.
func matchAll(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	left := slices.Clone(got)
	for _, w := range want {
		i := slices.IndexFunc(left, func(g string) bool { return strings.Contains(g, w) })
		if i < 0 {
			return false
		}
		left = slices.Delete(left, i, i+1)
	}
	return true
}

func TestCheckRequest(t *testing.T) {
	spec := loadSpec(t)
	cases := map[string]struct {
		reason string
		ex     Exchange
		want   []string
	}{
		"CreateClusterOK": {
			reason: "A create with the backend-required extra fields passes.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/", Query: url.Values{"response-format": {"full"}},
				RequestHeader: authJSON, RequestBody: js(t, clusterParams())},
		},
		"CreateClusterMissingMaxSubsys": {
			reason: "max_subsys is required by the backend although the spec lacks it.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/", RequestHeader: authJSON,
				RequestBody: js(t, without(clusterParams(), "max_subsys"))},
			want: []string{`request body at /max_subsys: property "max_subsys" is missing`},
		},
		"CreateClusterBadTypes": {
			reason: "Wrong types, enums and bounds are caught.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/", RequestHeader: authJSON,
				RequestBody: js(t, with(with(with(clusterParams(), "blk_size", 1024), "cap_warn", 101), "distr_ndcs", "2"))},
			want: []string{"request body at /blk_size: value is not one of the allowed values [512,4096]",
				"request body at /cap_warn: number must be at most 100", "request body at /distr_ndcs: value must be an integer"},
		},
		"UnknownBodyField": {
			reason: "An unknown field would be silently dropped by the backend: a failure.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/", RequestHeader: authJSON,
				RequestBody: js(t, with(clusterParams(), "distr_ndc", 1))},
			want: []string{`request body: property "distr_ndc" is unsupported`},
		},
		"WrongTrailingSlash": {
			reason: "A collection without its slash is not in the spec.",
			ex:     Exchange{Method: "GET", Path: "/api/v2/clusters", RequestHeader: authJSON},
			want:   []string{"no path in the spec matches /api/v2/clusters (the spec has /api/v2/clusters/: wrong trailing slash, the backend answers 307)"},
		},
		"ActionWithSlash": {
			reason: "An action with a trailing slash is not in the spec.",
			ex:     Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/activate/", RequestHeader: authJSON},
			want:   []string{"no path in the spec matches /api/v2/clusters/" + cid + "/activate/ (the spec has /api/v2/clusters/{cluster_id}/activate: wrong trailing slash, the backend answers 307)"},
		},
		"BadUUID": {
			reason: "Path ids must be UUIDs.",
			ex:     Exchange{Method: "GET", Path: "/api/v2/clusters/not-a-uuid/", RequestHeader: authJSON},
			want:   []string{`path parameter cluster_id: 'not-a-uuid' is not valid uuid`},
		},
		"MissingAuth": {
			reason: "Cluster routes need a bearer token.",
			ex:     Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/activate", RequestHeader: http.Header{}},
			want:   []string{"missing Authorization: Bearer header"},
		},
		"HealthNeedsNoAuth": {
			reason: "The probes need no token.",
			ex:     Exchange{Method: "GET", Path: "/api/v2/_meta/health", RequestHeader: http.Header{}},
		},
		"UnknownQuery": {
			reason: "An undeclared query parameter is silently ignored by the backend: a failure.",
			ex: Exchange{Method: "DELETE", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/",
				Query: url.Values{"force-remove": {"true"}}, RequestHeader: authJSON},
			want: []string{`query parameter "force-remove" is not declared`},
		},
		"BadBooleanQuery": {
			reason: "Boolean query values must be true or false.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/suspend",
				Query: url.Values{"force": {"yes"}}, RequestHeader: authJSON},
			want: []string{"query parameter force: value yes: an invalid boolean"},
		},
		"BadResponseFormat": {
			reason: "response-format is an enum.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-pools/", Query: url.Values{"response-format": {"dto"}},
				RequestHeader: authJSON, RequestBody: js(t, map[string]any{"name": "p"})},
			want: []string{"query parameter response-format: value must be one of 'empty', 'full', 'identifier'"},
		},
		"RestartWithoutBody": {
			reason: "Node restart requires a body.",
			ex:     Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/restart", RequestHeader: authJSON},
			want:   []string{"required request body is missing"},
		},
		"RestartNullList": {
			reason: "new_ssd_pcie is a non-nullable list.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/restart", RequestHeader: authJSON,
				RequestBody: []byte(`{"force":false,"new_ssd_pcie":null}`)},
			want: []string{"request body at /new_ssd_pcie: got null, want array"},
		},
		"BodyOnAction": {
			reason: "Activate takes no body.",
			ex:     Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/activate", RequestHeader: authJSON, RequestBody: []byte(`{}`)},
			want:   []string{"request body sent to an operation that declares none"},
		},
		"WrongMethod": {
			reason: "PATCH is not declared.",
			ex:     Exchange{Method: "PATCH", Path: "/api/v2/clusters/" + cid + "/", RequestHeader: authJSON},
			want:   []string{"method PATCH is not declared for /api/v2/clusters/{cluster_id}/"},
		},
		"MissingContentType": {
			reason: "A JSON body must say so.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/", RequestHeader: http.Header{"Authorization": {"Bearer tok"}},
				RequestBody: js(t, clusterParams())},
			want: []string{`request body: header Content-Type has unexpected value ""`},
		},
		"EmptyBearer": {
			reason: "A bearer token must not be empty.",
			ex:     Exchange{Method: "GET", Path: "/api/v2/clusters/" + cid + "/", RequestHeader: http.Header{"Authorization": {"Bearer "}}},
			want:   []string{"missing Authorization: Bearer header"},
		},
		"OutOfScope": {
			reason: "Paths outside /api/v2/ are not checked.",
			ex:     Exchange{Method: "POST", Path: "/_sim/faults"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := spec.CheckRequest(tc.ex); !matchAll(tc.want, got) {
				t.Errorf("\n%s\nCheckRequest(...):\nwant messages containing %q\ngot  %q", tc.reason, tc.want, got)
			}
		})
	}
}

func TestCheckResponse(t *testing.T) {
	spec := loadSpec(t)
	get := func(path string, status int, h http.Header, body []byte) Exchange {
		return Exchange{Method: "GET", Path: path, Status: status, ResponseHeader: h, ResponseBody: body}
	}
	cluster := "/api/v2/clusters/" + cid + "/"
	cases := map[string]struct {
		reason string
		ex     Exchange
		want   []string
	}{
		"ClusterOK": {
			reason: "A full ClusterDTO passes, secret included.",
			ex:     get(cluster, 200, jsonType, js(t, clusterDTO())),
		},
		"ClusterInShrink": {
			reason: "in_shrink is a tolerated status.",
			ex:     get(cluster, 200, jsonType, js(t, with(clusterDTO(), "status", "in_shrink"))),
		},
		"ClusterBadStatus": {
			reason: "Other statuses are not.",
			ex:     get(cluster, 200, jsonType, js(t, with(clusterDTO(), "status", "broken"))),
			want:   []string{`response body at /status: value is not one of the allowed values ["active","read_only","inactive","suspended","degraded","unready","in_activation","in_expansion","in_shrink"]`},
		},
		"ClusterMissingField": {
			reason: "A required field is missing.",
			ex:     get(cluster, 200, jsonType, js(t, without(clusterDTO(), "nqn"))),
			want:   []string{`response body at /nqn: property "nqn" is missing`},
		},
		"ClusterExtraField": {
			reason: "An extra field is not in the spec.",
			ex:     get(cluster, 200, jsonType, js(t, with(clusterDTO(), "extra", 1))),
			want:   []string{`response body: property "extra" is unsupported`},
		},
		"ClusterNotJSON": {
			reason: "A declared JSON response must say so.",
			ex:     get(cluster, 200, textType, js(t, clusterDTO())),
			want:   []string{`response header Content-Type has unexpected value: "text/plain; charset=utf-8"`},
		},
		"PoolCapacityNull": {
			reason: "A pool's capacity may be null.",
			ex:     get("/api/v2/clusters/"+cid+"/storage-pools/", 200, jsonType, js(t, []any{poolDTO()})),
		},
		"PutCluster204": {
			reason: "PUT cluster answers 204 although the spec says 200.",
			ex:     Exchange{Method: "PUT", Path: cluster, Status: 204, ResponseHeader: http.Header{}},
		},
		"PutCluster204WithBody": {
			reason: "That 204 must be empty.",
			ex:     Exchange{Method: "PUT", Path: cluster, Status: 204, ResponseHeader: jsonType, ResponseBody: []byte(`{}`)},
			want:   []string{"status 204 declares no content, but the response has a 2-byte body (put-cluster-204)"},
		},
		"DeleteNode204": {
			reason: "Node delete answers 204 although the spec says 200.",
			ex:     Exchange{Method: "DELETE", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/", Status: 204, ResponseHeader: http.Header{}},
		},
		"Activate202WithBody": {
			reason: "A declared status without content must have no body.",
			ex:     Exchange{Method: "POST", Path: cluster + "activate", Status: 202, ResponseHeader: jsonType, ResponseBody: []byte(`null`)},
			want:   []string{"status 202 declares no content, but the response has a 4-byte body"},
		},
		"NotFoundQuoted": {
			reason: "An undeclared 404 with a detail string is tolerated.",
			ex:     get(cluster, 404, jsonType, []byte(`{"detail":"'Cluster `+cid+` not found'"}`)),
		},
		"NotFoundBadShape": {
			reason: "A tolerated status still has its body checked.",
			ex:     get(cluster, 404, jsonType, []byte(`{"message":"nope"}`)),
			want: []string{"response body: missing property 'detail' (undeclared-error-statuses)",
				"response body: additional properties 'message' not allowed (undeclared-error-statuses)"},
		},
		"PlainText500": {
			reason: "A plain-text 500 is tolerated.",
			ex:     Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/suspend", Status: 500, ResponseHeader: textType, ResponseBody: []byte("Internal Server Error")},
		},
		"RuntimeError500": {
			reason: "The {status, detail} 500 is tolerated.",
			ex:     get(cluster, 500, jsonType, []byte(`{"status":"An error occured while processing the request","detail":"x"}`)),
		},
		"Empty500": {
			reason: "A plain-text 500 must say something.",
			ex:     get(cluster, 500, textType, nil),
			want:   []string{"response body: minLength: got 0, want 1 (undeclared-error-statuses)"},
		},
		"RedirectWithoutLocation": {
			reason: "A 307 must say where to go.",
			ex:     get("/api/v2/clusters", 307, http.Header{}, nil),
			want:   []string{"307 without a Location header (undeclared-error-statuses)"},
		},
		"MethodNotAllowed": {
			reason: "An undeclared method may be refused with 405 and a detail.",
			ex:     Exchange{Method: "PATCH", Path: cluster, Status: 405, ResponseHeader: jsonType, ResponseBody: []byte(`{"detail":"Method Not Allowed"}`)},
		},
		"NotReady503": {
			reason: "The ready probe answers 503.",
			ex:     get("/api/v2/_meta/ready", 503, textType, []byte("FDB not ready")),
		},
		"Teapot": {
			reason: "Statuses outside the table fail.",
			ex:     get(cluster, 418, jsonType, []byte(`{"detail":"x"}`)),
			want:   []string{"status 418 is neither declared for GET /api/v2/clusters/{cluster_id}/ nor a documented deviation"},
		},
		"BadGateway": {
			reason: "Proxy statuses are not the backend's.",
			ex:     get(cluster, 502, textType, nil),
			want:   []string{"status 502 is neither declared for GET /api/v2/clusters/{cluster_id}/ nor a documented deviation"},
		},
		"Undeclared422StillChecked": {
			reason: "A 422 where undeclared fails and its body is checked against HTTPValidationError.",
			ex:     get("/api/v2/_meta/health", 422, jsonType, []byte(`{"detail":[{"msg":"x"}]}`)),
			want: []string{"status 422 is neither declared for GET /api/v2/_meta/health nor a documented deviation",
				`response body at /detail/0/loc: property "loc" is missing`, `response body at /detail/0/type: property "type" is missing`},
		},
		"Declared422": {
			reason: "A declared 422 is checked against its schema.",
			ex:     get(cluster, 422, jsonType, []byte(`{"detail":[{"type":"uuid_parsing","loc":["path","cluster_id"],"msg":"Input should be a valid UUID","input":"x","ctx":{"error":"e"}}]}`)),
		},
		"CreateNodeIdentifier": {
			reason: "Node create returns the task id as a JSON string by default.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/", Status: 201,
				ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Location": {"/api/v2/clusters/" + cid + "/tasks/" + nid + "/"}},
				ResponseBody:   []byte(`"` + nid + `"`)},
		},
		"CreatePoolFullWithoutLocation": {
			reason: "A create must set Location.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-pools/", Query: url.Values{"response-format": {"full"}}, Status: 201,
				ResponseHeader: jsonType, ResponseBody: js(t, poolDTO())},
			want: []string{`response header "Location" missing (create-response-bodies)`},
		},
		"CreatePoolFullBadDTO": {
			reason: "A full create must return the DTO.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-pools/", Query: url.Values{"response-format": {"full"}}, Status: 201,
				ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Location": {"/api/v2/clusters/" + cid + "/storage-pools/" + pid + "/"}},
				ResponseBody:   js(t, without(poolDTO(), "name"))},
			want: []string{`response body at /name: property "name" is missing (create-response-bodies)`},
		},
		"CreatePoolEmpty": {
			reason: "An empty-format create has no body.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-pools/", Query: url.Values{"response-format": {"empty"}}, Status: 201,
				ResponseHeader: http.Header{"Location": {"/api/v2/clusters/" + cid + "/storage-pools/" + pid + "/"}}, ResponseBody: []byte(`{}`)},
			want: []string{"status 201 declares no content, but the response has a 2-byte body (create-response-bodies)"},
		},
		"CreateNodeIdentifierNotUUID": {
			reason: "The identifier format returns a UUID string.",
			ex: Exchange{Method: "POST", Path: "/api/v2/clusters/" + cid + "/storage-nodes/", Status: 201,
				ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Location": {"/api/v2/clusters/" + cid + "/tasks/" + nid + "/"}},
				ResponseBody:   []byte(`"task-1"`)},
			want: []string{"response body: 'task-1' is not valid uuid"},
		},
		"Redirect": {
			reason: "A wrong slash answered 307 with Location is fine.",
			ex:     Exchange{Method: "GET", Path: "/api/v2/clusters", Status: 307, ResponseHeader: http.Header{"Location": {"/api/v2/clusters/"}}},
		},
		"UnroutedAccepted": {
			reason: "Answering 200 to a path outside the spec fails.",
			ex:     get("/api/v2/clusters", 200, jsonType, []byte(`[]`)),
			want:   []string{"answered 200 to GET /api/v2/clusters, which is not in the spec"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := spec.CheckResponse(tc.ex); !matchAll(tc.want, got) {
				t.Errorf("\n%s\nCheckResponse(...):\nwant messages containing %q\ngot  %q", tc.reason, tc.want, got)
			}
		})
	}
}

// captureTB drops cleanups, so a Validator's failures are inspected with
// Failures instead of failing the test.
type captureTB struct{ testing.TB }

func (captureTB) Cleanup(func()) {}

func TestRoundTripperAndMiddleware(t *testing.T) {
	spec := loadSpec(t)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v2/clusters/" + cid + "/":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(js(t, without(clusterDTO(), "secret")))
		case "/api/v2/clusters/" + cid + "/activate":
			w.WriteHeader(http.StatusAccepted)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
		}
	})
	type want struct {
		client []string
		server []string
	}
	cases := map[string]struct {
		reason string
		method string
		path   string
		body   string
		want   want
	}{
		"Good": {
			reason: "A valid exchange records nothing.",
			method: "POST", path: "/api/v2/clusters/" + cid + "/activate",
		},
		"BadResponse": {
			reason: "Both sides see the server's missing field.",
			method: "GET", path: "/api/v2/clusters/" + cid + "/",
			want: want{
				client: []string{"client GET /api/v2/clusters/" + cid + "/ (HTTP 200): response body at /secret: property \"secret\" is missing"},
				server: []string{"server GET /api/v2/clusters/" + cid + "/ (HTTP 200): response body at /secret: property \"secret\" is missing"},
			},
		},
		"BadRequestRefused": {
			reason: "A bad request is the client's fault; the server refusing it with 404 is fine.",
			method: "POST", path: "/api/v2/clusters/" + cid + "/activate/",
			want: want{client: []string{"client POST /api/v2/clusters/" + cid + "/activate/ (HTTP 404): no path in the spec matches /api/v2/clusters/" + cid +
				"/activate/ (the spec has /api/v2/clusters/{cluster_id}/activate: wrong trailing slash, the backend answers 307)"}},
		},
		"BadRequestAccepted": {
			reason: "A server accepting a request outside the spec fails on the server side.",
			method: "POST", path: "/api/v2/clusters/" + cid + "/activate", body: `{"x":1}`,
			want: want{
				client: []string{"client POST /api/v2/clusters/" + cid + "/activate (HTTP 202): request body sent to an operation that declares none"},
				server: []string{"server POST /api/v2/clusters/" + cid + "/activate (HTTP 202): accepted a request outside the spec: request body sent to an operation that declares none"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			client := NewValidator(captureTB{t}, spec)
			server := NewValidator(captureTB{t}, spec)
			srv := httptest.NewServer(server.Middleware(handler))
			defer srv.Close()
			hc := &http.Client{Transport: client.RoundTripper(srv.Client().Transport)}

			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, body)
			req.Header.Set("Authorization", "Bearer tok")
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatalf("Do(...): %v", err)
			}
			_ = resp.Body.Close()
			srv.Close() // wait for the handler, so the server side has recorded

			if diff := cmp.Diff(tc.want.client, client.Failures()); diff != "" {
				t.Errorf("\n%s\nclient failures: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.server, server.Failures()); diff != "" {
				t.Errorf("\n%s\nserver failures: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDocListsEveryDeviation(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Deviations {
		if !strings.Contains(string(doc), d.ID) {
			t.Errorf("doc.go does not document deviation %q", d.ID)
		}
	}
}

func TestSpecPath(t *testing.T) {
	want := filepath.Join("shared", "reference", SpecFile)
	if got := filepath.Clean(SpecPath()); !strings.HasSuffix(got, want) {
		t.Errorf("SpecPath() = %q, want a path ending in %q", got, want)
	}
}

// obj walks a decoded JSON document along keys.
func obj(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

func TestParseSpecFailsLoudly(t *testing.T) {
	const (
		putCluster = "/api/v2/clusters/{cluster_id}/"
		migrations = "/api/v2/clusters/{cluster_id}/storage-pools/{pool_id}/volumes/{volume_id}/migrations/"
	)
	cases := map[string]struct {
		reason string
		doc    string
		patch  func(doc map[string]any)
		want   string
	}{
		"OpenAPI30": {
			reason: "Only 3.1 is supported.",
			doc:    `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}`,
			want:   `unsupported OpenAPI version "3.0.3", want 3.1.x`,
		},
		"UnknownKeyword": {
			reason: "A keyword kin-openapi does not know would be silently ignored: refuse it.",
			patch:  func(doc map[string]any) { obj(doc, "components", "schemas", "TaskDTO")["exclusiveMinLength"] = 1 },
			want:   `/components/schemas/TaskDTO: unsupported schema keyword "exclusiveMinLength"`,
		},
		"UnknownFormat": {
			reason: "An unknown format would go unchecked: refuse it.",
			patch: func(doc map[string]any) {
				obj(doc, "components", "schemas", "TaskDTO", "properties", "id")["format"] = "uuid4"
			},
			want: `unsupported format "uuid4"`,
		},
		"DeviationNoLongerApplies": {
			reason: "A spec that fixed a deviation forces a review of the table.",
			patch: func(doc map[string]any) {
				obj(doc, "components", "schemas", "ClusterParams", "properties")["max_subsys"] = map[string]any{"type": "integer"}
			},
			want: "deviation cluster-params-extra-fields: spec now declares max_subsys: review Deviations",
		},
		"SecretNoLongerWriteOnly": {
			reason: "The secret deviation patch checks the shape it patches.",
			patch: func(doc map[string]any) {
				delete(obj(doc, "components", "schemas", "ClusterDTO", "properties", "secret"), "writeOnly")
			},
			want: "deviation cluster-secret-returned: ClusterDTO.secret is no longer writeOnly",
		},
		"StatusEnumHasInShrink": {
			reason: "The in_shrink deviation patch checks the shape it patches.",
			patch: func(doc map[string]any) {
				st := obj(doc, "components", "schemas", "ClusterDTO", "properties", "status")
				st["enum"] = append(st["enum"].([]any), "in_shrink")
			},
			want: "deviation cluster-status-in-shrink",
		},
		"PoolCapacityInline": {
			reason: "The capacity deviation patch checks the shape it patches.",
			patch: func(doc map[string]any) {
				obj(doc, "components", "schemas", "StoragePoolDTO", "properties")["capacity"] = map[string]any{"type": "object"}
			},
			want: "deviation pool-capacity-null",
		},
		"Put204Declared": {
			reason: "A spec that declares the 204 forces a review of the table.",
			patch: func(doc map[string]any) {
				obj(doc, "paths", putCluster, "put", "responses")["204"] = map[string]any{"description": "No Content"}
			},
			want: "deviation put-cluster-204: PUT /api/v2/clusters/{cluster_id}/ changed",
		},
		"CreateDeclaresBody": {
			reason: "A spec that declares the create body forces a review of the table.",
			patch: func(doc map[string]any) {
				obj(doc, "paths", "/api/v2/clusters/", "post", "responses", "201")["content"] = map[string]any{
					"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ClusterDTO"}}}
			},
			want: "deviation create-response-bodies: POST /api/v2/clusters/ changed",
		},
		"WriteOnlyInResponse": {
			reason: "kin-openapi's 2020-12 validator ignores writeOnly: refuse a response that could carry one.",
			patch: func(doc map[string]any) {
				obj(doc, "components", "schemas", "TaskDTO", "properties", "id")["writeOnly"] = true
			},
			want: "writeOnly is not enforced",
		},
		"RepairNoLongerNeeded": {
			reason: "A spec that fixed its defect forces removing the repair.",
			patch: func(doc map[string]any) {
				get := obj(doc, "paths", migrations, "get")
				var pool any
				for _, p := range obj(doc, "paths", migrations, "post")["parameters"].([]any) {
					if p.(map[string]any)["name"] == "pool_id" {
						pool = p
					}
				}
				get["parameters"] = append(get["parameters"].([]any), pool)
			},
			want: "now declares pool_id: remove the repair",
		},
	}
	raw, err := os.ReadFile(SpecPath())
	if err != nil {
		t.Skipf("spec not available: %v", err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			doc := []byte(tc.doc)
			if tc.patch != nil {
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				tc.patch(m)
				doc = js(t, m)
			}
			_, err := ParseSpec(doc)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("\n%s\nParseSpec(...): want error containing %q, got %q", tc.reason, tc.want, got)
			}
		})
	}
}

func TestParseSpecOK(t *testing.T) {
	raw, err := os.ReadFile(SpecPath())
	if err != nil {
		t.Skipf("spec not available: %v", err)
	}
	if _, err := ParseSpec(raw); err != nil {
		t.Errorf("ParseSpec(vendor spec): %v", err)
	}
}
