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

package argocd

// The fixtures in testdata/ are real objects, written by the integration
// test TestArgoCDFixtures (test/integration/argocd_fixtures_test.go), which
// drives each kind into the state a fixture is named after against a real
// kube-apiserver, the provider's controllers and the simplyblock simulator.
// Regenerate them with
//
//	ARGOCD_FIXTURES_DIR=$PWD/test/argocd/testdata KUBEBUILDER_ASSETS=$(bash hack/envtest-binaries.sh) \
//	  go test ./test/integration -run TestArgoCDFixtures -count=1
//
// Regenerated objects carry new UUIDs and timing-dependent messages: update
// the expected messages below from the test's diff after checking that
// each still says the right thing.

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// healthOfFile runs the health check of the fixture's kind against it.
func healthOfFile(t *testing.T, path string, mutate func(u *unstructured.Unstructured)) health {
	t.Helper()
	u, err := loadObject(path)
	if err != nil {
		t.Fatal(err)
	}
	if g := u.GroupVersionKind().Group; g != group {
		t.Fatalf("%s is a %s of group %q, want group %s", path, u.GetKind(), g, group)
	}
	if mutate != nil {
		mutate(u)
	}
	script, err := os.ReadFile(scriptPath(u.GetKind())) //nolint:gosec // scripts from the repository.
	if err != nil {
		t.Fatalf("no health check for %s: %v", u.GetKind(), err)
	}
	h, err := runHealth(string(script), u.Object)
	if err != nil {
		t.Fatalf("health check of %s failed on %s: %v", u.GetKind(), path, err)
	}
	return h
}

// setCondition replaces (or adds) the condition of type ct.
func setCondition(t *testing.T, u *unstructured.Unstructured, ct, status, reason, message string) {
	t.Helper()
	conds, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]any{"type": ct, "status": status, "reason": reason, "lastTransitionTime": "2026-11-30T06:00:00Z"}
	if message != "" {
		c["message"] = message
	}
	out := []any{c}
	for _, e := range conds {
		if m, ok := e.(map[string]any); !ok || m["type"] != ct {
			out = append(out, e)
		}
	}
	if err := unstructured.SetNestedSlice(u.Object, out, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
}

// setOpStatus sets an operation's phase, reason and message (none when
// message is empty), and drops its queue position, which only a queued
// operation has.
func setOpStatus(t *testing.T, u *unstructured.Unstructured, phase, reason, message string) {
	t.Helper()
	for field, value := range map[string]string{"phase": phase, "reason": reason, "message": message} {
		if value == "" {
			unstructured.RemoveNestedField(u.Object, "status", "atProvider", field)
			continue
		}
		if err := unstructured.SetNestedField(u.Object, value, "status", "atProvider", field); err != nil {
			t.Fatal(err)
		}
	}
	unstructured.RemoveNestedField(u.Object, "status", "atProvider", "queuePosition")
}

// awaitApproval turns an operation into one with approval Required that
// shows its plan and waits, Pending/AwaitingApproval, with message.
func awaitApproval(t *testing.T, u *unstructured.Unstructured, message string) {
	t.Helper()
	if err := unstructured.SetNestedField(u.Object, "Required", "spec", "forProvider", "approval"); err != nil {
		t.Fatal(err)
	}
	plan := map[string]any{"id": "5d0c1f2a9b3e", "computedAt": "2026-12-01T09:00:00Z",
		"steps": []any{map[string]any{"name": "rebalance", "verdict": "ready"}}}
	if err := unstructured.SetNestedMap(u.Object, plan, "status", "atProvider", "plan"); err != nil {
		t.Fatal(err)
	}
	setOpStatus(t, u, "Pending", "AwaitingApproval", message)
}

func TestHealth(t *testing.T) {
	type args struct {
		fixture string
		mutate  func(t *testing.T, u *unstructured.Unstructured)
	}
	cases := map[string]struct {
		reason string
		args   args
		want   health
	}{
		// ClusterOps: health follows status.atProvider.phase.
		"ClusterOpsWaitingForTarget": {
			reason: "An operation whose clusterIdRef names no StorageCluster (yet) waits for it, Progressing, until its precondition timeout.",
			args:   args{fixture: "clusterops-pending-waiting-for-target.yaml"},
			want: health{Status: "Progressing",
				Message: "WaitingForTarget: waiting for StorageCluster missing (with a backend id) to exist"},
		},
		"ClusterOpsNotPickedUp": {
			reason: "An operation the provider cannot reconcile before the engine ran (no phase yet, Synced=False) is Degraded with the Synced message.",
			args: args{fixture: "clusterops-pending-waiting-for-target.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status", "atProvider")
				setCondition(t, u, "Synced", "False", "ReconcileError", "cannot get the ProviderConfig: providerconfigs.simplyblock.m.crossplane.io \"sim\" not found")
			}},
			want: health{Status: "Degraded",
				Message: `cannot get the ProviderConfig: providerconfigs.simplyblock.m.crossplane.io "sim" not found`},
		},
		"ClusterOpsPendingWaitingForPrecondition": {
			reason: "An operation holding the lock while it waits for its precondition is Progressing and says what it waits for.",
			args:   args{fixture: "clusterops-pending-waiting-for-precondition.yaml"},
			want:   health{Status: "Progressing", Message: "WaitingForPrecondition: expand: waiting: 3 of the 10 expected storage nodes are online"},
		},
		"ClusterOpsPendingQueued": {
			reason: "A queued operation is Progressing and names the operation it waits for and its queue position.",
			args:   args{fixture: "clusterops-pending-queued.yaml"},
			want:   health{Status: "Progressing", Message: "Queued: waiting for demo-expand (Expand) to finish on StorageCluster demo; queue position 1"},
		},
		"ClusterOpsRunningStepKOfN": {
			reason: "A running multi-step operation is Progressing and says which step of how many it is at.",
			args:   args{fixture: "clusterops-running-restart.yaml"},
			want: health{Status: "Progressing",
				Message: "Triggered (step 2 of 2): restart: start: POST /clusters/b9b90eef-9206-4b9e-8ab5-803933d95d60/start accepted"},
		},
		"ClusterOpsRunningNodeRollingRestart": {
			reason: "A running NodeRollingRestart is Progressing and counts nodes, not steps.",
			args:   args{fixture: "clusterops-running-node-rolling-restart.yaml"},
			want: health{Status: "Progressing",
				Message: "Triggered (1 of 3 nodes done): node 2/3 1b1e7007-79c2-40c8-846c-eadcea8d58a0: shutdown: POST /clusters/a1f7449a-11a0-4bf0-b7b4-f331d1e9c569/storage-nodes/1b1e7007-79c2-40c8-846c-eadcea8d58a0/shutdown accepted"},
		},
		"ClusterOpsSucceeded": {
			reason: "A succeeded operation is Healthy with its reason and message.",
			args:   args{fixture: "clusterops-succeeded.yaml"},
			want:   health{Status: "Healthy", Message: "Completed: rebalance done"},
		},
		"ClusterOpsSucceededNodeRollingRestart": {
			reason: "A finished NodeRollingRestart is Healthy; progress is no longer shown.",
			args:   args{fixture: "clusterops-succeeded-node-rolling-restart.yaml"},
			want:   health{Status: "Healthy", Message: "Completed: node 3/3 3c872741-b223-4ea8-a760-b1b945ba406f: wait for rebalancing done"},
		},
		"ClusterOpsAlreadyCompleted": {
			reason: "An operation re-created after its TTL deleted it (as Argo CD does) is not run again and takes the first run's outcome.",
			args:   args{fixture: "clusterops-succeeded-already-completed.yaml"},
			want: health{Status: "Healthy",
				Message: "AlreadyCompleted: an operation with this name and spec already ran (uid 161853ad-e22c-4ff5-9685-14887ad8e2e9, Succeeded: Completed: rebalance done); it is not run again, use a new name to run it again"},
		},
		"ClusterOpsFailedBackendRejected": {
			reason: "An operation the backend refused (409) is Degraded with the backend's words.",
			args:   args{fixture: "clusterops-failed-backend-rejected.yaml"},
			want: health{Status: "Degraded",
				Message: "BackendRejected: shutdown: the backend refused POST /clusters/8c584a0a-4c64-422c-b83c-629dab48ea6d/shutdown: Cluster is being modified by another request"},
		},
		"ClusterOpsFailedCancelled": {
			reason: "A cancelled operation is Failed, so Degraded: it did not do what Git asked for.",
			args:   args{fixture: "clusterops-failed-cancelled.yaml"},
			want:   health{Status: "Degraded", Message: "Cancelled: cancelled before expand; nothing more was sent to the backend"},
		},
		"ClusterOpsPausedWhileQueued": {
			reason: "An unfinished operation whose reconciliation is paused is Suspended, and says where it stopped.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setCondition(t, u, "Synced", "False", "ReconcilePaused", "")
			}},
			want: health{Status: "Suspended",
				Message: "Reconciliation is paused (annotation crossplane.io/paused); the operation stays Pending: Queued: waiting for demo-expand (Expand) to finish on StorageCluster demo; queue position 1"},
		},
		"ClusterOpsRunningWithReconcileError": {
			reason: "A reconcile error does not fail a running operation (the engine retries); it is Progressing and the error is shown.",
			args: args{fixture: "clusterops-running-restart.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setCondition(t, u, "Synced", "False", "ReconcileError", "cannot update status: conflict")
			}},
			want: health{Status: "Progressing",
				Message: "Triggered (step 2 of 2): restart: start: POST /clusters/b9b90eef-9206-4b9e-8ab5-803933d95d60/start accepted (the last reconcile failed: cannot update status: conflict)"},
		},
		"ClusterOpsFinishedIgnoresReconcileErrors": {
			reason: "A finished operation keeps its outcome whatever its Synced condition says.",
			args: args{fixture: "clusterops-succeeded.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setCondition(t, u, "Synced", "False", "ReconcileError", "cannot delete the operation after its TTL")
			}},
			want: health{Status: "Healthy", Message: "Completed: rebalance done"},
		},

		"ClusterOpsAwaitingApproval": {
			reason: "An operation with approval Required that shows its plan waits for a person: Suspended, with the engine's message.",
			args:   args{fixture: "clusterops-pending-awaiting-approval.yaml"},
			want:   health{Status: "Suspended", Message: "AwaitingApproval: awaiting approval: holds the lock on StorageCluster demo and shows its plan 81119aa96edd (9 steps, 6 calls, 3 targets) in status.atProvider.plan; set spec.forProvider.approved to true to run it, or cancel to drop it; unapproved at 2026-12-09T00:54:03Z, it fails ApprovalExpired"},
		},
		"ClusterOpsAwaitingApprovalWithoutMessage": {
			reason: "Without a message, the health check says itself that the operation waits for approval.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaitApproval(t, u, "")
			}},
			want: health{Status: "Suspended", Message: "AwaitingApproval: waiting for approval: set spec.forProvider.approved to true to run its plan"},
		},
		"ClusterOpsAwaitingApprovalWithReconcileError": {
			reason: "A reconcile error while an operation awaits approval keeps it Suspended and shows the error.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaitApproval(t, u, "awaiting approval: holds the lock on StorageCluster demo")
				setCondition(t, u, "Synced", "False", "ReconcileError", "cannot update status: conflict")
			}},
			want: health{Status: "Suspended",
				Message: "AwaitingApproval: awaiting approval: holds the lock on StorageCluster demo (the last reconcile failed: cannot update status: conflict)"},
		},
		"ClusterOpsAwaitingApprovalPaused": {
			reason: "Paused reconciliation is told first, as for any unfinished operation.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaitApproval(t, u, "awaiting approval: holds the lock on StorageCluster demo")
				setCondition(t, u, "Synced", "False", "ReconcilePaused", "")
			}},
			want: health{Status: "Suspended",
				Message: "Reconciliation is paused (annotation crossplane.io/paused); the operation stays Pending: AwaitingApproval: awaiting approval: holds the lock on StorageCluster demo"},
		},
		"ClusterOpsPendingWaitingForWindow": {
			reason: "An operation whose maintenance window is closed waits for a time: Suspended, with the engine's message.",
			args:   args{fixture: "clusterops-pending-waiting-for-window.yaml"},
			want:   health{Status: "Suspended", Message: "WaitingForWindow: waits for its maintenance window \"0 2 * * 6\" for 4h0m0s (Europe/Berlin), which opens at 2026-12-05 02:00 CET; it takes its turn on StorageCluster demo then"},
		},
		"ClusterOpsRunningWaitingForWindow": {
			reason: "A NodeRollingRestart whose window closed between two nodes is Suspended and still counts the nodes done.",
			args: args{fixture: "clusterops-running-node-rolling-restart.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setOpStatus(t, u, "Running", "WaitingForWindow",
					"its maintenance window \"0 2 * * 6\" for 4h0m0s (Europe/Berlin) closed: it starts node 2/3 b1f7: shutdown when the window opens again at 2026-12-12 02:00 CET (1 of 3 nodes done; it holds the lock on StorageCluster demo)")
			}},
			want: health{Status: "Suspended",
				Message: "WaitingForWindow (1 of 3 nodes done): its maintenance window \"0 2 * * 6\" for 4h0m0s (Europe/Berlin) closed: it starts node 2/3 b1f7: shutdown when the window opens again at 2026-12-12 02:00 CET (1 of 3 nodes done; it holds the lock on StorageCluster demo)"},
		},
		"ClusterOpsWaitingForWindowWithoutMessage": {
			reason: "Without a message, the health check says itself what the operation waits for.",
			args: args{fixture: "clusterops-pending-waiting-for-precondition.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setOpStatus(t, u, "Pending", "WaitingForWindow", "")
			}},
			want: health{Status: "Suspended", Message: "WaitingForWindow: waiting for its maintenance window to open"},
		},
		"ClusterOpsWaitingForConcurrencySlot": {
			reason: "An operation waiting for a slot of a DisruptionBudget goes on by itself once one is free: Progressing, with its queue position.",
			args:   args{fixture: "clusterops-pending-waiting-for-concurrency-slot.yaml"},
			want:   health{Status: "Progressing", Message: "WaitingForConcurrencySlot: waits for a slot of DisruptionBudget testargocdfixtures-clusteropsapprovalwindowandbudg-70753 (at most 1 of the clusters it selects may run a disruptive operation at once; disrupting now: ClusterOps testargocdfixtures-clusteropsapprovalwindowandbudg-70753/a-restart (Restart) on testargocdfixtures-clusteropsapprovalwindowandbudg-70753/a); queue position 1; it holds the lock on StorageCluster b until 2026-12-08T01:54:08Z at most, then fails DeadlineExceeded"},
		},

		// StorageNodeOps: the same rules.
		"StorageNodeOpsPendingQueued": {
			reason: "A node operation queued behind a cluster operation is Progressing with its queue position.",
			args:   args{fixture: "storagenodeops-pending-queued.yaml"},
			want: health{Status: "Progressing",
				Message: "Queued: waiting for demo-expand (Expand) to finish on the StorageCluster of StorageNode demo-node-1; queue position 1"},
		},
		"StorageNodeOpsRunning": {
			reason: "A running node restart is Progressing at step 1 (shutdown) of 2.",
			args:   args{fixture: "storagenodeops-running.yaml"},
			want: health{Status: "Progressing",
				Message: "Triggered (step 1 of 2): shutdown: POST /clusters/4b66c08e-7562-429b-b4be-3607b213e63e/storage-nodes/bda92fcb-f5d1-4ad1-8623-fbbaed445f0b/shutdown accepted"},
		},
		"StorageNodeOpsAwaitingConfirmation": {
			reason: "A node operation waiting for the user's decision about a lost answer is Suspended: it needs confirmResend or cancel from Git.",
			args:   args{fixture: "storagenodeops-running-awaiting-confirmation.yaml"},
			want: health{Status: "Suspended",
				Message: "AwaitingConfirmation: shutdown: POST /clusters/dc29cf39-11dd-4902-9f3c-8210d43f1ffc/storage-nodes/2f3ae11a-c41d-4d44-8068-78e6fb657299/shutdown may or may not have reached the backend (its answer was lost) and it showed no evidence within 3s. Sending it again is harmless now, but a late original would not be once the operation moves on, so it waits for you: check the node's status: a shutdown may be running (in_shutdown), then set spec.forProvider.confirmResend to \"0/1\" to send it again, or cancel: true to give up"},
		},
		"StorageNodeOpsSucceeded": {
			reason: "A succeeded node operation is Healthy.",
			args:   args{fixture: "storagenodeops-succeeded.yaml"},
			want:   health{Status: "Healthy", Message: "Completed: restart done"},
		},
		"StorageNodeOpsFailed": {
			reason: "A node operation the backend refused is Degraded with the backend's words.",
			args:   args{fixture: "storagenodeops-failed-backend-rejected.yaml"},
			want: health{Status: "Degraded",
				Message: "BackendRejected: suspend: the backend refused POST /clusters/4b66c08e-7562-429b-b4be-3607b213e63e/storage-nodes/bda92fcb-f5d1-4ad1-8623-fbbaed445f0b/suspend: Internal Server Error"},
		},

		"StorageNodeOpsAwaitingApproval": {
			reason: "A node operation with approval Required that shows its plan is Suspended.",
			args: args{fixture: "storagenodeops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaitApproval(t, u, "awaiting approval: holds the lock on StorageNode demo-node-1 and shows its plan 0a1b2c3d4e5f (2 steps) in status.atProvider.plan; set spec.forProvider.approved to true to run it, or cancel to drop it")
			}},
			want: health{Status: "Suspended",
				Message: "AwaitingApproval: awaiting approval: holds the lock on StorageNode demo-node-1 and shows its plan 0a1b2c3d4e5f (2 steps) in status.atProvider.plan; set spec.forProvider.approved to true to run it, or cancel to drop it"},
		},
		"StorageNodeOpsRunningWaitingForWindow": {
			reason: "A running node operation waiting for its window shows its step and is Suspended.",
			args: args{fixture: "storagenodeops-running.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setOpStatus(t, u, "Running", "WaitingForWindow", "its maintenance window closed: it starts restart when the window opens again at 2026-12-05T02:00:00Z")
			}},
			want: health{Status: "Suspended",
				Message: "WaitingForWindow (step 1 of 2): its maintenance window closed: it starts restart when the window opens again at 2026-12-05T02:00:00Z"},
		},
		"StorageNodeOpsWaitingForConcurrencySlot": {
			reason: "A node operation waiting for a concurrency slot is Progressing.",
			args: args{fixture: "storagenodeops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				setOpStatus(t, u, "Pending", "WaitingForConcurrencySlot", "waiting for a free slot")
			}},
			want: health{Status: "Progressing", Message: "WaitingForConcurrencySlot: waiting for a free slot"},
		},

		// StorageCluster: health follows the Synced and Ready conditions.
		"StorageClusterReady": {
			reason: "A Ready and Synced cluster is Healthy and shows the backend's status.",
			args:   args{fixture: "storagecluster-ready.yaml"},
			want:   health{Status: "Healthy", Message: "Available, status active"},
		},
		"StorageClusterReconcileError": {
			reason: "Synced=False (the backend is unreachable) is Degraded with the condition's message.",
			args:   args{fixture: "storagecluster-reconcile-error.yaml"},
			want: health{Status: "Degraded",
				Message: "create failed: cannot create cluster: POST /api/v2/clusters/: request not sent: dial tcp 127.0.0.1:1: connect: connection refused"},
		},
		"StorageClusterDegraded": {
			reason: "A cluster the backend reports degraded (a node is unreachable) is Degraded.",
			args:   args{fixture: "storagecluster-unavailable-degraded.yaml"},
			want:   health{Status: "Degraded", Message: "Unavailable: cluster status is degraded"},
		},
		"StorageClusterShutDown": {
			reason: "A cluster left suspended by a finished Shutdown is Degraded: it serves no I/O.",
			args:   args{fixture: "storagecluster-unavailable-suspended.yaml"},
			want:   health{Status: "Degraded", Message: "Unavailable: cluster status is suspended"},
		},
		"StorageClusterUnavailableDuringOperation": {
			reason: "A cluster unavailable while an operation holds it (a Restart's planned outage) is Progressing and names the operation.",
			args:   args{fixture: "storagecluster-unavailable-during-operation.yaml"},
			want:   health{Status: "Progressing", Message: "Unavailable: cluster status is suspended; ClusterOps demo-restart (Restart) is running"},
		},

		// StorageNode.
		"StorageNodeReady": {
			reason: "An online node is Healthy.",
			args:   args{fixture: "storagenode-ready.yaml"},
			want:   health{Status: "Healthy", Message: "Available, status online"},
		},
		"StorageNodeCreating": {
			reason: "A node being added (Ready=False, Creating) is Progressing.",
			args:   args{fixture: "storagenode-creating.yaml"},
			want:   health{Status: "Progressing", Message: "Creating: node record is in_creation"},
		},
		"StorageNodeAddFailed": {
			reason: "A node the backend gave up adding (Synced=False) is Degraded with what to do.",
			args:   args{fixture: "storagenode-add-failed.yaml"},
			want: health{Status: "Degraded",
				Message: "observe failed: the backend's node_add task 3faae3b7-6b7a-4160-965a-d90af7eacc35 ended without adding the node: max retry reached; fix the cause, then delete this StorageNode and create it again to retry"},
		},
		"StorageNodeOffline": {
			reason: "An offline node with no operation running on it is Degraded.",
			args:   args{fixture: "storagenode-unavailable-offline.yaml"},
			want:   health{Status: "Degraded", Message: "Unavailable: node status is offline"},
		},
		"StorageNodeUnreachable": {
			reason: "An unreachable node is Degraded.",
			args:   args{fixture: "storagenode-unavailable-unreachable.yaml"},
			want:   health{Status: "Degraded", Message: "Unavailable: node status is unreachable"},
		},
		"StorageNodeInTransitionalStatus": {
			reason: "A node in a transitional backend status (in_restart) is Progressing, not Degraded.",
			args: args{fixture: "storagenode-unavailable-offline.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				if err := unstructured.SetNestedField(u.Object, "in_restart", "status", "atProvider", "status"); err != nil {
					t.Fatal(err)
				}
				setCondition(t, u, "Ready", "False", "Unavailable", "node status is in_restart")
			}},
			want: health{Status: "Progressing", Message: "Unavailable: node status is in_restart"},
		},
		"StorageNodeUnavailableDuringNodeOperation": {
			reason: "A node unavailable while a StorageNodeOps runs on it is Progressing and names the operation.",
			args: args{fixture: "storagenode-unavailable-offline.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				op := map[string]any{"kind": "StorageNodeOps", "name": "demo-node-1-restart", "type": "Restart", "phase": "Pending"}
				if err := unstructured.SetNestedMap(u.Object, op, "status", "atProvider", "activeOperation"); err != nil {
					t.Fatal(err)
				}
			}},
			want: health{Status: "Progressing", Message: "Unavailable: node status is offline; StorageNodeOps demo-node-1-restart (Restart) is running"},
		},

		// StoragePool.
		"StoragePoolReady": {
			reason: "An active pool is Healthy.",
			args:   args{fixture: "storagepool-ready.yaml"},
			want:   health{Status: "Healthy", Message: "Available, status active"},
		},
		"StoragePoolInactive": {
			reason: "A pool the backend deactivated is Degraded.",
			args:   args{fixture: "storagepool-unavailable-inactive.yaml"},
			want:   health{Status: "Degraded", Message: "Unavailable: pool status is inactive"},
		},
		"StoragePoolPaused": {
			reason: "A pool whose reconciliation is paused (crossplane.io/paused) is Suspended.",
			args:   args{fixture: "storagepool-paused.yaml"},
			want:   health{Status: "Suspended", Message: "Reconciliation is paused (annotation crossplane.io/paused)"},
		},
		"StoragePoolUnresolvedReference": {
			reason: "A pool whose clusterIdRef names no StorageCluster is Degraded with the Synced message.",
			args:   args{fixture: "storagepool-unresolved-reference.yaml"},
			want: health{Status: "Degraded",
				Message: `cannot resolve references: mg.Spec.ForProvider.ClusterID: cannot get referenced resource: StorageCluster.simplyblock.m.crossplane.io "missing" not found`},
		},
	}
	used := map[string]bool{}
	for name, tc := range cases {
		used[tc.args.fixture] = true
		t.Run(name, func(t *testing.T) {
			var mutate func(u *unstructured.Unstructured)
			if tc.args.mutate != nil {
				mutate = func(u *unstructured.Unstructured) { tc.args.mutate(t, u) }
			}
			got := healthOfFile(t, filepath.Join("testdata", tc.args.fixture), mutate)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nhealth of %s: -want, +got:\n%s", tc.reason, tc.args.fixture, diff)
			}
		})
	}

	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !used[filepath.Base(f)] {
			t.Errorf("fixture %s is not used by any case of TestHealth: add a case for it or delete it", f)
		}
	}
}

// TestHealthOfJustAppliedExamples runs the health checks against the
// shipped examples as Argo CD sees them right after applying them: no
// status yet.
func TestHealthOfJustAppliedExamples(t *testing.T) {
	want := map[string]health{
		"StorageCluster": {Status: "Progressing", Message: "Waiting for the provider to observe the resource"},
		"StorageNode":    {Status: "Progressing", Message: "Waiting for the provider to observe the resource"},
		"StoragePool":    {Status: "Progressing", Message: "Waiting for the provider to observe the resource"},
		"ClusterOps":     {Status: "Progressing", Message: "Waiting for the provider to pick up the operation"},
		"StorageNodeOps": {Status: "Progressing", Message: "Waiting for the provider to pick up the operation"},
	}
	seen := map[string]bool{}
	for _, dir := range []string{"quickstart", "clusterops", "storagenodeops"} {
		files, err := filepath.Glob(repoPath("examples", dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			u, err := loadObject(f)
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[u.GetKind()]
			if !ok {
				continue
			}
			seen[u.GetKind()] = true
			if diff := cmp.Diff(w, healthOfFile(t, f, nil)); diff != "" {
				t.Errorf("health of %s without status: -want, +got:\n%s", f, diff)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no example of %s was checked", k)
		}
	}
}

// TestEveryKindHasAHealthCheck checks that every kind of the provider's API
// group, as its CRDs in package/crds declare them, has a health check,
// except the ProviderConfig kinds: their status has no Ready or Synced
// condition, and Argo CD's built-in check for *.crossplane.io covers them.
func TestEveryKindHasAHealthCheck(t *testing.T) {
	// Configuration objects without conditions: Argo CD's default (no
	// health) is right for them. A DisruptionBudget's status only lists
	// who holds and waits for its slots.
	noCheck := map[string]bool{"ProviderConfig": true, "ClusterProviderConfig": true, "ProviderConfigUsage": true, "DisruptionBudget": true}
	crds, err := filepath.Glob(repoPath("package", "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, f := range crds {
		b, err := os.ReadFile(f) //nolint:gosec // CRDs from the repository.
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if crd.Spec.Group != group || noCheck[crd.Spec.Names.Kind] {
			continue
		}
		kinds = append(kinds, crd.Spec.Names.Kind)
		if _, err := os.Stat(scriptPath(crd.Spec.Names.Kind)); err != nil {
			t.Errorf("kind %s has no health check: want %s", crd.Spec.Names.Kind, scriptPath(crd.Spec.Names.Kind))
		}
	}
	sort.Strings(kinds)
	if diff := cmp.Diff([]string{"ClusterOps", "StorageCluster", "StorageNode", "StorageNodeOps", "StoragePool"}, kinds); diff != "" {
		t.Errorf("kinds with a health check: -want, +got:\n%s", diff)
	}
}
