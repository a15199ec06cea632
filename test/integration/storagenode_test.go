package integration

import (
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenode"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

func (h *harness) node(name string) *v1alpha1.StorageNode {
	cr := &v1alpha1.StorageNode{}
	cr.SetName(name)
	cr.SetNamespace(h.ns)
	return cr
}

func TestStorageNodeLifecycle(t *testing.T) {
	h := newHarness(t, harnessOptions{speed: 500})
	h.fromExample("quickstart/00-cluster.yaml", nil)
	h.fromExample("quickstart/11-node-1.yaml", nil)
	clusterID := meta.GetExternalName(h.waitClusterReady("demo"))

	// Add: the task id is recorded, the node record is adopted when it appears.
	cr := h.node("demo-node-1")
	h.eventually("node online and adopted", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		ready := conditionOf(cr.Status.Conditions, xpv2.TypeReady)
		return ready.Status == corev1.ConditionTrue && meta.GetExternalName(cr) != "", ready.Message
	})
	taskID := cr.GetAnnotations()[storagenode.AnnotationAddTask]
	if taskID == "" || cr.Status.AtProvider.AddTask == nil || cr.Status.AtProvider.AddTask.ID != taskID {
		t.Errorf("add task annotation %q and atProvider.addTask %+v disagree", taskID, cr.Status.AtProvider.AddTask)
	}
	nodes := h.sim.Nodes(clusterID)
	if len(nodes) != 1 || nodes[0].ID != meta.GetExternalName(cr) || nodes[0].MgmtIP != "10.0.0.11" {
		t.Fatalf("backend nodes = %+v, want one node at 10.0.0.11 adopted as %s", nodes, meta.GetExternalName(cr))
	}
	if n := h.sim.Calls("POST", "/storage-nodes/"); n != 1 {
		t.Errorf("POST /storage-nodes/ reached the backend %d times, want exactly 1", n)
	}

	// Remove: the backend keeps a removed record; the resource goes away.
	must(t, h.kube.Delete(h.ctx, cr))
	h.eventually("node removed", func() (bool, string) {
		err := h.get(cr)
		status := ""
		for _, n := range h.sim.Nodes(clusterID) {
			status = string(n.Status)
		}
		return kerrors.IsNotFound(err) && status == string(simplyblock.NodeRemoved), "backend status " + status
	})
}

func TestStorageNodeAddFails(t *testing.T) {
	// Speed high enough for the backend's 11 retries with backoff (about
	// 3.5 hours of backend time) to pass in seconds.
	h := newHarness(t, harnessOptions{speed: 20000})
	h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultNodeAddFailure, NodeAddress: "10.0.0.11:5000", Count: 11})
	h.fromExample("quickstart/00-cluster.yaml", nil)
	h.fromExample("quickstart/11-node-1.yaml", nil)

	cr := h.node("demo-node-1")
	h.eventually("the backend's failure as a condition", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		c := conditionOf(cr.Status.Conditions, xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "max retry reached"), c.Message
	})
	if n := h.sim.Calls("POST", "/storage-nodes/"); n != 1 {
		t.Errorf("POST /storage-nodes/ reached the backend %d times, want 1 (the backend retries by itself)", n)
	}

	// A failed node can still be deleted.
	must(t, h.kube.Delete(h.ctx, cr))
	h.eventually("failed node deleted", func() (bool, string) {
		err := h.get(cr)
		return kerrors.IsNotFound(err), "still present"
	})
}

func TestStorageNodeImportByExternalName(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	clusterID, _, nodeIDs := h.sim.Seed(simulator.SeedCluster{Name: "existing", Nodes: 2, Status: simplyblock.ClusterActive, NodeAddressPrefix: "10.9.0."})
	h.fromExample("quickstart/11-node-1.yaml", func(u *unstructured.Unstructured) {
		unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "clusterIdRef")
		h.setField(u, clusterID, "spec", "forProvider", "clusterId")
		h.setField(u, h.sim.Nodes(clusterID)[1].MgmtIP+":5000", "spec", "forProvider", "nodeAddress")
		meta.SetExternalName(u, nodeIDs[1])
	})
	cr := h.node("demo-node-1")
	h.eventually("imported node Ready", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		c := conditionOf(cr.Status.Conditions, xpv2.TypeReady)
		return c.Status == corev1.ConditionTrue, c.Message
	})
	if cr.Status.AtProvider.ID != nodeIDs[1] {
		t.Errorf("atProvider.id = %q, want %q", cr.Status.AtProvider.ID, nodeIDs[1])
	}
	if n := h.sim.Calls("POST", "/storage-nodes/"); n != 0 {
		t.Errorf("an import sent %d node adds, want 0", n)
	}
}
