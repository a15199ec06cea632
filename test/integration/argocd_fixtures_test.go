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

// The Argo CD health checks in examples/argocd/health/ are tested
// (test/argocd) against objects taken from these tests: TestArgoCDFixtures
// drives every kind to the states the health checks tell apart, asserts
// them, and, when ARGOCD_FIXTURES_DIR is set, writes each object there as
// YAML. To regenerate test/argocd/testdata/:
//
//	ARGOCD_FIXTURES_DIR=$PWD/test/argocd/testdata KUBEBUILDER_ASSETS=$(bash hack/envtest-binaries.sh) \
//	  go test ./test/integration -run TestArgoCDFixtures -count=1

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// fixturesDirEnv names the directory Argo CD health check fixtures are
// written to; unset, nothing is written.
const fixturesDirEnv = "ARGOCD_FIXTURES_DIR"

// fixture writes obj, as it is now in the API server, to
// $ARGOCD_FIXTURES_DIR/<name>.yaml: with apiVersion and kind, without
// metadata.managedFields and without any field that looks like secret data.
// It fails the test if a token or cluster secret the test knows of would be
// written. Without ARGOCD_FIXTURES_DIR it does nothing.
func (h *harness) fixture(name string, obj client.Object) {
	h.t.Helper()
	dir := os.Getenv(fixturesDirEnv)
	if dir == "" {
		return
	}
	gvk, err := apiutil.GVKForObject(obj, h.kube.Scheme())
	must(h.t, err)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	must(h.t, err)
	u["apiVersion"], u["kind"] = gvk.GroupVersion().String(), gvk.Kind
	unstructured.RemoveNestedField(u, "metadata", "managedFields")
	dropSecretLooking(u)
	b, err := yaml.Marshal(u)
	must(h.t, err)
	for _, s := range h.knownSecrets() {
		if s != "" && strings.Contains(string(b), s) {
			h.t.Fatalf("fixture %s would contain a token or cluster secret; not written", name)
		}
	}
	head := fmt.Sprintf("# %s %s, written by %s (test/integration/argocd_fixtures_test.go).\n", gvk.Kind, obj.GetName(), h.t.Name())
	must(h.t, os.MkdirAll(dir, 0o750))
	must(h.t, os.WriteFile(filepath.Join(dir, name+".yaml"), append([]byte(head), b...), 0o600))
}

// dropSecretLooking removes every map entry whose key names secret data.
func dropSecretLooking(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch strings.ToLower(k) {
			case "token", "password", "secret", "data", "stringdata":
				delete(v, k)
				continue
			}
			dropSecretLooking(e)
		}
	case []any:
		for _, e := range v {
			dropSecretLooking(e)
		}
	}
}

// knownSecrets are the credentials of this test's world: the tokens it
// uses and every cluster secret the simulator holds.
func (h *harness) knownSecrets() []string {
	s := []string{adminToken}
	for _, c := range h.sim.State().Clusters {
		s = append(s, c.Cluster.Secret)
	}
	return s
}

// await waits until cond holds for obj, read afresh from the API server,
// and writes obj as the fixture name.
func (h *harness) await(name string, obj client.Object, what string, cond func() (bool, string)) {
	h.t.Helper()
	h.eventually(what, func() (bool, string) {
		if err := h.get(obj); err != nil {
			return false, err.Error()
		}
		return cond()
	})
	h.fixture(name, obj)
}

// edit changes obj's spec or metadata, retrying on conflicts with the
// provider's status writes.
func (h *harness) edit(obj client.Object, change func()) {
	h.t.Helper()
	must(h.t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.get(obj); err != nil {
			return err
		}
		change()
		return h.kube.Update(h.ctx, obj)
	}))
}

func (h *harness) clusterOpsObj(name string) *v1alpha1.ClusterOps {
	op := &v1alpha1.ClusterOps{}
	op.SetNamespace(h.ns)
	op.SetName(name)
	return op
}

func (h *harness) nodeOpsObj(name string) *v1alpha1.StorageNodeOps {
	op := &v1alpha1.StorageNodeOps{}
	op.SetNamespace(h.ns)
	op.SetName(name)
	return op
}

func (h *harness) poolObj(name string) *v1alpha1.StoragePool {
	p := &v1alpha1.StoragePool{}
	p.SetNamespace(h.ns)
	p.SetName(name)
	return p
}

func (h *harness) clusterRef(name string) *v1alpha1.StorageCluster {
	c := &v1alpha1.StorageCluster{}
	c.SetNamespace(h.ns)
	c.SetName(name)
	return c
}

// opIs describes an operation status and reports whether it is in phase
// with reason (any reason when empty).
func opIs(st v1alpha1.OperationStatus, phase v1alpha1.OperationPhase, reason string) (bool, string) {
	return st.Phase == phase && (reason == "" || st.Reason == reason),
		fmt.Sprintf("phase=%s reason=%s message=%q", st.Phase, st.Reason, st.Message)
}

// condIs describes a condition and reports whether it has status and reason.
func condIs(c xpv2.Condition, status corev1.ConditionStatus, reason xpv2.ConditionReason) (bool, string) {
	return c.Status == status && c.Reason == reason, fmt.Sprintf("%s=%s reason=%s message=%q", c.Type, c.Status, c.Reason, c.Message)
}

// TestArgoCDFixtures drives every kind to the states the Argo CD health
// checks tell apart and asserts each; with ARGOCD_FIXTURES_DIR set it writes
// the objects as the health checks' test fixtures.
//
//nolint:gocyclo // each subtest is one linear story.
func TestArgoCDFixtures(t *testing.T) {
	t.Run("ClusterOpsQueueCancelTTLAndFailures", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})

		// A reference that does not resolve: the operation waits for its
		// target (until its precondition timeout).
		h.operation("rebalance.yaml", "orphan-rebalance", onCluster(h, "missing"))
		orphan := h.clusterOpsObj("orphan-rebalance")
		h.await("clusterops-pending-waiting-for-target", orphan, "orphan-rebalance to wait for its StorageCluster", func() (bool, string) {
			return opIs(orphan.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "WaitingForTarget")
		})

		// An Expand holding the cluster's lock, waiting for nodes that never come.
		h.operation("expand.yaml", "demo-expand", func(u *unstructured.Unstructured) { waiting(h, u) })
		hold := h.clusterOpsObj("demo-expand")
		h.await("clusterops-pending-waiting-for-precondition", hold, "demo-expand to wait for its precondition", func() (bool, string) {
			ok, desc := opIs(hold.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "WaitingForPrecondition")
			return ok && strings.Contains(hold.Status.AtProvider.Message, "waiting:"), desc
		})

		// Queued behind it.
		h.operation("rebalance.yaml", "demo-rebalance", nil)
		queued := h.clusterOpsObj("demo-rebalance")
		h.await("clusterops-pending-queued", queued, "demo-rebalance to queue", func() (bool, string) {
			ok, desc := opIs(queued.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "Queued")
			p := queued.Status.AtProvider.QueuePosition
			return ok && p != nil && *p == 1, desc
		})

		// Cancelling the holder fails it; the queued one then runs.
		h.edit(hold, func() { hold.Spec.ForProvider.Cancel = true })
		h.await("clusterops-failed-cancelled", hold, "demo-expand to be cancelled", func() (bool, string) {
			return opIs(hold.Status.AtProvider.OperationStatus, v1alpha1.OperationFailed, "Cancelled")
		})
		h.await("clusterops-succeeded", queued, "demo-rebalance to succeed", func() (bool, string) {
			return opIs(queued.Status.AtProvider.OperationStatus, v1alpha1.OperationSucceeded, "Completed")
		})
		if n := countPosts(h.sim, "/expand"); n != 0 {
			t.Errorf("the cancelled Expand sent %d expands, want 0", n)
		}

		// Deleted by its TTL and re-created (as Argo CD does): not run again.
		// The TTL is long enough for the re-created one to be recorded before
		// the TTL deletes it too (this writes a fixture; the lifecycle test
		// asserts the same by its event).
		ttl := func(u *unstructured.Unstructured) {
			h.setField(u, int64(5), "spec", "forProvider", "ttlSecondsAfterFinished")
		}
		h.operation("rebalance.yaml", "demo-rebalance-once", ttl)
		first := h.waitOp("demo-rebalance-once", v1alpha1.OperationSucceeded)
		h.eventually("the TTL to delete demo-rebalance-once", func() (bool, string) {
			_, err := h.getOp("demo-rebalance-once")
			return kerrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
		})
		h.operation("rebalance.yaml", "demo-rebalance-once", ttl)
		twin := h.clusterOpsObj("demo-rebalance-once")
		h.await("clusterops-succeeded-already-completed", twin, "the re-created demo-rebalance-once to be recognised", func() (bool, string) {
			ok, desc := opIs(twin.Status.AtProvider.OperationStatus, v1alpha1.OperationSucceeded, "AlreadyCompleted")
			return ok && twin.UID != first.UID && strings.Contains(twin.Status.AtProvider.Message, string(first.UID)), desc
		})
		if n := countPosts(h.sim, "/rebalance"); n != 2 {
			t.Errorf("POST /rebalance sent %d times, want 2 (demo-rebalance and the first demo-rebalance-once)", n)
		}

		// The backend refuses a shutdown with 409.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultFail, Method: "POST", Path: "/clusters/*/shutdown", Count: 1,
			Status: 409, Body: `{"detail":"Cluster is being modified by another request"}`})
		h.operation("shutdown.yaml", "demo-shutdown", nil)
		refused := h.clusterOpsObj("demo-shutdown")
		h.await("clusterops-failed-backend-rejected", refused, "demo-shutdown to be refused", func() (bool, string) {
			ok, desc := opIs(refused.Status.AtProvider.OperationStatus, v1alpha1.OperationFailed, "BackendRejected")
			return ok && strings.Contains(refused.Status.AtProvider.Message, "being modified by another request"), desc
		})
	})

	t.Run("ClusterOpsApprovalWindowAndBudget", func(t *testing.T) {
		t.Parallel()
		// Windows are read on a clock fixed on a Friday: the examples'
		// Saturday window is closed.
		berlin, err := time.LoadLocation("Europe/Berlin")
		must(t, err)
		h := newHarness(t, harnessOptions{windowNow: newWindowClock(time.Date(2026, 12, 4, 12, 0, 0, 0, berlin)).Now})
		sel := map[string]string{"fixtures": h.ns}
		h.disruptionBudget(sel)
		for _, name := range []string{"demo", "a", "b"} {
			h.importCluster(name, simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		}

		h.fleetExample("rolling-restart-approval.yaml", "demo-rolling-restart-approval")
		approval := h.clusterOpsObj("demo-rolling-restart-approval")
		h.await("clusterops-pending-awaiting-approval", approval, "the rolling restart to show its plan", func() (bool, string) {
			return opIs(approval.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "AwaitingApproval")
		})

		h.fleetExample("rolling-restart-in-window.yaml", "demo-rolling-restart-in-window")
		windowed := h.clusterOpsObj("demo-rolling-restart-in-window")
		h.await("clusterops-pending-waiting-for-window", windowed, "the rolling restart to wait for its window", func() (bool, string) {
			return opIs(windowed.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "WaitingForWindow")
		})

		// Cluster a's restart holds the budget's one slot: its start is
		// held by the backend for an hour.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/start", Count: 1,
			Delay: simulator.Duration(time.Hour), Before: true})
		for _, name := range []string{"a", "b"} {
			c := h.clusterObj(name)
			h.edit(c, func() { c.SetLabels(sel) })
		}
		h.operation("restart.yaml", "a-restart", onCluster(h, "a"))
		h.eventually("a-restart to take the budget's slot", func() (bool, string) {
			got := &v1alpha1.DisruptionBudget{}
			if err := h.kube.Get(h.ctx, client.ObjectKey{Name: h.ns}, got); err != nil {
				return false, err.Error()
			}
			return len(got.Status.Disrupting) == 1 && got.Status.Disrupting[0].Name == "a-restart", fmt.Sprintf("%+v", got.Status)
		})
		h.operation("restart.yaml", "b-restart", onCluster(h, "b"))
		waiting := h.clusterOpsObj("b-restart")
		h.await("clusterops-pending-waiting-for-concurrency-slot", waiting, "b-restart to wait for a slot", func() (bool, string) {
			return opIs(waiting.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "WaitingForConcurrencySlot")
		})
	})

	t.Run("ClusterOpsNodeRollingRestart", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("node-rolling-restart.yaml", "demo-rolling-restart", nil)
		op := h.clusterOpsObj("demo-rolling-restart")
		h.await("clusterops-running-node-rolling-restart", op, "the rolling restart to be past its first node", func() (bool, string) {
			ok, desc := opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationRunning, "")
			p := op.Status.AtProvider.Progress
			return ok && p != nil && p.Done >= 1 && p.Done < p.Total, desc
		})
		h.await("clusterops-succeeded-node-rolling-restart", op, "the rolling restart to succeed", func() (bool, string) {
			return opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationSucceeded, "Completed")
		})
	})

	t.Run("ClusterRestartAndShutdown", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		cluster := h.clusterRef("demo")

		// A Restart: its second step (start) runs while the cluster is
		// suspended, an outage the operation itself caused.
		h.operation("restart.yaml", "demo-restart", nil)
		op := h.clusterOpsObj("demo-restart")
		h.await("clusterops-running-restart", op, "the restart's start step to run", func() (bool, string) {
			ok, desc := opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationRunning, "")
			p := op.Status.AtProvider.Progress
			return ok && p != nil && p.Done == 1 && p.Total == 2, desc
		})
		h.await("storagecluster-unavailable-during-operation", cluster, "the cluster to be unavailable while demo-restart holds it", func() (bool, string) {
			ok, desc := condIs(cluster.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
			a := cluster.Status.AtProvider.ActiveOperation
			return ok && a != nil && a.Name == "demo-restart", desc
		})
		h.waitOp("demo-restart", v1alpha1.OperationSucceeded)

		// A Shutdown leaves the cluster suspended and its nodes offline.
		h.operation("shutdown.yaml", "demo-shutdown", nil)
		h.waitOp("demo-shutdown", v1alpha1.OperationSucceeded)
		h.await("storagecluster-unavailable-suspended", cluster, "the shut-down cluster to be unavailable", func() (bool, string) {
			ok, desc := condIs(cluster.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
			return ok && cluster.Status.AtProvider.Status == string(simplyblock.ClusterSuspended) && cluster.Status.AtProvider.ActiveOperation == nil, desc
		})
		node := h.node("demo-node-1")
		h.await("storagenode-unavailable-offline", node, "node 1 to be offline", func() (bool, string) {
			ok, desc := condIs(node.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
			return ok && node.Status.AtProvider.Status == string(simplyblock.NodeOffline), desc
		})
	})

	t.Run("StorageNodeOps", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		node := h.node("demo-node-1")
		h.await("storagenode-ready", node, "node 1 to be ready", func() (bool, string) {
			ok, desc := condIs(node.GetCondition(xpv2.TypeReady), corev1.ConditionTrue, xpv2.ReasonAvailable)
			synced := node.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionTrue
			return ok && synced, desc
		})

		// A node restart queues behind a cluster operation holding the lock.
		h.operation("expand.yaml", "demo-expand", func(u *unstructured.Unstructured) { waiting(h, u) })
		h.eventually("demo-expand to hold the cluster's lock", func() (bool, string) {
			a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
			return a != nil && a.Name == "demo-expand", fmt.Sprintf("%+v", a)
		})
		h.nodeOp("restart.yaml", "demo-node-1-restart", nil)
		op := h.nodeOpsObj("demo-node-1-restart")
		h.await("storagenodeops-pending-queued", op, "the node restart to queue", func() (bool, string) {
			ok, desc := opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationPending, "Queued")
			return ok && op.Status.AtProvider.QueuePosition != nil, desc
		})
		hold := h.clusterOpsObj("demo-expand")
		h.edit(hold, func() { hold.Spec.ForProvider.Cancel = true })
		h.await("storagenodeops-running", op, "the node restart to run", func() (bool, string) {
			ok, desc := opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationRunning, "")
			return ok && op.Status.AtProvider.Progress != nil, desc
		})
		h.await("storagenodeops-succeeded", op, "the node restart to succeed", func() (bool, string) {
			return opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationSucceeded, "Completed")
		})

		// The backend answers a suspend with a plain-text 500.
		h.sim.Faults().FailNext("POST", "/clusters/*/storage-nodes/*/suspend", 1, 500)
		h.nodeOp("suspend.yaml", "demo-node-1-suspend", nil)
		refused := h.nodeOpsObj("demo-node-1-suspend")
		h.await("storagenodeops-failed-backend-rejected", refused, "the suspend to be refused", func() (bool, string) {
			return opIs(refused.Status.AtProvider.OperationStatus, v1alpha1.OperationFailed, "BackendRejected")
		})
		if n := h.sim.Calls("POST", "/suspend"); n != 1 {
			t.Errorf("suspend sent %d times, want 1", n)
		}
	})

	t.Run("StorageNodeOpsAwaitingConfirmation", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// The backend holds the restart's shutdown past the client's timeout.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultDelay, Method: "POST", Path: "/clusters/*/storage-nodes/*/shutdown", Count: 1,
			Delay: simulator.Duration(time.Hour), Before: true})
		h.nodeOp("restart.yaml", "demo-node-1-restart", nil)
		op := h.nodeOpsObj("demo-node-1-restart")
		h.await("storagenodeops-running-awaiting-confirmation", op, "the node restart to wait for a confirmation", func() (bool, string) {
			return opIs(op.Status.AtProvider.OperationStatus, v1alpha1.OperationRunning, "AwaitingConfirmation")
		})
	})

	t.Run("OutagePauseAndReferences", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.fromExample("quickstart/20-pool.yaml", nil)
		cluster, node, pool := h.clusterRef("demo"), h.node("demo-node-1"), h.poolObj("demo-pool")
		h.await("storagecluster-ready", cluster, "the cluster to be ready", func() (bool, string) {
			return condIs(cluster.GetCondition(xpv2.TypeReady), corev1.ConditionTrue, xpv2.ReasonAvailable)
		})
		h.await("storagepool-ready", pool, "the pool to be ready", func() (bool, string) {
			return condIs(pool.GetCondition(xpv2.TypeReady), corev1.ConditionTrue, xpv2.ReasonAvailable)
		})
		h.eventually("node 1 to be ready", func() (bool, string) {
			if err := h.get(node); err != nil {
				return false, err.Error()
			}
			return condIs(node.GetCondition(xpv2.TypeReady), corev1.ConditionTrue, xpv2.ReasonAvailable)
		})

		// Node 1 becomes unreachable for three hours of backend time.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeOutage, NodeID: nodes[0], NodeStatus: simplyblock.NodeUnreachable,
			After: simulator.Duration(3 * time.Hour)})
		h.await("storagenode-unavailable-unreachable", node, "node 1 to be unreachable", func() (bool, string) {
			ok, desc := condIs(node.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
			return ok && node.Status.AtProvider.Status == string(simplyblock.NodeUnreachable), desc
		})
		// An unreachable node whose devices still serve does not count
		// against the cluster (storage_node_monitor.py:265-409); node 2 going
		// offline does: with one parity chunk, the cluster is degraded.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeOutage, NodeID: nodes[1], NodeStatus: simplyblock.NodeOffline,
			After: simulator.Duration(3 * time.Hour)})
		h.await("storagecluster-unavailable-degraded", cluster, "the cluster to be degraded", func() (bool, string) {
			ok, desc := condIs(cluster.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
			return ok && cluster.Status.AtProvider.Status == string(simplyblock.ClusterDegraded), desc
		})

		// The backend deactivates the pool.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultPoolInactive, PoolID: meta.GetExternalName(pool)})
		h.await("storagepool-unavailable-inactive", pool, "the pool to be inactive", func() (bool, string) {
			return condIs(pool.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonUnavailable)
		})

		// Paused by its annotation.
		h.edit(pool, func() { meta.AddAnnotations(pool, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"}) })
		h.await("storagepool-paused", pool, "the pool to be paused", func() (bool, string) {
			return condIs(pool.GetCondition(xpv2.TypeSynced), corev1.ConditionFalse, xpv2.ReasonReconcilePaused)
		})

		// A pool referencing a StorageCluster that does not exist.
		h.fromExample("quickstart/20-pool.yaml", func(u *unstructured.Unstructured) {
			u.SetName("orphan-pool")
			onCluster(h, "missing")(u)
		})
		orphan := h.poolObj("orphan-pool")
		h.await("storagepool-unresolved-reference", orphan, "orphan-pool to fail resolving its reference", func() (bool, string) {
			ok, desc := condIs(orphan.GetCondition(xpv2.TypeSynced), corev1.ConditionFalse, xpv2.ReasonReconcileError)
			return ok && strings.Contains(orphan.GetCondition(xpv2.TypeSynced).Message, "missing"), desc
		})
	})

	t.Run("BackendDown", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{endpoint: "https://127.0.0.1:1"})
		h.fromExample("quickstart/00-cluster.yaml", nil)
		cluster := h.clusterRef("demo")
		h.await("storagecluster-reconcile-error", cluster, "the cluster to report the unreachable backend", func() (bool, string) {
			ok, desc := condIs(cluster.GetCondition(xpv2.TypeSynced), corev1.ConditionFalse, xpv2.ReasonReconcileError)
			return ok && strings.Contains(cluster.GetCondition(xpv2.TypeSynced).Message, "connection refused"), desc
		})
	})

	t.Run("StorageNodeAddFails", func(t *testing.T) {
		t.Parallel()
		// Fast enough for the backend's 11 attempts with backoff (about 3.5
		// hours of backend time) to pass in seconds, slow enough to see the
		// retries.
		h := newHarness(t, harnessOptions{speed: 2000})
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeAddFailure, NodeAddress: "10.0.0.11:5000", Count: 11})
		h.fromExample("quickstart/00-cluster.yaml", nil)
		h.fromExample("quickstart/11-node-1.yaml", nil)
		node := h.node("demo-node-1")
		h.await("storagenode-creating", node, "the node add to be under way", func() (bool, string) {
			ok, desc := condIs(node.GetCondition(xpv2.TypeReady), corev1.ConditionFalse, xpv2.ReasonCreating)
			return ok && node.GetCondition(xpv2.TypeReady).Message != "", desc
		})
		h.await("storagenode-add-failed", node, "the node add to fail", func() (bool, string) {
			ok, desc := condIs(node.GetCondition(xpv2.TypeSynced), corev1.ConditionFalse, xpv2.ReasonReconcileError)
			return ok && strings.Contains(node.GetCondition(xpv2.TypeSynced).Message, "max retry reached"), desc
		})
	})
}
