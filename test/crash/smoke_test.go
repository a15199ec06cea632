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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestHarnessSmoke proves the harness end to end without crash points: the
// provider process creates a StorageCluster in the simulator, is SIGKILLed
// and restarted by the supervisor, and the restarted process adopts the
// cluster without creating it again.
func TestHarnessSmoke(t *testing.T) {
	sup := runWithCrashes(t, nil)
	ns := newNamespace(t)
	backendName := uniqueName("smoke")
	fromExample(t, ns, "quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		setField(t, u, backendName, "spec", "forProvider", "name")
		setField(t, u, map[string]any{"kind": "ClusterProviderConfig", "name": "default"}, "spec", "providerConfigRef")
	})

	created := time.Now()
	u := waitReady(t, ns, "StorageCluster", "demo")
	id := externalName(u)
	t.Logf("StorageCluster Ready after %s, backend id %s", time.Since(created).Round(time.Millisecond), id)
	c, ok := suite.sim.Cluster(id)
	if !ok {
		t.Fatalf("external name %q is not a simulator cluster", id)
	}
	if c.Name == nil || *c.Name != backendName || c.Status != sb.ClusterUnready {
		t.Errorf("backend cluster = name %v status %s, want %s unready", c.Name, c.Status, backendName)
	}
	if n := countCalls("POST", "/clusters/"); n != 1 {
		t.Fatalf("POST /clusters/ reached the backend %d times before the kill, want 1; writes: %s", n, journalSummary())
	}

	// Kill the provider abruptly; Kill returns once it has been restarted.
	killed := time.Now()
	sup.Kill()
	if r := sup.Restarts(); r != 1 {
		t.Fatalf("restarts = %d, want 1", r)
	}
	t.Logf("provider restarted %s after the kill", time.Since(killed).Round(time.Millisecond))

	// The new process must observe the cluster (on start and on each 1 s
	// poll) while the object stays Ready and Synced.
	observePath := "/clusters/" + id + "/"
	lapse := ""
	waitFor(t, defaultWait, func() (bool, string) {
		got, err := getObject(ns, "StorageCluster", "demo")
		if err != nil {
			return false, err.Error()
		}
		if ok, desc := readySynced(got); !ok && lapse == "" {
			lapse = desc
		}
		if externalName(got) != id {
			return false, "external name changed to " + externalName(got)
		}
		n := callsSince(killed, "GET", observePath)
		return n >= 3, fmt.Sprintf("%d observations (GET %s) since the kill", n, observePath)
	})
	t.Logf("restarted provider observed the cluster 3 times within %s of the kill", time.Since(killed).Round(time.Millisecond))
	if lapse != "" {
		t.Errorf("StorageCluster was not Ready and Synced after the restart: %s", lapse)
	}
	if n := countCalls("POST", "/clusters/"); n != 1 {
		t.Errorf("POST /clusters/ reached the backend %d times, want exactly 1; writes: %s", n, journalSummary())
	}
	if got := len(suite.sim.Journal()); got == 0 {
		t.Error("the journal is empty")
	}

	sup.Stop()
	if err := sup.Err(); err != nil {
		t.Errorf("supervisor: %v", err)
	}
	runs := sup.Runs()
	if len(runs) != 2 || runs[0].Cause != "killed by the test" || runs[1].Cause != "stopped" {
		t.Errorf("runs = %+v, want one killed by the test and one stopped", runs)
	}
	t.Logf("supervisor: %s", sup)
}

// TestHarnessSeededImport exercises the helpers the crash matrix builds
// on: seedCluster imports an existing active cluster, newManaged creates a
// resource from plain Go values, and a summaryTable reports both.
func TestHarnessSeededImport(t *testing.T) {
	table := newSummaryTable(t)
	ns, name, id := seedCluster(t, 3, sb.ClusterActive)
	runWithCrashes(t, nil)

	u := waitReady(t, ns, "StorageCluster", name)
	if got := field(u, "status", "atProvider", "status"); got != string(sb.ClusterActive) {
		t.Errorf("atProvider.status = %q, want active", got)
	}
	if got := field(u, "status", "atProvider", "id"); got != id {
		t.Errorf("atProvider.id = %q, want the seeded %s", got, id)
	}
	if n := len(suite.sim.Nodes(id)); n != 3 {
		t.Errorf("seeded cluster has %d nodes, want 3", n)
	}
	if n := countCalls("POST", "/clusters/"); n != 0 {
		t.Errorf("an import sent %d creates, want 0; writes: %s", n, journalSummary())
	}
	table.Add("Import", "", journalSummary(), field(u, "status", "atProvider", "status"), "seeded, imported by external name")

	backendName := uniqueName("managed")
	newManaged(t, ns, "StorageCluster", "created", map[string]any{
		"name": backendName, "maxSubsys": 0, "spdkVcpuCount": 0, "distrNdcs": 1, "distrNpcs": 1,
	})
	u = waitReady(t, ns, "StorageCluster", "created")
	if n := countCalls("POST", "/clusters/"); n != 1 {
		t.Errorf("POST /clusters/ sent %d times, want 1; writes: %s", n, journalSummary())
	}
	table.Add("Create", "", fmt.Sprintf("POST /clusters/ x%d", countCalls("POST", "/clusters/")),
		field(u, "status", "atProvider", "status"), "created by newManaged")
}
