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
	"slices"
	"strings"
	"testing"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// A createCrashKind is a steady-state resource whose create the provider
// is killed around: after crossplane-runtime's create-pending annotation
// (before the POST) and after the POST (before its result is recorded).
type createCrashKind struct {
	kind string
	// variant names a case of kind beyond the plain create ("" for none).
	variant string
	// moments are the crash points; nil is both.
	moments []string
	// post is the suffix of the create call's path.
	post string
	// create makes the resource name in ns, its cluster seeded if it needs one.
	create func(t *testing.T, ns, name string)
}

var createCrashKinds = []createCrashKind{
	{kind: "StorageCluster", post: "/clusters/", create: func(t *testing.T, ns, name string) {
		newManaged(t, ns, "StorageCluster", name, map[string]any{
			"name": uniqueName("created"), "maxSubsys": 0, "spdkVcpuCount": 0, "distrNdcs": 1, "distrNpcs": 1,
		})
	}},
	{kind: "StoragePool", post: "/storage-pools/", create: func(t *testing.T, ns, name string) {
		cluster, _ := seedClusterIn(t, ns, 3, sb.ClusterActive)
		newManaged(t, ns, "StoragePool", name, map[string]any{
			"clusterIdRef": map[string]any{"name": cluster}, "name": "pool01", "poolMax": 107374182400,
		})
	}},
	{kind: "StorageNode", post: "/storage-nodes/", create: func(t *testing.T, ns, name string) {
		cluster, _ := seedClusterIn(t, ns, 3, sb.ClusterUnready)
		newManaged(t, ns, "StorageNode", name, map[string]any{
			"clusterIdRef": map[string]any{"name": cluster}, "nodeAddress": "10.250.0.1:5000", "interfaceName": "eth0",
		})
	}},
	// The task list is a 500 for 30 days after any expand: true add or
	// node removal (backend-behaviour.md §2): the add is adopted by its
	// record. Before the POST the restarted provider would wait out the
	// two-minute grace before adding (a unit test covers that path).
	{kind: "StorageNode", variant: "tasks-500", moments: []string{ops.CrashAfterCall}, post: "/storage-nodes/", create: func(t *testing.T, ns, name string) {
		cluster, id := seedClusterIn(t, ns, 3, sb.ClusterUnready)
		suite.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultEnum500, Target: "tasks", ClusterID: id})
		newManaged(t, ns, "StorageNode", name, map[string]any{
			"clusterIdRef": map[string]any{"name": cluster}, "nodeAddress": "10.250.0.2:5000", "interfaceName": "eth0",
		})
	}},
}

// TestCreateCrash kills the provider around the create call of every
// steady-state resource and restarts it: each resource must end Ready and
// Synced with exactly one create call in the backend's journal. Before
// the POST the restarted provider finds nothing and creates; after it, it
// finds what the create made (by name, or the node's add task or record)
// and adopts it. Without that, the reconciler refuses forever ("cannot
// determine creation result").
func TestCreateCrash(t *testing.T) {
	type crashCase struct {
		kind     createCrashKind
		moment   string
		ns, name string
	}
	var cases []crashCase
	var points []string
	for _, k := range createCrashKinds {
		moments := k.moments
		if moments == nil {
			moments = []string{ops.CrashAfterIntent, ops.CrashAfterCall}
		}
		for _, m := range moments {
			name := strings.ToLower(k.kind) + "-" + m
			if k.variant != "" {
				name = strings.ToLower(k.kind) + "-" + k.variant + "-" + m
			}
			c := crashCase{kind: k, moment: m, ns: newNamespace(t), name: name}
			cases = append(cases, c)
			points = append(points, fmt.Sprintf("%s/%s:%s:0", c.ns, c.name, m))
		}
	}
	table := newSummaryTable(t)
	sup := runWithCrashes(t, points)
	for i, c := range cases {
		since := time.Now()
		c.kind.create(t, c.ns, c.name)
		u := waitReady(t, c.ns, c.kind.kind, c.name)
		if !slices.Contains(sup.Fired(), points[i]) {
			t.Errorf("%s %s: the crash point did not fire", c.name, c.moment)
		}
		if n := callsSince(since, "POST", c.kind.post); n != 1 {
			t.Errorf("%s %s: POST …%s reached the backend %d times, want exactly 1; writes: %s", c.name, c.moment, c.kind.post, n, journalSummary())
		}
		if externalName(u) == "" {
			t.Errorf("%s %s: Ready without an external name", c.name, c.moment)
		}
		table.Add(strings.TrimSuffix(c.kind.kind+" "+c.kind.variant, " "), c.moment+"@0", fmt.Sprintf("POST %s x%d", c.kind.post, callsSince(since, "POST", c.kind.post)), "Ready", externalName(u))
	}
	sup.Stop()
	if err := sup.Err(); err != nil {
		t.Errorf("supervisor: %v", err)
	}
}
