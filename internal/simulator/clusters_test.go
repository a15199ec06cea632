package simulator

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func clusterBody(extra map[string]any) map[string]any {
	b := map[string]any{"max_subsys": 0, "spdk_vcpu_count": 0}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func TestClusterCreate(t *testing.T) {
	s := newSim(t)
	if r := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(map[string]any{"name": "taken"})); r.status != 201 {
		t.Fatalf("setup: %s", r)
	}
	cases := map[string]struct {
		reason string
		query  string
		body   any
		status int
		body_  string // exact body, when set
		match  string // regexp the body must match, when set
	}{
		"MissingBody":      {reason: "No body is a pydantic missing entry with input null.", body: nil, status: 422, body_: `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		"MissingRequired":  {reason: "max_subsys and spdk_vcpu_count are required.", body: map[string]any{"name": "x"}, status: 422, match: `"loc":\["body","max_subsys"\].*"loc":\["body","spdk_vcpu_count"\]`},
		"BadBlockSize":     {reason: "blk_size is 512 or 4096.", body: clusterBody(map[string]any{"blk_size": 1024}), status: 422, match: `"type":"literal_error","loc":\["body","blk_size"\]`},
		"BadECPair":        {reason: "Only the listed (ndcs, npcs) pairs are valid.", body: clusterBody(map[string]any{"distr_ndcs": 3, "distr_npcs": 1}), status: 422, match: `Value error, Invalid erasure coding scheme selected`},
		"CapOutOfRange":    {reason: "cap_warn is 0..100.", body: clusterBody(map[string]any{"cap_warn": 101}), status: 422, match: `"loc":\["body","cap_warn"\]`},
		"WrongType":        {reason: "A wrongly typed field is a 422 on that field.", body: clusterBody(map[string]any{"distr_ndcs": "two"}), status: 422, match: `"loc":\["body","distr_ndcs"\]`},
		"BadFormat":        {reason: "response-format is a Literal.", query: "?response-format=xml", body: clusterBody(nil), status: 422, match: `"loc":\["query","response-format"\]`},
		"DuplicateName":    {reason: "A taken name is a 409.", body: clusterBody(map[string]any{"name": "taken"}), status: 409, body_: `{"detail":"A cluster with the name 'taken' already exists"}`},
		"MaxSubsysTooHigh": {reason: "max_subsys above 75 is a 409.", body: clusterBody(map[string]any{"max_subsys": 76}), status: 409, match: `^\{"detail":"`},
		"BadFabric":        {reason: "An invalid fabric is a 409.", body: clusterBody(map[string]any{"fabric": "fc"}), status: 409, match: `^\{"detail":"`},
		"FTT2NeedsHA":      {reason: "max_fault_tolerance > 1 needs ha_type ha.", body: clusterBody(map[string]any{"distr_npcs": 2, "ha_type": "single"}), status: 409, match: `^\{"detail":"`},
		"Identifier":       {reason: "identifier returns the id as a JSON string.", query: "?response-format=identifier", body: clusterBody(nil), status: 201, match: `^"[0-9a-f-]{36}"$`},
		"Empty":            {reason: "empty returns no body.", query: "?response-format=empty", body: clusterBody(nil), status: 201, body_: ``},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, adminToken, "POST", "/api/v2/clusters/"+tc.query, tc.body)
			if r.status != tc.status {
				t.Fatalf("\n%s\nstatus: want %d, got %s", tc.reason, tc.status, r)
			}
			if tc.match == "" {
				if diff := cmp.Diff(tc.body_, string(r.body)); diff != "" {
					t.Errorf("\n%s\nbody: -want, +got:\n%s", tc.reason, diff)
				}
			} else if !regexp.MustCompile(tc.match).Match(r.body) {
				t.Errorf("\n%s\nbody %s does not match %s", tc.reason, r.body, tc.match)
			}
			if tc.status == 201 && !regexp.MustCompile(`^/api/v2/clusters/[0-9a-f-]{36}/$`).MatchString(r.header.Get("Location")) {
				t.Errorf("\n%s\nLocation %q", tc.reason, r.header.Get("Location"))
			}
		})
	}

	t.Run("FullDTODefaults", func(t *testing.T) {
		r := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(map[string]any{"name": "full"}))
		got := decode[sb.ClusterDTO](t, r)
		want := sb.ClusterDTO{ID: got.ID, Name: got.Name, NQN: "nqn.2023-02.io.simplyblock:" + got.ID, Status: sb.ClusterUnready,
			BlockSize: 512, DistrNdcs: 1, DistrNpcs: 1, HA: true, UtilizationCritical: 90, UtilizationWarning: 80,
			ProvisionedCapacityCritical: 190, ProvisionedCapacityWarning: 180, Secret: got.Secret, MaxFaultTolerance: 1}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("a new cluster is unready with the model defaults for 0 caps: -want, +got:\n%s", diff)
		}
		if !regexp.MustCompile(`^[A-Za-z0-9]{20}$`).MatchString(got.Secret) {
			t.Errorf("the secret should be 20 alphanumerics, got %q", got.Secret)
		}
	})
	t.Run("EmptyNameDuplicates", func(t *testing.T) {
		a := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(nil))
		b := call(t, s, adminToken, "POST", "/api/v2/clusters/", clusterBody(nil))
		if a.status != 201 || b.status != 201 || string(a.body) == string(b.body) {
			t.Errorf("an empty name skips the duplicate check: each POST creates a cluster; got %d, %d", a.status, b.status)
		}
	})
}

func TestClusterCRUD(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Name: "one", Nodes: 1})
	empty, _, _ := s.Seed(SeedCluster{Name: "two"})
	withPool, _, _ := s.Seed(SeedCluster{Name: "three"})
	if r := call(t, s, adminToken, "POST", base(withPool)+"/storage-pools/", map[string]any{"name": "p"}); r.status != 201 {
		t.Fatalf("pool: %s", r)
	}
	missing := "11111111-2222-3333-4444-555555555555"
	cases := map[string]struct {
		reason string
		method string
		path   string
		body   any
		want   string
	}{
		"GetUnknown":         {"Unknown ids are a 404 with the KeyError's quotes.", "GET", base(missing) + "/", nil, `404 {"detail":"'Cluster ` + missing + ` not found'"}`},
		"RenameTaken":        {"A name held by another cluster is a plain 500.", "PUT", base(cid) + "/", map[string]any{"name": "two"}, `500 Internal Server Error`},
		"RenameNull":         {"A null name changes nothing and still answers 204.", "PUT", base(cid) + "/", map[string]any{"name": nil}, `204 `},
		"Rename":             {"PUT answers 204.", "PUT", base(cid) + "/", map[string]any{"name": "uno"}, `204 `},
		"RenameMissingBody":  {"The body is required.", "PUT", base(cid) + "/", nil, `422 {"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}`},
		"DeleteWithNodes":    {"Any node record blocks a delete.", "DELETE", base(cid) + "/", nil, `409 {"detail":"Can only remove Empty cluster, Storage nodes found"}`},
		"DeleteWithPools":    {"Any pool blocks a delete.", "DELETE", base(withPool) + "/", nil, `409 {"detail":"Can only remove Empty cluster, Pools found"}`},
		"DeleteEmpty":        {"An empty cluster is deleted whatever its status.", "DELETE", base(empty) + "/", nil, `204 `},
		"LogsLimit":          {"Logs take a limit.", "GET", base(empty) + "/logs?limit=x", nil, `404 {"detail":"'Cluster ` + empty + ` not found'"}`},
		"CapacityBeforeData": {"Capacity is all zero before stats exist.", "GET", base(cid) + "/capacity", nil, `200`},
	}
	order := []string{"GetUnknown", "RenameTaken", "RenameNull", "Rename", "RenameMissingBody", "DeleteWithNodes", "DeleteWithPools", "DeleteEmpty", "LogsLimit", "CapacityBeforeData"}
	for _, name := range order {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			got := call(t, s, adminToken, tc.method, tc.path, tc.body).String()
			if name == "CapacityBeforeData" {
				got = got[:3]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	if c, _ := s.Cluster(cid); *c.Name != "uno" {
		t.Errorf("rename did not apply: %q", *c.Name)
	}
	if r := call(t, s, adminToken, "DELETE", base(empty)+"/", nil); r.status != 404 {
		t.Errorf("a second delete is 404, got %s", r)
	}
	logs := decode[[]sb.ClusterLogEntry](t, call(t, s, adminToken, "GET", base(cid)+"/logs?limit=1", nil))
	if len(logs) != 1 || logs[0].Message != "Cluster name changed "+cid+": one -> uno" {
		t.Errorf("logs?limit=1 should return the newest event (the rename), got %v", logs)
	}
}
