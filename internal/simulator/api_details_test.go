package simulator

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// m1: FastAPI's dependency order (simplyblock_web/api/v2/_dependencies.py:
// 27-56,103-107): a malformed cluster_id is reported once per declaration
// (verify_api_token, Cluster, and on node, pool and task routes the Cluster
// inside StorageNode/StoragePool/Task), then the other path parameters,
// then the endpoint's query parameters; those (force, force_*, limit) are
// validated only after the lookups, so a 404 wins over their 422.
func TestValidationOrder(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	unknown := "00000000-0000-0000-0000-000000000001"
	bad := "/api/v2/clusters/xyz"
	cases := map[string]struct {
		reason string
		method string
		path   string
		body   any
		status int
		locs   []string // the 422 entries' loc, joined with "."; or the body for other statuses
	}{
		"NodeRoute": {
			reason: "DEP:37-47: StorageNode declares Cluster again: 3 entries.",
			method: "GET", path: bad + "/storage-nodes/" + nodes[0] + "/", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id", "path.cluster_id"},
		},
		"PoolRoute": {
			reason: "DEP:50-59: StoragePool declares Cluster again.",
			method: "GET", path: bad + "/storage-pools/" + unknown + "/", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id", "path.cluster_id"},
		},
		"TaskRoute": {
			reason: "DEP:103-110: Task declares Cluster again.",
			method: "GET", path: bad + "/tasks/" + unknown + "/", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id", "path.cluster_id"},
		},
		"ClusterRoute": {
			reason: "AUTH:138 and DEP:27-34: 2 entries on a cluster-level route.",
			method: "GET", path: bad + "/storage-nodes/", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id"},
		},
		"BothIDsAndQuery": {
			reason: "Every error merged in order: 3x cluster_id, the node id, the query flag.",
			method: "POST", path: bad + "/storage-nodes/nope/suspend?force=maybe", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id", "path.cluster_id", "path.storage_node_id", "query.force"},
		},
		"LogsLimitMerged": {
			reason: "C/:201-202: limit is merged into the cluster_id 422.",
			method: "GET", path: bad + "/logs?limit=x", status: 422,
			locs: []string{"path.cluster_id", "path.cluster_id", "query.limit"},
		},
		"NodeIDAndQuery": {
			reason: "A malformed node id with a valid cluster: the node id, then the flag.",
			method: "POST", path: base(cid) + "/storage-nodes/nope/shutdown?force=maybe", status: 422,
			locs: []string{"path.storage_node_id", "query.force"},
		},
		"SuspendUnknownNode": {
			reason: "SN/:191: the node lookup's 404 comes before force's 422.",
			method: "POST", path: nodePath(cid, unknown) + "/suspend?force=maybe", status: 404,
			locs: []string{`{"detail":"'StorageNode ` + unknown + ` not found'"}`},
		},
		"ShutdownUnknownNode": {
			reason: "SN/:212: the same for shutdown.",
			method: "POST", path: nodePath(cid, unknown) + "/shutdown?force=maybe", status: 404,
			locs: []string{`{"detail":"'StorageNode ` + unknown + ` not found'"}`},
		},
		"DeleteUnknownNode": {
			reason: "SN/:115-117: the same for the force_* flags of a delete.",
			method: "DELETE", path: nodePath(cid, unknown) + "/?force_remove=maybe", status: 404,
			locs: []string{`{"detail":"'StorageNode ` + unknown + ` not found'"}`},
		},
		"LogsUnknownCluster": {
			reason: "C/:201-202: the cluster lookup's 404 comes before limit's 422.",
			method: "GET", path: "/api/v2/clusters/" + unknown + "/logs?limit=x", status: 404,
			locs: []string{`{"detail":"'Cluster ` + unknown + ` not found'"}`},
		},
		"RestartUnknownNodeNoBody": {
			reason: "SN/:249-251: the body is an endpoint parameter too: the 404 comes before its 422.",
			method: "POST", path: nodePath(cid, unknown) + "/restart", status: 404,
			locs: []string{`{"detail":"'StorageNode ` + unknown + ` not found'"}`},
		},
		"PoolPutUnknownBadBody": {
			reason: "SP/:104-105: the pool lookup's 404 comes before the body's 422.",
			method: "PUT", path: base(cid) + "/storage-pools/" + unknown + "/", body: map[string]any{"max_size": -1}, status: 404,
			locs: []string{`{"detail":"'Pool ` + unknown + ` not found'"}`},
		},
		"SuspendBadFlag": {
			reason: "A known node: force's 422.",
			method: "POST", path: nodePath(cid, nodes[0]) + "/suspend?force=maybe", status: 422,
			locs: []string{"query.force"},
		},
		"LogsEmptyLimit": {
			reason: "C/:202: limit= (empty) is not an int: 422, not the default.",
			method: "GET", path: base(cid) + "/logs?limit=", status: 422,
			locs: []string{"query.limit"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, adminToken, tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("\n%s\nwant %d, got %s", tc.reason, tc.status, r)
			}
			var got []string
			if r.status == 422 {
				for _, e := range decode[struct {
					Detail []valErr `json:"detail"`
				}](t, r).Detail {
					var parts []string
					for _, l := range e.Loc {
						parts = append(parts, fmt.Sprint(l))
					}
					got = append(got, strings.Join(parts, "."))
				}
			} else {
				got = []string{string(r.body)}
			}
			if diff := cmp.Diff(tc.locs, got); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// m5: timedelta in pydantic v2's JSON form, speedate's Duration Display
// (pydantic/speedate src/duration.rs, fmt::Display): seconds unsplit,
// trailing zeros of the microseconds stripped, 365 days a year.
func TestISODuration(t *testing.T) {
	cases := map[string]struct {
		d    time.Duration
		want string
	}{
		"Zero":          {0, "PT0S"},
		"Seconds":       {3723 * time.Second, "PT3723S"},
		"Micros":        {3723*time.Second + 456789*time.Microsecond, "PT3723.456789S"},
		"TrailingZeros": {1500 * time.Millisecond, "PT1.5S"},
		"SubMicro":      {1500 * time.Nanosecond, "PT0.000001S"},
		"DayAndMicros":  {24*time.Hour + 30*time.Second + 123*time.Microsecond, "P1DT30.000123S"},
		"WholeDay":      {48 * time.Hour, "P2D"},
		"Year":          {365 * 24 * time.Hour, "P1Y"},
		"YearAndDay":    {366*24*time.Hour + time.Second, "P1Y1DT1S"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := isoDuration(tc.d); got != tc.want {
				t.Errorf("isoDuration(%s): want %s, got %s", tc.d, tc.want, got)
			}
		})
	}
}

// m5: the node identity fields (storage_node_ops.py:3184-3186,3206,
// models/storage_node.py:956-961, DTO:310-370).
func TestNodeIdentityFields(t *testing.T) {
	s := newSim(t)
	cid, _, nodes := s.Seed(SeedCluster{Nodes: 2, Status: sb.ClusterActive})
	setNode(s, nodes[1], sb.NodeOffline)
	cases := map[string]struct {
		reason string
		node   string
		want   string // regexp over hostname|host_nqn|uptime
	}{
		"Online": {
			reason: "hostname <host>_<rpc_port>; host_nqn nqn.2023-02.io.simplyblock:<hostname>; uptime PT<seconds>[.<micros>]S.",
			node:   nodes[0],
			want:   `^sim-10-0-0-10_8080\|nqn\.2023-02\.io\.simplyblock:sim-10-0-0-10_8080\|PT[0-9]+(\.[0-9]{1,6})?S$`,
		},
		"Offline": {
			reason: "uptime is null unless online.",
			node:   nodes[1],
			want:   `^sim-10-0-0-11_8080\|nqn\.2023-02\.io\.simplyblock:sim-10-0-0-11_8080\|<nil>$`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := decode[sb.StorageNodeDTO](t, call(t, s, adminToken, "GET", nodePath(cid, tc.node)+"/", nil))
			up := "<nil>"
			if d.Uptime != nil {
				up = *d.Uptime
			}
			got := d.Hostname + "|" + d.HostNQN + "|" + up
			if !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("\n%s\nwant %s, got %s", tc.reason, tc.want, got)
			}
		})
	}
}
