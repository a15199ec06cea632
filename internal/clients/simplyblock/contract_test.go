package simplyblock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
)

// specServer answers every call the client makes with a spec-shaped
// response, the way the backend does (including its tolerated deviations).
func specServer(t *testing.T) http.Handler {
	t.Helper()
	name := "c1"
	cluster := simplyblock.ClusterDTO{ID: clusterID, Name: &name, NQN: "nqn.2023-02.io.simplyblock:" + clusterID,
		Status: simplyblock.ClusterActive, BlockSize: 512, DistrNdcs: 1, DistrNpcs: 1, HA: true, UtilizationCritical: 90,
		UtilizationWarning: 80, ProvisionedCapacityCritical: 190, ProvisionedCapacityWarning: 180, Secret: "abcdefghijklmnopqrst", MaxFaultTolerance: 1}
	node := simplyblock.StorageNodeDTO{ID: nodeID, ClusterID: clusterID, Status: simplyblock.NodeOnline, Hostname: "sn1",
		HostNQN: "nqn.2023-02.io.simplyblock:sn1", MgmtIP: "10.0.0.10", RPCPort: 8080, NvmfPort: 4420, FailureDomain: -1}
	pool := simplyblock.StoragePoolDTO{ID: poolID, ClusterID: clusterID, Name: "p1", Status: simplyblock.PoolActive, AllowedHosts: []string{}}
	task := simplyblock.TaskDTO{ID: taskID, ClusterID: clusterID, StorageNodeID: ptr(nodeID), Status: simplyblock.TaskRunning,
		FunctionName: simplyblock.TaskFunctionNodeAdd, FunctionParams: map[string]any{"node_addr": "10.0.0.10:5000"}}

	const (
		uuid = `[0-9a-f-]{36}`
		cl   = `/api/v2/clusters/` + uuid
	)
	type answer struct {
		status   int
		body     any // JSON-encoded when non-nil
		location string
	}
	routes := []struct {
		method string
		path   *regexp.Regexp
		answer answer
	}{
		{"GET", regexp.MustCompile(`^/api/v2/clusters/$`), answer{200, []simplyblock.ClusterDTO{cluster}, ""}},
		{"POST", regexp.MustCompile(`^/api/v2/clusters/$`), answer{201, cluster, "/api/v2/clusters/" + clusterID + "/"}},
		{"GET", regexp.MustCompile(`^` + cl + `/$`), answer{200, cluster, ""}},
		{"PUT", regexp.MustCompile(`^` + cl + `/$`), answer{204, nil, ""}},
		{"DELETE", regexp.MustCompile(`^` + cl + `/$`), answer{204, nil, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/(activate|expand|shutdown|start)$`), answer{202, nil, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/(rebalance|update)$`), answer{204, nil, ""}},
		{"GET", regexp.MustCompile(`^` + cl + `/logs$`), answer{200, []simplyblock.ClusterLogEntry{{Date: "2026-08-22 20:11:12.900", NodeID: simplyblock.LogNone,
			Event: "STATUS_CHANGE", Level: "Info", Message: "Cluster status changed from in_activation to active",
			StorageID: simplyblock.LogNone, VUID: simplyblock.LogNone, Status: simplyblock.LogNone}}, ""}},
		{"GET", regexp.MustCompile(`^` + cl + `/storage-nodes/$`), answer{200, []simplyblock.StorageNodeDTO{node}, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/storage-nodes/$`), answer{201, taskID, "/api/v2/clusters/" + clusterID + "/tasks/" + taskID + "/"}},
		{"GET", regexp.MustCompile(`^` + cl + `/storage-nodes/` + uuid + `/$`), answer{200, node, ""}},
		{"DELETE", regexp.MustCompile(`^` + cl + `/storage-nodes/` + uuid + `/$`), answer{204, nil, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/storage-nodes/` + uuid + `/(suspend|resume|promote)$`), answer{204, nil, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/storage-nodes/` + uuid + `/(shutdown|restart|start)$`), answer{202, nil, ""}},
		{"GET", regexp.MustCompile(`^` + cl + `/storage-pools/$`), answer{200, []simplyblock.StoragePoolDTO{pool}, ""}},
		{"POST", regexp.MustCompile(`^` + cl + `/storage-pools/$`), answer{201, pool, "/api/v2/clusters/" + clusterID + "/storage-pools/" + poolID + "/"}},
		{"GET", regexp.MustCompile(`^` + cl + `/storage-pools/` + uuid + `/$`), answer{200, pool, ""}},
		{"PUT", regexp.MustCompile(`^` + cl + `/storage-pools/` + uuid + `/$`), answer{204, nil, ""}},
		{"DELETE", regexp.MustCompile(`^` + cl + `/storage-pools/` + uuid + `/$`), answer{204, nil, ""}},
		{"GET", regexp.MustCompile(`^` + cl + `/tasks/$`), answer{200, []simplyblock.TaskDTO{task}, ""}},
		{"GET", regexp.MustCompile(`^` + cl + `/tasks/` + uuid + `/$`), answer{200, task, ""}},
		{"GET", regexp.MustCompile(`^/api/v2/_meta/(health|ready)$`), answer{204, nil, ""}},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routes {
			if r.Method != rt.method || !rt.path.MatchString(r.URL.Path) {
				continue
			}
			if rt.answer.location != "" {
				w.Header().Set("Location", rt.answer.location)
			}
			if rt.answer.body == nil {
				w.WriteHeader(rt.answer.status)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rt.answer.status)
			_ = json.NewEncoder(w).Encode(rt.answer.body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
	})
}

// TestContract runs every client call through the spec validator, on both
// the client and the server side.
func TestContract(t *testing.T) {
	v := contract.Load(t)
	srv := httptest.NewServer(v.Middleware(specServer(t)))
	t.Cleanup(srv.Close)
	c, err := simplyblock.New(simplyblock.Config{BaseURL: srv.URL, Token: testToken,
		HTTPClient: &http.Client{Transport: v.RoundTripper(srv.Client().Transport)}})
	if err != nil {
		t.Fatalf("New(...): %v", err)
	}

	ctx := context.Background()
	maxSize := int64(1 << 30)
	newName := "p2"
	image := "simplyblock/simplyblock:v2"
	cases := map[string]struct {
		reason string
		call   func() error
	}{
		"ListClusters": {"list", func() error { _, err := c.ListClusters(ctx); return err }},
		"GetCluster":   {"get", func() error { _, err := c.GetCluster(ctx, clusterID); return err }},
		"CreateCluster": {"create with defaults, including the backend-required fields", func() error {
			p := simplyblock.DefaultClusterParams()
			p.Name, p.HugepagesMem = "c1", "4Gi"
			_, err := c.CreateCluster(ctx, p)
			return err
		}},
		"UpdateClusterName": {"PUT answers 204", func() error { return c.UpdateClusterName(ctx, clusterID, "c2") }},
		"DeleteCluster":     {"delete", func() error { return c.DeleteCluster(ctx, clusterID) }},
		"ActivateCluster":   {"action", func() error { return c.ActivateCluster(ctx, clusterID) }},
		"ExpandCluster":     {"action", func() error { return c.ExpandCluster(ctx, clusterID) }},
		"ShutdownCluster":   {"action", func() error { return c.ShutdownCluster(ctx, clusterID) }},
		"StartCluster":      {"action", func() error { return c.StartCluster(ctx, clusterID) }},
		"RebalanceCluster":  {"action", func() error { return c.RebalanceCluster(ctx, clusterID) }},
		"UpdateCluster": {"both image keys sent", func() error {
			return c.UpdateCluster(ctx, clusterID, simplyblock.UpdateParams{ManagementImage: &image})
		}},
		"ClusterLogs":      {"limit query", func() error { _, err := c.ClusterLogs(ctx, clusterID, 20); return err }},
		"ListStorageNodes": {"list", func() error { _, err := c.ListStorageNodes(ctx, clusterID); return err }},
		"GetStorageNode":   {"get", func() error { _, err := c.GetStorageNode(ctx, clusterID, nodeID); return err }},
		"AddStorageNode": {"identifier format", func() error {
			_, err := c.AddStorageNode(ctx, clusterID, simplyblock.DefaultStorageNodeParams("10.0.0.10:5000", "eth0"))
			return err
		}},
		"DeleteStorageNode": {"force flags", func() error {
			return c.DeleteStorageNode(ctx, clusterID, nodeID, simplyblock.NodeDeleteOptions{ForceRemove: true, ForceMigrate: true, ForceDelete: true})
		}},
		"SuspendStorageNode":  {"force flag", func() error { return c.SuspendStorageNode(ctx, clusterID, nodeID, true) }},
		"ResumeStorageNode":   {"action", func() error { return c.ResumeStorageNode(ctx, clusterID, nodeID) }},
		"PromoteStorageNode":  {"action", func() error { return c.PromoteStorageNode(ctx, clusterID, nodeID) }},
		"ShutdownStorageNode": {"force flag", func() error { return c.ShutdownStorageNode(ctx, clusterID, nodeID, true) }},
		"RestartStorageNode": {"zero params", func() error {
			return c.RestartStorageNode(ctx, clusterID, nodeID, simplyblock.RestartParams{})
		}},
		"StartStorageNode": {"node address", func() error {
			return c.StartStorageNode(ctx, clusterID, nodeID, simplyblock.RestartParams{NodeAddress: ptr("10.0.0.11:5000")})
		}},
		"ListStoragePools": {"list", func() error { _, err := c.ListStoragePools(ctx, clusterID); return err }},
		"GetStoragePool":   {"get", func() error { _, err := c.GetStoragePool(ctx, clusterID, poolID); return err }},
		"CreateStoragePool": {"full format", func() error {
			_, err := c.CreateStoragePool(ctx, clusterID, simplyblock.StoragePoolParams{Name: "p1", PoolMax: 1 << 30})
			return err
		}},
		"UpdateStoragePool": {"only set fields", func() error {
			return c.UpdateStoragePool(ctx, clusterID, poolID, simplyblock.UpdatableStoragePoolParams{Name: &newName, MaxSize: &maxSize})
		}},
		"DeleteStoragePool": {"delete", func() error { return c.DeleteStoragePool(ctx, clusterID, poolID) }},
		"ListTasks":         {"list", func() error { _, err := c.ListTasks(ctx, clusterID); return err }},
		"GetTask":           {"get", func() error { _, err := c.GetTask(ctx, clusterID, taskID); return err }},
		"Health":            {"probe", func() error { return c.Health(ctx) }},
		"Ready":             {"probe", func() error { return c.Ready(ctx) }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := tc.call(); err != nil {
				t.Errorf("\n%s\n%s(...): unexpected error: %v", tc.reason, name, err)
			}
		})
	}
	// Contract violations, if any, fail this test at cleanup.
}
