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
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// leaseName is the provider's leader-election lease.
const leaseName = "crossplane-leader-election-provider-simplyblock"

// TestLeaderHandOver runs two provider replicas with leader election. During
// a rolling restart the leader is SIGKILLed (a crash), and later the new
// leader is stopped gracefully (SIGTERM, as in a rolling update) while a
// fresh standby waits. Each time the standby takes over and the operation
// goes on: it ends Succeeded, every node online, the backend receiving no
// more calls than the operation recorded as intended. The hand-over times
// are logged; they are measurements, not assertions.
func TestLeaderHandOver(t *testing.T) {
	st := state(t)
	ns := newNamespace(t)
	args := append(slices.Clone(opsArgs), "--leader-election", "--leader-election-namespace="+ns)
	start := func() *providerProcess {
		path := st.logPath()
		f, err := os.Create(path) //nolint:gosec // a path under the suite's log folder.
		if err != nil {
			t.Fatal(err)
		}
		st.addLog(path)
		p, err := startProcess(suite.providerBin, f, nil, nil, args...)
		if err != nil {
			t.Fatalf("cannot start a provider: %v", err)
		}
		t.Cleanup(func() {
			p.Kill()
			<-p.Exited()
			_ = f.Close()
		})
		return p
	}
	holder := func() (string, time.Time) {
		l := &coordinationv1.Lease{}
		if err := suite.kube.Get(ctxBgnd, types.NamespacedName{Namespace: ns, Name: leaseName}, l); err != nil || l.Spec.HolderIdentity == nil {
			return "", time.Time{}
		}
		at := time.Time{}
		if l.Spec.AcquireTime != nil {
			at = l.Spec.AcquireTime.Time
		}
		return *l.Spec.HolderIdentity, at
	}
	leads := func(what string, not string) string {
		var id string
		waitFor(t, 2*time.Minute, func() (bool, string) {
			id, _ = holder()
			return id != "" && id != not, what + ": lease held by " + id
		})
		return id
	}

	a := start()
	first := leads("a leader", "")
	b := start() // the standby

	name, clusterID := seedClusterIn(t, ns, 3, sb.ClusterActive)
	created := time.Now()
	fromExample(t, ns, "clusterops/node-rolling-restart.yaml", func(u *unstructured.Unstructured) {
		u.SetName("rolling")
		setField(t, u, name, "spec", "forProvider", "clusterIdRef", "name")
	})
	calls := func() int {
		u, err := getObject(ns, "ClusterOps", "rolling")
		if err != nil {
			return 0
		}
		c, _, _ := unstructured.NestedSlice(u.Object, "status", "atProvider", "calls")
		return len(c)
	}
	waitFor(t, 2*time.Minute, func() (bool, string) { return calls() >= 1, fmt.Sprintf("%d calls", calls()) })

	// A crash: the standby takes over once the lease expires.
	killed := time.Now()
	a.Kill()
	second := leads("the standby to take over after the leader's crash", first)
	crashHandOver := time.Since(killed)

	start() // the next standby
	waitFor(t, 2*time.Minute, func() (bool, string) { return calls() >= 3, fmt.Sprintf("%d calls", calls()) })

	// A graceful stop of the leader (b, the only one left from before):
	// it releases the lease, and the standby takes it at once.
	stopped := time.Now()
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	leads("the standby to take over after a graceful stop", second)
	gracefulHandOver := time.Since(stopped)
	<-b.Exited()

	confirmed := 0
	waitFor(t, 5*time.Minute, func() (bool, string) {
		u, err := getObject(ns, "ClusterOps", "rolling")
		if err != nil {
			return false, err.Error()
		}
		if field(u, "status", "atProvider", "reason") == "AwaitingConfirmation" && confirm(t, u) {
			confirmed++
		}
		phase := field(u, "status", "atProvider", "phase")
		return phase == "Succeeded" || phase == "Failed", phase + ": " + field(u, "status", "atProvider", "message")
	})
	u, err := getObject(ns, "ClusterOps", "rolling")
	if err != nil {
		t.Fatal(err)
	}
	if phase := field(u, "status", "atProvider", "phase"); phase != "Succeeded" {
		t.Errorf("the rolling restart ended %s (%s), want Succeeded across both hand-overs", phase, field(u, "status", "atProvider", "message"))
	}
	attempts, _, _ := unstructured.NestedInt64(u.Object, "status", "atProvider", "attempts")
	posts := 0
	for _, e := range suite.sim.Journal() {
		if e.Method == "POST" && !e.Time.Before(created) && strings.Contains(e.Path, clusterID) {
			posts++
		}
	}
	if int64(posts) > attempts {
		t.Errorf("the backend received %d calls for the cluster, more than the %d the operation recorded as intended", posts, attempts)
	}
	for _, n := range suite.sim.Nodes(clusterID) {
		if n.Status != sb.NodeOnline {
			t.Errorf("node %s is %s, want online", n.ID, n.Status)
		}
	}
	t.Logf("hand-over after a crash: %s (lease 12 s, retry 2 s); after a graceful stop: %s; %d calls, %d confirmations",
		crashHandOver.Round(100*time.Millisecond), gracefulHandOver.Round(100*time.Millisecond), posts, confirmed)
}
