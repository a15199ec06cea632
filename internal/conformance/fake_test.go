package conformance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/conformance/opsclassify"
)

const (
	goodToken = "good-admin-token"
	cid       = "6f1c2d3e-0000-4000-8000-000000000001"
	nid       = "a1b2c3d4-0000-4000-8000-000000000002"
	secret    = "AbCdEfGhIjKlMnOpQrSt"
)

// The fixtures are backend-contract.md §4's shapes.
func clusterDTO() map[string]any {
	return map[string]any{"id": cid, "name": "prod", "nqn": "nqn.2023-02.io.simplyblock:" + cid, "status": "active",
		"is_re_balancing": false, "block_size": 512, "distr_ndcs": 1, "distr_npcs": 1, "ha": true, "utilization_critical": 90,
		"utilization_warning": 80, "provisioned_capacity_critical": 190, "provisioned_capacity_warning": 180, "node_affinity": false,
		"anti_affinity": false, "enable_failure_domain": false, "secret": secret, "tls_enabled": false, "max_fault_tolerance": 1,
		"backup_enabled": false, "capacity": capacity()}
}

func capacity() map[string]any {
	return map[string]any{"date": 0, "size_total": 0, "size_prov": 0, "size_used": 0, "size_free": 0, "size_util": 0}
}

func nodeDTO() map[string]any {
	return map[string]any{"id": nid, "cluster_id": cid, "secondary_node_id": nil, "status": "online", "uptime": "PT3723.456789S",
		"hostname": "worker-1_8080", "host_nqn": "nqn.2023-02.io.simplyblock:worker-1_8080", "cpu_total_count": 32, "cpu_spdk_count": 8,
		"cpu_poller_count": 4, "memory": 135000000000, "hugepage_memory": 17179869184, "spdk_mem": 12884901888, "lvols": 3, "lvols_max": 75,
		"snapshots_max": 500, "rpc_port": 8080, "lvol_subsys_port": 9090, "hublvol_port": 9030, "nvmf_port": 4420, "mgmt_ip": "10.0.0.10",
		"health_check": true, "device_count": 4, "online_device_count": 4, "failure_domain": -1, "capacity": capacity()}
}

func poolDTO() map[string]any {
	return map[string]any{"id": "c3000000-0000-4000-8000-000000000003", "cluster_id": cid, "name": "pool1", "status": "active", "max_size": 0,
		"volume_max_size": 0, "max_rw_iops": 0, "max_rw_mbytes": 0, "max_r_mbytes": 0, "max_w_mbytes": 0, "capacity": nil, "dhchap": false,
		"allowed_hosts": []any{}}
}

func taskDTO() map[string]any {
	return map[string]any{"id": "d4000000-0000-4000-8000-000000000004", "cluster_id": cid, "device_id": nil, "storage_node_id": nil,
		"status": "done", "canceled": false, "function_name": "node_add", "function_params": map[string]any{"cluster_id": cid},
		"function_result": "Node add result: Success", "max_retry": 11, "retry": 0}
}

func entry(date, nodeID, event, level, msg string) map[string]any {
	return map[string]any{"Date": date, "NodeId": nodeID, "Event": event, "Level": level, "Message": msg, "Storage_ID": "None",
		"VUID": "None", "Status": "None"}
}

// realLog is backend-contract.md §4's log, with a pool's status change
// (pool_events.py:36-44) and a failed restart's offline → offline.
func realLog() []map[string]any {
	return []map[string]any{
		entry("2026-08-22 20:01:02.345", "None", "OBJ_CREATED", "Info", "Cluster created "+cid),
		entry("2026-08-22 20:07:41.778", nid, "STATUS_CHANGE", "Info", "Storage node status changed from: in_creation to: online"),
		entry("2026-08-22 20:09:00.004", "None", "STATUS_CHANGE", "Info", "Cluster status changed from unready to in_activation"),
		entry("2026-08-22 20:09:31.250", "b2000000-0000-4000-8000-000000000005", "device_status", "Error", "unavailable (2)"),
		entry("2026-08-22 20:11:12", "None", "STATUS_CHANGE", "Info", "Cluster status changed from in_activation to active"),
		entry("2026-08-22 20:12:00.100", cid, "STATUS_CHANGE", "Info", "Pool status changed from active to inactive"),
		entry("2026-08-22 20:13:00.200", nid, "STATUS_CHANGE", "Info", "Storage node status changed from: offline to: offline"),
	}
}

// inventedLog is the shape the simulator used to invent for a log entry.
func inventedLog() []map[string]any {
	return []map[string]any{
		{"id": "e1", "date": 1755893734, "domain": "cluster", "event_level": "info", "object_name": "Cluster", "object_id": cid,
			"caused_by": "monitor", "message": "Cluster status changed from unready to active", "cluster_id": cid},
		{"id": "e2", "date": 1755893735, "domain": "cluster", "event_level": "info", "object_name": "StorageNode", "object_id": nid,
			"caused_by": "monitor", "message": "Storage node status changed from online to offline", "cluster_id": cid},
	}
}

// backend is a fake control plane answering as sbcli 754ff3e1 does, for
// the requests the check sends; a case replaces what it needs.
type backend struct {
	clusters   func() []map[string]any
	node       func() map[string]any
	log        func() []map[string]any
	logs       func(w http.ResponseWriter, limit int, log []map[string]any) // default: the newest limit, oldest first
	tasks      func(w http.ResponseWriter)
	redirect   func(w http.ResponseWriter, r *http.Request, to string)
	notFound   func(w http.ResponseWriter, id string)
	acceptsAny bool // every token is accepted

	mu      sync.Mutex
	methods []string
}

// sent returns the methods of the requests received.
func (b *backend) sent() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.methods)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func plain500(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write([]byte("Internal Server Error"))
}

func newestFirstReversed(w http.ResponseWriter, limit int, log []map[string]any) {
	if limit > 0 && len(log) > limit {
		log = log[len(log)-limit:]
	}
	if len(log) == 0 {
		plain500(w)
		return
	}
	writeJSON(w, http.StatusOK, log)
}

var uuidPath = regexp.MustCompile(`^/api/v2/clusters/([0-9a-f-]{36})(/.*)?$`)

func (b *backend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.methods = append(b.methods, r.Method)
	b.mu.Unlock()
	redirect := func(to string) {
		if b.redirect != nil {
			b.redirect(w, r, to)
			return
		}
		w.Header().Set("Location", "http://"+r.Host+to)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}
	p := r.URL.Path
	if p == "/api/v2/_meta/health" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if p == "/api/v2/clusters" {
		redirect("/api/v2/clusters/")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+goodToken && !b.acceptsAny {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Invalid token"})
		return
	}
	clusters := []map[string]any{clusterDTO()}
	if b.clusters != nil {
		clusters = b.clusters()
	}
	if p == "/api/v2/clusters/" {
		writeJSON(w, http.StatusOK, clusters)
		return
	}
	m := uuidPath.FindStringSubmatch(p)
	if m == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
		return
	}
	if m[1] != cid {
		if b.notFound != nil {
			b.notFound(w, m[1])
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "'Cluster " + m[1] + " not found'"})
		return
	}
	node := nodeDTO()
	if b.node != nil {
		node = b.node()
	}
	log := realLog()
	if b.log != nil {
		log = b.log()
	}
	switch m[2] {
	case "":
		redirect(p + "/")
	case "/":
		writeJSON(w, http.StatusOK, clusters[0])
	case "/storage-nodes/":
		writeJSON(w, http.StatusOK, []any{node})
	case "/storage-nodes/" + nid + "/":
		writeJSON(w, http.StatusOK, node)
	case "/storage-pools/":
		writeJSON(w, http.StatusOK, []any{poolDTO()})
	case "/tasks/":
		if b.tasks != nil {
			b.tasks(w)
			return
		}
		writeJSON(w, http.StatusOK, []any{taskDTO()})
	case "/logs/":
		redirect(strings.TrimSuffix(p, "/"))
	case "/logs":
		limit := 50
		if v := r.URL.Query().Get("limit"); v != "" {
			limit, _ = strconv.Atoi(v)
		}
		if b.logs != nil {
			b.logs(w, limit, log)
			return
		}
		newestFirstReversed(w, limit, log)
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	m[k] = v
	return m
}

// looseClassify is the provider's reading before the real log was known:
// any "status changed from X to Y" is a change of the object named first.
func looseClassify(e sb.ClusterLogEntry) (string, string, string) {
	m := regexp.MustCompile(`status changed from (\S+) to (\S+)`).FindStringSubmatch(e.Message)
	if m == nil {
		return "", "", ""
	}
	if strings.HasPrefix(e.Message, "Storage node") {
		return conformance.SubjectNode, m[1], m[2]
	}
	return conformance.SubjectCluster, m[1], m[2]
}

// TestRunAgainstWrongBackends runs the check against backends that differ
// from sbcli 754ff3e1 the way the provider's old assumptions did: each must
// fail the check that covers it, and only GETs are ever sent.
func TestRunAgainstWrongBackends(t *testing.T) {
	type want struct {
		status map[string]conformance.Status // checks whose status is not PASS, or asserted anyway
		detail map[string]string             // a substring of the Detail
	}
	cases := map[string]struct {
		reason   string
		backend  *backend
		classify conformance.Classifier
		want     want
	}{
		"Conformant": {
			reason:  "The fixtures of backend-contract.md §4 pass every check.",
			backend: &backend{},
			want: want{detail: map[string]string{
				conformance.CheckLogClassification: "reads 2 \"Cluster status changed from X to Y\" as the cluster's status changes and 2",
			}},
		},
		"InventedLogShape": {
			reason:  "The simulator's old invented entry (id, date, object_name, object_id, message, …) fails the log check.",
			backend: &backend{log: inventedLog},
			want: want{
				status: map[string]conformance.Status{conformance.CheckLogShape: conformance.Fail, conformance.CheckLogLimit: conformance.Skip,
					conformance.CheckLogClassification: conformance.Skip},
				detail: map[string]string{conformance.CheckLogShape: "not a log entry: missing Date, NodeId, Event, Level, Message, " +
					"Storage_ID, VUID, Status; unexpected caused_by, cluster_id, date, domain, event_level, id, message, object_id, object_name"},
			},
		},
		"NodeMessageWithoutColons": {
			reason: "The simulator's old node message (no colons) is not what the provider reads as a node status change.",
			backend: &backend{log: func() []map[string]any {
				return []map[string]any{entry("2026-08-22 20:07:41.778", nid, "STATUS_CHANGE", "Info", "Storage node status changed from online to offline")}
			}},
			want: want{
				status: map[string]conformance.Status{conformance.CheckLogClassification: conformance.Fail},
				detail: map[string]string{conformance.CheckLogClassification: "is read as no status change, want a node status change"},
			},
		},
		"LooseClassifier": {
			reason:   "A classifier that takes a pool's status change for the cluster's fails the classification.",
			backend:  &backend{},
			classify: looseClassify,
			want: want{
				status: map[string]conformance.Status{conformance.CheckLogClassification: conformance.Fail},
				detail: map[string]string{conformance.CheckLogClassification: `"Pool status changed from active to inactive"`},
			},
		},
		"EmptyLog": {
			reason:  "An empty log is the plain-text 500: the shape passes, the limit and classification have nothing to check.",
			backend: &backend{log: func() []map[string]any { return nil }},
			want: want{status: map[string]conformance.Status{conformance.CheckLogLimit: conformance.Skip,
				conformance.CheckLogClassification: conformance.Skip}},
		},
		"EmptyLogAsEmptyArray": {
			reason: "200 [] is not what the backend answers for an empty log.",
			backend: &backend{log: func() []map[string]any { return nil }, logs: func(w http.ResponseWriter, _ int, _ []map[string]any) {
				writeJSON(w, http.StatusOK, []any{})
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckLogShape: conformance.Fail, conformance.CheckLogLimit: conformance.Skip,
				conformance.CheckLogClassification: conformance.Skip}},
		},
		"LimitZeroReturnsNothing": {
			reason: "The simulator's old limit=0 answered [] where the backend returns every entry.",
			backend: &backend{logs: func(w http.ResponseWriter, limit int, log []map[string]any) {
				if limit == 0 {
					writeJSON(w, http.StatusOK, []any{})
					return
				}
				newestFirstReversed(w, limit, log)
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckLogLimit: conformance.Fail}},
		},
		"LimitReturnsOldest": {
			reason: "limit=N is the newest N entries, not the oldest.",
			backend: &backend{logs: func(w http.ResponseWriter, limit int, log []map[string]any) {
				if limit > 0 && len(log) > limit {
					log = log[:limit]
				}
				writeJSON(w, http.StatusOK, log)
			}},
			want: want{
				status: map[string]conformance.Status{conformance.CheckLogLimit: conformance.Fail},
				detail: map[string]string{conformance.CheckLogLimit: "did not return the newest entries"},
			},
		},
		"NewestFirst": {
			reason: "The log is oldest first.",
			backend: &backend{logs: func(w http.ResponseWriter, _ int, log []map[string]any) {
				rev := make([]map[string]any, 0, len(log))
				for i := len(log) - 1; i >= 0; i-- {
					rev = append(rev, log[i])
				}
				writeJSON(w, http.StatusOK, rev)
			}},
			want: want{
				status: map[string]conformance.Status{conformance.CheckLogShape: conformance.Fail, conformance.CheckLogLimit: conformance.Skip,
					conformance.CheckLogClassification: conformance.Skip},
				detail: map[string]string{conformance.CheckLogShape: "the log is oldest first"},
			},
		},
		"UptimeNotISO8601": {
			reason:  "uptime is a duration the provider parses with sosodev/duration.",
			backend: &backend{node: func() map[string]any { return with(nodeDTO(), "uptime", "1:02:03") }},
			want: want{status: map[string]conformance.Status{conformance.CheckNodes: conformance.Fail, conformance.CheckNodeDetail: conformance.Fail},
				detail: map[string]string{conformance.CheckNodes: `/0/uptime: "1:02:03" is not an ISO 8601 duration`}},
		},
		"UptimeNullWhileOnline": {
			reason:  "An online node has an uptime.",
			backend: &backend{node: func() map[string]any { return with(nodeDTO(), "uptime", nil) }},
			want:    want{status: map[string]conformance.Status{conformance.CheckNodes: conformance.Fail, conformance.CheckNodeDetail: conformance.Fail}},
		},
		"MgmtIPHostname": {
			reason:  "mgmt_ip is an IPv4 address.",
			backend: &backend{node: func() map[string]any { return with(nodeDTO(), "mgmt_ip", "worker-1") }},
			want:    want{status: map[string]conformance.Status{conformance.CheckNodes: conformance.Fail, conformance.CheckNodeDetail: conformance.Fail}},
		},
		"UnknownClusterStatus": {
			reason:  "A cluster status outside the DTO enum is one the provider cannot decide on.",
			backend: &backend{clusters: func() []map[string]any { return []map[string]any{with(clusterDTO(), "status", "in_maintenance")} }},
			want: want{status: map[string]conformance.Status{conformance.CheckClusters: conformance.Fail, conformance.CheckClusterDetail: conformance.Fail},
				detail: map[string]string{conformance.CheckClusters: `/0/status: "in_maintenance" is not one of`}},
		},
		"RebalancingNull": {
			reason:  "is_re_balancing is a boolean: null would read as false.",
			backend: &backend{clusters: func() []map[string]any { return []map[string]any{with(clusterDTO(), "is_re_balancing", nil)} }},
			want:    want{status: map[string]conformance.Status{conformance.CheckClusters: conformance.Fail, conformance.CheckClusterDetail: conformance.Fail}},
		},
		"SecretMissing": {
			reason: "Every ClusterDTO key is there, the secret included.",
			backend: &backend{clusters: func() []map[string]any {
				c := clusterDTO()
				delete(c, "secret")
				return []map[string]any{c}
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckClusters: conformance.Fail, conformance.CheckClusterDetail: conformance.Fail},
				detail: map[string]string{conformance.CheckClusters: "/0/secret: missing"}},
		},
		"ExtraClusterKey": {
			reason:  "A key the provider does not read is noted, not failed.",
			backend: &backend{clusters: func() []map[string]any { return []map[string]any{with(clusterDTO(), "mode", "kubernetes")} }},
			want:    want{detail: map[string]string{conformance.CheckClusters: "note: keys the provider does not read: mode"}},
		},
		"NoRedirect": {
			reason: "The other trailing-slash spelling is a 307, not a 404.",
			backend: &backend{redirect: func(w http.ResponseWriter, _ *http.Request, _ string) {
				writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckRedirect: conformance.Fail}},
		},
		"RelativeLocation": {
			reason: "The Location of the 307 is absolute.",
			backend: &backend{redirect: func(w http.ResponseWriter, _ *http.Request, to string) {
				w.Header().Set("Location", to)
				w.WriteHeader(http.StatusTemporaryRedirect)
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckRedirect: conformance.Fail},
				detail: map[string]string{conformance.CheckRedirect: "want an absolute URL"}},
		},
		"UnquotedNotFound": {
			reason: "An unknown cluster's 404 detail is str(KeyError): quoted.",
			backend: &backend{notFound: func(w http.ResponseWriter, id string) {
				writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Cluster " + id + " not found"})
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckClusterNotFound: conformance.Fail}},
		},
		"InvalidTokenAccepted": {
			reason:  "An invalid token is refused with 401 Invalid token; the list it got instead, secrets and all, is not shown.",
			backend: &backend{acceptsAny: true},
			want: want{status: map[string]conformance.Status{conformance.CheckAuthInvalidToken: conformance.Fail},
				detail: map[string]string{conformance.CheckAuthInvalidToken: "answered 200 (a "}},
		},
		"TasksJSON500": {
			reason: "The task list's 500 is Starlette's plain text, not a JSON error.",
			backend: &backend{tasks: func(w http.ResponseWriter) {
				writeJSON(w, http.StatusInternalServerError, map[string]string{"detail": "boom"})
			}},
			want: want{status: map[string]conformance.Status{conformance.CheckTasks: conformance.Fail}},
		},
		"TasksPlain500": {
			reason:  "The plain-text 500 of a task outside the enum passes, reported as such.",
			backend: &backend{tasks: plain500},
			want:    want{detail: map[string]string{conformance.CheckTasks: "plain-text 500"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.backend)
			defer srv.Close()
			classify := tc.classify
			if classify == nil {
				classify = opsclassify.Classify
			}
			rep, err := conformance.Run(context.Background(), conformance.Options{
				Config: sb.Config{BaseURL: srv.URL, Token: goodToken, Timeout: 5 * time.Second}, Classify: classify, LogLimit: 5})
			if err != nil {
				t.Fatalf("\n%s\nRun(...): %v", tc.reason, err)
			}
			var out strings.Builder
			_ = rep.Write(&out)
			want := map[string]conformance.Status{}
			got := map[string]conformance.Status{}
			for _, r := range rep.Results {
				want[r.ID] = conformance.Pass
				got[r.ID] = r.Status
			}
			for id, st := range tc.want.status {
				want[id] = st
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("\n%s\nRun(...): -want status, +got status:\n%s\nreport:\n%s", tc.reason, diff, out.String())
			}
			for id, sub := range tc.want.detail {
				if r, _ := rep.Result(id); !strings.Contains(r.Detail, sub) {
					t.Errorf("\n%s\nRun(...): %s detail %q does not contain %q", tc.reason, id, r.Detail, sub)
				}
			}
			if got, want := rep.Failed(), len(tc.want.status) > 0 && containsFail(tc.want.status); got != want {
				t.Errorf("\n%s\nRun(...).Failed(): got %t, want %t", tc.reason, got, want)
			}
			if strings.Contains(out.String(), secret) || strings.Contains(out.String(), goodToken) {
				t.Errorf("\n%s\nRun(...): the report prints the token or a secret:\n%s", tc.reason, out.String())
			}
			for _, m := range tc.backend.sent() {
				if m != http.MethodGet {
					t.Errorf("\n%s\nRun(...) sent a %s: it must only send GETs", tc.reason, m)
				}
			}
		})
	}
}

func containsFail(m map[string]conformance.Status) bool {
	for _, st := range m {
		if st == conformance.Fail {
			return true
		}
	}
	return false
}

// TestProbe covers the provider's connect-time subset: it fails only what
// the provider would decide wrongly on, notes other differences, and has
// no verdict when it cannot read the cluster list.
func TestProbe(t *testing.T) {
	type want struct {
		state    conformance.State
		complete bool
		failing  []string // check IDs that FAIL
		reason   string   // a substring of Reason
	}
	cases := map[string]struct {
		reason  string
		backend *backend
		token   string
		want    want
	}{
		"Conformant": {
			reason:  "The fixtures pass; the log was read, so the verdict is complete.",
			backend: &backend{},
			want:    want{state: conformance.Conformant, complete: true},
		},
		"InventedLogShape": {
			reason:  "The provider cannot place or classify the old invented entries: nonconformant.",
			backend: &backend{log: inventedLog},
			want:    want{state: conformance.Nonconformant, complete: true, failing: []string{conformance.CheckLogShape}},
		},
		"NodeMessageWithoutColons": {
			reason: "A node status change the provider would not see is nonconformant.",
			backend: &backend{log: func() []map[string]any {
				return []map[string]any{entry("2026-08-22 20:07:41.778", nid, "STATUS_CHANGE", "Info", "Storage node status changed from online to offline")}
			}},
			want: want{state: conformance.Nonconformant, complete: true, failing: []string{conformance.CheckLogClassification}},
		},
		"ExtraLogKey": {
			reason: "A ninth key changes nothing the provider reads: conformant, noted.",
			backend: &backend{log: func() []map[string]any {
				l := realLog()
				for _, e := range l {
					e["Domain"] = "cluster"
				}
				return l
			}},
			want: want{state: conformance.Conformant, complete: true},
		},
		"UnknownClusterStatus": {
			reason:  "A cluster status outside the enum: nonconformant, without reading the log.",
			backend: &backend{clusters: func() []map[string]any { return []map[string]any{with(clusterDTO(), "status", "in_maintenance")} }},
			want:    want{state: conformance.Nonconformant, complete: true, failing: []string{conformance.CheckClusters}},
		},
		"NoCluster": {
			reason:  "Without a cluster the log cannot be checked yet: conformant, incomplete.",
			backend: &backend{clusters: func() []map[string]any { return []map[string]any{} }},
			want:    want{state: conformance.Conformant, reason: "no cluster yet"},
		},
		"EmptyLog": {
			reason:  "An empty log is read as such; its entries are checked later.",
			backend: &backend{log: func() []map[string]any { return nil }},
			want:    want{state: conformance.Conformant, reason: "is empty"},
		},
		"TokenRefused": {
			reason:  "A refused token is no verdict on the backend.",
			backend: &backend{},
			token:   "some-other-token",
			want:    want{state: conformance.Unchecked, reason: "answered 401"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.backend)
			defer srv.Close()
			token := tc.token
			if token == "" {
				token = goodToken
			}
			c, err := sb.New(sb.Config{BaseURL: srv.URL, Token: token, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			v := conformance.Probe(context.Background(), c, token, opsclassify.Classify)
			var failing []string
			for _, r := range v.Results {
				if r.Status == conformance.Fail {
					failing = append(failing, r.ID)
				}
				if strings.Contains(r.Detail, secret) || strings.Contains(r.Detail, token) {
					t.Errorf("\n%s\nProbe(...): a Detail holds the token or a secret: %q", tc.reason, r.Detail)
				}
			}
			got := want{state: v.State, complete: v.Complete, failing: failing, reason: tc.want.reason}
			if !strings.Contains(v.Reason, tc.want.reason) {
				got.reason = v.Reason
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nProbe(...): -want, +got:\n%s\nresults: %+v", tc.reason, diff, v.Results)
			}
			if len(tc.backend.sent()) > 2 {
				t.Errorf("\n%s\nProbe(...) sent %d requests, want at most 2", tc.reason, len(tc.backend.sent()))
			}
		})
	}
}
