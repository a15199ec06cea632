package simplyblock_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestRequests checks method, path (with the backend's trailing-slash
// rules), query, body and auth of every call.
func TestRequests(t *testing.T) {
	ctx := context.Background()
	const (
		cl    = "/api/v2/clusters/" + clusterID
		nodes = cl + "/storage-nodes/"
		pools = cl + "/storage-pools/"
	)
	name := "renamed"
	maxSize := int64(1 << 30)

	type want struct {
		Method string
		Path   string
		Query  string
		Body   string
		Auth   bool
	}
	cases := map[string]struct {
		reason string
		status int
		body   string
		call   func(c *simplyblock.Client) error
		want   want
	}{
		"ListClusters": {
			reason: "Collections keep the trailing slash.",
			body:   `[]`,
			call:   func(c *simplyblock.Client) error { _, err := c.ListClusters(ctx); return err },
			want:   want{Method: "GET", Path: "/api/v2/clusters/", Auth: true},
		},
		"GetCluster": {
			reason: "Instances keep the trailing slash.",
			body:   `{"id":"` + clusterID + `"}`,
			call:   func(c *simplyblock.Client) error { _, err := c.GetCluster(ctx, clusterID); return err },
			want:   want{Method: "GET", Path: cl + "/", Auth: true},
		},
		"CreateCluster": {
			reason: "Cluster create asks for the full DTO and sends max_subsys and spdk_vcpu_count.",
			status: http.StatusCreated,
			body:   `{"id":"` + clusterID + `"}`,
			call: func(c *simplyblock.Client) error {
				p := simplyblock.DefaultClusterParams()
				p.Name = "c1"
				_, err := c.CreateCluster(ctx, p)
				return err
			},
			want: want{Method: "POST", Path: "/api/v2/clusters/", Query: "response-format=full", Auth: true,
				Body: `{"name":"c1","blk_size":512,"page_size_in_blocks":2097152,"cap_warn":0,"cap_crit":0,"prov_cap_warn":0,"prov_cap_crit":0,"distr_ndcs":1,"distr_npcs":1,"distr_bs":4096,"distr_chunk_bs":4096,"ha_type":"ha","qpair_count":256,"max_queue_size":128,"inflight_io_threshold":4,"enable_node_affinity":false,"strict_node_anti_affinity":false,"is_single_node":false,"fabric":"tcp","cr_name":"","cr_namespace":"","cr_plural":"","client_data_nic":"","nvmf_base_port":4420,"rpc_base_port":8080,"snode_api_port":50001,"max_subsys":0,"spdk_vcpu_count":0,"backup_config":null,"hashicorp_vault_settings":null,"enable_failure_domain":false}`},
		},
		"UpdateClusterName": {
			reason: "Rename is a PUT on the instance; the backend answers 204.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.UpdateClusterName(ctx, clusterID, name) },
			want:   want{Method: "PUT", Path: cl + "/", Body: `{"name":"renamed"}`, Auth: true},
		},
		"DeleteCluster": {
			reason: "Delete is on the instance.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.DeleteCluster(ctx, clusterID) },
			want:   want{Method: "DELETE", Path: cl + "/", Auth: true},
		},
		"ActivateCluster": {
			reason: "Actions have no trailing slash and no body.",
			status: http.StatusAccepted,
			call:   func(c *simplyblock.Client) error { return c.ActivateCluster(ctx, clusterID) },
			want:   want{Method: "POST", Path: cl + "/activate", Auth: true},
		},
		"ExpandCluster": {
			reason: "Actions have no trailing slash.",
			status: http.StatusAccepted,
			call:   func(c *simplyblock.Client) error { return c.ExpandCluster(ctx, clusterID) },
			want:   want{Method: "POST", Path: cl + "/expand", Auth: true},
		},
		"ShutdownCluster": {
			reason: "Actions have no trailing slash.",
			status: http.StatusAccepted,
			call:   func(c *simplyblock.Client) error { return c.ShutdownCluster(ctx, clusterID) },
			want:   want{Method: "POST", Path: cl + "/shutdown", Auth: true},
		},
		"StartCluster": {
			reason: "Actions have no trailing slash.",
			status: http.StatusAccepted,
			call:   func(c *simplyblock.Client) error { return c.StartCluster(ctx, clusterID) },
			want:   want{Method: "POST", Path: cl + "/start", Auth: true},
		},
		"RebalanceCluster": {
			reason: "Rebalance answers 204.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.RebalanceCluster(ctx, clusterID) },
			want:   want{Method: "POST", Path: cl + "/rebalance", Auth: true},
		},
		"UpdateCluster": {
			reason: "Update sends both image keys, null meaning unchanged.",
			status: http.StatusNoContent,
			call: func(c *simplyblock.Client) error {
				return c.UpdateCluster(ctx, clusterID, simplyblock.UpdateParams{Restart: true})
			},
			want: want{Method: "POST", Path: cl + "/update", Body: `{"management_image":null,"spdk_image":null,"restart":true}`, Auth: true},
		},
		"ClusterLogs": {
			reason: "Logs take a limit query parameter.",
			body:   `[{"message":"x"}]`,
			call:   func(c *simplyblock.Client) error { _, err := c.ClusterLogs(ctx, clusterID, 10); return err },
			want:   want{Method: "GET", Path: cl + "/logs", Query: "limit=10", Auth: true},
		},
		"ListStorageNodes": {
			reason: "Node collection keeps the trailing slash.",
			body:   `[]`,
			call:   func(c *simplyblock.Client) error { _, err := c.ListStorageNodes(ctx, clusterID); return err },
			want:   want{Method: "GET", Path: nodes, Auth: true},
		},
		"GetStorageNode": {
			reason: "Node instance keeps the trailing slash.",
			body:   `{}`,
			call:   func(c *simplyblock.Client) error { _, err := c.GetStorageNode(ctx, clusterID, nodeID); return err },
			want:   want{Method: "GET", Path: nodes + nodeID + "/", Auth: true},
		},
		"AddStorageNode": {
			reason: "Node add asks for the identifier and sends data_nics as [] even when nil.",
			status: http.StatusCreated,
			body:   `"` + taskID + `"`,
			call: func(c *simplyblock.Client) error {
				_, err := c.AddStorageNode(ctx, clusterID, simplyblock.StorageNodeParams{NodeAddress: "10.0.0.10:5000", InterfaceName: "eth0"})
				return err
			},
			want: want{Method: "POST", Path: nodes, Query: "response-format=identifier", Auth: true,
				Body: `{"node_address":"10.0.0.10:5000","interface_name":"eth0","spdk_debug":false,"data_nics":[],"namespace":"","jm_percent":0,"partitions":0,"iobuf_small_pool_count":0,"iobuf_large_pool_count":0,"cr_name":"","cr_namespace":"","cr_plural":"","format_4k":false,"expand":false}`},
		},
		"DeleteStorageNode": {
			reason: "Node delete sends only the set force flags.",
			status: http.StatusNoContent,
			call: func(c *simplyblock.Client) error {
				return c.DeleteStorageNode(ctx, clusterID, nodeID, simplyblock.NodeDeleteOptions{ForceRemove: true, ForceDelete: true})
			},
			want: want{Method: "DELETE", Path: nodes + nodeID + "/", Query: "force_delete=true&force_remove=true", Auth: true},
		},
		"SuspendStorageNode": {
			reason: "Node actions have no trailing slash.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.SuspendStorageNode(ctx, clusterID, nodeID, true) },
			want:   want{Method: "POST", Path: nodes + nodeID + "/suspend", Query: "force=true", Auth: true},
		},
		"ResumeStorageNode": {
			reason: "Node actions have no trailing slash.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.ResumeStorageNode(ctx, clusterID, nodeID) },
			want:   want{Method: "POST", Path: nodes + nodeID + "/resume", Auth: true},
		},
		"PromoteStorageNode": {
			reason: "Node actions have no trailing slash; promote has no body.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.PromoteStorageNode(ctx, clusterID, nodeID) },
			want:   want{Method: "POST", Path: nodes + nodeID + "/promote", Auth: true},
		},
		"ShutdownStorageNode": {
			reason: "A non-forced shutdown sends no force flag.",
			status: http.StatusAccepted,
			call:   func(c *simplyblock.Client) error { return c.ShutdownStorageNode(ctx, clusterID, nodeID, false) },
			want:   want{Method: "POST", Path: nodes + nodeID + "/shutdown", Auth: true},
		},
		"RestartStorageNode": {
			reason: "Restart always sends a body, defaults included.",
			status: http.StatusAccepted,
			call: func(c *simplyblock.Client) error {
				return c.RestartStorageNode(ctx, clusterID, nodeID, simplyblock.RestartParams{})
			},
			want: want{Method: "POST", Path: nodes + nodeID + "/restart", Body: `{"force":false,"reattach_volume":false,"node_address":null,"new_ssd_pcie":[]}`, Auth: true},
		},
		"StartStorageNode": {
			reason: "Start always sends a body.",
			status: http.StatusAccepted,
			call: func(c *simplyblock.Client) error {
				return c.StartStorageNode(ctx, clusterID, nodeID, simplyblock.RestartParams{Force: true})
			},
			want: want{Method: "POST", Path: nodes + nodeID + "/start", Body: `{"force":true,"reattach_volume":false,"node_address":null,"new_ssd_pcie":[]}`, Auth: true},
		},
		"ListStoragePools": {
			reason: "Pool collection keeps the trailing slash.",
			body:   `[]`,
			call:   func(c *simplyblock.Client) error { _, err := c.ListStoragePools(ctx, clusterID); return err },
			want:   want{Method: "GET", Path: pools, Auth: true},
		},
		"GetStoragePool": {
			reason: "Pool instance keeps the trailing slash.",
			body:   `{}`,
			call:   func(c *simplyblock.Client) error { _, err := c.GetStoragePool(ctx, clusterID, poolID); return err },
			want:   want{Method: "GET", Path: pools + poolID + "/", Auth: true},
		},
		"CreateStoragePool": {
			reason: "Pool create asks for the full DTO.",
			status: http.StatusCreated,
			body:   `{}`,
			call: func(c *simplyblock.Client) error {
				_, err := c.CreateStoragePool(ctx, clusterID, simplyblock.StoragePoolParams{Name: "p1", PoolMax: 10})
				return err
			},
			want: want{Method: "POST", Path: pools, Query: "response-format=full", Auth: true,
				Body: `{"name":"p1","pool_max":10,"volume_max_size":0,"max_rw_iops":0,"max_rw_mbytes":0,"max_r_mbytes":0,"max_w_mbytes":0,"dhchap":false,"cr_name":"","cr_namespace":"","cr_plural":""}`},
		},
		"UpdateStoragePool": {
			reason: "Pool update sends only the set fields.",
			status: http.StatusNoContent,
			call: func(c *simplyblock.Client) error {
				return c.UpdateStoragePool(ctx, clusterID, poolID, simplyblock.UpdatableStoragePoolParams{MaxSize: &maxSize})
			},
			want: want{Method: "PUT", Path: pools + poolID + "/", Body: `{"max_size":1073741824}`, Auth: true},
		},
		"DeleteStoragePool": {
			reason: "Pool delete is on the instance.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.DeleteStoragePool(ctx, clusterID, poolID) },
			want:   want{Method: "DELETE", Path: pools + poolID + "/", Auth: true},
		},
		"ListTasks": {
			reason: "Task collection keeps the trailing slash.",
			body:   `[]`,
			call:   func(c *simplyblock.Client) error { _, err := c.ListTasks(ctx, clusterID); return err },
			want:   want{Method: "GET", Path: cl + "/tasks/", Auth: true},
		},
		"GetTask": {
			reason: "Task instance keeps the trailing slash.",
			body:   `{}`,
			call:   func(c *simplyblock.Client) error { _, err := c.GetTask(ctx, clusterID, taskID); return err },
			want:   want{Method: "GET", Path: cl + "/tasks/" + taskID + "/", Auth: true},
		},
		"Health": {
			reason: "Probes need no auth and carry no token.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.Health(ctx) },
			want:   want{Method: "GET", Path: "/api/v2/_meta/health"},
		},
		"Ready": {
			reason: "Probes need no auth and carry no token.",
			status: http.StatusNoContent,
			call:   func(c *simplyblock.Client) error { return c.Ready(ctx) },
			want:   want{Method: "GET", Path: "/api/v2/_meta/ready"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{status: tc.status, body: tc.body}
			c, _ := newClient(t, rec, 0)
			if err := tc.call(c); err != nil {
				t.Fatalf("\n%s\ncall(...): unexpected error: %v", tc.reason, err)
			}
			r := rec.last()
			got := want{Method: r.Method, Path: r.Path, Query: r.Query, Body: r.Body, Auth: r.Header.Get("Authorization") == "Bearer "+testToken}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nrequest: -want, +got:\n%s", tc.reason, diff)
			}
			if ua := r.Header.Get("User-Agent"); ua != "provider-simplyblock/v0.0.1-test" {
				t.Errorf("\n%s\nUser-Agent = %q, want provider-simplyblock/v0.0.1-test", tc.reason, ua)
			}
			if tc.want.Body != "" && r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("\n%s\nContent-Type = %q, want application/json", tc.reason, r.Header.Get("Content-Type"))
			}
			if !tc.want.Auth && r.Header.Get("Authorization") != "" {
				t.Errorf("\n%s\nunexpected Authorization header on an unauthenticated call", tc.reason)
			}
		})
	}
}

// TestResponses checks that answers are decoded into the DTOs.
func TestResponses(t *testing.T) {
	ctx := context.Background()
	name := "c1"
	cases := map[string]struct {
		reason string
		status int
		body   string
		header http.Header
		call   func(c *simplyblock.Client) (any, error)
		want   any
	}{
		"GetCluster": {
			reason: "A ClusterDTO is decoded.",
			body:   `{"id":"` + clusterID + `","name":"c1","status":"active","is_re_balancing":true,"distr_ndcs":2,"secret":"abc","capacity":{"size_total":5}}`,
			call:   func(c *simplyblock.Client) (any, error) { return c.GetCluster(ctx, clusterID) },
			want: &simplyblock.ClusterDTO{ID: clusterID, Name: &name, Status: simplyblock.ClusterActive, IsReBalancing: true, DistrNdcs: 2,
				Secret: "abc", Capacity: simplyblock.CapacityStatDTO{SizeTotal: 5}},
		},
		"AddStorageNodeIdentifier": {
			reason: "The task id comes back as a JSON string.",
			status: http.StatusCreated,
			body:   `"` + taskID + `"`,
			call: func(c *simplyblock.Client) (any, error) {
				return c.AddStorageNode(ctx, clusterID, simplyblock.DefaultStorageNodeParams("10.0.0.1:5000", "eth0"))
			},
			want: taskID,
		},
		"AddStorageNodeLocation": {
			reason: "With no usable body the task id is taken from Location.",
			status: http.StatusCreated,
			header: http.Header{"Location": {"/api/v2/clusters/" + clusterID + "/tasks/" + taskID + "/"}},
			call: func(c *simplyblock.Client) (any, error) {
				return c.AddStorageNode(ctx, clusterID, simplyblock.DefaultStorageNodeParams("10.0.0.1:5000", "eth0"))
			},
			want: taskID,
		},
		"GetTask": {
			reason: "A failed task is done with a result.",
			body:   `{"id":"` + taskID + `","status":"done","function_name":"node_add","function_result":"max retry reached","max_retry":11,"retry":11,"function_params":{"node_addr":"10.0.0.1:5000"}}`,
			call:   func(c *simplyblock.Client) (any, error) { return c.GetTask(ctx, clusterID, taskID) },
			want: &simplyblock.TaskDTO{ID: taskID, Status: simplyblock.TaskDone, FunctionName: simplyblock.TaskFunctionNodeAdd,
				FunctionResult: "max retry reached", MaxRetry: ptr(int64(11)), Retry: 11, FunctionParams: map[string]any{"node_addr": "10.0.0.1:5000"}},
		},
		"ListStoragePools": {
			reason: "A pool with null capacity decodes.",
			body:   `[{"id":"` + poolID + `","name":"p","status":"active","capacity":null,"allowed_hosts":[]}]`,
			call:   func(c *simplyblock.Client) (any, error) { return c.ListStoragePools(ctx, clusterID) },
			want:   []simplyblock.StoragePoolDTO{{ID: poolID, Name: "p", Status: simplyblock.PoolActive, AllowedHosts: []string{}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newClient(t, &recorder{status: tc.status, body: tc.body, header: tc.header}, 0)
			got, err := tc.call(c)
			if err != nil {
				t.Fatalf("\n%s\ncall(...): unexpected error: %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\ncall(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
