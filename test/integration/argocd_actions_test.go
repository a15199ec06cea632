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

// TestArgoCDActions runs the Argo CD resource actions shipped in
// examples/argocd/actions/ as Argo CD runs them: the Lua runs in the
// sandbox Argo CD gives actions (test/argocd/sandbox) on the live object,
// read from the API server as unstructured JSON; an object the action
// creates is created (after a dry run, as Argo CD does), and a patch is
// sent as Argo CD sends it, the merge patch from the live object to the
// one the action returned.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
	"github.com/simplyblock/provider-simplyblock/test/argocd/sandbox"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// liveObject reads an object of the provider's group as Argo CD holds it:
// unstructured, decoded from the API server's JSON.
func (h *harness) liveObject(kind, name string) *unstructured.Unstructured {
	h.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(v1alpha1.SchemeGroupVersion.String())
	u.SetKind(kind)
	u.SetNamespace(h.ns)
	u.SetName(name)
	must(h.t, h.get(u))
	return u
}

// actionScript reads a script of examples/argocd/actions/<group>/<kind>/actions/.
func actionScript(t *testing.T, kind, file string) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	must(t, err)
	b, err := os.ReadFile(filepath.Join(root, "examples", "argocd", "actions", v1alpha1.SchemeGroupVersion.Group, kind, "actions", file)) //nolint:gosec // scripts from the repository.
	must(t, err)
	return string(b)
}

// runArgoCDAction runs the action named action on the live object kind/name
// as Argo CD runs it at now, with params (the UI's form; Argo CD 3.1 and
// later): the discovery must enable it, then each resource it returns is
// created or patched. It returns what the action returned, and the merge
// patch it sent for a patch.
func (h *harness) runArgoCDAction(kind, name, action string, params map[string]string, now time.Time) ([]sandbox.ImpactedResource, string) {
	h.t.Helper()
	sb := sandbox.Sandbox{Now: func() time.Time { return now }}
	live := h.liveObject(kind, name)
	offered, err := sb.Discover(actionScript(h.t, kind, "discovery.lua"), live.Object)
	must(h.t, err)
	if a, ok := offered[action]; !ok || a.Disabled {
		h.t.Fatalf("the discovery of %s %s does not enable %s: %+v", kind, name, action, offered)
	}
	res, err := sb.RunAction(actionScript(h.t, kind, filepath.Join(action, "action.lua")), live.DeepCopy().Object, params)
	if err != nil {
		h.t.Fatalf("action %s on %s %s: %v", action, kind, name, err)
	}
	patch := ""
	for _, r := range res {
		switch r.Operation {
		case sandbox.OperationCreate:
			// Argo CD creates every resource with a dry run first.
			must(h.t, h.kube.Create(h.ctx, r.Resource.DeepCopy(), client.DryRunAll))
			must(h.t, h.kube.Create(h.ctx, r.Resource.DeepCopy()))
		case sandbox.OperationPatch:
			b, err := sandbox.MergePatch(live.Object, r.Resource.Object)
			must(h.t, err)
			patch = string(b)
			if strings.Contains(patch, `"status"`) {
				h.t.Fatalf("action %s patches the status (Argo CD would send that part to the status subresource): %s", action, patch)
			}
			must(h.t, h.kube.Patch(h.ctx, live, client.RawPatch(types.MergePatchType, b)))
		}
	}
	return res, patch
}

func TestArgoCDActions(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
	cluster := h.clusterObj("demo")
	rebalances := func() int { return countPosts(h.sim, fmt.Sprintf("/clusters/%s/rebalance", id)) }
	// Each action runs a minute after the one before, so each names its
	// operation differently (names are dated to the second).
	start := time.Now().UTC().Truncate(time.Second)
	at := func(n int) time.Time { return start.Add(time.Duration(n) * time.Minute) }
	opName := func(n int) string { return "demo-rebalance-" + at(n).Format("20060102-150405") }

	t.Run("RebalanceRunsToSucceeded", func(t *testing.T) {
		res, _ := h.runArgoCDAction("StorageCluster", "demo", "rebalance", map[string]string{}, at(0))
		if len(res) != 1 || res[0].Operation != sandbox.OperationCreate || res[0].Resource.GetName() != opName(0) {
			t.Fatalf("the action returned %+v, want one ClusterOps %s to create", res, opName(0))
		}
		op := h.waitOp(opName(0), v1alpha1.OperationSucceeded)

		refs := op.GetOwnerReferences()
		if len(refs) != 1 || refs[0].Kind != "StorageCluster" || refs[0].Name != "demo" || refs[0].UID != cluster.UID ||
			refs[0].Controller == nil || *refs[0].Controller {
			t.Errorf("ownerReferences = %+v, want one to StorageCluster demo (uid %s), not as controller", refs, cluster.UID)
		}
		wantLabels := map[string]string{
			"simplyblock.m.crossplane.io/argocd-action": "rebalance",
			"simplyblock.m.crossplane.io/cluster":       "demo",
			"simplyblock.m.crossplane.io/cluster-uid":   string(cluster.UID),
		}
		if diff := cmp.Diff(wantLabels, op.GetLabels()); diff != "" {
			t.Errorf("labels: -want, +got:\n%s", diff)
		}
		fp := op.Spec.ForProvider
		if fp.Type != "Rebalance" || fp.ClusterIDRef == nil || fp.ClusterIDRef.Name != "demo" || fp.Approval != "" {
			t.Errorf("spec.forProvider = %+v, want a Rebalance of StorageCluster demo without approval", fp)
		}
		st := op.Status.AtProvider
		if !st.Triggered || st.StartedAt == nil || st.CompletedAt == nil || st.Reason != "Completed" {
			t.Errorf("status = %+v, want triggered and Completed with start and completion times", st)
		}
		if n := rebalances(); n != 1 {
			t.Errorf("POST /clusters/%s/rebalance sent %d times, want once", id, n)
		}
		rec := findRecord(h.clusterObj("demo"), opName(0))
		if rec == nil || rec.UID != op.UID || rec.Phase != v1alpha1.OperationSucceeded {
			t.Errorf("the cluster's history has %+v for %s, want a Succeeded record of uid %s", rec, opName(0), op.UID)
		}
		offered, err := sandbox.Sandbox{}.Discover(actionScript(t, "ClusterOps", "discovery.lua"), h.liveObject("ClusterOps", opName(0)).Object)
		must(t, err)
		if !offered["approve"].Disabled || !offered["cancel"].Disabled {
			t.Errorf("on the finished operation the discovery offers %+v, want approve and cancel disabled", offered)
		}
	})

	t.Run("CancelWhileAwaitingApproval", func(t *testing.T) {
		h.runArgoCDAction("StorageCluster", "demo", "rebalance", map[string]string{"approval": "Required"}, at(1))
		h.waitAwaitingApproval(opName(1))
		_, patch := h.runArgoCDAction("ClusterOps", opName(1), "cancel", map[string]string{}, at(2))
		if patch != `{"spec":{"forProvider":{"cancel":true}}}` {
			t.Errorf("cancel sent the merge patch %s, want only spec.forProvider.cancel", patch)
		}
		op := h.waitOp(opName(1), v1alpha1.OperationFailed)
		if op.Status.AtProvider.Reason != "Cancelled" || op.Status.AtProvider.ApprovedAt != nil {
			t.Errorf("status = %+v, want Failed/Cancelled, never approved", op.Status.AtProvider)
		}
		if n := rebalances(); n != 1 {
			t.Errorf("POST /clusters/%s/rebalance sent %d times, want once (the cancelled operation sends nothing)", id, n)
		}
	})

	t.Run("ApproveRunsThePlan", func(t *testing.T) {
		h.runArgoCDAction("StorageCluster", "demo", "rebalance", map[string]string{"approval": "Required"}, at(3))
		shown := h.waitAwaitingApproval(opName(3))
		if n := rebalances(); n != 1 {
			t.Errorf("POST /clusters/%s/rebalance sent %d times while the operation awaits approval, want once (the first operation's)", id, n)
		}
		_, patch := h.runArgoCDAction("ClusterOps", opName(3), "approve", map[string]string{}, at(4))
		if patch != `{"spec":{"forProvider":{"approved":true}}}` {
			t.Errorf("approve sent the merge patch %s, want only spec.forProvider.approved", patch)
		}
		op := h.waitOp(opName(3), v1alpha1.OperationSucceeded)
		st := op.Status.AtProvider
		if st.ApprovedAt == nil || st.Plan == nil || st.Plan.ID != shown.Status.AtProvider.Plan.ID || st.Reason != "Completed" {
			t.Errorf("status = %+v, want Completed, approved, with the plan %s it showed", st, shown.Status.AtProvider.Plan.ID)
		}
		if !h.hasEvent(opName(3), "Approved") {
			t.Errorf("no event Approved on %s", opName(3))
		}
		if n := rebalances(); n != 2 {
			t.Errorf("POST /clusters/%s/rebalance sent %d times, want twice (the first and the approved operation)", id, n)
		}
		var got []string
		for _, r := range h.clusterObj("demo").Status.AtProvider.OperationHistory {
			got = append(got, fmt.Sprintf("%s %s %s", r.Name, r.Phase, r.Reason))
		}
		want := []string{
			opName(0) + " Succeeded Completed",
			opName(1) + " Failed Cancelled",
			opName(3) + " Succeeded Completed",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the cluster's operation history: -want, +got:\n%s", diff)
		}
	})
}
