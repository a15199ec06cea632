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

package ops

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// budget is DisruptionBudget name, selecting env=prod, with max slots and
// the given holders and waiters.
func budget(name string, maxDisrupted int64, disrupting, waiting []v1alpha1.BudgetedOperation) *v1alpha1.DisruptionBudget {
	return &v1alpha1.DisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:   v1alpha1.DisruptionBudgetSpec{ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, MaxDisrupted: maxDisrupted},
		Status: v1alpha1.DisruptionBudgetStatus{Disrupting: disrupting, Waiting: waiting}}
}

// budgeted is the budget entry of ClusterOps name (uid) on cluster.
func budgeted(name string, uid types.UID, cluster string, d time.Duration) v1alpha1.BudgetedOperation {
	return v1alpha1.BudgetedOperation{Kind: v1alpha1.ClusterOpsKind, Namespace: testNS, Name: name, UID: uid,
		Type: string(v1alpha1.ClusterActivate), Cluster: testNS + "/" + cluster, Since: *at(d)}
}

func labelled(env string) clusterModifier {
	return func(c *v1alpha1.StorageCluster) { c.SetLabels(map[string]string{"env": env}) }
}

// budgetStatus checks the status of DisruptionBudget name.
func budgetStatus(name string, want v1alpha1.DisruptionBudgetStatus) func(t *testing.T, kube client.Client) {
	return func(t *testing.T, kube client.Client) {
		t.Helper()
		d := &v1alpha1.DisruptionBudget{}
		if err := kube.Get(context.Background(), types.NamespacedName{Name: name}, d); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, d.Status, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("DisruptionBudget %s status: -want, +got:\n%s", name, diff)
		}
	}
}

func TestEngineDisruptionBudget(t *testing.T) {
	op1Lock := lockOf(operation(), v1alpha1.OperationPending)
	// other is a disruptive operation running on cluster other.
	other := operation(named("other", "uid-other"), withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.StartedAt = v1alpha1.OperationRunning, ReasonInProgress, at(0)
	}))
	otherEntry := budgeted("other", "uid-other", "other", 0)
	me := func(d time.Duration) v1alpha1.BudgetedOperation { return budgeted("op1", "uid-1", testTarget, d) }
	prod := storageCluster(labelled("prod"), lockedBy(op1Lock))
	taken := func(d time.Duration) func(st *v1alpha1.OperationStatus) {
		return func(st *v1alpha1.OperationStatus) {
			st.Disruption = &v1alpha1.DisruptionSlot{Budgets: []string{"prod"}, AcquiredAt: at(d)}
			st.StepStartedAt, st.Progress = at(d), prog(0, 1, "activate")
		}
	}
	waitingFor := func(names ...string) opModifier {
		return withOpStatus(func(st *v1alpha1.OperationStatus) {
			st.Phase, st.Reason, st.Disruption = v1alpha1.OperationPending, ReasonWaitingForSlot, &v1alpha1.DisruptionSlot{Budgets: names}
		})
	}

	cases := map[string]observeCase{
		"TakesAFreeSlot": {
			reason: "A disruptive operation on a selected cluster takes a free slot and sends its first call in the same pass.",
			args: observeArgs{cluster: prod, op: operation(holding(0)), now: time.Minute, disruptive: true,
				others: []client.Object{budget("prod", 1, nil, nil)}},
			want: observeWant{trigger: true, lock: op1Lock, status: taken(time.Minute),
				after: budgetStatus("prod", v1alpha1.DisruptionBudgetStatus{Disrupting: []v1alpha1.BudgetedOperation{me(time.Minute)}})},
		},
		"WaitsWhileTheBudgetIsFull": {
			reason: "With every slot held by a running operation on another cluster, the operation waits in the budget's queue, Pending, keeping its lock, and sends nothing.",
			args: observeArgs{cluster: prod, op: operation(holding(0)), now: time.Minute, disruptive: true,
				others: []client.Object{other, budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, nil)}},
			want: observeWant{lock: op1Lock,
				message: "waits for a slot of DisruptionBudget prod (at most 1 of the clusters it selects may run a disruptive operation at once; disrupting now: ClusterOps storage/other (Activate) on storage/other); queue position 1",
				status: func(st *v1alpha1.OperationStatus) {
					st.Reason, st.QueuePosition = ReasonWaitingForSlot, ptr.To[int64](1)
					st.Disruption = &v1alpha1.DisruptionSlot{Budgets: []string{"prod"}}
				},
				after: budgetStatus("prod", v1alpha1.DisruptionBudgetStatus{Disrupting: []v1alpha1.BudgetedOperation{otherEntry}, Waiting: []v1alpha1.BudgetedOperation{me(time.Minute)}})},
		},
		"QueuedBehindAnEarlierWaiter": {
			reason: "A free slot goes to the operation that asked first; the others keep their place.",
			args: observeArgs{cluster: prod, op: operation(holding(0)), now: time.Minute, disruptive: true,
				others: []client.Object{other, budget("prod", 1, nil, []v1alpha1.BudgetedOperation{otherEntry})}},
			want: observeWant{lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				st.Reason, st.QueuePosition = ReasonWaitingForSlot, ptr.To[int64](2)
				st.Disruption = &v1alpha1.DisruptionSlot{Budgets: []string{"prod"}}
			}},
		},
		"FreesTheSlotOfAFinishedHolder": {
			reason: "A holder that finished without giving its slot back (a crash) no longer counts.",
			args: observeArgs{cluster: prod, op: operation(holding(0), waitingFor("prod")), now: time.Minute, disruptive: true,
				others: []client.Object{operation(named("other", "uid-other"), finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0)),
					budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, []v1alpha1.BudgetedOperation{me(0)})}},
			want: observeWant{trigger: true, lock: op1Lock, status: func(st *v1alpha1.OperationStatus) {
				taken(time.Minute)(st)
				st.Reason = ReasonWaitingForPrecond
			}, after: budgetStatus("prod", v1alpha1.DisruptionBudgetStatus{Disrupting: []v1alpha1.BudgetedOperation{me(time.Minute)}})},
		},
		"TakesBudgetsInNameOrder": {
			reason: "Of two budgets selecting the cluster, the operation takes the first by name and waits for the second, so two operations never wait for each other.",
			args: observeArgs{cluster: prod, op: operation(holding(0)), now: time.Minute, disruptive: true,
				others: []client.Object{other, budget("b-prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, nil), budget("a-prod", 2, nil, nil)}},
			want: observeWant{lock: op1Lock, message: "waits for a slot of DisruptionBudget b-prod", status: func(st *v1alpha1.OperationStatus) {
				st.Reason, st.QueuePosition = ReasonWaitingForSlot, ptr.To[int64](1)
				st.Disruption = &v1alpha1.DisruptionSlot{Budgets: []string{"a-prod", "b-prod"}}
			}, after: budgetStatus("a-prod", v1alpha1.DisruptionBudgetStatus{Disrupting: []v1alpha1.BudgetedOperation{me(time.Minute)}})},
		},
		"UnselectedClusterIsNotBounded": {
			reason: "A budget bounds only the clusters its selector selects.",
			args: observeArgs{cluster: storageCluster(labelled("dev"), lockedBy(op1Lock)), op: operation(holding(0)), now: time.Minute, disruptive: true,
				others: []client.Object{other, budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, nil)}},
			want: observeWant{trigger: true, lock: op1Lock, status: func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") }},
		},
		"HarmlessTypeIsNotBounded": {
			reason: "An operation whose type is not disruptive takes no slot.",
			args: observeArgs{cluster: prod, op: operation(holding(0)), now: time.Minute,
				others: []client.Object{other, budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, nil)}},
			want: observeWant{trigger: true, lock: op1Lock, status: func(st *v1alpha1.OperationStatus) { st.Progress = prog(0, 1, "activate") }},
		},
		"WaitsForASlotWithinItsTimeout": {
			reason: "An operation waits for a slot, holding its cluster's lock, for its timeout after it started at most, and says until when.",
			args: observeArgs{cluster: prod, op: operation(holding(0), waitingFor("prod")), now: 59 * time.Minute, disruptive: true,
				others: []client.Object{other, budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, []v1alpha1.BudgetedOperation{me(0)})}},
			want: observeWant{lock: op1Lock, status: func(st *v1alpha1.OperationStatus) { st.QueuePosition = ptr.To[int64](1) },
				message: "it holds the lock on StorageCluster demo until 2026-03-01T13:00:00Z at most, then fails DeadlineExceeded"},
		},
		"GivesUpWaitingForASlotAfterItsTimeout": {
			reason: "An operation that got no slot within its timeout fails DeadlineExceeded, sends nothing, and lets its cluster's lock go: a wait for a slot holds no cluster forever.",
			args: observeArgs{cluster: prod, op: operation(holding(0), waitingFor("prod")), now: time.Hour + time.Second, disruptive: true,
				others: []client.Object{other, budget("prod", 1, []v1alpha1.BudgetedOperation{otherEntry}, []v1alpha1.BudgetedOperation{me(0)})}},
			want: observeWant{noBackend: true,
				status:  finishedAs(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second),
				message: "no slot of DisruptionBudget prod became free within 1h0m0s (timeoutSeconds) after it started; nothing was sent to the backend",
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, time.Hour+time.Second)},
				after:   budgetStatus("prod", v1alpha1.DisruptionBudgetStatus{Disrupting: []v1alpha1.BudgetedOperation{otherEntry}})},
		},
		"GivesTheSlotBackWhenItFinishes": {
			reason: "A finished operation gives its slot back, and the record and lock release go first.",
			args: observeArgs{cluster: storageCluster(labelled("prod"), lockedBy(lockOf(operation(), v1alpha1.OperationRunning))), now: 2 * time.Minute, disruptive: true,
				backend: &backend{status: sb.ClusterActive},
				op: operation(sent(time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Disruption = &v1alpha1.DisruptionSlot{Budgets: []string{"prod"}, AcquiredAt: at(30 * time.Second)}
				})),
				others: []client.Object{budget("prod", 1, []v1alpha1.BudgetedOperation{me(30 * time.Second)}, nil)}},
			want: observeWant{status: finishedAs(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute, evidenceSeen, withProgress(prog(1, 1, ""))),
				history: []v1alpha1.OperationRecord{rec(v1alpha1.OperationSucceeded, ReasonCompleted, 2*time.Minute)},
				after:   budgetStatus("prod", v1alpha1.DisruptionBudgetStatus{})},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { tc.run(t) })
	}
}
