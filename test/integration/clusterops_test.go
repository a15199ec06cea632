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
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// importCluster seeds a backend cluster and imports it as the StorageCluster
// "demo" of the quickstart, returning its id and node ids.
func (h *harness) importCluster(sc simulator.SeedCluster) (string, []string) {
	h.t.Helper()
	if sc.Name == "" {
		sc.Name = "seeded"
	}
	id, _, nodes := h.sim.Seed(sc)
	h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		h.setField(u, sc.Name, "spec", "forProvider", "name")
		meta.SetExternalName(u, id)
	})
	h.waitClusterReady("demo")
	return id, nodes
}

// operation creates a ClusterOps from examples/clusterops/<file>, named name.
func (h *harness) operation(file, name string, mutate func(u *unstructured.Unstructured)) {
	h.t.Helper()
	h.fromExample("clusterops/"+file, func(u *unstructured.Unstructured) {
		u.SetName(name)
		if mutate != nil {
			mutate(u)
		}
	})
}

// waitOp waits until the operation reaches phase and returns it.
func (h *harness) waitOp(name string, phase v1alpha1.OperationPhase) *v1alpha1.ClusterOps {
	h.t.Helper()
	op := &v1alpha1.ClusterOps{}
	op.SetNamespace(h.ns)
	op.SetName(name)
	h.eventually(fmt.Sprintf("ClusterOps %s to be %s", name, phase), func() (bool, string) {
		if err := h.get(op); err != nil {
			return false, err.Error()
		}
		st := op.Status.AtProvider
		return st.Phase == phase, fmt.Sprintf("phase=%s reason=%s message=%q", st.Phase, st.Reason, st.Message)
	})
	return op
}

func TestClusterOpsActivate(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, _ := h.importCluster(simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterUnready})
	h.operation("activate.yaml", "activate", nil)
	op := h.waitOp("activate", v1alpha1.OperationSucceeded)
	if c, _ := h.sim.Cluster(id); c.Status != simplyblock.ClusterActive {
		t.Errorf("cluster status = %s, want active", c.Status)
	}
	if n := h.sim.Calls("POST", "/activate"); n != 1 {
		t.Errorf("POST /activate sent %d times, want 1", n)
	}
	t.Logf("status: %+v", op.Status.AtProvider)
}
