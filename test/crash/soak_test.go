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
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// The sequence soak: random sequences of cluster and node operations on
// several clusters at once (in sequence on each cluster, in parallel across
// them), the provider SIGKILLed at random moments, judged only by what is
// recorded: the simulator's journal, the operations' call audits and
// histories, and the backend's final state.
//
//	SOAK_SEEDS  how many seeds to run (default 1; make soak runs 50)
//	SOAK_SEED   the first seed (default: from the clock); seed k+1 follows k
//
// Each seed is logged; SOAK_SEED=<seed> SOAK_SEEDS=1 replays one.

const (
	soakClusters = 3
	soakNodes    = 3
)

// A soakOp is one operation of a sequence: its example and the node it
// works on (0 for a cluster operation, else 1-based).
type soakOp struct {
	kind, file string
	node       int
}

// soakUnits are what a sequence is made of: each leaves its cluster with
// every node online and the cluster active, so any order of them is valid
// and the backend's final state is known when they succeed.
var soakUnits = map[string]func(node int) []soakOp{
	"suspend+resume": func(n int) []soakOp {
		return []soakOp{{"StorageNodeOps", "suspend.yaml", n}, {"StorageNodeOps", "resume.yaml", n}}
	},
	"shutdown+start": func(n int) []soakOp {
		return []soakOp{{"StorageNodeOps", "shutdown.yaml", n}, {"StorageNodeOps", "start.yaml", n}}
	},
	"node restart":         func(n int) []soakOp { return []soakOp{{"StorageNodeOps", "restart.yaml", n}} },
	"node migrate":         func(n int) []soakOp { return []soakOp{{"StorageNodeOps", "migrate.yaml", n}} },
	"rolling restart":      func(int) []soakOp { return []soakOp{{"ClusterOps", "node-rolling-restart.yaml", 0}} },
	"cluster restart":      func(int) []soakOp { return []soakOp{{"ClusterOps", "restart.yaml", 0}} },
	"upgrade with restart": func(int) []soakOp { return []soakOp{{"ClusterOps", "upgrade.yaml", 0}} },
	"rebalance":            func(int) []soakOp { return []soakOp{{"ClusterOps", "rebalance.yaml", 0}} },
	"expand":               func(int) []soakOp { return []soakOp{{"ClusterOps", "expand.yaml", 0}} },
	"activate (active)":    func(int) []soakOp { return []soakOp{{"ClusterOps", "activate.yaml", 0}} },
}

// A soakCluster is one cluster of a seed and its sequence.
type soakCluster struct {
	name, id string
	nodeIDs  []string
	ops      []soakOp
	names    []string // the operations' object names, in creation order
}

func TestSequenceSoak(t *testing.T) {
	seeds, first := 1, uint64(time.Now().UnixNano()%1_000_000)
	if v := os.Getenv("SOAK_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SOAK_SEEDS=%q: want a positive number", v)
		}
		seeds = n
	}
	if v := os.Getenv("SOAK_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("SOAK_SEED=%q: want a number", v)
		}
		first = n
	}
	for seed := first; seed < first+uint64(seeds); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			t.Logf("replay with SOAK_SEED=%d SOAK_SEEDS=1", seed)
			runSoakSeed(t, seed)
		})
	}
}

func runSoakSeed(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed)) //nolint:gosec // a test's reproducible randomness.
	sup := runWithCrashes(t, nil, opsArgs...)
	ns := newNamespace(t)
	start := time.Now()

	units := make([]string, 0, len(soakUnits))
	for u := range soakUnits {
		units = append(units, u)
	}
	slices.Sort(units)
	clusters := make([]*soakCluster, soakClusters)
	for i := range clusters {
		c := &soakCluster{}
		c.name, c.id = seedClusterIn(t, ns, soakNodes, sb.ClusterActive)
		c.nodeIDs = importNodes(t, ns, c.name, c.id)
		var plan []string
		for range 2 + rng.IntN(3) {
			u := units[rng.IntN(len(units))]
			plan = append(plan, u)
			c.ops = append(c.ops, soakUnits[u](1+rng.IntN(soakNodes))...)
		}
		t.Logf("cluster %d (%s): %s", i+1, c.id, strings.Join(plan, ", "))
		clusters[i] = c
	}
	// Every operation is created at once, in order: each cluster's queue
	// runs them one after another (names order those created in the same
	// second), the clusters in parallel.
	for i, c := range clusters {
		for j, op := range c.ops {
			name := fmt.Sprintf("%s-%02d-%s", c.name, j, strings.TrimSuffix(op.file, ".yaml"))
			c.names = append(c.names, name)
			fromExample(t, ns, strings.ToLower(op.kind)+"/"+op.file, func(u *unstructured.Unstructured) {
				u.SetName(name)
				if op.node > 0 {
					setField(t, u, fmt.Sprintf("%s-node-%d", c.name, op.node), "spec", "forProvider", "nodeIdRef", "name")
					if op.file == "migrate.yaml" {
						// A host of its own for every move: no two nodes share one.
						setField(t, u, fmt.Sprintf("10.%d.%d.%d:5000", 100+i, op.node, j), "spec", "forProvider", "migrate", "nodeAddress")
					}
					return
				}
				setField(t, u, c.name, "spec", "forProvider", "clusterIdRef", "name")
			})
		}
	}

	// Kill the provider at random moments until every operation finished,
	// and play the user: confirm where an operation asks for a decision,
	// and cancel what is still queued on a cluster where an operation failed
	// (a call left with an unknown outcome leaves the cluster in a state the
	// rest of the sequence was not written for).
	kills, confirmed, cancelled := 0, 0, 0
	deadline := time.Now().Add(10 * time.Minute)
	next := time.Now().Add(randomDelay(rng))
	for {
		done := true
		for _, c := range clusters {
			failed := false
			for j, name := range c.names {
				u, err := getObject(ns, c.ops[j].kind, name)
				if err != nil {
					t.Fatalf("cannot read %s: %v", name, err)
				}
				switch field(u, "status", "atProvider", "phase") {
				case "Failed":
					failed = true
				case "Succeeded":
				default:
					done = false
					if failed && cancel(t, u) {
						cancelled++
					}
				}
				if field(u, "status", "atProvider", "reason") == ops.ReasonAwaitingConfirmation && confirm(t, u) {
					confirmed++
				}
			}
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("seed %d: operations still running after 10 minutes", seed)
		}
		if time.Now().After(next) {
			sup.Kill()
			kills++
			next = time.Now().Add(randomDelay(rng))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range clusters {
		judgeSoakCluster(t, ns, c, start)
	}
	t.Logf("seed %d: %d operations on %d clusters, %d kills, %d confirmations, %d cancelled after a failure, in %s",
		seed, countOps(clusters), len(clusters), kills, confirmed, cancelled, time.Since(start).Round(time.Second))
}

// randomDelay is the time to the next kill: 0.5 to 4 s.
func randomDelay(rng *rand.Rand) time.Duration {
	return 500*time.Millisecond + time.Duration(rng.Int64N(int64(3500*time.Millisecond)))
}

func countOps(cs []*soakCluster) int {
	n := 0
	for _, c := range cs {
		n += len(c.ops)
	}
	return n
}

// confirm sets confirmResend to the token an operation's message names.
func confirm(t *testing.T, u *unstructured.Unstructured) bool {
	t.Helper()
	m := resendToken.FindStringSubmatch(field(u, "status", "atProvider", "message"))
	if m == nil || field(u, "spec", "forProvider", "confirmResend") == m[1] {
		return false
	}
	setField(t, u, m[1], "spec", "forProvider", "confirmResend")
	return suite.kube.Update(ctxBgnd, u) == nil
}

// cancel sets cancel on an unfinished operation, once.
func cancel(t *testing.T, u *unstructured.Unstructured) bool {
	t.Helper()
	if v, _, _ := unstructured.NestedBool(u.Object, "spec", "forProvider", "cancel"); v {
		return false
	}
	setField(t, u, true, "spec", "forProvider", "cancel")
	return suite.kube.Update(ctxBgnd, u) == nil
}

// judgeSoakCluster checks one cluster's sequence by what is recorded.
func judgeSoakCluster(t *testing.T, ns string, c *soakCluster, since time.Time) {
	t.Helper()
	type finished struct {
		name           string
		status         v1alpha1.OperationStatus
		node           int
		started, ended time.Time
	}
	var all []finished
	failedBefore := false
	for j, name := range c.names {
		u, err := getObject(ns, c.ops[j].kind, name)
		if err != nil {
			t.Fatalf("cannot read %s: %v", name, err)
		}
		st := v1alpha1.OperationStatus{}
		at, _ := u.Object["status"].(map[string]any)["atProvider"].(map[string]any)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(at, &st); err != nil {
			t.Fatalf("cannot read the status of %s: %v", name, err)
		}
		f := finished{name: name, status: st, node: c.ops[j].node}
		if st.StartedAt != nil {
			f.started = st.StartedAt.Time
		}
		if st.CompletedAt != nil {
			f.ended = st.CompletedAt.Time
		}
		all = append(all, f)
		switch {
		case st.Reason == "":
			t.Errorf("%s ended %s without a reason", name, st.Phase)
		case st.Phase == v1alpha1.OperationFailed && st.Reason == ops.ReasonCancelled && failedBefore:
			// Cancelled by the user after an earlier failure.
		case st.Phase == v1alpha1.OperationFailed && st.Reason != ops.ReasonOutcomeUnknown && !failedBefore:
			// A crash between a call's intent and its outcome may leave a
			// call that must not be repeated unresolved; nothing else may
			// fail a valid sequence (after such a failure, the sequence's
			// later operations start from a state it was not written for).
			t.Errorf("%s failed: %s: %s", name, st.Reason, st.Message)
		}
		if st.Phase == v1alpha1.OperationFailed {
			failedBefore = true
		}
	}

	// In creation order, without overlap (status times are whole seconds).
	for j := 1; j < len(all); j++ {
		prev, cur := all[j-1], all[j]
		if cur.started.IsZero() {
			continue
		}
		if cur.started.Before(prev.ended) {
			t.Errorf("%s started at %s, before %s (created before it) finished at %s", cur.name, cur.started, prev.name, prev.ended)
		}
	}

	// Each call at most once per intended call: every state-changing call
	// the cluster received is in an operation's audit, or is one of the
	// intents a crash left without an outcome.
	audited := map[string]int{}
	slack := int64(0)
	for _, f := range all {
		for _, call := range f.status.Calls {
			audited[call.Method+" "+call.Path]++
		}
		slack += f.status.Attempts - int64(len(f.status.Calls))
	}
	sent := map[string]int{}
	for _, e := range suite.sim.Journal() {
		if e.Method == "GET" || e.Time.Before(since) || !strings.Contains(e.Path, c.id) {
			continue
		}
		sent[e.Method+" "+strings.TrimPrefix(e.Path, "/api/v2")]++
	}
	for call, n := range sent {
		if extra := int64(n - audited[call]); extra > slack {
			t.Errorf("cluster %s: %s reached the backend %d times, %d recorded in the operations' audits and %d intents without an outcome", c.id, call, n, audited[call], slack)
		}
	}

	// No lock left held.
	sc, err := getObject(ns, "StorageCluster", c.name)
	if err != nil {
		t.Fatal(err)
	}
	if a := field(sc, "status", "atProvider", "activeOperation", "name"); a != "" {
		t.Errorf("cluster %s still locked by %s", c.name, a)
	}

	// The backend's final state is what the succeeded operations promise:
	// every unit ends with its nodes online, so a node whose last operation
	// succeeded is online.
	for i, id := range c.nodeIDs {
		last := -1
		for j, f := range all {
			if f.node == 0 || f.node == i+1 {
				last = j
			}
		}
		if last < 0 || all[last].status.Phase != v1alpha1.OperationSucceeded {
			continue
		}
		waitFor(t, defaultWait, func() (bool, string) {
			for _, n := range suite.sim.Nodes(c.id) {
				if n.ID == id {
					return n.Status == sb.NodeOnline, fmt.Sprintf("node %d (%s) of cluster %s is %s after %s succeeded", i+1, id, c.id, n.Status, all[last].name)
				}
			}
			return false, "node " + id + " is gone"
		})
	}
}
