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

package e2e

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestNamespacedXR runs the life of a namespaced XStorageCluster: created
// with three nodes and a pool, grown to five, a node moved to another host,
// upgraded, restarted node by node (each once, from the XR alone),
// re-reconciled across restarts of Crossplane core and the provider, shrunk
// by one node, deleted.
func TestNamespacedXR(t *testing.T) {
	needWorld(t)
	ns := newNamespace(t, "e2e-xr")
	c, u := newComposite(t, "xr.yaml", ns, "xr", "10.1.0.")
	id := createCluster(c, u)
	growCluster(c, id)
	moveNode(c, id)
	upgradeCluster(c, id)
	restartCluster(c, id)
	restartAndReconcile(c, id)
	removeNode(c, id)
	deleteCluster(c, id)
}

// TestLegacyClaim runs the same life through a StorageClusterClaim of the
// legacy XRD: its XR is cluster-scoped and composes into the claim's
// namespace.
func TestLegacyClaim(t *testing.T) {
	needWorld(t)
	ns := newNamespace(t, "e2e-claim")
	c, u := newComposite(t, "claim.yaml", ns, "claim", "10.2.0.")
	id := createCluster(c, u)
	if xr := get(t, legacyAPI, "XLegacyStorageCluster", "", c.xr); xr == nil {
		t.Fatalf("the claim's XR %s does not exist", c.xr)
	}
	growCluster(c, id)
	restartAndReconcile(c, id)
	deleteCluster(c, id)
	if xr := get(t, legacyAPI, "XLegacyStorageCluster", "", c.xr); xr != nil {
		t.Errorf("the claim's XR %s outlived the claim", c.xr)
	}
}

// quietPeriod is how long a step watches the backend for calls that must
// not come.
const quietPeriod = 10 * time.Second

// restartAndReconcile restarts Crossplane core and the provider, has the
// composite re-rendered many times and checks that nothing new is composed
// and no state-changing call reaches the backend.
func restartAndReconcile(c *composite, id string) {
	t := c.t
	t.Helper()
	since := time.Now()
	ops := c.operations()
	restartBoth(t)
	c.poke(10, time.Second)
	c.waitReady()
	time.Sleep(quietPeriod)
	t.Logf("restarted core and the provider, re-rendered 10 times: the backend saw %d state-changing calls", len(changes(id, since)))
	if calls := changes(id, since); len(calls) > 0 {
		t.Errorf("after the restarts the backend saw state-changing calls:%s", describe(calls))
	}
	if got := c.operations(); !slices.Equal(got, ops) {
		t.Errorf("after the restarts the composed ClusterOps are %v, want %v", got, ops)
	}
}

// restartBoth stops Crossplane core and the provider and starts them again.
func restartBoth(t *testing.T) {
	t.Helper()
	world.xp.StopCore()
	stopProvider()
	if err := world.xp.StartCore(); err != nil {
		t.Fatal(err)
	}
	if err := startProvider(); err != nil {
		t.Fatal(err)
	}
}

// removeNode removes node-5 from the composite and checks that its
// StorageNode is deleted through the backend's removal (accepted once; a
// repeat while the removal runs is answered 204 again and changes nothing)
// and that nothing else happens: no new operation, a removal needs no
// Expand.
func removeNode(c *composite, id string) {
	t := c.t
	t.Helper()
	name := c.composedName("node-5")
	sn := waitReady(t, managedAPI, "StorageNode", c.namespace, name)
	nodeID := sn.GetAnnotations()["crossplane.io/external-name"]
	ops := c.operations()
	since := time.Now()
	nodes, _, _ := unstructured.NestedSlice(c.object().Object, "spec", "nodes")
	c.setNodes(nodes[:4]) // as they are now (node-2 moved), without node-5
	waitFor(t, "StorageNode "+name+" deleted", func() (bool, string) {
		return get(t, managedAPI, "StorageNode", c.namespace, name) == nil, resourceSummary(t, c.namespace)
	})
	xr := c.waitReady()
	if got := field(xr, "status", "nodes", "composed"); got != "4" {
		t.Errorf("status.nodes.composed = %q, want 4", got)
	}
	for _, n := range world.sim.Nodes(id) {
		if n.ID == nodeID && n.Status != sb.NodeRemoved {
			t.Errorf("node %s is %s, want removed", nodeID, n.Status)
		}
	}
	time.Sleep(quietPeriod)
	calls := changes(id, since)
	path := clustersPath + id + "/storage-nodes/" + nodeID + "/"
	accepted := 0
	for _, call := range calls {
		if call.Path != path || call.Key != "DELETE storage-nodes/{id}/" {
			t.Errorf("removing a node sent %s %s", call.Key, call.Path)
		}
		if call.Status/100 == 2 {
			accepted++
		}
	}
	t.Logf("removed node-5: the backend saw %s (%d accepted)", render(counts(calls, false)), accepted)
	if accepted == 0 {
		t.Errorf("node %s was removed without an accepted removal%s", nodeID, describe(calls))
	}
	if got := c.operations(); !slices.Equal(got, ops) {
		t.Errorf("removing a node composed ClusterOps %v, want %v", got, ops)
	}
}
