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
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A composite is the object a user edits, a namespaced XR or a claim, and
// what Crossplane composed for it.
type composite struct {
	t          *testing.T
	apiVersion string
	kind       string
	namespace  string
	name       string
	// addressPrefix replaces the examples' "10.0.0." so that each test's
	// nodes have hosts of their own in the shared simulator.
	addressPrefix string
	// xr is the name of the XR: the composite's own name, or the one a
	// claim's resourceRef names. The StorageCluster has this name.
	xr string
}

// newComposite reads examples/composition/<file> for namespace ns, named
// name (backend cluster names are global, so each test has its own) and
// with its node addresses moved to addressPrefix.
func newComposite(t *testing.T, file, ns, name, addressPrefix string) (*composite, *unstructured.Unstructured) {
	t.Helper()
	u := example(t, file, ns)
	u.SetName(name)
	c := &composite{t: t, apiVersion: u.GetAPIVersion(), kind: u.GetKind(), namespace: ns, name: name,
		addressPrefix: addressPrefix}
	if c.kind == "XStorageCluster" {
		c.xr = c.name
	}
	c.readdress(u)
	return c, u
}

// readdress moves the object's node addresses to the composite's prefix.
func (c *composite) readdress(u *unstructured.Unstructured) {
	nodes, _, _ := unstructured.NestedSlice(u.Object, "spec", "nodes")
	for _, n := range nodes {
		m := n.(map[string]any) //nolint:forcetypeassert // the examples' shape
		m["address"] = strings.Replace(m["address"].(string), "10.0.0.", c.addressPrefix, 1)
	}
	_ = unstructured.SetNestedSlice(u.Object, nodes, "spec", "nodes")
}

// nodesOf returns the spec.nodes of examples/composition/<file>, readdressed.
func (c *composite) nodesOf(file string) []any {
	u := example(c.t, file, c.namespace)
	c.readdress(u)
	nodes, _, _ := unstructured.NestedSlice(u.Object, "spec", "nodes")
	return nodes
}

// create creates the composite and, for a claim, waits for its XR.
func (c *composite) create(u *unstructured.Unstructured) {
	c.t.Helper()
	if err := world.kube.Create(context.Background(), u); err != nil {
		c.t.Fatalf("cannot create %s %s: %v", c.kind, c.name, err)
	}
	if c.xr != "" {
		return
	}
	waitFor(c.t, c.kind+" "+c.name+" bound to an XR", func() (bool, string) {
		c.xr = field(c.object(), "spec", "resourceRef", "name")
		return c.xr != "", "no spec.resourceRef"
	})
}

// object reads the composite; nil when it is gone.
func (c *composite) object() *unstructured.Unstructured {
	return get(c.t, c.apiVersion, c.kind, c.namespace, c.name)
}

// setNodes replaces spec.nodes, as a user editing the file would.
func (c *composite) setNodes(nodes []any) {
	c.t.Helper()
	c.update(func(u *unstructured.Unstructured) { _ = unstructured.SetNestedSlice(u.Object, nodes, "spec", "nodes") })
}

// update changes the composite, retrying on conflicts.
func (c *composite) update(mutate func(u *unstructured.Unstructured)) {
	c.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := c.object()
		if u == nil {
			return fmt.Errorf("%s %s is gone", c.kind, c.name)
		}
		mutate(u)
		return world.kube.Update(context.Background(), u)
	})
	if err != nil {
		c.t.Fatalf("cannot update %s %s: %v", c.kind, c.name, err)
	}
}

// waitReady waits for the composite to be Ready and returns it.
func (c *composite) waitReady() *unstructured.Unstructured {
	c.t.Helper()
	return waitReady(c.t, c.apiVersion, c.kind, c.namespace, c.name)
}

// waitStatus waits until the composite reports every field of want (paths
// like "status.cluster.status") and returns it. The XR copies what its
// composed resources observed, and they observe after the operation that
// changed the backend finished, so a snapshot taken before may be stale.
func (c *composite) waitStatus(want map[string]string) *unstructured.Unstructured {
	c.t.Helper()
	var u *unstructured.Unstructured
	waitFor(c.t, fmt.Sprintf("%s %s status %v", c.kind, c.name, want), func() (bool, string) {
		u = c.object()
		if u == nil {
			return false, "gone"
		}
		var off []string
		for path, w := range want {
			if got := field(u, strings.Split(path, ".")...); got != w {
				off = append(off, fmt.Sprintf("%s = %q", path, got))
			}
		}
		sort.Strings(off)
		return len(off) == 0, strings.Join(off, ", ")
	})
	return u
}

// composedName is the name of a composed resource: <xr>-<suffix>.
func (c *composite) composedName(suffix string) string { return c.xr + "-" + suffix }

// clusterID waits for the StorageCluster's backend id.
func (c *composite) clusterID() string {
	c.t.Helper()
	sc := waitReady(c.t, managedAPI, "StorageCluster", c.namespace, c.xr)
	id := sc.GetAnnotations()["crossplane.io/external-name"]
	if id == "" {
		c.t.Fatalf("StorageCluster %s has no external name", c.xr)
	}
	return id
}

// operations returns the names of the composed ClusterOps, sorted.
func (c *composite) operations() []string {
	out := names(list(c.t, managedAPI, "ClusterOps", c.namespace))
	slices.Sort(out)
	return out
}

// waitOperation waits for a ClusterOps to succeed, failing the test at once
// when it fails.
func (c *composite) waitOperation(name string) {
	c.t.Helper()
	waitFor(c.t, "ClusterOps "+name+" Succeeded", func() (bool, string) {
		op := get(c.t, managedAPI, "ClusterOps", c.namespace, name)
		if op == nil {
			return false, "not composed"
		}
		phase := field(op, "status", "atProvider", "phase")
		if phase == "Failed" {
			c.t.Fatalf("ClusterOps %s failed: %s: %s", name, field(op, "status", "atProvider", "reason"),
				field(op, "status", "atProvider", "message"))
		}
		return phase == "Succeeded", fmt.Sprintf("%s %s %q", phase, field(op, "status", "atProvider", "reason"),
			field(op, "status", "atProvider", "message"))
	})
}

// expandOperation returns the name of the one composed Expand.
func (c *composite) expandOperation() string {
	c.t.Helper()
	var out []string
	for _, n := range c.operations() {
		if strings.HasPrefix(n, c.composedName("expand-")) {
			out = append(out, n)
		}
	}
	if len(out) != 1 {
		c.t.Fatalf("want one composed Expand, got %v", out)
	}
	return out[0]
}

// poke changes an annotation of the composite n times, pausing between
// changes: each change makes Crossplane reconcile (and the functions
// render) the composite again.
func (c *composite) poke(n int, pause time.Duration) {
	c.t.Helper()
	for i := range n {
		c.update(func(u *unstructured.Unstructured) {
			a := u.GetAnnotations()
			if a == nil {
				a = map[string]string{}
			}
			a["e2e.simplyblock.io/poke"] = fmt.Sprint(time.Now().UnixNano(), "-", i)
			u.SetAnnotations(a)
		})
		time.Sleep(pause)
	}
}

// delete deletes the composite.
func (c *composite) delete() {
	c.t.Helper()
	u := c.object()
	if u == nil {
		return
	}
	if err := world.kube.Delete(context.Background(), u); client.IgnoreNotFound(err) != nil {
		c.t.Fatalf("cannot delete %s %s: %v", c.kind, c.name, err)
	}
}
