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

package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// eventWith returns the message of the first event with reason recorded for
// the object named name whose message contains part, or "".
func (h *harness) eventWith(name, reason, part string) string {
	l := &corev1.EventList{}
	if err := h.kube.List(h.ctx, l, client.InNamespace(h.ns)); err != nil {
		return ""
	}
	for _, e := range l.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason && strings.Contains(e.Message, part) {
			return e.Message
		}
	}
	return ""
}

// waitEventWith waits for an event eventWith finds.
func (h *harness) waitEventWith(name, reason, part string) string {
	h.t.Helper()
	msg := ""
	h.eventually(fmt.Sprintf("an event %s on %s saying %q", reason, name, part), func() (bool, string) {
		msg = h.eventWith(name, reason, part)
		return msg != "", "not yet"
	})
	return msg
}

// approve sets approved: true on ClusterOps name, as a Git commit or
// kubectl patch would.
func (h *harness) approve(name string) {
	h.t.Helper()
	op, err := h.getOp(name)
	must(h.t, err)
	patch := client.MergeFrom(op.DeepCopy())
	op.Spec.ForProvider.Approved = true
	must(h.t, h.kube.Patch(h.ctx, op, patch))
}

// waitAwaitingApproval waits for the event AwaitingApproval of the
// ClusterOps name, then for the status that goes with it (the event is
// recorded before the status is written; the reason stays until the
// operation is approved or cancelled, so it is no transient to miss), and
// returns the operation showing its plan.
func (h *harness) waitAwaitingApproval(name string) *v1alpha1.ClusterOps {
	h.t.Helper()
	h.waitEvent(name, "AwaitingApproval")
	var op *v1alpha1.ClusterOps
	h.eventually(fmt.Sprintf("ClusterOps %s to show its plan", name), func() (bool, string) {
		var err error
		if op, err = h.getOp(name); err != nil {
			return false, err.Error()
		}
		st := op.Status.AtProvider
		if st.Phase == v1alpha1.OperationSucceeded || st.Phase == v1alpha1.OperationFailed {
			h.t.Fatalf("ClusterOps %s ended %s/%s while awaiting approval: %q", name, st.Phase, st.Reason, st.Message)
		}
		return st.Reason == "AwaitingApproval" && st.Plan != nil, fmt.Sprintf("%s/%s plan=%v", st.Phase, st.Reason, st.Plan != nil)
	})
	return op
}

// disruptionBudget creates the DisruptionBudget of
// examples/fleet/disruption-budget.yaml, named after the test's namespace
// and selecting the clusters labelled sel: the API server is shared with
// tests running in parallel, so it bounds only this test's clusters. It is
// deleted when the test ends.
func (h *harness) disruptionBudget(sel map[string]string) {
	h.t.Helper()
	db := h.fromExample("fleet/disruption-budget.yaml", func(u *unstructured.Unstructured) {
		u.SetName(h.ns)
		u.SetNamespace("")
		unstructured.RemoveNestedField(u.Object, "spec", "providerConfigRef")
		must(h.t, unstructured.SetNestedStringMap(u.Object, sel, "spec", "clusterSelector", "matchLabels"))
	})
	h.t.Cleanup(func() { _ = h.kube.Delete(context.Background(), db) })
}

// fleetExample creates the ClusterOps of examples/fleet/<file> as name.
func (h *harness) fleetExample(file, name string) {
	h.t.Helper()
	h.fromExample("fleet/"+file, func(u *unstructured.Unstructured) { u.SetName(name) })
}

// TestApproval: an operation with approval Required shows its plan and
// sends nothing until approved, then runs that plan; a plan that changed
// since it was shown is not run on the old approval. Judged by the
// simulator's journal, the operation's plan and its events.
func TestApproval(t *testing.T) {
	t.Run("ShowsItsPlanAndRunsItWhenApproved", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		_, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.fleetExample("rolling-restart-approval.yaml", "roll")
		op := h.waitAwaitingApproval("roll")
		plan := op.Status.AtProvider.Plan
		if len(plan.Targets) != 3 {
			t.Errorf("plan targets = %v, want the 3 nodes", plan.Targets)
		}
		for i, id := range nodes {
			if i < len(plan.Targets) && !strings.Contains(plan.Targets[i], "("+id+")") {
				t.Errorf("plan target %d = %q, want node %s with its hostname", i+1, plan.Targets[i], id)
			}
		}
		calls := []string{}
		for _, s := range plan.Steps {
			if s.Call != "" {
				calls = append(calls, s.Call)
			}
		}
		if len(calls) != 6 || !strings.HasSuffix(calls[0], nodes[0]+"/shutdown") || !strings.HasSuffix(calls[1], nodes[0]+"/restart") {
			t.Errorf("plan calls = %v, want a shutdown and a restart per node, node 1 first", calls)
		}
		if v := plan.Steps[0].Verdict; v != "ready" {
			t.Errorf("the first step's verdict = %q, want ready on a healthy cluster", v)
		}
		if n := h.sent("POST", "", 0); n != 0 {
			t.Fatalf("%d POSTs sent before approval, want none", n)
		}

		h.approve("roll")
		done := h.waitOp("roll", v1alpha1.OperationSucceeded)
		if s, r := h.sent("POST", "/shutdown", 0), h.sent("POST", "/restart", 0); s != 3 || r != 3 {
			t.Errorf("after approval: %d shutdowns and %d restarts sent, want 3 and 3 (the plan shown)", s, r)
		}
		if done.Status.AtProvider.ApprovedAt == nil || done.Status.AtProvider.Plan.ID != plan.ID {
			t.Errorf("approvedAt = %v, plan %v; want the approval recorded on the plan shown (%s)", done.Status.AtProvider.ApprovedAt, done.Status.AtProvider.Plan, plan.ID)
		}
		if !h.hasEvent("roll", "Approved") {
			t.Error("no Approved event")
		}
	})

	t.Run("AnUnapprovedPlanExpiresAndFreesTheQueue", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.fromExample("fleet/rolling-restart-approval.yaml", func(u *unstructured.Unstructured) {
			u.SetName("roll")
			must(t, unstructured.SetNestedField(u.Object, int64(3), "spec", "forProvider", "approvalTimeoutSeconds"))
		})
		h.waitAwaitingApproval("roll")
		h.operation("rebalance.yaml", "next", nil)

		op := h.waitOp("roll", v1alpha1.OperationFailed)
		if st := op.Status.AtProvider; st.Reason != "ApprovalExpired" || !strings.Contains(st.Message, "not approved within 3s") {
			t.Errorf("ended %s: %q, want ApprovalExpired naming its bound", st.Reason, st.Message)
		}
		h.waitOp("next", v1alpha1.OperationSucceeded)
		if n := h.sent("POST", "/shutdown", 0) + h.sent("POST", "/restart", 0); n != 0 {
			t.Errorf("%d node calls sent by an expired approval, want none", n)
		}
		if n := h.sent("POST", "/rebalance", 0); n != 1 {
			t.Errorf("the operation queued behind sent %d rebalances, want 1", n)
		}
	})

	t.Run("AChangedPlanIsNotRunOnAnOldApproval", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.fleetExample("rolling-restart-approval.yaml", "roll")
		h.waitAwaitingApproval("roll")

		// Someone adds a node with the backend's own tools.
		api, err := simplyblock.New(simplyblock.Config{BaseURL: h.sim.URL(), Token: adminToken, CABundle: h.sim.CACertPEM()})
		must(t, err)
		params := simplyblock.DefaultStorageNodeParams("10.0.9.9:5000", "eth0")
		params.Expand = true
		_, err = api.AddStorageNode(h.ctx, id, params)
		must(t, err)
		h.eventually("the fourth node to be listed", func() (bool, string) {
			n := len(h.sim.Nodes(id))
			return n == 4, fmt.Sprintf("%d nodes", n)
		})

		h.approve("roll")
		op := h.waitOp("roll", v1alpha1.OperationFailed)
		if st := op.Status.AtProvider; st.Reason != "PlanChanged" || !strings.Contains(st.Message, "its targets were [") {
			t.Errorf("ended %s: %q, want PlanChanged naming the old and new targets", st.Reason, st.Message)
		}
		if n := h.sent("POST", "/shutdown", 0) + h.sent("POST", "/restart", 0); n != 0 {
			t.Errorf("%d node calls sent on a changed plan, want none", n)
		}
		if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
			t.Errorf("lock still held by %+v", a)
		}
	})
}

// A windowClock is the clock maintenance windows are read on: it runs from
// base at the speed of real time, and a test moves it on.
type windowClock struct {
	mu     sync.Mutex
	base   time.Time
	start  time.Time
	offset time.Duration
}

func newWindowClock(base time.Time) *windowClock {
	return &windowClock{base: base, start: time.Now()}
}

func (c *windowClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base.Add(time.Since(c.start) + c.offset)
}

// set moves the clock to t.
func (c *windowClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset = t.Sub(c.base) - time.Since(c.start)
}

// TestMaintenanceWindow: a closed window delays an operation's start, and
// a rolling restart starts no new node after its window closed; it goes on
// when the window opens again. The window's clock is moved by the test; the
// window is the example's, Saturdays 02:00 to 06:00 in Berlin.
func TestMaintenanceWindow(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	must(t, err)
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, berlin) // a Saturday
	clk := newWindowClock(day)                        // midnight: the 02:00 window is closed
	h := newHarness(t, harnessOptions{windowNow: clk.Now})
	id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
	// Node 1's restart is held 2 s before the backend acts, so the window
	// closes while node 1 is down.
	h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/storage-nodes/*/restart", Count: 1,
		Delay: simulator.Duration(2 * time.Second), Before: true})
	h.fleetExample("rolling-restart-in-window.yaml", "roll")

	msg := h.waitEventWith("roll", "WaitingForWindow", "waits for its maintenance window")
	if !strings.Contains(msg, "opens at 2026-12-05 02:00 CET") {
		t.Errorf("the wait says %q, want it to name the next opening, 2026-12-05 02:00 CET", msg)
	}
	if n := h.sent("POST", "", 0); n != 0 {
		t.Fatalf("%d POSTs sent while the window was closed, want none", n)
	}
	if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
		t.Errorf("the lock is held by %+v while the operation waits for its window, want it free", a)
	}

	clk.set(day.Add(2 * time.Hour)) // the window opens
	h.eventually("node 1's shutdown", func() (bool, string) {
		return h.sent("POST", nodes[0]+"/shutdown", 0) == 1, "not yet"
	})
	clk.set(day.Add(6*time.Hour + time.Minute)) // and closes while node 1 is down

	msg = h.waitEventWith("roll", "WaitingForWindow", "closed")
	if want := fmt.Sprintf("it starts node 2/3 %s: shutdown when the window opens again at 2026-12-12 02:00 CET", nodes[1]); !strings.Contains(msg, want) {
		t.Errorf("the wait says %q, want %q", msg, want)
	}
	// Paused, it shows the node it restarted (#48: it read one node behind).
	if !strings.Contains(msg, "(1 of 3 nodes done") {
		t.Errorf("the wait says %q, want it to count node 1 done", msg)
	}
	if op, err := h.getOp("roll"); err != nil || op.Status.AtProvider.Progress == nil || op.Status.AtProvider.Progress.Done != 1 ||
		!strings.Contains(op.Status.AtProvider.Progress.Current, "node 2/3") {
		t.Errorf("progress while paused = %+v (%v), want 1 done, at node 2/3", op.Status.AtProvider.Progress, err)
	}
	if r, s := h.sent("POST", nodes[0]+"/restart", 0), h.sent("POST", nodes[1]+"/shutdown", 0); r != 1 || s != 0 {
		t.Fatalf("after the window closed: node 1 restarted %d times, node 2 shut down %d times; want 1 and 0", r, s)
	}
	if ok, bad := allNodes(h, id, simplyblock.NodeOnline); !ok {
		t.Errorf("the cluster is not whole while the operation waits: %s", bad)
	}

	reopened := time.Now()
	clk.set(day.AddDate(0, 0, 7).Add(2 * time.Hour)) // the next Saturday's window
	h.waitOp("roll", v1alpha1.OperationSucceeded)
	for _, e := range h.sim.Journal() {
		if e.Method == "POST" && strings.HasSuffix(e.Path, nodes[1]+"/shutdown") && e.Time.Before(reopened) {
			t.Errorf("node 2 was shut down at %s, before the window opened again (%s)", e.Time, reopened)
		}
	}
	if s, r := h.sent("POST", "/shutdown", 0), h.sent("POST", "/restart", 0); s != 3 || r != 3 {
		t.Errorf("%d shutdowns and %d restarts sent, want 3 and 3", s, r)
	}
}

// TestDisruptionBudget: with maxDisrupted 1, two disruptive operations on
// two selected clusters never overlap; judged by the simulator's journal
// and the operations' recorded completion.
func TestDisruptionBudget(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	// The API server is shared with tests running in parallel: the budget
	// selects only this test's clusters.
	sel := map[string]string{"fleet-test": h.ns}
	h.disruptionBudget(sel)

	ids := map[string]string{}
	for _, name := range []string{"a", "b"} {
		ids[name], _ = h.importCluster(name, simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		c := h.clusterObj(name)
		patch := client.MergeFrom(c.DeepCopy())
		c.SetLabels(sel)
		must(t, h.kube.Patch(h.ctx, c, patch))
	}
	for _, name := range []string{"a", "b"} {
		h.operation("restart.yaml", "restart-"+name, func(u *unstructured.Unstructured) {
			h.setField(u, name, "spec", "forProvider", "clusterIdRef", "name")
		})
	}
	done := map[string]*v1alpha1.ClusterOps{}
	for _, name := range []string{"a", "b"} {
		done[name] = h.waitOp("restart-"+name, v1alpha1.OperationSucceeded)
	}

	// Each cluster's calls, in the journal's order.
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, e := range h.sim.Journal() {
		for name, id := range ids {
			if e.Method == "POST" && strings.Contains(e.Path, "/clusters/"+id+"/") {
				if _, ok := first[name]; !ok {
					first[name] = e.Time
				}
				last[name] = e.Time
			}
		}
	}
	earlier, later := "a", "b"
	if first["b"].Before(first["a"]) {
		earlier, later = "b", "a"
	}
	if !first[later].After(last[earlier]) {
		t.Errorf("cluster %s's first call at %s came before cluster %s's last at %s: the two disruptive operations overlapped",
			later, first[later].Format(time.RFC3339Nano), earlier, last[earlier].Format(time.RFC3339Nano))
	}
	if c := done[earlier].Status.AtProvider.CompletedAt; c == nil || first[later].Before(c.Time) {
		t.Errorf("cluster %s's first call at %s came before restart-%s completed (%v)", later, first[later].Format(time.RFC3339Nano), earlier, c)
	}
	if h.hasEvent("restart-"+earlier, "WaitingForConcurrencySlot") || !h.hasEvent("restart-"+later, "WaitingForConcurrencySlot") {
		t.Errorf("want only restart-%s to have waited for a slot", later)
	}
	for _, name := range []string{"a", "b"} {
		if n := h.sent("POST", "/clusters/"+ids[name]+"/shutdown", 0); n != 1 {
			t.Errorf("cluster %s shut down %d times, want 1", name, n)
		}
	}
	got := &v1alpha1.DisruptionBudget{}
	must(t, h.kube.Get(h.ctx, client.ObjectKey{Name: h.ns}, got))
	if len(got.Status.Disrupting) != 0 || len(got.Status.Waiting) != 0 {
		t.Errorf("the budget still lists %+v and %+v, want every slot given back", got.Status.Disrupting, got.Status.Waiting)
	}
}
