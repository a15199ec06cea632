/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package crash_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// nodeCrashTypes are the StorageNodeOps types of the crash matrix; each
// works on node 1 of an active three-node cluster.
var nodeCrashTypes = []crashType{
	{kind: "StorageNodeOps", name: "Suspend", file: "suspend.yaml", nodes: 3, status: sb.ClusterActive},
	{kind: "StorageNodeOps", name: "Resume", file: "resume.yaml", nodes: 3, status: sb.ClusterActive,
		prepare: func(t *testing.T, c *crashCase) { nodeAction(t, c, "suspend", sb.NodeSuspended) }},
	{kind: "StorageNodeOps", name: "Shutdown", file: "shutdown.yaml", nodes: 3, status: sb.ClusterActive},
	{kind: "StorageNodeOps", name: "Start", file: "start.yaml", nodes: 3, status: sb.ClusterActive,
		prepare: func(t *testing.T, c *crashCase) { nodeAction(t, c, "shutdown?force=true", sb.NodeOffline) }},
	{kind: "StorageNodeOps", name: "Restart", file: "restart.yaml", nodes: 3, status: sb.ClusterActive},
	{kind: "StorageNodeOps", name: "Remove", file: "remove.yaml", nodes: 3, status: sb.ClusterActive},
	{kind: "StorageNodeOps", name: "Migrate", file: "migrate.yaml", nodes: 3, status: sb.ClusterActive},
}

// TestStorageNodeOpsCrashMatrix is the crash matrix for node operations.
func TestStorageNodeOpsCrashMatrix(t *testing.T) { runCrashMatrix(t, nodeCrashTypes) }

// importNodes creates StorageNodes <cluster>-node-1, -2, ... importing the
// cluster's seeded nodes, and returns their ids.
func importNodes(t *testing.T, ns, clusterName, clusterID string) []string {
	t.Helper()
	var ids []string
	for i, n := range suite.sim.Nodes(clusterID) {
		ids = append(ids, n.ID)
		fromExample(t, ns, "quickstart/11-node-1.yaml", func(u *unstructured.Unstructured) {
			u.SetName(fmt.Sprintf("%s-node-%d", clusterName, i+1))
			setField(t, u, clusterName, "spec", "forProvider", "clusterIdRef", "name")
			setField(t, u, n.MgmtIP+":5000", "spec", "forProvider", "nodeAddress")
			u.SetAnnotations(map[string]string{"crossplane.io/external-name": n.ID})
		})
	}
	return ids
}

// nodeAction sends a node action to the simulator directly (not through
// the provider) and waits for node 1 to reach want.
func nodeAction(t *testing.T, c *crashCase, action string, want sb.NodeStatus) {
	t.Helper()
	path := "/api/v2/clusters/" + c.clusterID + "/storage-nodes/" + c.nodeIDs[0] + "/" + action
	req := httptest.NewRequest(http.MethodPost, path, nil) // suspend and shutdown take no body
	req.Header.Set("Authorization", "Bearer "+adminToken)
	rec := httptest.NewRecorder()
	suite.sim.Handler().ServeHTTP(rec, req)
	if rec.Code >= 300 {
		t.Fatalf("POST %s: HTTP %d %s", path, rec.Code, rec.Body.String())
	}
	waitFor(t, time.Minute, func() (bool, string) {
		for _, n := range suite.sim.Nodes(c.clusterID) {
			if n.ID == c.nodeIDs[0] {
				return n.Status == want, string(n.Status)
			}
		}
		return false, "node not found"
	})
}
