package simulator

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestPools(t *testing.T) {
	s := newSim(t)
	cid, _, _ := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	r := call(t, s, adminToken, "POST", base(cid)+"/storage-pools/", map[string]any{"name": "p1", "pool_max": 100, "max_rw_iops": 50})
	pool := decode[sb.StoragePoolDTO](t, r)
	if r.status != 201 || pool.Status != sb.PoolActive || r.header.Get("Location") != base(cid)+"/storage-pools/"+pool.ID+"/" {
		t.Fatalf("create: %s %v", r, r.header)
	}
	pp := base(cid) + "/storage-pools/" + pool.ID + "/"
	type limits struct{ Max, VolMax, IOPS int64 }
	steps := []struct {
		reason string
		method string
		path   string
		body   any
		want   string
		after  limits
	}{
		{"A taken name is a 409.", "POST", base(cid) + "/storage-pools/", map[string]any{"name": "p1"}, `409 {"detail":"Pool p1 already exists"}`, limits{100, 0, 50}},
		{"Missing name is a 422.", "POST", base(cid) + "/storage-pools/", map[string]any{}, `422 {"detail":[{"type":"missing","loc":["body","name"],"msg":"Field required","input":{}}]}`, limits{100, 0, 50}},
		{"Omitting max_size resets it to 0.", "PUT", pp, map[string]any{"max_rw_iops": 60}, "204 ", limits{0, 0, 60}},
		{"A non-zero volume_max_size lands in the pool's max_size.", "PUT", pp, map[string]any{"max_size": 10, "volume_max_size": 7}, "204 ", limits{7, 0, 60}},
		{"QoS only rises: lower is a 500.", "PUT", pp, map[string]any{"max_size": 10, "max_rw_iops": 5}, "500 Internal Server Error", limits{7, 0, 60}},
		{"QoS 0 is ignored.", "PUT", pp, map[string]any{"max_size": 10, "max_rw_iops": 0}, "204 ", limits{10, 0, 60}},
		{"Other cluster's pool id: quoted 404 for unknown ids.", "GET", base(cid) + "/storage-pools/00000000-0000-0000-0000-000000000000/", nil,
			`404 {"detail":"'Pool 00000000-0000-0000-0000-000000000000 not found'"}`, limits{10, 0, 60}},
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, call(t, s, adminToken, st.method, st.path, st.body).String()); diff != "" {
			t.Errorf("\n%s\n-want, +got:\n%s", st.reason, diff)
		}
		p := s.Pools(cid)[0]
		if diff := cmp.Diff(st.after, limits{p.MaxSize, p.VolumeMaxSize, p.MaxRWIOPS}); diff != "" {
			t.Errorf("\n%s\nlimits: -want, +got:\n%s", st.reason, diff)
		}
	}
	s.Faults().MustAdd(Fault{Kind: FaultPoolInactive, PoolID: pool.ID})
	if got := call(t, s, adminToken, "DELETE", pp, nil).String(); got != `400 {"detail":"Pool is inactive"}` {
		t.Errorf("deleting an inactive pool: %s", got)
	}
	s.mu.Lock()
	s.m.pool(pool.ID).status = sb.PoolActive
	s.mu.Unlock()
	if got := call(t, s, adminToken, "DELETE", pp, nil).status; got != 204 {
		t.Errorf("delete: %d", got)
	}
	if got := call(t, s, adminToken, "DELETE", pp, nil).status; got != 404 {
		t.Errorf("a second delete is 404: %d", got)
	}
	for _, f := range []string{"identifier", "empty"} {
		r := call(t, s, adminToken, "POST", base(cid)+"/storage-pools/?response-format="+f, map[string]any{"name": "p-" + f})
		if r.status != 201 || r.header.Get("Location") == "" || (f == "empty") != (len(r.body) == 0) {
			t.Errorf("response-format=%s: %s", f, r)
		}
	}
}
