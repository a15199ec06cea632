package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagecluster"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// waitClusterReady waits until the StorageCluster is Ready and Synced and
// returns it.
func (h *harness) waitClusterReady(name string) *v1alpha1.StorageCluster {
	h.t.Helper()
	cr := &v1alpha1.StorageCluster{}
	cr.SetName(name)
	cr.SetNamespace(h.ns)
	h.eventually("StorageCluster "+name+" Ready", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		ready, synced := conditionOf(cr.Status.Conditions, xpv2.TypeReady), conditionOf(cr.Status.Conditions, xpv2.TypeSynced)
		return ready.Status == corev1.ConditionTrue && synced.Status == corev1.ConditionTrue,
			"ready=" + string(ready.Status) + " synced=" + string(synced.Status) + ": " + synced.Message + ready.Message
	})
	return cr
}

func TestStorageClusterLifecycle(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		h.setField(u, "lifecycle", "spec", "forProvider", "name")
		h.setField(u, map[string]any{"name": "demo-conn"}, "spec", "writeConnectionSecretToRef")
	})

	// Create and observe: the backend UUID becomes the external name.
	cr := h.waitClusterReady("demo")
	id := meta.GetExternalName(cr)
	got, ok := h.sim.Cluster(id)
	if !ok {
		t.Fatalf("external name %q is not a simulator cluster", id)
	}
	if cr.Status.AtProvider.Status != string(simplyblock.ClusterUnready) || cr.Status.AtProvider.NQN != got.NQN {
		t.Errorf("atProvider = %+v, want status unready and nqn %s", cr.Status.AtProvider, got.NQN)
	}
	if n := h.sim.Calls("POST", "/clusters/"); n != 1 {
		t.Errorf("POST /clusters/ reached the backend %d times, want 1", n)
	}

	// Connection details carry the id, NQN and secret.
	secret := &corev1.Secret{}
	h.eventually("connection secret", func() (bool, string) {
		err := h.kube.Get(h.ctx, types.NamespacedName{Namespace: h.ns, Name: "demo-conn"}, secret)
		return err == nil, "not yet written"
	})
	if string(secret.Data[storagecluster.ConnectionKeyClusterID]) != id || string(secret.Data[storagecluster.ConnectionKeySecret]) != got.Secret {
		t.Errorf("connection secret keys = %v, want cluster id and secret", keys(secret.Data))
	}

	// Update: a rename reaches the backend.
	must(t, h.get(cr))
	cr.Spec.ForProvider.Name = "renamed"
	must(t, h.kube.Update(h.ctx, cr))
	h.eventually("rename in the backend", func() (bool, string) {
		c, _ := h.sim.Cluster(id)
		return c.Name != nil && *c.Name == "renamed", "backend name is " + deref(c.Name)
	})

	// Delete: the cluster goes away in the backend, then the resource.
	must(t, h.kube.Delete(h.ctx, cr))
	h.eventually("cluster deleted", func() (bool, string) {
		_, exists := h.sim.Cluster(id)
		err := h.get(cr)
		return !exists && kerrors.IsNotFound(err), "backend exists=" + boolString(exists)
	})
}

func TestStorageClusterImport(t *testing.T) {
	// An hour's poll: the imported cluster's state must show from the first
	// reconcile (adding the finalizer must not lose it until the next poll).
	h := newHarness(t, harnessOptions{poll: time.Hour})
	id, _, _ := h.sim.Seed(simulator.SeedCluster{Name: "existing", Nodes: 3, Status: simplyblock.ClusterActive})

	h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		h.setField(u, "existing", "spec", "forProvider", "name")
		meta.SetExternalName(u, id)
	})
	cr := h.waitClusterReady("demo")
	if cr.Status.AtProvider.Status != string(simplyblock.ClusterActive) || cr.Status.AtProvider.ID != id {
		t.Errorf("atProvider = %+v, want the imported active cluster %s", cr.Status.AtProvider, id)
	}
	if n := h.sim.Calls("POST", "/clusters/"); n != 0 {
		t.Errorf("an import sent %d creates, want 0", n)
	}
}

// TestStorageClusterBadCases covers refusals that must surface as
// conditions, with nothing created in the backend.
func TestStorageClusterBadCases(t *testing.T) {
	cases := map[string]struct {
		reason  string
		opts    harnessOptions
		wantMsg string
	}{
		"WrongToken": {
			reason:  "A token the backend does not know is reported as unauthorized.",
			opts:    harnessOptions{token: "not-a-valid-token"},
			wantMsg: "unauthorized",
		},
		"BackendDown": {
			reason:  "A control plane that refuses connections is reported, and nothing is sent.",
			opts:    harnessOptions{endpoint: "https://127.0.0.1:1"},
			wantMsg: "connection refused",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			h.fromExample("quickstart/00-cluster.yaml", nil)
			cr := &v1alpha1.StorageCluster{}
			cr.SetName("demo")
			cr.SetNamespace(h.ns)
			h.eventually("a Synced=False condition", func() (bool, string) {
				if err := h.get(cr); err != nil {
					return false, err.Error()
				}
				c := conditionOf(cr.Status.Conditions, xpv2.TypeSynced)
				return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, tc.wantMsg), c.Message
			})
			if meta.GetExternalName(cr) != "" {
				t.Errorf("%s\nexternal name = %q, want none", tc.reason, meta.GetExternalName(cr))
			}
			if n := len(h.sim.State().Clusters); n != 0 {
				t.Errorf("%s\nthe backend holds %d clusters, want 0", tc.reason, n)
			}
			msg := conditionOf(cr.Status.Conditions, xpv2.TypeSynced).Message
			if strings.Contains(msg, tc.opts.token) && tc.opts.token != "" {
				t.Errorf("%s\nthe condition message contains the token: %s", tc.reason, msg)
			}
		})
	}
}

func TestStorageClusterDeleteWithNodes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, _, _ := h.sim.Seed(simulator.SeedCluster{Name: "busy", Nodes: 3, Status: simplyblock.ClusterActive})
	h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		h.setField(u, "busy", "spec", "forProvider", "name")
		meta.SetExternalName(u, id)
	})
	cr := h.waitClusterReady("demo")
	must(t, h.kube.Delete(h.ctx, cr))

	h.eventually("the backend's refusal as a condition", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		c := conditionOf(cr.Status.Conditions, xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "Storage nodes found"), c.Message
	})
	if _, exists := h.sim.Cluster(id); !exists {
		t.Fatal("the backend cluster is gone, want it kept while nodes exist")
	}
	if cr.GetDeletionTimestamp() == nil {
		t.Error("the StorageCluster lost its deletion timestamp")
	}
}

// TestStorageClusterDeleteWaitsForItsOperation: a StorageCluster deleted
// while an operation holds its lock is not deleted in the backend until the
// operation finished; its condition names the operation.
func TestStorageClusterDeleteWaitsForItsOperation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
	h.operation("expand.yaml", "hold", func(u *unstructured.Unstructured) { waiting(h, u) })
	h.eventually("hold to take the lock", func() (bool, string) {
		a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
		return a != nil && a.Name == "hold", fmt.Sprintf("%+v", a)
	})
	cr := h.clusterObj("demo")
	must(t, h.kube.Delete(h.ctx, cr))
	h.eventually("the deletion to wait for the operation", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		c := conditionOf(cr.Status.Conditions, xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "waiting for ClusterOps hold (Expand) to finish"), c.Message
	})
	if n := h.sent("DELETE", "/clusters/"+id+"/", 0); n != 0 {
		t.Errorf("DELETE of the cluster sent %d times while hold ran, want none", n)
	}
	hold := h.clusterOpsObj("hold")
	h.edit(hold, func() { hold.Spec.ForProvider.Cancel = true })
	h.waitOp("hold", v1alpha1.OperationFailed)
	// Released, the deletion goes on (the backend refuses it while nodes
	// are attached, which the condition then says).
	h.eventually("the deletion to be sent", func() (bool, string) {
		n := h.sent("DELETE", "/clusters/"+id+"/", 0)
		return n > 0, fmt.Sprintf("%d DELETEs", n)
	})
}

// TestStorageNodeDeleteWaitsForAnOperationOnItsCluster: a StorageNode is not
// removed in the backend while an operation holds its cluster's lock (a
// rolling restart or an upgrade would lose a node halfway); the condition
// names the operation.
func TestStorageNodeDeleteWaitsForAnOperationOnItsCluster(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
	h.importNodes(id, nodes)
	h.operation("expand.yaml", "hold", func(u *unstructured.Unstructured) { waiting(h, u) })
	h.eventually("hold to take the lock", func() (bool, string) {
		a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
		return a != nil && a.Name == "hold", fmt.Sprintf("%+v", a)
	})
	node := h.node("demo-node-3")
	// Deleted before its controller added the finalizer, the node would be
	// gone at once, with nothing to wait.
	h.eventually("demo-node-3 to be managed (its finalizer added)", func() (bool, string) {
		if err := h.get(node); err != nil {
			return false, err.Error()
		}
		return len(node.GetFinalizers()) > 0, fmt.Sprintf("finalizers %v", node.GetFinalizers())
	})
	must(t, h.kube.Delete(h.ctx, node))
	h.eventually("the removal to wait for the operation", func() (bool, string) {
		if err := h.get(node); err != nil {
			return false, err.Error()
		}
		c := conditionOf(node.Status.Conditions, xpv2.TypeSynced)
		return c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "waiting for ClusterOps hold (Expand) to finish on its StorageCluster demo"), c.Message
	})
	if n := h.sent("DELETE", "/storage-nodes/"+nodes[2]+"/", 0); n != 0 {
		t.Errorf("DELETE of the node sent %d times while hold ran, want none", n)
	}
	hold := h.clusterOpsObj("hold")
	h.edit(hold, func() { hold.Spec.ForProvider.Cancel = true })
	h.waitOp("hold", v1alpha1.OperationFailed)
	h.eventually("the removal to be sent", func() (bool, string) {
		n := h.sent("DELETE", "/storage-nodes/"+nodes[2]+"/", 0)
		return n > 0, fmt.Sprintf("%d DELETEs", n)
	})
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
