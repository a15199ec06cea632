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
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// sent counts the journal's calls of method to paths ending in suffix that
// the simulator answered with status (any status when 0).
func (h *harness) sent(method, suffix string, status int) int {
	n := 0
	for _, e := range h.sim.Journal() {
		if e.Method == method && strings.HasSuffix(e.Path, suffix) && (status == 0 || e.Status == status) {
			n++
		}
	}
	return n
}

// waitEvent waits until an event with reason was recorded for the object
// named name.
func (h *harness) waitEvent(name, reason string) {
	h.t.Helper()
	h.eventually(fmt.Sprintf("an event %s on %s", reason, name), func() (bool, string) {
		return h.hasEvent(name, reason), "not yet"
	})
}

// TestOperationsThatFollowOneAnother: operations queued one after another
// on the same cluster, each judged by the simulator's journal, the
// recorded events and the backend's final state.
func TestOperationsThatFollowOneAnother(t *testing.T) {
	t.Run("ResumeRightAfterSuspendResumes", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// A Suspend and a Resume per node, queued together in that order
		// (created within a second, so their names order them): each Resume
		// decides right after its Suspend's call.
		for i := range nodes {
			node := fmt.Sprintf("demo-node-%d", i+1)
			h.nodeOp("suspend.yaml", fmt.Sprintf("node-%d-a-suspend", i+1), onNode(h, node))
			h.nodeOp("resume.yaml", fmt.Sprintf("node-%d-b-resume", i+1), onNode(h, node))
		}
		for i, nid := range nodes {
			h.waitNodeOp(fmt.Sprintf("node-%d-a-suspend", i+1), v1alpha1.OperationSucceeded)
			op := h.waitNodeOp(fmt.Sprintf("node-%d-b-resume", i+1), v1alpha1.OperationSucceeded)
			if st := op.Status.AtProvider; st.Reason != "Completed" {
				t.Errorf("node-%d-b-resume = %s %q, want Completed: the node was suspended when it took its turn", i+1, st.Reason, st.Message)
			}
			if got := h.nodeStatus(id, nid); got != simplyblock.NodeOnline {
				t.Errorf("node %d is %s after a Suspend and a Resume, want online", i+1, got)
			}
		}
		if s, r := h.sent("POST", "/suspend", 204), h.sent("POST", "/resume", 204); s != 3 || r != 3 {
			t.Errorf("suspend sent %d times, resume %d times; want 3 and 3", s, r)
		}
	})

	t.Run("NodeRestartWaitsForTheMigrationsOfTheRestartBefore", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// The first restart's return queues data migrations for the node;
		// the backend refuses the second one's graceful shutdown while they
		// run (409 "Migration task found").
		h.nodeOp("restart.yaml", "first", nil)
		h.nodeOp("restart.yaml", "second", nil)
		h.waitNodeOp("first", v1alpha1.OperationSucceeded)
		h.waitNodeOp("second", v1alpha1.OperationSucceeded)
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOnline {
			t.Errorf("node 1 is %s, want online", got)
		}
		if n := h.sent("POST", "/shutdown", 202); n != 2 {
			t.Errorf("shutdown accepted %d times, want 2 (one per restart)", n)
		}
		if n := h.sent("POST", "/restart", 202); n != 2 {
			t.Errorf("restart accepted %d times, want 2", n)
		}
	})

	t.Run("ShutdownRefusedForNowIsSentAgain", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultFail, Method: "POST", Path: "/clusters/*/storage-nodes/*/shutdown", Count: 1,
			Status: 409, Body: fmt.Sprintf(`{"detail":"Migration task found: t-1, cannot shutdown node %s"}`, nodes[0])})
		h.nodeOp("shutdown.yaml", "op", nil)
		h.waitNodeOp("op", v1alpha1.OperationSucceeded)
		h.waitEvent("op", "RefusedForNow")
		if refused, accepted := h.sent("POST", "/shutdown", 409), h.sent("POST", "/shutdown", 202); refused != 1 || accepted != 1 {
			t.Errorf("shutdown refused %d and accepted %d times, want 1 and 1: a refusal that passes is waited out and sent again", refused, accepted)
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOffline {
			t.Errorf("node 1 is %s, want offline", got)
		}
	})

	t.Run("SilentlyRefusedShutdownIsSentAgain", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// After its 202 the backend drops a graceful shutdown while an lvol
		// migration runs, which the API does not show.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultSilentRefusal, Method: "POST", Path: "/clusters/*/storage-nodes/*/shutdown", Count: 1})
		h.nodeOp("shutdown.yaml", "op", nil)
		h.waitNodeOp("op", v1alpha1.OperationSucceeded)
		h.waitEvent("op", "RefusedForNow")
		if n := h.sent("POST", "/shutdown", 202); n != 2 {
			t.Errorf("shutdown accepted %d times, want 2: the silently refused one, and the one sent again", n)
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOffline {
			t.Errorf("node 1 is %s, want offline", got)
		}
	})

	t.Run("LateOriginalOfALostShutdownIsNotSentTwice", func(t *testing.T) {
		t.Parallel()
		// The client gives up after 5 s; the backend holds the shutdown for
		// 8 s and applies it then. A re-send after the evidence grace (3 s)
		// would be followed by the late original, taking the restarted node
		// down again.
		h := newHarness(t, harnessOptions{holdLimit: 15 * time.Second})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/storage-nodes/*/shutdown", Count: 1,
			Delay: simulator.Duration(8 * time.Second), Before: true})
		h.nodeOp("restart.yaml", "op", nil)
		h.waitNodeOp("op", v1alpha1.OperationSucceeded)
		if n := h.sent("POST", "/shutdown", 0); n != 1 {
			t.Errorf("shutdown sent %d times, want 1: the late original was the evidence", n)
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOnline {
			t.Errorf("node 1 is %s after the restart, want online", got)
		}
	})

	t.Run("LostShutdownBeforeARestartWaitsForTheUser", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// The backend holds the shutdown past the client's timeout (and for
		// the rest of the test): it may or may not arrive, and the node's
		// restart follows.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/storage-nodes/*/shutdown", Count: 1,
			Delay: simulator.Duration(time.Hour), Before: true})
		h.nodeOp("restart.yaml", "op", nil)
		h.waitEvent("op", "AwaitingConfirmation")
		op := &v1alpha1.StorageNodeOps{}
		op.SetNamespace(h.ns)
		op.SetName("op")
		// The event is recorded before the status that goes with it is
		// written; the operation then waits in that status until the user
		// decides, so it is no transient to miss.
		h.eventually("the status to ask for confirmation", func() (bool, string) {
			must(t, h.get(op))
			st := op.Status.AtProvider
			return st.Reason == "AwaitingConfirmation", fmt.Sprintf("%s %q", st.Reason, st.Message)
		})
		if st := op.Status.AtProvider; !strings.Contains(st.Message, `confirmResend to "0/1"`) {
			t.Fatalf("status = %s %q, want AwaitingConfirmation naming the token 0/1", st.Reason, st.Message)
		}
		h.edit(op, func() { op.Spec.ForProvider.ConfirmResend = "0/1" })
		h.waitNodeOp("op", v1alpha1.OperationSucceeded)
		h.waitEvent("op", "ResendConfirmed")
		if n := h.sent("POST", "/shutdown", 202); n != 1 {
			t.Errorf("shutdown accepted %d times, want 1 (the confirmed re-send)", n)
		}
		must(t, h.get(op))
		var audit []string
		for _, c := range op.Status.AtProvider.Calls {
			audit = append(audit, fmt.Sprintf("%s %d %s", c.Step, c.StatusCode, strings.SplitN(c.Result, ":", 2)[0]))
		}
		if want := "shutdown 0 Ambiguous, shutdown 200 Accepted, restart 200 Accepted"; strings.Join(audit, ", ") != want {
			t.Errorf("call audit = %s, want %s", strings.Join(audit, ", "), want)
		}
		if got := h.nodeStatus(id, nodes[0]); got != simplyblock.NodeOnline {
			t.Errorf("node 1 is %s after the restart, want online", got)
		}
	})
}
