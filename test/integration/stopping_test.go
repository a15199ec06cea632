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

	kerrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// deleteWhenSent deletes ClusterOps name once the simulator's journal shows
// a POST to a path ending in suffix (the call's record stays in the
// journal, so this cannot miss it).
func (h *harness) deleteWhenSent(name, suffix string) {
	h.t.Helper()
	h.eventually(fmt.Sprintf("%s to send POST …%s", name, suffix), func() (bool, string) {
		n := h.sent("POST", suffix, 0)
		return n > 0, fmt.Sprintf("%d sent", n)
	})
	op, err := h.getOp(name)
	must(h.t, err)
	must(h.t, h.kube.Delete(h.ctx, op))
}

// waitGone waits until ClusterOps name no longer exists.
func (h *harness) waitGone(name string) {
	h.t.Helper()
	h.eventually(fmt.Sprintf("ClusterOps %s to go away", name), func() (bool, string) {
		op, err := h.getOp(name)
		if kerrors.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		return false, fmt.Sprintf("%s %s %q", op.Status.AtProvider.Phase, op.Status.AtProvider.Reason, op.Status.AtProvider.Message)
	})
}

// TestDeletingARunningOperation: a deleted operation stops at its next safe
// point, never between two steps that only together leave the cluster
// whole, and then goes away with its record. Judged by the simulator's
// journal, the history record, the events and the backend's state.
func TestDeletingARunningOperation(t *testing.T) {
	t.Run("RollingRestartFinishesTheNodeItIsOn", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		// The first node's restart is held 2 s before the backend acts, so
		// the deletion (sent when the journal shows that node's shutdown)
		// lands while that node is down.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/storage-nodes/*/restart", Count: 1,
			Delay: simulator.Duration(2 * time.Second), Before: true})
		h.operation("node-rolling-restart.yaml", "roll", nil)
		h.deleteWhenSent("roll", "/shutdown")
		h.waitEvent("roll", "Stopping")
		h.waitGone("roll")

		if s, r := h.sent("POST", "/shutdown", 0), h.sent("POST", "/restart", 0); s != 1 || r != 1 {
			t.Errorf("shutdown sent %d times, restart %d times; want 1 and 1: the node it was on is finished, the next not started", s, r)
		}
		if ok, bad := allNodes(h, id, simplyblock.NodeOnline); !ok {
			t.Errorf("nodes not online after the stop: %s", bad)
		}
		rec := findRecord(h.clusterObj("demo"), "roll")
		want := fmt.Sprintf("stopped at a safe point, before node 2/3 %s: shutdown (1 of 3 nodes done)", nodes[1])
		if rec == nil || rec.Phase != v1alpha1.OperationFailed || rec.Reason != "DeletedWhileRunning" || !strings.Contains(rec.Message, want) {
			t.Fatalf("history record = %+v, want Failed/DeletedWhileRunning containing %q", rec, want)
		}
		if !strings.Contains(rec.Message, "cluster active, nodes: 3 online") {
			t.Errorf("history record message %q does not say the state the cluster was left in", rec.Message)
		}
		if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
			t.Errorf("lock still held by %+v", a)
		}
	})

	t.Run("RestartSendsItsStartAndATwinDoesNotRunAgain", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		// The start is held 2 s, so the deletion lands before the
		// operation could finish by itself.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/start", Count: 1,
			Delay: simulator.Duration(2 * time.Second), Before: true})
		h.operation("restart.yaml", "restart", nil)
		h.deleteWhenSent("restart", "/clusters/"+id+"/shutdown")
		h.waitGone("restart")

		if s, st := h.sent("POST", "/clusters/"+id+"/shutdown", 0), h.sent("POST", "/clusters/"+id+"/start", 0); s != 1 || st != 1 {
			t.Errorf("shutdown sent %d times, start %d times; want 1 and 1: a deleted Restart still brings the cluster back", s, st)
		}
		if c, _ := h.sim.Cluster(id); c.Status != simplyblock.ClusterActive {
			t.Errorf("cluster %s after the deleted restart, want active", c.Status)
		}
		rec := findRecord(h.clusterObj("demo"), "restart")
		if rec == nil || rec.Phase != v1alpha1.OperationSucceeded || rec.Reason != "DeletedWhileRunning" {
			t.Fatalf("history record = %+v, want Succeeded/DeletedWhileRunning", rec)
		}

		// Re-applying the same file (Argo CD after a prune) does not run it
		// again, and says what state the first run left the cluster in.
		h.operation("restart.yaml", "restart", nil)
		op := h.waitOp("restart", v1alpha1.OperationSucceeded)
		if st := op.Status.AtProvider; st.Reason != "AlreadyCompleted" || !strings.Contains(st.Message, "DeletedWhileRunning") ||
			!strings.Contains(st.Message, "was left with cluster active") {
			t.Errorf("re-created twin = %s %q, want AlreadyCompleted naming DeletedWhileRunning and the state the cluster was left in", st.Reason, st.Message)
		}
		if n := h.sent("POST", "/clusters/"+id+"/shutdown", 0); n != 1 {
			t.Errorf("shutdown sent %d times after the twin, want 1", n)
		}
	})
}
