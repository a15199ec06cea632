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
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// moveNode gives node-2 a new address in the composite, restarts Crossplane
// core and the provider while the change is composed and run, and checks
// that one Migrate moves it there: the backend sees one shutdown, one restart with
// the new address and one promote of that node, the node keeps its UUID, and
// its StorageNode records the new address while keeping the one it was added
// with.
func moveNode(c *composite, id string) {
	t := c.t
	t.Helper()
	name := c.composedName("node-2")
	sn := waitReady(t, managedAPI, "StorageNode", c.namespace, name)
	nodeID := sn.GetAnnotations()["crossplane.io/external-name"]
	added := field(sn, "spec", "forProvider", "nodeAddress")
	to := c.addressPrefix + "22:5000"
	since := time.Now()
	nodes := c.nodesOf("xr-expanded.yaml")
	nodes[1].(map[string]any)["address"] = to //nolint:forcetypeassert // the examples' shape
	c.setNodes(nodes)
	restartBoth(t) // while the change is being composed or run
	waitFor(t, "StorageNode "+name+" to record its move to "+to, func() (bool, string) {
		sn = get(t, managedAPI, "StorageNode", c.namespace, name)
		at := sn.GetAnnotations()["storage.simplyblock.io/node-address"]
		return at == to, fmt.Sprintf("at %q; %s", at, resourceSummary(t, c.namespace))
	})
	c.waitReady()
	if got := field(sn, "spec", "forProvider", "nodeAddress"); got != added {
		t.Errorf("StorageNode %s nodeAddress = %q, want %q (the address it was added with)", name, got, added)
	}
	var moved sb.StorageNodeDTO
	for _, n := range world.sim.Nodes(id) {
		if n.ID == nodeID {
			moved = n
		}
	}
	if host, _, _ := strings.Cut(to, ":"); moved.MgmtIP != host || moved.Status != sb.NodeOnline {
		t.Errorf("node %s in the backend is %s at %s, want online at %s", nodeID, moved.Status, moved.MgmtIP, host)
	}
	calls := changes(id, since)
	want := map[string]int{"POST storage-nodes/{id}/shutdown": 1, "POST storage-nodes/{id}/restart": 1, "POST storage-nodes/{id}/promote": 1}
	ok, got := sameCounts(want, counts(calls, false))
	t.Logf("moved node-2 of %s %s to %s: the backend saw %s", c.kind, c.name, to, got)
	if !ok {
		t.Errorf("moving node-2: the backend saw %s; want %v%s", got, want, describe(calls))
	}
	hist := lastRecord(sn)
	if !strings.HasPrefix(hist, c.composedName("migrate-node-2-1-")) || !strings.HasSuffix(hist, " Migrate Succeeded") {
		t.Errorf("StorageNode %s's last operation = %q, want the composed Migrate, Succeeded", name, hist)
	}
}

// lastRecord renders the newest record of an object's operation history:
// "<name> <type> <phase>".
func lastRecord(u *unstructured.Unstructured) string {
	h, _, _ := unstructured.NestedSlice(u.Object, "status", "atProvider", "operationHistory")
	if len(h) == 0 {
		return ""
	}
	r, _ := h[len(h)-1].(map[string]any)
	return fmt.Sprintf("%v %v %v", r["name"], r["type"], r["phase"])
}

// upgradeCluster gives the composite new images, restarts core and the
// provider meanwhile, and checks that one Upgrade composed for the change updates the cluster with one POST
// /update, after which the StorageCluster records the images.
func upgradeCluster(c *composite, id string) {
	t := c.t
	t.Helper()
	const image = "simplyblock/simplyblock:25.10.2"
	since := time.Now()
	c.update(func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, image, "spec", "images", "managementImage")
	})
	restartBoth(t) // while the change is being composed or run
	waitFor(t, "the StorageCluster to record the upgrade", func() (bool, string) {
		a := get(t, managedAPI, "StorageCluster", c.namespace, c.xr).GetAnnotations()
		return a["storage.simplyblock.io/upgrades"] == "1", fmt.Sprintf("annotations %v; %s", a, resourceSummary(t, c.namespace))
	})
	c.waitReady()
	checkCalls(c, id, since, "upgrade", map[string]int{"POST update": 1})
}

// restartCluster sets a restartRequestedAt, restarts core and the provider
// meanwhile, and checks that one composed NodeRollingRestart restarts every node once: a graceful shutdown and a
// restart per node, after which the StorageCluster records the request.
func restartCluster(c *composite, id string) {
	t := c.t
	t.Helper()
	const at = "2026-12-01T10:00:00Z"
	since := time.Now()
	nodes := 0
	for _, n := range world.sim.Nodes(id) {
		if n.Status != sb.NodeRemoved {
			nodes++
		}
	}
	c.update(func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, at, "spec", "restartRequestedAt")
	})
	restartBoth(t) // while the change is being composed or run
	waitFor(t, "the StorageCluster to record the restart", func() (bool, string) {
		a := get(t, managedAPI, "StorageCluster", c.namespace, c.xr).GetAnnotations()
		return a["storage.simplyblock.io/restart-requested-at"] == at, fmt.Sprintf("annotations %v; %s", a, resourceSummary(t, c.namespace))
	})
	c.waitReady()
	checkCalls(c, id, since, "rolling restart", map[string]int{"POST storage-nodes/{id}/shutdown": nodes, "POST storage-nodes/{id}/restart": nodes})
}

// checkCalls compares the state-changing calls the backend saw since with
// want.
func checkCalls(c *composite, id string, since time.Time, what string, want map[string]int) {
	c.t.Helper()
	calls := changes(id, since)
	ok, got := sameCounts(want, counts(calls, false))
	c.t.Logf("%s of %s %s: the backend saw %s", what, c.kind, c.name, got)
	if !ok {
		c.t.Errorf("%s of %s %s: the backend saw %s; want %v%s", what, c.kind, c.name, got, want, describe(calls))
	}
}
