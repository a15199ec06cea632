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

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// gitOpsOperations is how many operations the GitOps cycle runs on one
// cluster: more than the status history's 50 and the ledger's 200 whole
// records, so run-once rests on compacted records too.
const gitOpsOperations = 230

// TestOperationLedger: an operation that ran never runs again by being
// re-created, whatever happened to its target's status in between
// (docs/operations-engine.md, "The ledger").
func TestOperationLedger(t *testing.T) {
	t.Run("AGitOpsCycleOfHundredsOfOperations", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		// Most are Activates of the active cluster, which end NothingToDo
		// at once; one in 46 is a Rebalance, whose call the backend
		// counts.
		files := map[string]string{}
		var names []string
		rebalances := 0
		for i := range gitOpsOperations {
			n, f := fmt.Sprintf("activate-%03d", i), "activate.yaml"
			if i%46 == 0 {
				n, f = fmt.Sprintf("rebalance-%03d", i), "rebalance.yaml"
				rebalances++
			}
			names, files[n] = append(names, n), f
		}
		// Each file of the Git repository runs once and its TTL deletes
		// it; they queue on the cluster's lock and run one after another.
		for _, n := range names {
			h.operation(files[n], n, ttlOf(h, 1))
		}
		h.waitAllGone(len(names))
		if n := countPosts(h.sim, "/rebalance"); n != rebalances {
			t.Fatalf("POST /rebalance sent %d times for %d Rebalances", n, rebalances)
		}
		if got := len(h.clusterObj("demo").Status.AtProvider.OperationHistory); got != v1alpha1.MaxOperationHistory {
			t.Errorf("status history holds %d records, want its bound %d: the older ones are only in the ledger", got, v1alpha1.MaxOperationHistory)
		}

		// Argo CD re-creates every file the TTL deleted.
		for _, n := range names {
			h.operation(files[n], n, ttlOf(h, 1))
		}
		h.eventuallyWithin(4*time.Minute, "every re-created operation to end AlreadyCompleted", func() (bool, string) {
			done := h.eventsFor("AlreadyCompleted")
			var missing []string
			for _, n := range names {
				if !done[n] {
					missing = append(missing, n)
				}
			}
			return len(missing) == 0, fmt.Sprintf("%d of %d not yet, e.g. %v", len(missing), len(names), first(missing, 3))
		})
		if n := countPosts(h.sim, "/rebalance"); n != rebalances {
			t.Errorf("POST /rebalance sent %d times for %d Rebalances each re-created once: a re-created operation ran again", n, rebalances)
		}
		if n := countPosts(h.sim, "/activate"); n != 0 {
			t.Errorf("POST /activate sent %d times to an active cluster", n)
		}
	})

	t.Run("AReimportedClusterKeepsItsLedger", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{managementPolicies: true})
		id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("rebalance.yaml", "once", nil)
		h.waitOp("once", v1alpha1.OperationSucceeded)

		// The StorageCluster is deleted without deleting the backend
		// cluster (a mistaken delete that observe-only management
		// protected, or a move to another management cluster), and
		// imported again from Git: its status starts empty.
		sc := h.clusterObj("demo")
		h.edit(sc, func() { sc.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve} })
		h.deleteOp("once")
		must(t, h.kube.Delete(h.ctx, sc))
		h.eventually("the StorageCluster to be gone", func() (bool, string) {
			err := h.get(&v1alpha1.StorageCluster{ObjectMeta: sc.ObjectMeta})
			return client.IgnoreNotFound(err) == nil && err != nil, fmt.Sprintf("get: %v", err)
		})
		h.fromExample("quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
			u.SetName("demo")
			h.setField(u, "demo-backend", "spec", "forProvider", "name")
			meta.SetExternalName(u, id)
		})
		h.waitClusterReady("demo")
		if hist := h.clusterObj("demo").Status.AtProvider.OperationHistory; len(hist) != 0 {
			t.Fatalf("the re-imported StorageCluster has a history %+v; the test needs it empty", hist)
		}

		h.operation("rebalance.yaml", "once", nil)
		op := h.waitOp("once", v1alpha1.OperationSucceeded)
		if st := op.Status.AtProvider; st.Reason != ops.ReasonAlreadyCompleted {
			t.Errorf("re-created after the re-import: %s %q, want AlreadyCompleted", st.Reason, st.Message)
		}
		if n := countPosts(h.sim, "/rebalance"); n != 1 {
			t.Errorf("POST /rebalance sent %d times, want 1: the re-created operation ran again after the re-import", n)
		}
	})

	t.Run("ARestoreWithoutStatusDoesNotRunAgain", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("rebalance.yaml", "once", nil)
		h.waitOp("once", v1alpha1.OperationSucceeded)

		// A backup restored without status (Velero's default for custom
		// resources) gives the StorageCluster back without its history; the
		// ledger is a ConfigMap's data and comes back whole.
		must(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			sc := h.clusterObj("demo")
			sc.Status.AtProvider.OperationHistory = nil
			return h.kube.Status().Update(h.ctx, sc)
		}))
		h.deleteOp("once")
		cm := &corev1.ConfigMap{}
		must(t, h.kube.Get(h.ctx, types.NamespacedName{Namespace: h.ns, Name: ops.LedgerName(id)}, cm))
		if !strings.Contains(cm.Data["recent"], `"name":"once"`) {
			t.Fatalf("ledger %s has no record of once:\n%s", cm.GetName(), cm.Data["recent"])
		}

		h.operation("rebalance.yaml", "once", nil)
		op := h.waitOp("once", v1alpha1.OperationSucceeded)
		if st := op.Status.AtProvider; st.Reason != ops.ReasonAlreadyCompleted {
			t.Errorf("re-created after the restore: %s %q, want AlreadyCompleted", st.Reason, st.Message)
		}
		if n := countPosts(h.sim, "/rebalance"); n != 1 {
			t.Errorf("POST /rebalance sent %d times, want 1: the re-created operation ran again after the restore", n)
		}
	})
}

// ttlOf sets an operation's ttlSecondsAfterFinished.
func ttlOf(h *harness, seconds int64) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		h.setField(u, seconds, "spec", "forProvider", "ttlSecondsAfterFinished")
	}
}

// waitAllGone waits until the namespace's n ClusterOps were all deleted
// by their TTL.
func (h *harness) waitAllGone(n int) {
	h.t.Helper()
	h.eventuallyWithin(4*time.Minute, fmt.Sprintf("the %d operations to run and be deleted by their TTL", n), func() (bool, string) {
		l := &v1alpha1.ClusterOpsList{}
		if err := h.kube.List(h.ctx, l, client.InNamespace(h.ns)); err != nil {
			return false, err.Error()
		}
		return len(l.Items) == 0, fmt.Sprintf("%d left", len(l.Items))
	})
}

// deleteOp deletes a finished ClusterOps and waits until it is gone.
func (h *harness) deleteOp(name string) {
	h.t.Helper()
	op, err := h.getOp(name)
	must(h.t, err)
	must(h.t, h.kube.Delete(h.ctx, op))
	h.eventually("ClusterOps "+name+" to be gone", func() (bool, string) {
		_, err := h.getOp(name)
		return client.IgnoreNotFound(err) == nil && err != nil, fmt.Sprintf("get: %v", err)
	})
}

// eventsFor returns the names of the objects an event with reason was
// recorded for.
func (h *harness) eventsFor(reason string) map[string]bool {
	l := &corev1.EventList{}
	out := map[string]bool{}
	if err := h.kube.List(h.ctx, l, client.InNamespace(h.ns)); err != nil {
		return out
	}
	for _, e := range l.Items {
		if e.Reason == reason {
			out[e.InvolvedObject.Name] = true
		}
	}
	return out
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
