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
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The steps of a composite's life, shared by the namespaced XR and the
// claim. Each step is judged by the simulator's journal (the calls the
// backend saw since the step began) and by the objects in the API server.

// createCluster creates the composite from xr.yaml or claim.yaml (three
// nodes and a pool) and checks what Crossplane composed and what reached
// the backend: one cluster create, three node adds, one pool, one activate.
// It returns the cluster's backend id.
func createCluster(c *composite, u *unstructured.Unstructured) string {
	t := c.t
	t.Helper()
	since := time.Now()
	c.create(u)
	c.waitReady()
	id := c.clusterID()

	for i := 1; i <= 3; i++ {
		n := waitReady(t, managedAPI, "StorageNode", c.namespace, c.composedName(fmt.Sprintf("node-%d", i)))
		if field(n, "spec", "forProvider", "expand") == "true" {
			t.Errorf("StorageNode %s joined with expand: true before the cluster was activated", n.GetName())
		}
	}
	waitReady(t, managedAPI, "StoragePool", c.namespace, c.composedName("pool-pool01"))
	c.waitOperation(c.composedName("activate"))

	// The status the XR (or claim) reports.
	c.waitStatus(map[string]string{
		"status.cluster.id":          id,
		"status.cluster.status":      "active",
		"status.nodes.listed":        "3",
		"status.nodes.composed":      "3",
		"status.nodes.ready":         "3",
		"status.lastOperation.name":  c.composedName("activate"),
		"status.lastOperation.type":  "Activate",
		"status.lastOperation.phase": "Succeeded",
	})

	calls := changes(id, since)
	want := map[string]int{"POST clusters/": 1, "POST storage-nodes/": 3, "POST storage-pools/": 1, "POST activate": 1}
	ok, got := sameCounts(want, counts(calls, false))
	t.Logf("created %s %s: the backend saw %s", c.kind, c.name, got)
	if !ok {
		t.Errorf("creating %s %s: the backend saw %s; want %v%s", c.kind, c.name, got, want, describe(calls))
	}
	if ops := c.operations(); !slices.Equal(ops, []string{c.composedName("activate")}) {
		t.Errorf("composed ClusterOps %v, want only the Activate", ops)
	}
	return id
}

// growCluster sets the nodes of xr-expanded.yaml (two more) and checks that
// they join with expand: true and that exactly one Expand is composed and
// succeeds. Two node adds reach the backend and no expand: nodes added with
// expand: true expand the cluster by themselves (backend-behaviour.md §4.2),
// and the Expand waits for that and confirms it. It returns the Expand's
// name.
func growCluster(c *composite, id string) string {
	t := c.t
	t.Helper()
	since := time.Now()
	c.setNodes(c.nodesOf("xr-expanded.yaml"))
	expand := waitExpand(c)
	c.waitOperation(expand)
	c.waitReady()
	for i := 4; i <= 5; i++ {
		n := waitReady(t, managedAPI, "StorageNode", c.namespace, c.composedName(fmt.Sprintf("node-%d", i)))
		if field(n, "spec", "forProvider", "expand") != "true" {
			t.Errorf("StorageNode %s joined the active cluster without expand: true", n.GetName())
		}
	}
	c.waitStatus(map[string]string{"status.nodes.ready": "5"})
	calls := changes(id, since)
	want := map[string]int{"POST storage-nodes/": 2}
	ok, got := sameCounts(want, counts(calls, false))
	t.Logf("grew %s %s to 5 nodes (%s %s): the backend saw %s", c.kind, c.name, expand,
		field(get(t, managedAPI, "ClusterOps", c.namespace, expand), "status", "atProvider", "reason"), got)
	if !ok {
		t.Errorf("growing %s %s: the backend saw %s; want %v%s", c.kind, c.name, got, want, describe(calls))
	}
	if ops := c.operations(); !slices.Equal(ops, []string{c.composedName("activate"), expand}) {
		t.Errorf("composed ClusterOps %v, want the Activate and %s", ops, expand)
	}
	return expand
}

// waitExpand waits for the Expand composed for a growth.
func waitExpand(c *composite) string {
	c.t.Helper()
	var name string
	waitFor(c.t, "an Expand composed", func() (bool, string) {
		for _, n := range c.operations() {
			if strings.HasPrefix(n, c.composedName("expand-")) {
				name = n
				return true, ""
			}
		}
		return false, fmt.Sprintf("ClusterOps %v", c.operations())
	})
	return name
}

// deleteCluster deletes the composite and checks that everything composed
// is deleted through the backend as it documents (backend-behaviour.md
// §3.1, §4.3): the operations and the pool go; nodes are removed, except
// those the backend's fault-tolerance check keeps (it refuses a removal
// that would leave fewer than distrNpcs+1 = 2 other nodes holding data,
// when the removals do not all pass their checks at once); the cluster
// itself stays, because the backend deletes no cluster that has node
// records, removed ones included. What stays is being deleted and says why
// (Synced=False with the backend's answer): nothing is left half-deleted
// silently.
func deleteCluster(c *composite, id string) {
	t := c.t
	t.Helper()
	const keptAtMost = 2
	since := time.Now()
	nodeIDs := map[string]bool{}
	for _, n := range world.sim.Nodes(id) {
		if n.Status != sb.NodeRemoved {
			nodeIDs[n.ID] = true
		}
	}
	c.delete()
	waitFor(t, "the composed resources deleted or refused by the backend", func() (bool, string) {
		state := resourceSummary(t, c.namespace)
		if len(list(t, managedAPI, "ClusterOps", c.namespace))+len(list(t, managedAPI, "StoragePool", c.namespace)) > 0 ||
			c.object() != nil {
			return false, state
		}
		kept := list(t, managedAPI, "StorageNode", c.namespace)
		if len(kept) > keptAtMost {
			return false, state
		}
		for _, n := range kept {
			if s, _, _ := condition(&n, "Synced"); s != "False" || n.GetDeletionTimestamp() == nil {
				return false, state
			}
		}
		for _, n := range world.sim.Nodes(id) {
			if nodeIDs[n.ID] && n.Status != sb.NodeRemoved && n.Status != sb.NodeOnline {
				return false, state + "\n  backend node " + n.ID + " is " + string(n.Status)
			}
		}
		sc := get(t, managedAPI, "StorageCluster", c.namespace, c.xr)
		if sc == nil || sc.GetDeletionTimestamp() == nil {
			return false, state
		}
		s, _, m := condition(sc, "Synced")
		return s == "False" && strings.Contains(m, "Storage nodes found"), state
	})
	for _, n := range list(t, managedAPI, "StorageNode", c.namespace) {
		if _, _, m := condition(&n, "Synced"); !strings.Contains(m, "HTTP 500") {
			t.Errorf("StorageNode %s is kept without the backend's refusal: %q", n.GetName(), m)
		}
	}

	// The backend: every removed node was removed after an accepted removal
	// (a repeat while it runs is answered 204 again and changes nothing),
	// every kept one is online and had none; the pool was deleted; the
	// cluster's deletion was refused.
	calls := changes(id, since)
	removals := map[string]int{}
	for _, call := range calls {
		if call.Key == "DELETE storage-nodes/{id}/" && call.Status/100 == 2 {
			removals[call.Path]++
		}
	}
	for _, n := range world.sim.Nodes(id) {
		if !nodeIDs[n.ID] {
			continue
		}
		accepted := removals[clustersPath+id+"/storage-nodes/"+n.ID+"/"]
		switch {
		case n.Status == sb.NodeRemoved && accepted == 0:
			t.Errorf("node %s was removed without an accepted removal%s", n.ID, describe(calls))
		case n.Status == sb.NodeOnline && accepted > 0:
			t.Errorf("node %s is online after an accepted removal%s", n.ID, describe(calls))
		}
	}
	accepted := counts(calls, true)
	t.Logf("deleted %s %s: the backend saw %s (accepted: %s); %d StorageNodes kept by the backend",
		c.kind, c.name, render(counts(calls, false)), render(accepted), len(list(t, managedAPI, "StorageNode", c.namespace)))
	if accepted["DELETE storage-pools/{id}/"] != 1 || accepted["DELETE cluster"] != 0 {
		t.Errorf("want one pool deletion accepted and no cluster deletion accepted%s", describe(calls))
	}
	for k := range counts(calls, false) {
		if !strings.HasPrefix(k, "DELETE ") {
			t.Errorf("deleting %s %s sent %s%s", c.kind, c.name, k, describe(calls))
		}
	}
}
