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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// waiting makes an Expand that holds its cluster's lock and waits for more
// nodes than the cluster has, until it is cancelled or deleted.
func waiting(h *harness, u *unstructured.Unstructured) {
	h.setField(u, int64(10), "spec", "forProvider", "expand", "expectedNodes")
}

// onCluster points an operation at another StorageCluster.
func onCluster(h *harness, name string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		h.setField(u, name, "spec", "forProvider", "clusterIdRef", "name")
	}
}

func TestClusterOpsQueue(t *testing.T) {
	t.Run("RunsOneAfterAnotherInCreationOrder", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		// a-hold holds the lock while it waits for nodes that never come, so
		// the queue behind it stands still and its positions can be read.
		h.operation("expand.yaml", "a-hold", func(u *unstructured.Unstructured) { waiting(h, u) })
		h.operation("shutdown.yaml", "b-shutdown", nil)
		h.operation("start.yaml", "c-start", nil)
		h.operation("rebalance.yaml", "d-rebalance", nil)
		for i, n := range []string{"b-shutdown", "c-start", "d-rebalance"} {
			h.eventually(fmt.Sprintf("%s at queue position %d", n, i+1), func() (bool, string) {
				op, err := h.getOp(n)
				if err != nil {
					return false, err.Error()
				}
				st := op.Status.AtProvider
				desc := fmt.Sprintf("%s/%s %v: %s", st.Phase, st.Reason, st.QueuePosition, st.Message)
				return st.Reason == "Queued" && st.QueuePosition != nil && *st.QueuePosition == int64(i+1), desc
			})
		}
		hold := h.clusterOpsObj("a-hold")
		h.edit(hold, func() { hold.Spec.ForProvider.Cancel = true })
		h.waitOp("a-hold", v1alpha1.OperationFailed)
		for _, n := range []string{"b-shutdown", "c-start", "d-rebalance"} {
			h.waitOp(n, v1alpha1.OperationSucceeded)
		}

		// The backend saw the three calls in creation order.
		var order []string
		for _, e := range h.sim.Journal() {
			for _, action := range []string{"/shutdown", "/start", "/rebalance"} {
				if e.Method == "POST" && matchSuffix(e.Path, action) {
					order = append(order, action)
				}
			}
		}
		if got := strings.Join(order, " "); got != "/shutdown /start /rebalance" {
			t.Errorf("backend calls in order %q, want /shutdown /start /rebalance", got)
		}
		// Each started only after the one before it finished (history order).
		hist := h.clusterObj("demo").Status.AtProvider.OperationHistory
		var names []string
		for _, r := range hist {
			names = append(names, r.Name)
		}
		if got := strings.Join(names, " "); got != "a-hold b-shutdown c-start d-rebalance" {
			t.Errorf("history %q, want a-hold b-shutdown c-start d-rebalance", got)
		}
		for i := 1; i < len(hist); i++ {
			if hist[i].StartedAt.Before(hist[i-1].CompletedAt) {
				t.Errorf("%s started at %s, before %s completed at %s", hist[i].Name, hist[i].StartedAt, hist[i-1].Name, hist[i-1].CompletedAt)
			}
		}
	})

	t.Run("TwoClustersRunInParallel", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.importCluster("demo2", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("expand.yaml", "hold-1", func(u *unstructured.Unstructured) { waiting(h, u) })
		h.operation("expand.yaml", "hold-2", func(u *unstructured.Unstructured) { waiting(h, u); onCluster(h, "demo2")(u) })
		for _, n := range []string{"hold-1", "hold-2"} {
			h.eventually(n+" to hold its cluster's lock", func() (bool, string) {
				op, err := h.getOp(n)
				if err != nil {
					return false, err.Error()
				}
				st := op.Status.AtProvider
				return st.StartedAt != nil && st.Reason == "WaitingForPrecondition", st.Reason + ": " + st.Message
			})
		}
		// Created later (creation times tie within a second, then names
		// decide), it queues behind hold-1 only.
		h.operation("rebalance.yaml", "behind-1", nil)
		h.eventually("behind-1 to queue", func() (bool, string) {
			op, err := h.getOp("behind-1")
			if err != nil {
				return false, err.Error()
			}
			return op.Status.AtProvider.Reason != "", op.Status.AtProvider.Reason
		})
		op, err := h.getOp("behind-1")
		must(t, err)
		if st := op.Status.AtProvider; st.Reason != "Queued" || st.QueuePosition == nil || *st.QueuePosition != 1 {
			t.Errorf("behind-1 = %s #%v (%s), want Queued #1 behind hold-1", st.Reason, st.QueuePosition, st.Message)
		}
		for cluster, holder := range map[string]string{"demo": "hold-1", "demo2": "hold-2"} {
			if a := h.clusterObj(cluster).Status.AtProvider.ActiveOperation; a == nil || a.Name != holder {
				t.Errorf("StorageCluster %s is locked by %+v, want %s", cluster, a, holder)
			}
		}
	})

	t.Run("DeletingTheRunningOneLetsTheNextProceed", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("expand.yaml", "hold", func(u *unstructured.Unstructured) { waiting(h, u) })
		h.eventually("hold to take the lock", func() (bool, string) {
			a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
			return a != nil && a.Name == "hold", fmt.Sprintf("%+v", a)
		})
		h.operation("rebalance.yaml", "next", nil)
		h.eventually("next to queue", func() (bool, string) {
			op, err := h.getOp("next")
			if err != nil {
				return false, err.Error()
			}
			return op.Status.AtProvider.Reason == "Queued", op.Status.AtProvider.Reason
		})
		hold, err := h.getOp("hold")
		must(t, err)
		must(t, h.kube.Delete(h.ctx, hold))
		h.waitOp("next", v1alpha1.OperationSucceeded)
		rec := findRecord(h.clusterObj("demo"), "hold")
		if rec == nil || rec.Reason != "Deleted" || rec.Phase != v1alpha1.OperationFailed {
			t.Errorf("history record of the deleted operation = %+v, want Failed/Deleted", rec)
		}
		if n := countPosts(h.sim, "/expand"); n != 0 {
			t.Errorf("the deleted operation sent %d expands, want 0", n)
		}
	})

	t.Run("ALockHeldByADeletedOperationIsTakenOver", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		sc := h.clusterObj("demo")
		sc.Status.AtProvider.ActiveOperation = &v1alpha1.OperationReference{Name: "ghost", UID: types.UID("00000000-0000-0000-0000-000000000001"), Type: "Restart"}
		must(t, h.kube.Status().Update(h.ctx, sc))
		h.operation("rebalance.yaml", "heir", nil)
		h.waitOp("heir", v1alpha1.OperationSucceeded)
		if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
			t.Errorf("lock still held by %+v", a)
		}
		if !h.hasEvent("heir", "LockTakenOver") {
			t.Errorf("no LockTakenOver event on heir")
		}
	})
}

func TestClusterOpsLifecycle(t *testing.T) {
	t.Run("TTLDeletesTheObjectHistoryKeepsItAndARecreationDoesNotRun", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		ttl := func(u *unstructured.Unstructured) {
			h.setField(u, int64(1), "spec", "forProvider", "ttlSecondsAfterFinished")
		}
		// Its Succeeded status lasts the 1 s TTL: the outcome is judged by
		// the history record, not by catching the status.
		first := h.fromExample("clusterops/rebalance.yaml", func(u *unstructured.Unstructured) {
			u.SetName("once")
			ttl(u)
		})
		h.eventually("the TTL to delete the finished operation", func() (bool, string) {
			op, err := h.getOp("once")
			if err != nil {
				return client.IgnoreNotFound(err) == nil, err.Error()
			}
			return false, fmt.Sprintf("still there: %s %s", op.Status.AtProvider.Phase, op.Status.AtProvider.Reason)
		})
		rec := findRecord(h.clusterObj("demo"), "once")
		if rec == nil || rec.UID != first.GetUID() || rec.Phase != v1alpha1.OperationSucceeded {
			t.Fatalf("history record = %+v, want the Succeeded run %s", rec, first.GetUID())
		}

		// Argo CD re-creates the object that disappeared. It ends at once (and
		// its 1 s TTL deletes it again), so its outcome is judged by the
		// event it records, not by catching its status.
		h.operation("rebalance.yaml", "once", ttl)
		h.eventually("the re-created operation's AlreadyCompleted event naming the first run", func() (bool, string) {
			l := &corev1.EventList{}
			if err := h.kube.List(h.ctx, l, client.InNamespace(h.ns)); err != nil {
				return false, err.Error()
			}
			for _, e := range l.Items {
				if e.InvolvedObject.Name == "once" && e.Reason == "AlreadyCompleted" {
					return strings.Contains(e.Message, string(first.GetUID())), e.Message
				}
			}
			return false, "no AlreadyCompleted event yet"
		})
		if n := countPosts(h.sim, "/rebalance"); n != 1 {
			t.Errorf("POST /rebalance sent %d times, want 1: the re-created operation must not run", n)
		}
	})

	t.Run("CancellingAQueuedOperationSendsNothing", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, harnessOptions{})
		h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
		h.operation("expand.yaml", "hold", func(u *unstructured.Unstructured) { waiting(h, u) })
		h.eventually("hold to take the lock", func() (bool, string) {
			a := h.clusterObj("demo").Status.AtProvider.ActiveOperation
			return a != nil && a.Name == "hold", fmt.Sprintf("%+v", a)
		})
		h.operation("shutdown.yaml", "queued", nil)
		h.eventually("queued to queue", func() (bool, string) {
			op, err := h.getOp("queued")
			if err != nil {
				return false, err.Error()
			}
			return op.Status.AtProvider.Reason == "Queued", op.Status.AtProvider.Reason
		})
		journal := len(h.sim.Journal())
		for _, n := range []string{"queued", "hold"} {
			op, err := h.getOp(n)
			must(t, err)
			op.Spec.ForProvider.Cancel = true
			must(t, h.kube.Update(h.ctx, op))
			if st := h.waitOp(n, v1alpha1.OperationFailed).Status.AtProvider; st.Reason != "Cancelled" {
				t.Errorf("%s ended %s (%s), want Cancelled", n, st.Reason, st.Message)
			}
		}
		for _, e := range h.sim.Journal()[journal:] {
			if e.Method != "GET" {
				t.Errorf("cancelling sent %s %s to the backend", e.Method, e.Path)
			}
		}
		if a := h.clusterObj("demo").Status.AtProvider.ActiveOperation; a != nil {
			t.Errorf("the cancelled operation still holds the lock: %+v", a)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func findRecord(sc *v1alpha1.StorageCluster, name string) *v1alpha1.OperationRecord {
	h := sc.Status.AtProvider.OperationHistory
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Name == name {
			return &h[i]
		}
	}
	return nil
}

// hasEvent reports whether an event with reason was recorded for the
// ClusterOps named name.
func (h *harness) hasEvent(name, reason string) bool {
	l := &corev1.EventList{}
	if err := h.kube.List(h.ctx, l, client.InNamespace(h.ns)); err != nil {
		return false
	}
	for _, e := range l.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason {
			return true
		}
	}
	return false
}
