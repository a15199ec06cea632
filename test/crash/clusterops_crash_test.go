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
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// opsArgs make the provider's operations quick against a simulator running
// 200 times faster than real time.
var opsArgs = []string{"--ops-evidence-grace=5s", "--ops-hold-limit=10s", "--ops-poll-fast=100ms", "--ops-poll=250ms", "--ops-poll-waiting=1s", "--max-reconcile-rate=100"}

// A crashType is one operation type of the matrix: its example and the
// cluster it starts from. Its steps and their policies come from its plan
// (plans_test.go).
type crashType struct {
	kind     string // ClusterOps (default) or StorageNodeOps
	name     string
	file     string
	nodes    int
	status   sb.ClusterStatus
	shutDown bool // shut the cluster down (directly in the backend) first
	// prepare brings the backend into the operation's start state, directly
	// (not through the provider).
	prepare func(t *testing.T, c *crashCase)
}

func (ct crashType) kindName() string {
	if ct.kind == "" {
		return "ClusterOps"
	}
	return ct.kind
}

func (ct crashType) dir() string { return strings.ToLower(ct.kindName()) }

var crashTypes = []crashType{
	{name: "Activate", file: "activate.yaml", nodes: 3, status: sb.ClusterUnready},
	{name: "Expand", file: "expand.yaml", nodes: 3, status: sb.ClusterActive},
	{name: "Shutdown", file: "shutdown.yaml", nodes: 3, status: sb.ClusterActive},
	{name: "Start", file: "start.yaml", nodes: 3, status: sb.ClusterActive, shutDown: true},
	{name: "Restart", file: "restart.yaml", nodes: 3, status: sb.ClusterActive},
	// Two nodes: steps are node 1 shutdown, restart, settle, node 2 shutdown, restart, settle.
	{name: "NodeRollingRestart", file: "node-rolling-restart.yaml", nodes: 2, status: sb.ClusterActive},
	{name: "Upgrade", file: "upgrade.yaml", nodes: 3, status: sb.ClusterActive},
	{name: "Rebalance", file: "rebalance.yaml", nodes: 3, status: sb.ClusterActive},
}

var crashMoments = []string{ops.CrashBeforeIntent, ops.CrashAfterIntent, ops.CrashAfterCall, ops.CrashAfterOutcome}

// heldPastTimeout is the matrix's case without a crash: the backend holds a
// re-sendable step's call past the client's timeout (5 s) and applies it
// late (7 s), within the provider's hold limit (10 s). The late original
// must be the evidence, never followed or preceded by a re-send.
const heldPastTimeout = "HeldPastTimeout"

const heldFor = 7 * time.Second

// A crashCase is one operation of the matrix, crashed at one point.
type crashCase struct {
	typ         crashType
	moment      string
	step        int64
	ns, name    string // the ClusterOps
	clusterName string // the StorageCluster
	clusterID   string
	nodeIDs     []string
	since       time.Time // calls before this are the test's own preparation
}

func (c *crashCase) label() string { return fmt.Sprintf("%s@%d", c.moment, c.step) }
func (c *crashCase) point() string { return fmt.Sprintf("%s/%s:%s:%d", c.ns, c.name, c.moment, c.step) }

// TestClusterOpsCrashMatrix kills the provider (SIGKILL, from inside, at
// the engine's injection points) at every point around every backend call
// of every ClusterOps type, restarts it, and checks that each operation
// ends Succeeded or Failed with a reason, and that the backend received
// each state-changing call at most once per intended call.
//
// One provider process is supervised for the whole matrix, with every
// point armed; each point names its own operation. The operations run one
// after another, so a crash interrupts only the operation it belongs to
// and the final phase each point must lead to can be asserted.
func TestClusterOpsCrashMatrix(t *testing.T) { runCrashMatrix(t, crashTypes) }

// runCrashMatrix runs every point of every call step of types.
func runCrashMatrix(t *testing.T, types []crashType) {
	table := newSummaryTable(t)
	var cases []*crashCase
	for _, typ := range types {
		for _, step := range typ.callSteps(t) {
			for _, m := range crashMoments {
				cases = append(cases, &crashCase{typ: typ, moment: m, step: step})
			}
			if typ.mayResend(t, step) {
				cases = append(cases, &crashCase{typ: typ, moment: heldPastTimeout, step: step})
			}
		}
	}
	t.Logf("crash matrix: %d points over %d types", len(cases), len(types))
	points := make([]string, 0, len(cases))
	for i, c := range cases {
		c.ns = newNamespace(t)
		c.name = fmt.Sprintf("%02d-%s", i, strings.ToLower(c.typ.name))
		if c.moment != heldPastTimeout {
			points = append(points, c.point())
		}
	}
	sup := runWithCrashes(t, points, opsArgs...)
	for _, c := range cases {
		runCrashCase(t, table, sup, c)
	}
	sup.Stop()
	t.Logf("crash matrix: %d crashes, %d provider starts", len(sup.Fired()), sup.Restarts()+1)
}

// runCrashCase runs one operation to its end and checks it.
func runCrashCase(t *testing.T, table *summaryTable, sup *supervisor, c *crashCase) {
	t.Helper()
	c.clusterName, c.clusterID = seedClusterIn(t, c.ns, c.typ.nodes, c.typ.status)
	if c.typ.shutDown {
		shutDownInBackend(t, c.clusterID)
	}
	if c.typ.kind == "StorageNodeOps" {
		c.nodeIDs = importNodes(t, c.ns, c.clusterName, c.clusterID)
	}
	if c.typ.prepare != nil {
		c.typ.prepare(t, c)
	}
	var held, heldPath string
	if c.moment == heldPastTimeout {
		held, heldPath = holdCall(t, c)
	}
	c.since = time.Now()
	createOperation(t, c)
	confirmed := 0
	waitFor(t, 2*time.Minute, func() (bool, string) {
		phase, reason, _ := opPhase(c)
		if reason == ops.ReasonAwaitingConfirmation && confirmResend(t, c) {
			confirmed++
		}
		return phase == "Succeeded" || phase == "Failed", fmt.Sprintf("%s %s: phase %q (%s)", c.typ.name, c.label(), phase, reason)
	})
	// Only a call that may or may not have been sent (a crash between its
	// intent and its outcome) asks the user.
	if confirmed > 0 && c.moment != ops.CrashAfterIntent {
		t.Errorf("%s %s: asked for a confirmation %d times, but no call's outcome was unknown", c.typ.name, c.label(), confirmed)
	}

	phase, reason, attempts := opPhase(c)
	calls := postsFor(c)
	total := 0
	var seen []string
	for path, n := range calls {
		total += n
		seen = append(seen, fmt.Sprintf("%s x%d", path, n))
		if n > 1 && !c.typ.mayResend(t, c.step) {
			t.Errorf("%s %s: POST %s reached the backend %d times; a repeat of it is not harmless", c.typ.name, c.label(), path, n)
		}
	}
	sort.Strings(seen)
	if int64(total) > attempts {
		t.Errorf("%s %s: the backend received %d state-changing calls, more than the %d the operation recorded as intended", c.typ.name, c.label(), total, attempts)
	}
	if reason == "" {
		t.Errorf("%s %s: ended %s without a reason", c.typ.name, c.label(), phase)
	}
	fired := slices.Contains(sup.Fired(), c.point())
	if held != "" {
		// A fault of count 1 leaves the list once it fired.
		fired = !faultArmed(held)
		// The late original is the evidence, except for a call whose effect
		// the API does not show (a node's promote): that one is sent again
		// after the hold limit, which its step declares harmless.
		want, why := 1, "the late original is the evidence"
		if c.typ.plan(t)[c.step].Evidence == nil {
			want, why = 2, "nothing in the API shows the late original, so the step sends it again after the hold limit (harmless for it)"
		}
		if n := callsSince(c.since, methodOf(c.typ.plan(t)[c.step].Path), heldPath); n != want {
			t.Errorf("%s %s: the held call %s reached the backend %d times, want %d: %s", c.typ.name, c.label(), heldPath, n, want, why)
		}
	}
	switch want := expectedPhase(t, c); {
	case !fired:
		t.Errorf("%s %s: the crash point did not fire", c.typ.name, c.label())
	case phase != want:
		t.Errorf("%s %s: ended %s (%s), want %s", c.typ.name, c.label(), phase, reason, want)
	}
	table.Add(c.typ.name, c.label(), orNone(strings.Join(seen, ", ")), phase, reason)
	t.Logf("%-18s %-16s %-9s %-16s in %s", c.typ.name, c.label(), phase, reason, time.Since(c.since).Round(10*time.Millisecond))
}

// createOperation creates c's operation from its type's example, on its
// cluster (or the cluster's first node).
func createOperation(t *testing.T, c *crashCase) {
	t.Helper()
	fromExample(t, c.ns, c.typ.dir()+"/"+c.typ.file, func(u *unstructured.Unstructured) {
		u.SetName(c.name)
		if c.typ.kind == "StorageNodeOps" {
			setField(t, u, c.clusterName+"-node-1", "spec", "forProvider", "nodeIdRef", "name")
			return
		}
		setField(t, u, c.clusterName, "spec", "forProvider", "clusterIdRef", "name")
	})
}

// expectedPhase is the phase a case must end in when its own crash fired:
// a crash with the intent recorded but the call not sent leaves no evidence,
// so a type that must not re-send fails with OutcomeUnknown; every other
// point resolves by evidence (or never left anything ambiguous) and
// succeeds.
func expectedPhase(t *testing.T, c *crashCase) string {
	if c.moment == ops.CrashAfterIntent && !c.typ.mayResend(t, c.step) {
		return "Failed"
	}
	return "Succeeded"
}

// holdCall makes the simulator hold the call of c's step past the client's
// timeout and apply it late; it returns the fault's id and the call's path.
func holdCall(t *testing.T, c *crashCase) (id, path string) {
	t.Helper()
	step := c.typ.plan(t)[c.step]
	_, path, _ = strings.Cut(step.Path, " ")
	path, _, _ = strings.Cut(path, "?")
	path = strings.Replace(path, "/clusters/cluster/", "/clusters/"+c.clusterID+"/", 1)
	for i, n := range suite.sim.Nodes(c.clusterID) {
		path = strings.Replace(path, fmt.Sprintf("/storage-nodes/node-%d/", i+1), "/storage-nodes/"+n.ID+"/", 1)
	}
	id = suite.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: methodOf(step.Path), Path: path, Count: 1,
		Delay: simulator.Duration(heldFor), Before: true}).ID
	return id, path
}

func methodOf(call string) string {
	m, _, _ := strings.Cut(call, " ")
	return m
}

// faultArmed reports whether the simulator's fault id is still armed.
func faultArmed(id string) bool {
	for _, f := range suite.sim.Faults().List() {
		if f.ID == id {
			return true
		}
	}
	return false
}

// confirmResend plays the user's part for an operation awaiting a decision
// about a call whose answer was lost: it sets confirmResend to the token the
// status message names. It reports whether it confirmed.
func confirmResend(t *testing.T, c *crashCase) bool {
	t.Helper()
	u, err := getObject(c.ns, c.typ.kindName(), c.name)
	if err != nil {
		return false
	}
	return confirm(t, u)
}

var resendToken = regexp.MustCompile(`confirmResend to "([0-9]+/[0-9]+)"`)

// opPhase returns the operation's phase, reason and recorded attempts.
func opPhase(c *crashCase) (string, string, int64) {
	u, err := getObject(c.ns, c.typ.kindName(), c.name)
	if err != nil {
		return "error: " + err.Error(), "", 0
	}
	attempts, _, _ := unstructured.NestedInt64(u.Object, "status", "atProvider", "attempts")
	return field(u, "status", "atProvider", "phase"), field(u, "status", "atProvider", "reason"), attempts
}

// postsFor counts the state-changing calls the case's cluster received
// since the case was created, by path below the cluster.
func postsFor(c *crashCase) map[string]int {
	out := map[string]int{}
	for _, e := range suite.sim.Journal() {
		if e.Method == http.MethodGet || e.Time.Before(c.since) || !strings.Contains(e.Path, c.clusterID) {
			continue
		}
		_, rest, _ := strings.Cut(e.Path, c.clusterID)
		out[shortPath(rest)]++
	}
	return out
}

// shortPath keeps the action of a path, e.g. "/storage-nodes/<id>/restart/"
// becomes "storage-nodes/restart".
func shortPath(p string) string {
	var keep []string
	for _, s := range strings.Split(strings.Trim(p, "/"), "/") {
		if len(s) != 36 { // drop UUIDs
			keep = append(keep, s)
		}
	}
	return strings.Join(keep, "/")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// shutDownInBackend shuts a cluster down by calling the simulator directly
// (not through the provider), and waits until every node is offline.
func shutDownInBackend(t *testing.T, id string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/api/v2/clusters/"+id+"/shutdown", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	rec := httptest.NewRecorder()
	suite.sim.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("cannot shut cluster %s down: HTTP %d %s", id, rec.Code, rec.Body.String())
	}
	waitFor(t, time.Minute, func() (bool, string) {
		var up []string
		for _, n := range suite.sim.Nodes(id) {
			if n.Status != sb.NodeOffline {
				up = append(up, string(n.Status))
			}
		}
		c, _ := suite.sim.Cluster(id)
		return len(up) == 0 && c.Status == sb.ClusterSuspended, fmt.Sprintf("nodes not offline: %v, cluster %s", up, c.Status)
	})
}
