package simplyblock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
)

// The golden responses in testdata/golden are real backend answers, one
// exchange per file, written from the examples of backend-contract.md §4
// (sbcli 754ff3e1; the "source" of each file names the section and the
// sbcli lines). They are this project's fixtures, not copies of the vendor
// spec. Each file holds the request the client sends (method, path, query)
// and the answer: status, headers, and a JSON "body" or a verbatim "text".
const goldenDir = "testdata/golden"

// Ids used by the golden files.
const (
	gCluster   = "6f1c2d3e-0000-4000-8000-000000000001"
	gNode      = "a1b2c3d4-0000-4000-8000-00000000000a"
	gPeer      = "b2c3d4e5-0000-4000-8000-00000000000b"
	gPool      = "c3d4e5f6-0000-4000-8000-00000000000c"
	gPool2     = "7e8f9a0b-0000-4000-8000-000000000099"
	gTask      = "d4e5f6a7-0000-4000-8000-00000000000d"
	gDevice    = "e5f6a7b8-0000-4000-8000-00000000000e"
	gMigration = "f6a7b8c9-0000-4000-8000-00000000000f"
	gRestart   = "0a7b8c9d-0000-4000-8000-000000000010"
)

// golden is one file of testdata/golden.
type golden struct {
	Source  string `json:"source"`
	Request struct {
		Method string `json:"method"`
		Path   string `json:"path"`
		Query  string `json:"query"`
	} `json:"request"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
	Text    *string           `json:"text"`
}

func loadGolden(t *testing.T, name string) golden {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(goldenDir, name+".json"))
	if err != nil {
		t.Fatalf("cannot read golden response: %v", err)
	}
	var g golden
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if g.Body != nil && g.Text != nil {
		t.Fatalf("%s: both body and text", name)
	}
	return g
}

// responseBody is the answer's body as the backend sends it: compact JSON,
// or the text verbatim.
func (g golden) responseBody(t *testing.T) []byte {
	t.Helper()
	switch {
	case g.Text != nil:
		return []byte(*g.Text)
	case g.Body != nil:
		var b bytes.Buffer
		if err := json.Compact(&b, g.Body); err != nil {
			t.Fatalf("golden body: %v", err)
		}
		return b.Bytes()
	}
	return nil
}

// handler answers the golden request with the golden response; any other
// request fails the test.
func (g golden) handler(t *testing.T) http.Handler {
	want, err := url.ParseQuery(g.Request.Query)
	if err != nil {
		t.Fatalf("golden query: %v", err)
	}
	body := g.responseBody(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != g.Request.Method || r.URL.Path != g.Request.Path || !reflect.DeepEqual(r.URL.Query(), want) {
			t.Errorf("the client sent %s %s?%s, the golden response answers %s %s?%s",
				r.Method, r.URL.Path, r.URL.RawQuery, g.Request.Method, g.Request.Path, g.Request.Query)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
			return
		}
		for k, v := range g.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(g.Status)
		_, _ = w.Write(body)
	})
}

// goldenValidator returns the contract validator, or nil when the vendor
// spec is absent outside CI (contract.Load then fails or skips; the
// decoding is still checked).
func goldenValidator(t *testing.T) *contract.Validator {
	t.Helper()
	if _, err := os.Stat(contract.SpecPath()); err != nil && os.Getenv("CI") == "" {
		t.Logf("contract checks disabled: no vendor spec at %s", contract.SpecPath())
		return nil
	}
	return contract.Load(t)
}

// The decoded values of the golden files.

func gCapacity(date int64) simplyblock.CapacityStatDTO {
	return simplyblock.CapacityStatDTO{Date: date}
}

func gClusterDTO(status simplyblock.ClusterStatus) simplyblock.ClusterDTO {
	return simplyblock.ClusterDTO{ID: gCluster, Name: ptr("prod"), NQN: "nqn.2023-02.io.simplyblock:" + gCluster, Status: status,
		BlockSize: 512, DistrNdcs: 1, DistrNpcs: 1, HA: true, UtilizationCritical: 90, UtilizationWarning: 80,
		ProvisionedCapacityCritical: 190, ProvisionedCapacityWarning: 180, Secret: "AbCdEfGhIjKlMnOpQrSt", MaxFaultTolerance: 1,
		Capacity: gCapacity(0)}
}

func gOnlineNode() simplyblock.StorageNodeDTO {
	return simplyblock.StorageNodeDTO{ID: gNode, ClusterID: gCluster, SecondaryNodeID: ptr(gPeer), Status: simplyblock.NodeOnline,
		Uptime: ptr("PT3723.456789S"), Hostname: "worker-1_8080", HostNQN: "nqn.2023-02.io.simplyblock:worker-1_8080",
		CPUTotalCount: 32, CPUSpdkCount: 8, CPUPollerCount: 4, Memory: 135000000000, HugepageMemory: 17179869184,
		SpdkMem: 12884901888, Lvols: 3, LvolsMax: 75, SnapshotsMax: 500, RPCPort: 8080, LvolSubsysPort: 9090, HublvolPort: 9030,
		NvmfPort: 4420, MgmtIP: "10.0.0.10", HealthCheck: ptr(true), DeviceCount: 4, OnlineDeviceCount: 4, FailureDomain: -1,
		Capacity: gCapacity(1755893734)}
}

func gOfflineNode() simplyblock.StorageNodeDTO {
	n := gOnlineNode()
	n.ID, n.SecondaryNodeID, n.Status, n.Uptime = gPeer, nil, simplyblock.NodeOffline, nil
	n.Hostname, n.HostNQN, n.MgmtIP = "worker-2_8080", "nqn.2023-02.io.simplyblock:worker-2_8080", "10.0.0.11"
	n.Lvols, n.HealthCheck, n.OnlineDeviceCount = 0, nil, 0
	return n
}

func gPoolDTO() simplyblock.StoragePoolDTO {
	return simplyblock.StoragePoolDTO{ID: gPool, ClusterID: gCluster, Name: "pool1", Status: simplyblock.PoolActive, AllowedHosts: []string{}}
}

func gNodeAddTask() simplyblock.TaskDTO {
	return simplyblock.TaskDTO{ID: gTask, ClusterID: gCluster, Status: simplyblock.TaskDone, FunctionName: simplyblock.TaskFunctionNodeAdd,
		FunctionParams: map[string]any{"cluster_id": gCluster, "node_addr": "10.0.0.10:5000", "iface_name": "eth0",
			"data_nics_list": []any{}, "max_snap": float64(500), "expansion": false},
		FunctionResult: "Node add result: Success", MaxRetry: ptr(int64(11))}
}

func gLogEntry(date, nodeID, event, level, message string) simplyblock.ClusterLogEntry {
	return simplyblock.ClusterLogEntry{Date: date, NodeID: nodeID, Event: event, Level: level, Message: message,
		StorageID: simplyblock.LogNone, VUID: simplyblock.LogNone, Status: simplyblock.LogNone}
}

func gLogs() []simplyblock.ClusterLogEntry {
	none := simplyblock.LogNone
	task := gLogEntry("2026-08-22 20:02:10", gTask, "OBJ_CREATED", "Info", "Task created")
	task.Status = "new"
	device := gLogEntry("2026-08-22 20:07:40.101", gDevice, "OBJ_CREATED", "Info", "Device created: "+gDevice)
	device.StorageID = "0"
	distrib := gLogEntry("2026-08-22 20:09:31.250", gPeer, "device_status", "Error", "unavailable (2)")
	distrib.StorageID, distrib.Status = "3", "processed"
	return []simplyblock.ClusterLogEntry{
		gLogEntry("2026-08-22 20:01:02.345", none, "OBJ_CREATED", "Info", "Cluster created "+gCluster),
		task,
		device,
		gLogEntry("2026-08-22 20:07:41.778", gNode, "STATUS_CHANGE", "Info", "Storage node status changed from: in_creation to: online"),
		gLogEntry("2026-08-22 20:09:00.004", none, "STATUS_CHANGE", "Info", "Cluster status changed from unready to in_activation"),
		distrib,
		gLogEntry("2026-08-22 20:11:12.900", none, "STATUS_CHANGE", "Info", "Cluster status changed from in_activation to active"),
	}
}

// wantError is the typed error a golden error response must become.
type wantError struct {
	is      func(error) bool
	kind    simplyblock.Kind
	status  int
	message string
	details []simplyblock.ValidationErrorDetail
}

// TestGolden serves each golden response to the client call that gets it
// and checks what the client decodes, or the typed error it returns. The
// contract validator checks every exchange (the client's request and the
// golden answer), so the golden files and the validator agree.
func TestGolden(t *testing.T) {
	ctx := context.Background()
	restart := simplyblock.RestartParams{}
	uuidErr := simplyblock.ValidationErrorDetail{Type: "uuid_parsing", Loc: []any{"path", "cluster_id"},
		Msg: "Input should be a valid UUID, invalid length: expected length 32 for simple format, found 1", Input: "x",
		Ctx: map[string]any{"error": "invalid length: expected length 32 for simple format, found 1"}}
	pool2 := gPoolDTO()
	pool2.ID, pool2.Name = gPool2, "pool2"
	pool2.Capacity = &simplyblock.CapacityStatDTO{Date: 1755893734, SizeTotal: 1099511627776, SizeProv: 107374182400,
		SizeUsed: 53687091200, SizeFree: 1045824536576, SizeUtil: 5}
	restartTask := simplyblock.TaskDTO{ID: gRestart, ClusterID: gCluster, StorageNodeID: ptr(gPeer), Status: simplyblock.TaskNew,
		FunctionName: simplyblock.TaskFunctionNodeRestart, FunctionParams: map[string]any{}, MaxRetry: ptr(int64(11))}
	migrationTask := simplyblock.TaskDTO{ID: gMigration, ClusterID: gCluster, DeviceID: ptr(gDevice), StorageNodeID: ptr(gNode),
		Status: simplyblock.TaskRunning, FunctionName: simplyblock.TaskFunctionNewDeviceMigration,
		FunctionParams: map[string]any{"distr_name": "distrib_6001"}, Retry: 2}
	internalError := &wantError{is: simplyblock.IsServerError, kind: simplyblock.KindServerError, status: 500, message: "Internal Server Error"}

	type call func(c *simplyblock.Client) (any, error)
	none := func(err error) (any, error) { return nil, err }
	cases := map[string]struct {
		reason string
		// api is the API method the case covers.
		api     string
		token   *string // overrides testToken
		call    call
		want    any
		wantErr *wantError
	}{
		// Clusters.
		"list-clusters": {reason: "The §4 ClusterDTO, secret in plain text.", api: "ListClusters",
			call: func(c *simplyblock.Client) (any, error) { return c.ListClusters(ctx) },
			want: []simplyblock.ClusterDTO{gClusterDTO(simplyblock.ClusterActive)}},
		"get-cluster": {reason: "The §4 ClusterDTO.", api: "GetCluster",
			call: func(c *simplyblock.Client) (any, error) { return c.GetCluster(ctx, gCluster) },
			want: ptr(gClusterDTO(simplyblock.ClusterActive))},
		"create-cluster": {reason: "response-format=full: 201, the DTO and a Location.", api: "CreateCluster",
			call: func(c *simplyblock.Client) (any, error) {
				p := simplyblock.DefaultClusterParams()
				p.Name = "prod"
				return c.CreateCluster(ctx, p)
			},
			want: ptr(gClusterDTO(simplyblock.ClusterUnready))},
		"update-cluster-name": {reason: "204, not the spec's 200.", api: "UpdateClusterName",
			call: func(c *simplyblock.Client) (any, error) { return none(c.UpdateClusterName(ctx, gCluster, "prod")) }},
		"delete-cluster": {reason: "204.", api: "DeleteCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.DeleteCluster(ctx, gCluster)) }},
		"activate-cluster": {reason: "202, empty.", api: "ActivateCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.ActivateCluster(ctx, gCluster)) }},
		"expand-cluster": {reason: "202, empty.", api: "ExpandCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.ExpandCluster(ctx, gCluster)) }},
		"shutdown-cluster": {reason: "202, empty.", api: "ShutdownCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.ShutdownCluster(ctx, gCluster)) }},
		"start-cluster": {reason: "202, empty.", api: "StartCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.StartCluster(ctx, gCluster)) }},
		"rebalance-cluster": {reason: "204, synchronous.", api: "RebalanceCluster",
			call: func(c *simplyblock.Client) (any, error) { return none(c.RebalanceCluster(ctx, gCluster)) }},
		"update-cluster": {reason: "204, synchronous.", api: "UpdateCluster",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.UpdateCluster(ctx, gCluster, simplyblock.UpdateParams{ManagementImage: ptr("simplyblock/simplyblock:v2")}))
			}},
		"cluster-logs": {reason: "The §4 log: oldest first, every value a string, \"None\" for a missing one, no id.", api: "ClusterLogs",
			call: func(c *simplyblock.Client) (any, error) { return c.ClusterLogs(ctx, gCluster, 20) },
			want: gLogs()},
		// Storage nodes.
		"list-storage-nodes": {reason: "ISO 8601 uptime with microseconds; an offline node has null uptime and health_check.",
			api:  "ListStorageNodes",
			call: func(c *simplyblock.Client) (any, error) { return c.ListStorageNodes(ctx, gCluster) },
			want: []simplyblock.StorageNodeDTO{gOnlineNode(), gOfflineNode()}},
		"get-storage-node": {reason: "The §4 StorageNodeDTO.", api: "GetStorageNode",
			call: func(c *simplyblock.Client) (any, error) { return c.GetStorageNode(ctx, gCluster, gNode) },
			want: ptr(gOnlineNode())},
		"add-storage-node": {reason: "response-format=identifier: the node_add task id as a JSON string, with Location.",
			api: "AddStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return c.AddStorageNode(ctx, gCluster, simplyblock.DefaultStorageNodeParams("10.0.0.10:5000", "eth0"))
			},
			want: gTask},
		"delete-storage-node": {reason: "204.", api: "DeleteStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.DeleteStorageNode(ctx, gCluster, gNode, simplyblock.NodeDeleteOptions{ForceRemove: true}))
			}},
		"suspend-storage-node": {reason: "204.", api: "SuspendStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.SuspendStorageNode(ctx, gCluster, gNode, false))
			}},
		"resume-storage-node": {reason: "204.", api: "ResumeStorageNode",
			call: func(c *simplyblock.Client) (any, error) { return none(c.ResumeStorageNode(ctx, gCluster, gNode)) }},
		"shutdown-storage-node": {reason: "202, empty.", api: "ShutdownStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.ShutdownStorageNode(ctx, gCluster, gNode, false))
			}},
		"restart-storage-node": {reason: "202, empty.", api: "RestartStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.RestartStorageNode(ctx, gCluster, gNode, restart))
			}},
		"start-storage-node": {reason: "202, empty.", api: "StartStorageNode",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.StartStorageNode(ctx, gCluster, gNode, restart))
			}},
		"promote-storage-node": {reason: "204.", api: "PromoteStorageNode",
			call: func(c *simplyblock.Client) (any, error) { return none(c.PromoteStorageNode(ctx, gCluster, gNode)) }},
		// Storage pools.
		"list-storage-pools": {reason: "capacity is null before the first stats record, an object after.", api: "ListStoragePools",
			call: func(c *simplyblock.Client) (any, error) { return c.ListStoragePools(ctx, gCluster) },
			want: []simplyblock.StoragePoolDTO{gPoolDTO(), pool2}},
		"get-storage-pool": {reason: "The §4 StoragePoolDTO, capacity null.", api: "GetStoragePool",
			call: func(c *simplyblock.Client) (any, error) { return c.GetStoragePool(ctx, gCluster, gPool) },
			want: ptr(gPoolDTO())},
		"create-storage-pool": {reason: "response-format=full: 201, the DTO and a Location.", api: "CreateStoragePool",
			call: func(c *simplyblock.Client) (any, error) {
				return c.CreateStoragePool(ctx, gCluster, simplyblock.StoragePoolParams{Name: "pool1"})
			},
			want: ptr(gPoolDTO())},
		"update-storage-pool": {reason: "204.", api: "UpdateStoragePool",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.UpdateStoragePool(ctx, gCluster, gPool, simplyblock.UpdatableStoragePoolParams{MaxSize: ptr(int64(0))}))
			}},
		"delete-storage-pool": {reason: "204.", api: "DeleteStoragePool",
			call: func(c *simplyblock.Client) (any, error) { return none(c.DeleteStoragePool(ctx, gCluster, gPool)) }},
		// Tasks.
		"list-tasks": {reason: "function_params as given; node_restart's {}; max_retry -1 is null; device_id set on new_device_migration.",
			api:  "ListTasks",
			call: func(c *simplyblock.Client) (any, error) { return c.ListTasks(ctx, gCluster) },
			want: []simplyblock.TaskDTO{gNodeAddTask(), restartTask, migrationTask}},
		"get-task": {reason: "The §4 TaskDTO.", api: "GetTask",
			call: func(c *simplyblock.Client) (any, error) { return c.GetTask(ctx, gCluster, gTask) },
			want: ptr(gNodeAddTask())},
		// Probes.
		"health": {reason: "204, no auth.", api: "Health",
			call: func(c *simplyblock.Client) (any, error) { return none(c.Health(ctx)) }},
		"ready": {reason: "204.", api: "Ready",
			call: func(c *simplyblock.Client) (any, error) { return none(c.Ready(ctx)) }},

		// Error bodies.
		"error-cluster-not-found": {reason: "The quoted str(KeyError) is unquoted.",
			call:    func(c *simplyblock.Client) (any, error) { return c.GetCluster(ctx, gCluster) },
			wantErr: &wantError{is: simplyblock.IsNotFound, kind: simplyblock.KindNotFound, status: 404, message: "Cluster " + gCluster + " not found"}},
		"error-node-not-found": {reason: "A node of another cluster: unquoted.",
			call:    func(c *simplyblock.Client) (any, error) { return c.GetStorageNode(ctx, gCluster, gNode) },
			wantErr: &wantError{is: simplyblock.IsNotFound, kind: simplyblock.KindNotFound, status: 404, message: "StorageNode " + gNode + " not found"}},
		"error-task-not-found": {reason: "A task of another cluster.",
			call:    func(c *simplyblock.Client) (any, error) { return c.GetTask(ctx, gCluster, gTask) },
			wantErr: &wantError{is: simplyblock.IsNotFound, kind: simplyblock.KindNotFound, status: 404, message: "Task does not exist"}},
		"error-task-unknown": {reason: "An unknown task id is a plain-text 500, not a 404.",
			call:    func(c *simplyblock.Client) (any, error) { return c.GetTask(ctx, gCluster, gTask) },
			wantErr: internalError},
		"error-invalid-token": {reason: "A wrong token.",
			call:    func(c *simplyblock.Client) (any, error) { return c.GetCluster(ctx, gCluster) },
			wantErr: &wantError{is: simplyblock.IsUnauthorized, kind: simplyblock.KindUnauthorized, status: 401, message: "Invalid token"}},
		"error-not-authenticated": {reason: "No token: the client sends no Authorization header.", token: ptr(""),
			call:    func(c *simplyblock.Client) (any, error) { return c.ListClusters(ctx) },
			wantErr: &wantError{is: simplyblock.IsUnauthorized, kind: simplyblock.KindUnauthorized, status: 401, message: "Not authenticated"}},
		"error-cluster-not-empty": {reason: "A 409 with the backend's reason.",
			call: func(c *simplyblock.Client) (any, error) { return none(c.DeleteCluster(ctx, gCluster)) },
			wantErr: &wantError{is: simplyblock.IsConflict, kind: simplyblock.KindConflict, status: 409,
				message: "Can only remove Empty cluster, Storage nodes found"}},
		"error-node-shutdown-concurrent": {reason: "The real text says \"is already shutting down in this cluster\".",
			call: func(c *simplyblock.Client) (any, error) {
				return none(c.ShutdownStorageNode(ctx, gCluster, gPeer, false))
			},
			wantErr: &wantError{is: simplyblock.IsConflict, kind: simplyblock.KindConflict, status: 409,
				message: "Node " + gNode + " is already shutting down in this cluster, cannot shutdown " + gPeer + " concurrently"}},
		"error-pool-inactive": {reason: "A 400 with a detail.",
			call:    func(c *simplyblock.Client) (any, error) { return none(c.DeleteStoragePool(ctx, gCluster, gPool)) },
			wantErr: &wantError{kind: simplyblock.KindBadRequest, status: 400, message: "Pool is inactive"}},
		"error-validation": {reason: "A 422 keeps its detail list; the malformed id is reported twice.",
			call: func(c *simplyblock.Client) (any, error) { return c.GetCluster(ctx, "x") },
			wantErr: &wantError{is: simplyblock.IsValidation, kind: simplyblock.KindValidation, status: 422,
				message: "path.cluster_id: " + uuidErr.Msg + "; path.cluster_id: " + uuidErr.Msg,
				details: []simplyblock.ValidationErrorDetail{uuidErr, uuidErr}}},
		"error-logs-empty": {reason: "An empty log is a plain-text 500, never [].",
			call:    func(c *simplyblock.Client) (any, error) { return c.ClusterLogs(ctx, gCluster, 20) },
			wantErr: internalError},
		"error-not-ready": {reason: "The ready probe's 503.",
			call:    func(c *simplyblock.Client) (any, error) { return none(c.Ready(ctx)) },
			wantErr: &wantError{is: simplyblock.IsServerError, kind: simplyblock.KindServerError, status: 503, message: "FDB not ready"}},
	}

	t.Run("Coverage", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if _, ok := cases[strings.TrimSuffix(filepath.Base(f), ".json")]; !ok {
				t.Errorf("golden file %s has no case", f)
			}
		}
		api := reflect.TypeFor[simplyblock.API]()
		var covered []string
		for _, tc := range cases {
			if tc.api != "" {
				if _, ok := api.MethodByName(tc.api); !ok {
					t.Errorf("case names API method %s, which does not exist", tc.api)
				}
				covered = append(covered, tc.api)
			}
		}
		for i := range api.NumMethod() {
			if m := api.Method(i).Name; !slices.Contains(covered, m) {
				t.Errorf("API method %s has no golden success response", m)
			}
		}
	})

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := loadGolden(t, name)
			h := g.handler(t)
			if v := goldenValidator(t); v != nil {
				h = v.Middleware(h)
			}
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			token := testToken
			if tc.token != nil {
				token = *tc.token
			}
			c, err := simplyblock.New(simplyblock.Config{BaseURL: srv.URL, Token: token})
			if err != nil {
				t.Fatalf("New(...): %v", err)
			}
			got, err := tc.call(c)
			srv.Close() // wait for the handler, so the validator has recorded

			if tc.wantErr != nil {
				checkGoldenError(t, tc.reason, g, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("\n%s\n%s: %s(...): unexpected error: %v", tc.reason, g.Source, tc.api, err)
			}
			if tc.want == nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\n%s: %s(...): -want, +got:\n%s", tc.reason, g.Source, tc.api, diff)
			}
		})
	}
}

func checkGoldenError(t *testing.T, reason string, g golden, err error, want *wantError) {
	t.Helper()
	var e *simplyblock.Error
	if !errors.As(err, &e) {
		t.Fatalf("\n%s\n%s: want a *simplyblock.Error, got %v", reason, g.Source, err)
	}
	if want.is != nil && !want.is(err) {
		t.Errorf("\n%s\n%s: the Is* predicate for %s is false for %v", reason, g.Source, want.kind, err)
	}
	type view struct {
		Kind    simplyblock.Kind
		Outcome simplyblock.Outcome
		Status  int
		Message string
		Details []simplyblock.ValidationErrorDetail
	}
	wantView := view{Kind: want.kind, Outcome: simplyblock.OutcomeAnswered, Status: want.status, Message: want.message, Details: want.details}
	gotView := view{Kind: e.Kind, Outcome: e.Outcome, Status: e.StatusCode, Message: e.Message, Details: e.Details}
	if diff := cmp.Diff(wantView, gotView); diff != "" {
		t.Errorf("\n%s\n%s: error -want, +got:\n%s", reason, g.Source, diff)
	}
}
