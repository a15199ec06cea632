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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// TestNodeMigration: a StorageNodeOps Migrate moves a node to another host
// and the StorageNode follows it; a restart at the new address that the
// backend drops ends naming the node's state.
func TestNodeMigration(t *testing.T) {
	t.Run("TheStorageNodeFollowsTheMove", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		h.nodeOp("migrate.yaml", "move", nil)
		op := h.waitNodeOp("move", v1alpha1.OperationSucceeded)
		if st := op.Status.AtProvider; st.Reason != "Completed" {
			t.Errorf("move = %s %q, want Completed", st.Reason, st.Message)
		}
		var moved simplyblock.StorageNodeDTO
		for _, n := range h.sim.Nodes(id) {
			if n.ID == nodes[0] {
				moved = n
			}
		}
		if moved.MgmtIP != "10.0.0.21" || moved.Status != simplyblock.NodeOnline {
			t.Fatalf("node 1 in the backend = %s at %s, want online at 10.0.0.21 with the same UUID", moved.Status, moved.MgmtIP)
		}
		node := h.node("demo-node-1")
		h.eventually("the StorageNode to show the new host", func() (bool, string) {
			if err := h.get(node); err != nil {
				return false, err.Error()
			}
			at := node.Status.AtProvider
			return at.MgmtIP == "10.0.0.21", fmt.Sprintf("mgmtIp=%s", at.MgmtIP)
		})
		for _, ct := range []xpv2.ConditionType{xpv2.TypeReady, xpv2.TypeSynced} {
			if c := conditionOf(node.Status.Conditions, ct); c.Status != corev1.ConditionTrue {
				t.Errorf("StorageNode %s = %s (%s): a moved node is neither drift nor gone", ct, c.Status, c.Message)
			}
		}
		if n := h.sent("POST", "/storage-nodes/", 0); n != 0 {
			t.Errorf("POST storage-nodes/ sent %d times: the provider must never add the moved node again", n)
		}
		if s, r, p := h.sent("POST", "/shutdown", 0), h.sent("POST", "/restart", 0), h.sent("POST", "/promote", 0); s != 1 || r != 1 || p != 1 {
			t.Errorf("shutdown, restart, promote sent %d, %d, %d times; want once each", s, r, p)
		}
	})

	t.Run("ADroppedRestartAtTheNewAddressNamesTheNodeState", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, nodes := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importNodes(id, nodes)
		// The new host's agent cannot be reached: the backend answers the
		// restart with its 202 and does nothing.
		h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultSilentRefusal, Method: "POST", Path: "/clusters/*/storage-nodes/*/restart", Count: 1})
		h.nodeOp("migrate.yaml", "move", nil)
		op := h.waitNodeOp("move", v1alpha1.OperationFailed)
		st := op.Status.AtProvider
		want := fmt.Sprintf("now: node %s is offline at ", nodes[0])
		if st.Reason != "NoEffect" || !strings.Contains(st.Message, "restart at 10.0.0.21:5000") || !strings.Contains(st.Message, want) {
			t.Errorf("move = %s %q, want NoEffect naming the restart at the new address and %q", st.Reason, st.Message, want)
		}
		if n := h.sent("POST", "/promote", 0); n != 0 {
			t.Errorf("promote sent %d times after a restart that did not happen", n)
		}
	})
}
