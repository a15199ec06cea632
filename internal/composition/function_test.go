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

package composition

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A gist is the gist of one desired composed resource.
type gist struct {
	Kind          string
	Name          string
	Namespace     string
	Expand        bool  `json:",omitempty"`
	ExpectedNodes int64 `json:",omitempty"`
	Ready         bool
}

// An outcome is the gist of one render.
type outcome struct {
	Resources map[string]gist
	Status    map[string]any
	Fatal     string
	Results   []string
}

const threeNodes = `{"nodes":[
	{"name":"node-1","address":"10.0.0.11:5000","interface":"eth0"},
	{"name":"node-2","address":"10.0.0.12:5000","interface":"eth0"},
	{"name":"node-3","address":"10.0.0.13:5000","interface":"eth0","options":{"maxSnapshots":100}}],
	"pools":[{"name":"pool01","poolMax":1024}]}`

const fiveNodes = `{"nodes":[
	{"name":"node-1","address":"10.0.0.11:5000","interface":"eth0"},
	{"name":"node-2","address":"10.0.0.12:5000","interface":"eth0"},
	{"name":"node-3","address":"10.0.0.13:5000","interface":"eth0","options":{"maxSnapshots":100}},
	{"name":"node-4","address":"10.0.0.14:5000","interface":"eth0"},
	{"name":"node-5","address":"10.0.0.15:5000","interface":"eth0"}],
	"pools":[{"name":"pool01","poolMax":1024}]}`

func xr(spec string) string {
	return `{"apiVersion":"storage.simplyblock.io/v1alpha1","kind":"XStorageCluster",
		"metadata":{"name":"prod","namespace":"storage"},"spec":` + spec + `}`
}

func legacyXR(spec string) string {
	return `{"apiVersion":"legacy.storage.simplyblock.io/v1alpha1","kind":"XLegacyStorageCluster",
		"metadata":{"name":"prod-x7k2p"},"spec":` + spec + `}`
}

// observedNode is a composed StorageNode as Crossplane observes it.
func observedNode(name string, expand, ready bool) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageNode",
		"metadata":{"name":"prod-` + name + `","namespace":"storage"},
		"spec":{"forProvider":{"expand":` + boolJSON(expand) + `}},
		"status":{"conditions":[{"type":"Ready","status":"` + map[bool]string{true: "True", false: "False"}[ready] + `"}]}}`
}

func observedOps(name, phase string) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps",
		"metadata":{"name":"` + name + `","namespace":"storage"},
		"spec":{"forProvider":{"type":"Expand","clusterIdRef":{"name":"prod"},"expand":{"expectedNodes":4}}},
		"status":{"atProvider":{"phase":"` + phase + `"}}}`
}

// observedExpand is a composed Expand that lists the nodes it expanded.
func observedExpand(name, phase, nodes string) string {
	return strings.Replace(observedOps(name, phase), `"namespace":"storage"}`,
		`"namespace":"storage","annotations":{"`+AnnotationExpandedNodes+`":"`+nodes+`"}}`, 1)
}

func observedCluster(status, history string) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageCluster",
		"metadata":{"name":"prod","namespace":"storage"},"spec":{"forProvider":{"name":"prod"}},
		"status":{"atProvider":{"status":"` + status + `","operationHistory":` + history + `}}}`
}

func boolJSON(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func activateOps(phase string) string {
	return strings.Replace(strings.Replace(observedOps("prod-activate", phase), `"Expand"`, `"Activate"`, 1),
		`"expand":{"expectedNodes":4}`, `"activate":{"expectedNodes":3}`, 1)
}

var initialNodes = map[string]string{
	"node-node-1": observedNode("node-1", false, true),
	"node-node-2": observedNode("node-2", false, true),
	"node-node-3": observedNode("node-3", false, true),
}

func with(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func newRequest(xrJSON string, observed map[string]string) *fnv1.RunFunctionRequest {
	req := &fnv1.RunFunctionRequest{
		Observed: &fnv1.State{Composite: &fnv1.Resource{Resource: resource.MustStructJSON(xrJSON)}, Resources: map[string]*fnv1.Resource{}},
		Desired: &fnv1.State{Resources: map[string]*fnv1.Resource{
			// The StorageCluster, as the patch-and-transform step composes it.
			ResourceCluster: {Resource: resource.MustStructJSON(`{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1",
				"kind":"StorageCluster","metadata":{"name":"prod"},"spec":{"forProvider":{"name":"prod"}}}`)},
		}},
	}
	for name, obj := range observed {
		req.Observed.Resources[name] = &fnv1.Resource{Resource: resource.MustStructJSON(obj)}
	}
	return req
}

func summarize(t *testing.T, rsp *fnv1.RunFunctionResponse) outcome {
	t.Helper()
	out := outcome{Resources: map[string]gist{}}
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			out.Fatal = r.GetMessage()
			continue
		}
		out.Results = append(out.Results, r.GetReason()+": "+r.GetMessage())
	}
	for name, r := range rsp.GetDesired().GetResources() {
		if name == ResourceCluster {
			continue
		}
		u := unstructured.Unstructured{Object: r.GetResource().AsMap()}
		c := gist{Kind: u.GetKind(), Name: u.GetName(), Namespace: u.GetNamespace(), Ready: r.GetReady() == fnv1.Ready_READY_TRUE}
		c.Expand, _, _ = unstructured.NestedBool(u.Object, "spec", "forProvider", "expand")
		for _, params := range []string{"activate", "expand"} {
			if n, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "forProvider", params, "expectedNodes"); ok {
				c.ExpectedNodes = int64(n.(float64))
			}
		}
		out.Resources[name] = c
	}
	if len(out.Resources) == 0 {
		out.Resources = nil
	}
	if s := rsp.GetDesired().GetComposite().GetResource(); s != nil {
		st, _ := s.AsMap()["status"].(map[string]any)
		out.Status = st
	}
	return out
}

func node(name string, expand, ready bool) gist {
	return gist{Kind: "StorageNode", Name: "prod-" + name, Namespace: "storage", Expand: expand, Ready: ready}
}

func ops(name string, expected int64, ready bool) gist {
	return gist{Kind: "ClusterOps", Name: name, Namespace: "storage", ExpectedNodes: expected, Ready: ready}
}

var pool = gist{Kind: "StoragePool", Name: "prod-pool-pool01", Namespace: "storage"}

// The Expand operation of the change that adds node-4 and node-5.
var expandKey, expandName = "expand-" + changeID([]string{"node-4", "node-5"}), "prod-expand-5-" + changeID([]string{"node-4", "node-5"})

func TestRunFunction(t *testing.T) {
	cases := map[string]struct {
		reason   string
		xr       string
		observed map[string]string
		want     outcome
		// status lists XR status keys to compare; others are ignored.
		status []string
	}{
		"NewCluster": {
			reason: "A new XR composes its nodes without expand, its pools and one Activate operation that waits for all of them.",
			xr:     xr(threeNodes),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, false), "node-node-2": node("node-2", false, false),
				"node-node-3": node("node-3", false, false), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, false),
			}, Status: map[string]any{"nodes": map[string]any{"listed": float64(3), "composed": float64(3), "ready": float64(0)}}},
			status: []string{"nodes"},
		},
		"NodesAddedToActivatedCluster": {
			reason: "Nodes added after activation join with expand: true, one Expand operation named after the change expects all five, and the Activate keeps the spec it was composed with.",
			xr:     xr(fiveNodes),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, false),
				"node-node-5": node("node-5", true, false), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, true),
				expandKey:  ops(expandName, 5, false),
			}},
		},
		"ReRenderOfExpandedCluster": {
			reason: "Re-rendering the expanded XR composes the same Expand operation again, never a second one.",
			xr:     xr(fiveNodes),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded"),
				"node-node-4": observedNode("node-4", true, true), "node-node-5": observedNode("node-5", true, true),
				expandKey: observedOps(expandName, "Succeeded"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, true),
				"node-node-5": node("node-5", true, true), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, true),
				expandKey:  ops(expandName, 5, true),
			}},
		},
		"NodeRemovedAfterExpansion": {
			reason: "Removing an expanded node composes no new Expand: the observed one covers every node left.",
			xr: xr(strings.Replace(fiveNodes, `,
	{"name":"node-5","address":"10.0.0.15:5000","interface":"eth0"}`, "", 1)),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded"),
				"node-node-4": observedNode("node-4", true, true), "node-node-5": observedNode("node-5", true, true),
				expandKey: observedExpand(expandName, "Succeeded", "node-4,node-5"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, true),
				"pool-pool01": pool, "activate": ops("prod-activate", 3, true),
				expandKey: ops(expandName, 4, true),
			}},
		},
		"NodeAddedAfterARemoval": {
			reason: "A node added after a removal is a new change: one new Expand for the nodes expanded now.",
			xr:     xr(strings.Replace(fiveNodes, `{"name":"node-5","address":"10.0.0.15:5000"`, `{"name":"node-6","address":"10.0.0.16:5000"`, 1)),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded"),
				"node-node-4": observedNode("node-4", true, true),
				expandKey:     observedExpand(expandName, "Succeeded", "node-4,node-5"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, true),
				"node-node-6": node("node-6", true, false), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, true),
				"expand-" + changeID([]string{"node-4", "node-6"}): ops("prod-expand-5-"+changeID([]string{"node-4", "node-6"}), 5, false),
			}},
		},
		"ActivatedByStatusAlone": {
			reason: "A cluster the backend reports active counts as activated even before the Activate operation is observed Succeeded.",
			xr: xr(strings.Replace(fiveNodes, `,
	{"name":"node-5","address":"10.0.0.15:5000","interface":"eth0"}`, "", 1)),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("degraded", "[]"), "activate": activateOps("Running"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, false),
				"pool-pool01": pool, "activate": ops("prod-activate", 3, false),
				"expand-" + changeID([]string{"node-4"}): ops("prod-expand-4-"+changeID([]string{"node-4"}), 4, false),
			}},
		},
		"NodeAddedDuringActivation": {
			reason: "A node added while the activation is pending waits: a plain add would miss it, an expand add would be refused.",
			xr: xr(strings.Replace(fiveNodes, `,
	{"name":"node-5","address":"10.0.0.15:5000","interface":"eth0"}`, "", 1)),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("unready", "[]"), "activate": activateOps("Pending"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, false),
			}, Results: []string{"NodeDeferred: nodes not composed yet: node-4 (waits for prod-activate to succeed; it is Pending)"},
				Status: map[string]any{"nodes": map[string]any{"listed": float64(4), "composed": float64(3), "ready": float64(3),
					"deferred": []any{"node-4 (waits for prod-activate to succeed; it is Pending)"}}}},
			status: []string{"nodes"},
		},
		"EarlierExpansionStillRunning": {
			reason: "An earlier Expand that has not finished stays composed next to the new one; a finished one is dropped.",
			xr:     xr(fiveNodes),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("in_expansion", "[]"), "activate": activateOps("Succeeded"),
				"node-node-4":     observedNode("node-4", true, true),
				"expand-0000aaaa": observedOps("prod-expand-4-0000aaaa", "Running"),
				"expand-0000bbbb": observedOps("prod-expand-3-0000bbbb", "Succeeded"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "node-node-4": node("node-4", true, true),
				"node-node-5": node("node-5", true, false), "pool-pool01": pool,
				"activate":        ops("prod-activate", 3, true),
				expandKey:         ops(expandName, 5, false),
				"expand-0000aaaa": ops("prod-expand-4-0000aaaa", 4, false),
			}},
		},
		"LastOperation": {
			reason: "The XR reports the newest record of the cluster's operation history.",
			xr:     xr(threeNodes),
			observed: with(initialNodes, map[string]string{
				"cluster": observedCluster("active", `[{"name":"prod-activate","type":"Activate","phase":"Succeeded","reason":"Completed","specHash":"x"},
					{"name":"prod-restart-1","kind":"ClusterOps","type":"Restart","phase":"Failed","reason":"StartAborted","message":"node 2 of 3"}]`),
				"activate": activateOps("Succeeded"),
			}),
			want: outcome{Resources: map[string]gist{
				"node-node-1": node("node-1", false, true), "node-node-2": node("node-2", false, true),
				"node-node-3": node("node-3", false, true), "pool-pool01": pool,
				"activate": ops("prod-activate", 3, true),
			}, Status: map[string]any{"lastOperation": map[string]any{"name": "prod-restart-1", "kind": "ClusterOps",
				"type": "Restart", "phase": "Failed", "reason": "StartAborted", "message": "node 2 of 3"}}},
			status: []string{"lastOperation"},
		},
		"LegacyXRComposesIntoClaimNamespace": {
			reason: "A cluster-scoped legacy XR composes into its claim's namespace.",
			xr:     legacyXR(strings.Replace(threeNodes, `"pools"`, `"claimRef":{"apiVersion":"legacy.storage.simplyblock.io/v1alpha1","kind":"StorageClusterClaim","name":"prod","namespace":"team-a"},"pools"`, 1)),
			want: outcome{Resources: map[string]gist{
				"node-node-1": {Kind: "StorageNode", Name: "prod-x7k2p-node-1", Namespace: "team-a"},
				"node-node-2": {Kind: "StorageNode", Name: "prod-x7k2p-node-2", Namespace: "team-a"},
				"node-node-3": {Kind: "StorageNode", Name: "prod-x7k2p-node-3", Namespace: "team-a"},
				"pool-pool01": {Kind: "StoragePool", Name: "prod-x7k2p-pool-pool01", Namespace: "team-a"},
				"activate":    {Kind: "ClusterOps", Name: "prod-x7k2p-activate", Namespace: "team-a", ExpectedNodes: 3},
			}},
		},
		"LegacyXRWithoutNamespace": {
			reason: "A legacy XR with neither a claim nor spec.namespace cannot say where its resources go.",
			xr:     legacyXR(threeNodes),
			want:   outcome{Fatal: errNoNamespace},
		},
		"DuplicateNodeName": {
			reason: "Two nodes with one name are refused (the XRD's list map refuses them at admission too).",
			xr: xr(`{"nodes":[{"name":"a","address":"10.0.0.1:5000","interface":"eth0"},
				{"name":"a","address":"10.0.0.2:5000","interface":"eth0"}]}`),
			want: outcome{Fatal: `cannot compose two nodes named "a"`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := NewFunction(logging.NewNopLogger())
			rsp, err := f.RunFunction(context.Background(), newRequest(tc.xr, tc.observed))
			if err != nil {
				t.Fatalf("RunFunction: %v", err)
			}
			got := summarize(t, rsp)
			if tc.want.Fatal != "" {
				if diff := cmp.Diff(tc.want.Fatal, got.Fatal); diff != "" {
					t.Errorf("%s\nRunFunction(...): -want fatal, +got:\n%s", tc.reason, diff)
				}
				return
			}
			status := map[string]any{}
			for _, k := range tc.status {
				status[k] = got.Status[k]
			}
			got.Status, tc.want.Status = status, orEmpty(tc.want.Status)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nRunFunction(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// TestComposedObjects checks the composed objects field by field for the
// expansion case, which the render tests also cover against golden files.
func TestComposedObjects(t *testing.T) {
	f := NewFunction(logging.NewNopLogger())
	spec := strings.Replace(fiveNodes, `"pools"`, `"operations":{"timeoutSeconds":600,"retry":{"maxAttempts":2}},"providerConfigRef":{"name":"team-a","kind":"ProviderConfig"},"pools"`, 1)
	rsp, err := f.RunFunction(context.Background(), newRequest(xr(spec), with(initialNodes, map[string]string{
		"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded"),
	})))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason   string
		resource string
		want     string
	}{
		"Node": {
			reason:   "A node carries its options, the reference to the cluster and the provider config.",
			resource: "node-node-3",
			want: `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageNode","metadata":{"name":"prod-node-3","namespace":"storage",
				"annotations":{"storage.simplyblock.io/node-address":"10.0.0.13:5000","storage.simplyblock.io/node-moves":"0"}},
				"spec":{"forProvider":{"clusterIdRef":{"name":"prod"},"interfaceName":"eth0","maxSnapshots":100,"nodeAddress":"10.0.0.13:5000"},
				"providerConfigRef":{"kind":"ProviderConfig","name":"team-a"}}}`,
		},
		"Expand": {
			reason:   "The Expand operation carries the operations policy and the expected node count.",
			resource: expandKey,
			want: `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps","metadata":{"name":"` + expandName + `","namespace":"storage",
				"annotations":{"storage.simplyblock.io/expanded-nodes":"node-4,node-5"}},
				"spec":{"forProvider":{"clusterIdRef":{"name":"prod"},"expand":{"expectedNodes":5},"retry":{"maxAttempts":2},"timeoutSeconds":600,"type":"Expand"},
				"providerConfigRef":{"kind":"ProviderConfig","name":"team-a"}}}`,
		},
		"Pool": {
			reason:   "A pool carries its parameters and the reference to the cluster.",
			resource: "pool-pool01",
			want: `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StoragePool","metadata":{"name":"prod-pool-pool01","namespace":"storage"},
				"spec":{"forProvider":{"clusterIdRef":{"name":"prod"},"name":"pool01","poolMax":1024},
				"providerConfigRef":{"kind":"ProviderConfig","name":"team-a"}}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var want map[string]any
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			got := rsp.GetDesired().GetResources()[tc.resource].GetResource().AsMap()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// observedNodeAt is a composed, ready StorageNode added at added that runs
// at address after moves composed Migrates.
func observedNodeAt(name, added, address string, moves int) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageNode",
		"metadata":{"name":"prod-` + name + `","namespace":"storage","annotations":{"` + AnnotationNodeAddress + `":"` + address + `","` +
		AnnotationNodeMoves + `":"` + strconv.Itoa(moves) + `"}},
		"spec":{"forProvider":{"nodeAddress":"` + added + `","expand":false}},
		"status":{"conditions":[{"type":"Ready","status":"True"}]}}`
}

// observedMigrate is a composed Migrate in phase.
func observedMigrate(name, address, phase string) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageNodeOps",
		"metadata":{"name":"` + name + `","namespace":"storage"},
		"spec":{"forProvider":{"type":"Migrate","nodeIdRef":{"name":"prod-node-2"},"migrate":{"nodeAddress":"` + address + `"}}},
		"status":{"atProvider":{"phase":"` + phase + `"}}}`
}

// TestNodeMoves: a node entry whose address changed composes one Migrate,
// named after the move, and its StorageNode records where the node runs
// once the Migrate succeeded.
func TestNodeMoves(t *testing.T) {
	// migrateOf is the key and name of node-2's move number n to address.
	migrateOf := func(n int, address string) (string, string) {
		suffix := fmt.Sprintf("node-2-%d-%s", n, changeID([]string{address}))
		return migrateResourcePrefix + suffix, "prod-migrate-" + suffix
	}
	first, firstName := migrateOf(1, "10.0.0.22:5000")
	back, backName := migrateOf(2, "10.0.0.12:5000")
	other, otherName := migrateOf(1, "10.0.0.23:5000")
	moved := func(address string) string {
		return strings.Replace(threeNodes, `"10.0.0.12:5000"`, `"`+address+`"`, 1)
	}
	base := map[string]string{"cluster": observedCluster("active", "[]"), "activate": activateOps("Succeeded")}
	type want struct {
		// migrates are the composed Migrates: key → name, nodeAddress, ready.
		migrates map[string]string
		// node2 is node-2's StorageNode: its nodeAddress and annotations.
		node2 string
	}
	cases := map[string]struct {
		reason   string
		xr       string
		observed map[string]string
		want     want
	}{
		"Unchanged": {
			reason:   "A node at its entry's address composes no Migrate.",
			xr:       xr(threeNodes),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0)}),
			want:     want{node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
		"AddressChanged": {
			reason:   "A new address composes one Migrate of that node; the StorageNode keeps the address it was added with (immutable).",
			xr:       xr(moved("10.0.0.22:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0)}),
			want:     want{migrates: map[string]string{first: firstName + " to 10.0.0.22:5000 ready=false"}, node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
		"ReRenderWhileMoving": {
			reason: "A re-render composes the same Migrate again, never a second one.",
			xr:     xr(moved("10.0.0.22:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0),
				first: observedMigrate(firstName, "10.0.0.22:5000", "Running")}),
			want: want{migrates: map[string]string{first: firstName + " to 10.0.0.22:5000 ready=false"}, node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
		"MoveSucceeded": {
			reason: "Once the Migrate succeeded the StorageNode records the new address and the move; the finished Migrate is dropped.",
			xr:     xr(moved("10.0.0.22:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0),
				first: observedMigrate(firstName, "10.0.0.22:5000", "Succeeded")}),
			want: want{node2: "10.0.0.12:5000 at 10.0.0.22:5000 after 1"},
		},
		"AfterTheMove": {
			reason:   "A re-render after the move composes nothing more.",
			xr:       xr(moved("10.0.0.22:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.22:5000", 1)}),
			want:     want{node2: "10.0.0.12:5000 at 10.0.0.22:5000 after 1"},
		},
		"MovedBack": {
			reason:   "Moving the node back to the address it was added with is a new move, with a new name (the first one's record would stop a twin).",
			xr:       xr(threeNodes),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.22:5000", 1)}),
			want:     want{migrates: map[string]string{back: backName + " to 10.0.0.12:5000 ready=false"}, node2: "10.0.0.12:5000 at 10.0.0.22:5000 after 1"},
		},
		"FailedMoveStays": {
			reason: "A failed Migrate stays composed (the XR is not Ready) until the XR changes.",
			xr:     xr(moved("10.0.0.22:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0),
				first: observedMigrate(firstName, "10.0.0.22:5000", "Failed")}),
			want: want{migrates: map[string]string{first: firstName + " to 10.0.0.22:5000 ready=false"}, node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
		"FailedMoveReplaced": {
			reason: "A new address after a failed Migrate composes a new one; the failed one is dropped.",
			xr:     xr(moved("10.0.0.23:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0),
				first: observedMigrate(firstName, "10.0.0.22:5000", "Failed")}),
			want: want{migrates: map[string]string{other: otherName + " to 10.0.0.23:5000 ready=false"}, node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
		"RunningMoveKeptWhenRetargeted": {
			reason: "A Migrate still running when the address changes again stays composed until it finishes; the new one queues behind it.",
			xr:     xr(moved("10.0.0.23:5000")),
			observed: with(with(initialNodes, base), map[string]string{"node-node-2": observedNodeAt("node-2", "10.0.0.12:5000", "10.0.0.12:5000", 0),
				first: observedMigrate(firstName, "10.0.0.22:5000", "Running")}),
			want: want{migrates: map[string]string{first: firstName + " to 10.0.0.22:5000 ready=false", other: otherName + " to 10.0.0.23:5000 ready=false"},
				node2: "10.0.0.12:5000 at 10.0.0.12:5000 after 0"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp, err := NewFunction(logging.NewNopLogger()).RunFunction(context.Background(), newRequest(tc.xr, tc.observed))
			if err != nil {
				t.Fatalf("RunFunction: %v", err)
			}
			got := want{migrates: map[string]string{}}
			for key, r := range rsp.GetDesired().GetResources() {
				u := unstructured.Unstructured{Object: r.GetResource().AsMap()}
				switch {
				case u.GetKind() == "StorageNodeOps":
					addr, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "migrate", "nodeAddress")
					got.migrates[key] = fmt.Sprintf("%s to %s ready=%t", u.GetName(), addr, r.GetReady() == fnv1.Ready_READY_TRUE)
				case key == "node-node-2":
					added, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "nodeAddress")
					a := u.GetAnnotations()
					got.node2 = fmt.Sprintf("%s at %s after %s", added, a[AnnotationNodeAddress], a[AnnotationNodeMoves])
				}
			}
			if len(got.migrates) == 0 {
				got.migrates = nil
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nRunFunction(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// observedClusterAt is the observed StorageCluster in status with the
// annotations a.
func observedClusterAt(status string, a map[string]string) string {
	b, _ := json.Marshal(a)
	return strings.Replace(observedCluster(status, "[]"), `"metadata":{"name":"prod","namespace":"storage"}`,
		`"metadata":{"name":"prod","namespace":"storage","annotations":`+string(b)+`}`, 1)
}

// observedClusterOp is a composed ClusterOps of type in phase.
func observedClusterOp(name, typ, phase string) string {
	return `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps",
		"metadata":{"name":"` + name + `","namespace":"storage"},
		"spec":{"forProvider":{"type":"` + typ + `","clusterIdRef":{"name":"prod"}}},
		"status":{"atProvider":{"phase":"` + phase + `"}}}`
}

// TestClusterChanges: a change of the XR's images composes one Upgrade, a
// new restartRequestedAt one NodeRollingRestart, each named after its
// change; the StorageCluster records what the cluster runs once they
// succeeded.
func TestClusterChanges(t *testing.T) {
	const v1, v2 = `"images":{"managementImage":"simplyblock/simplyblock:v1","spdkImage":"simplyblock/spdk:v1"}`,
		`"images":{"managementImage":"simplyblock/simplyblock:v2","spdkImage":"simplyblock/spdk:v2","restart":true}`
	const ts1, ts2 = `"restartRequestedAt":"2026-12-01T10:00:00Z"`, `"restartRequestedAt":"2026-12-02T10:00:00Z"`
	spec := func(fields ...string) string {
		return strings.Replace(threeNodes, `"pools"`, strings.Join(append(fields, `"rollingRestart":{"healthGate":false},"pools"`), ","), 1)
	}
	const v1State, v2State = "simplyblock/simplyblock:v1,simplyblock/spdk:v1", "simplyblock/simplyblock:v2,simplyblock/spdk:v2"
	upgrade := func(n int, state string) (string, string) {
		suffix := fmt.Sprintf("%d-%s", n, changeID([]string{state}))
		return upgradeResourcePrefix + suffix, "prod-upgrade-" + suffix
	}
	restart := func(ts string) (string, string) {
		key := restartResourcePrefix + changeID([]string{ts})
		return key, "prod-" + key
	}
	up1, up1Name := upgrade(1, v2State)
	up2, up2Name := upgrade(2, v1State)
	rr1, rr1Name := restart("2026-12-01T10:00:00Z")
	running := func(images string, upgrades int, restartedFor string) map[string]string {
		return map[string]string{AnnotationImages: images, AnnotationUpgrades: strconv.Itoa(upgrades), AnnotationRestartRequested: restartedFor}
	}
	activated := func(a map[string]string, more map[string]string) map[string]string {
		return with(with(initialNodes, map[string]string{"cluster": observedClusterAt("active", a), "activate": activateOps("Succeeded")}), more)
	}
	type want struct {
		// ops are the composed Upgrades and restarts: key → "name type params".
		ops map[string]string
		// cluster is the StorageCluster's annotations.
		cluster map[string]string
	}
	cases := map[string]struct {
		reason   string
		xr       string
		observed map[string]string
		want     want
	}{
		"NewCluster": {
			reason: "A new XR's images are what the cluster runs and its restartRequestedAt asks for nothing.",
			xr:     xr(spec(v1, ts1)),
			want:   want{cluster: running(v1State, 0, "2026-12-01T10:00:00Z")},
		},
		"Unchanged": {
			reason:   "An XR as the cluster runs composes nothing.",
			xr:       xr(spec(v1, ts1)),
			observed: activated(running(v1State, 0, "2026-12-01T10:00:00Z"), nil),
			want:     want{cluster: running(v1State, 0, "2026-12-01T10:00:00Z")},
		},
		"ImagesChanged": {
			reason:   "New images compose one Upgrade, numbered after the upgrades before it, with the XR's parameters.",
			xr:       xr(spec(v2)),
			observed: activated(running(v1State, 0, ""), nil),
			want: want{ops: map[string]string{up1: up1Name + ` Upgrade {"upgrade":{"managementImage":"simplyblock/simplyblock:v2","restart":true,"spdkImage":"simplyblock/spdk:v2"}}`},
				cluster: running(v1State, 0, "")},
		},
		"UpgradeRunning": {
			reason:   "A re-render composes the same Upgrade again.",
			xr:       xr(spec(v2)),
			observed: activated(running(v1State, 0, ""), map[string]string{up1: observedClusterOp(up1Name, "Upgrade", "Running")}),
			want: want{ops: map[string]string{up1: up1Name + ` Upgrade {"upgrade":{"managementImage":"simplyblock/simplyblock:v2","restart":true,"spdkImage":"simplyblock/spdk:v2"}}`},
				cluster: running(v1State, 0, "")},
		},
		"UpgradeSucceeded": {
			reason:   "Once the Upgrade succeeded the cluster records the images and the upgrade; the Upgrade is dropped.",
			xr:       xr(spec(v2)),
			observed: activated(running(v1State, 0, ""), map[string]string{up1: observedClusterOp(up1Name, "Upgrade", "Succeeded")}),
			want:     want{cluster: running(v2State, 1, "")},
		},
		"ImagesChangedBack": {
			reason:   "Going back to the first images is a new Upgrade with a new number (the first one's record would stop a twin).",
			xr:       xr(spec(v1)),
			observed: activated(running(v2State, 1, ""), nil),
			want: want{ops: map[string]string{up2: up2Name + ` Upgrade {"upgrade":{"managementImage":"simplyblock/simplyblock:v1","spdkImage":"simplyblock/spdk:v1"}}`},
				cluster: running(v2State, 1, "")},
		},
		"FailedUpgradeStays": {
			reason:   "A failed Upgrade stays composed (the XR is not Ready) until the XR changes.",
			xr:       xr(spec(v2)),
			observed: activated(running(v1State, 0, ""), map[string]string{up1: observedClusterOp(up1Name, "Upgrade", "Failed")}),
			want: want{ops: map[string]string{up1: up1Name + ` Upgrade {"upgrade":{"managementImage":"simplyblock/simplyblock:v2","restart":true,"spdkImage":"simplyblock/spdk:v2"}}`},
				cluster: running(v1State, 0, "")},
		},
		"RestartRequested": {
			reason:   "A new restartRequestedAt composes one NodeRollingRestart with the XR's settings.",
			xr:       xr(spec(ts1)),
			observed: activated(running("", 0, ""), nil),
			want:     want{ops: map[string]string{rr1: rr1Name + ` NodeRollingRestart {"nodeRollingRestart":{"healthGate":false}}`}, cluster: running("", 0, "")},
		},
		"RestartSucceeded": {
			reason:   "Once the restart succeeded the cluster records the request; the same timestamp asks for nothing more.",
			xr:       xr(spec(ts1)),
			observed: activated(running("", 0, ""), map[string]string{rr1: observedClusterOp(rr1Name, "NodeRollingRestart", "Succeeded")}),
			want:     want{cluster: running("", 0, "2026-12-01T10:00:00Z")},
		},
		"AnotherRestart": {
			reason:   "A later timestamp is a new restart.",
			xr:       xr(spec(ts2)),
			observed: activated(running("", 0, "2026-12-01T10:00:00Z"), nil),
			want: want{ops: map[string]string{restartResourcePrefix + changeID([]string{"2026-12-02T10:00:00Z"}): "prod-" + restartResourcePrefix + changeID([]string{"2026-12-02T10:00:00Z"}) +
				` NodeRollingRestart {"nodeRollingRestart":{"healthGate":false}}`}, cluster: running("", 0, "2026-12-01T10:00:00Z")},
		},
		"NotActivatedYet": {
			reason: "Before the cluster is activated nothing is composed; the change waits.",
			xr:     xr(spec(v2, ts1)),
			observed: with(initialNodes, map[string]string{"cluster": observedClusterAt("unready", running(v1State, 0, "")),
				"activate": activateOps("Pending")}),
			want: want{cluster: running(v1State, 0, "")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp, err := NewFunction(logging.NewNopLogger()).RunFunction(context.Background(), newRequest(tc.xr, tc.observed))
			if err != nil {
				t.Fatalf("RunFunction: %v", err)
			}
			got := want{ops: map[string]string{}}
			for key, r := range rsp.GetDesired().GetResources() {
				u := unstructured.Unstructured{Object: r.GetResource().AsMap()}
				typ, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "type")
				if key == ResourceCluster {
					got.cluster = u.GetAnnotations()
					continue
				}
				if typ != "Upgrade" && typ != "NodeRollingRestart" {
					continue
				}
				params := map[string]any{}
				for _, k := range []string{"upgrade", "nodeRollingRestart"} {
					if v, ok := u.Object["spec"].(map[string]any)["forProvider"].(map[string]any)[k]; ok {
						params[k] = v
					}
				}
				b, _ := json.Marshal(params)
				got.ops[key] = fmt.Sprintf("%s %s %s", u.GetName(), typ, b)
			}
			if len(got.ops) == 0 {
				got.ops = nil
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nRunFunction(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
