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
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis"
	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	sbfake "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

// Fixtures shared by the lock and engine tests: a fake Kubernetes API with a
// StorageCluster (the target) and ClusterOps (operations), a fake backend,
// and a clock. Times are whole seconds, as they survive a round trip
// through the API.

const (
	testNS        = "storage"
	testTarget    = "demo"
	testClusterID = "c1"
	testHash      = "hash-1"
	testPath      = "POST /clusters/c1/activate"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at is t0+d as an API time.
func at(d time.Duration) *metav1.Time { return &metav1.Time{Time: t0.Add(d)} }

var targetKey = types.NamespacedName{Namespace: testNS, Name: testTarget}

func newKube(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) client.WithWatch {
	t.Helper()
	s := runtime.NewScheme()
	if err := apis.AddToScheme(s); err != nil {
		t.Fatalf("cannot build scheme: %v", err)
	}
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatalf("cannot build scheme: %v", err)
	}
	b := crfake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&v1alpha1.ClusterOps{}, &v1alpha1.StorageCluster{}, &v1alpha1.DisruptionBudget{})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

// An opModifier changes an operation fixture.
type opModifier func(*v1alpha1.ClusterOps)

// operation is ClusterOps op1 (uid-1), an Activate of c1 created at t0.
func operation(m ...opModifier) *v1alpha1.ClusterOps {
	o := &v1alpha1.ClusterOps{}
	o.SetName("op1")
	o.SetNamespace(testNS)
	o.SetUID("uid-1")
	o.SetCreationTimestamp(metav1.NewTime(t0))
	o.Spec.ForProvider.Type = v1alpha1.ClusterActivate
	o.Spec.ForProvider.ClusterID = testClusterID
	for _, f := range m {
		f(o)
	}
	return o
}

func named(name string, uid types.UID) opModifier {
	return func(o *v1alpha1.ClusterOps) { o.SetName(name); o.SetUID(uid) }
}

func createdAt(d time.Duration) opModifier {
	return func(o *v1alpha1.ClusterOps) { o.SetCreationTimestamp(metav1.NewTime(t0.Add(d))) }
}

func ofType(typ v1alpha1.ClusterOperationType) opModifier {
	return func(o *v1alpha1.ClusterOps) { o.Spec.ForProvider.Type = typ }
}

func cancelled() opModifier {
	return func(o *v1alpha1.ClusterOps) { o.Spec.ForProvider.Cancel = true }
}

// deletedAt is an operation deleted at t0+d (its finalizer keeps it).
func deletedAt(d time.Duration) opModifier {
	return func(o *v1alpha1.ClusterOps) {
		o.SetDeletionTimestamp(at(d))
		o.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
	}
}

func withPolicy(f func(p *v1alpha1.OperationPolicy)) opModifier {
	return func(o *v1alpha1.ClusterOps) { f(&o.Spec.ForProvider.OperationPolicy) }
}

func withOpStatus(f func(st *v1alpha1.OperationStatus)) opModifier {
	return func(o *v1alpha1.ClusterOps) { f(&o.Status.AtProvider.OperationStatus) }
}

// holding is an operation that left the queue at t0+d and has sent nothing.
func holding(d time.Duration) opModifier {
	return withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.Message = v1alpha1.OperationPending, ReasonWaitingForPrecond, "holds the lock"
		st.StartedAt, st.StepStartedAt, st.SpecHash = at(d), at(d), testHash
	})
}

// sent is an operation whose step-0 call the backend accepted at t0+d,
// with the cluster unready before it.
func sent(d time.Duration) opModifier {
	return withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.Message = v1alpha1.OperationRunning, ReasonTriggered, "activate: accepted"
		st.StartedAt, st.StepStartedAt, st.SpecHash = at(0), at(0), testHash
		st.Attempts, st.StepAttempts, st.Triggered = 1, 1, true
		st.Guard = &v1alpha1.OperationGuard{Step: 0, Attempt: 1, Outcome: v1alpha1.GuardSent, IntendedAt: *at(d),
			ResolvedAt: at(d), BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition, Answered: true}
	})
}

// unresolved is an operation whose step-0 call has the given unresolved
// outcome since t0+d.
func unresolved(outcome v1alpha1.GuardOutcome, d time.Duration) opModifier {
	return withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.Message = v1alpha1.OperationRunning, ReasonTriggering, "sending"
		st.StartedAt, st.StepStartedAt, st.SpecHash = at(0), at(0), testHash
		st.Guard = &v1alpha1.OperationGuard{Step: 0, Attempt: 1, Outcome: outcome, IntendedAt: *at(d),
			BaselineStatus: string(sb.ClusterUnready), BaselineEvent: testPosition}
		if outcome == v1alpha1.GuardAmbiguous {
			st.Attempts, st.StepAttempts = 1, 1
		}
	})
}

func finished(phase v1alpha1.OperationPhase, reason string, d time.Duration) opModifier {
	return withOpStatus(func(st *v1alpha1.OperationStatus) {
		st.Phase, st.Reason, st.Message = phase, reason, "done"
		st.StartedAt, st.CompletedAt, st.SpecHash = at(0), at(d), testHash
	})
}

// lockOf is the lock reference of o.
func lockOf(o *v1alpha1.ClusterOps, phase v1alpha1.OperationPhase) *v1alpha1.OperationReference {
	return &v1alpha1.OperationReference{Name: o.GetName(), UID: o.GetUID(), Type: o.GetOperationType(), Phase: phase}
}

type clusterModifier func(*v1alpha1.StorageCluster)

func storageCluster(m ...clusterModifier) *v1alpha1.StorageCluster {
	c := &v1alpha1.StorageCluster{}
	c.SetName(testTarget)
	c.SetNamespace(testNS)
	for _, f := range m {
		f(c)
	}
	return c
}

func lockedBy(r *v1alpha1.OperationReference) clusterModifier {
	return func(c *v1alpha1.StorageCluster) { c.Status.AtProvider.ActiveOperation = r }
}

// beingDeleted is a target deleted at t0 (its finalizer keeps it).
func beingDeleted() clusterModifier {
	return func(c *v1alpha1.StorageCluster) {
		c.SetDeletionTimestamp(at(0))
		c.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
	}
}

func withHistory(h ...v1alpha1.OperationRecord) clusterModifier {
	return func(c *v1alpha1.StorageCluster) { c.Status.AtProvider.OperationHistory = h }
}

func getOp(t *testing.T, kube client.Reader, name string) *v1alpha1.ClusterOps {
	t.Helper()
	o := &v1alpha1.ClusterOps{}
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: testNS, Name: name}, o); err != nil {
		t.Fatalf("cannot get ClusterOps %s: %v", name, err)
	}
	return o
}

func getCluster(t *testing.T, kube client.Reader) *v1alpha1.StorageCluster {
	t.Helper()
	c := &v1alpha1.StorageCluster{}
	if err := kube.Get(context.Background(), targetKey, c); err != nil {
		t.Fatalf("cannot get StorageCluster: %v", err)
	}
	return c
}

// A clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newLock(kube client.Client) *Lock {
	return &Lock{Kube: kube, Reader: kube,
		NewTarget: func() Target { return &v1alpha1.StorageCluster{} }}
}

func newEngine(kube client.Client, clk *clock) *Engine {
	return &Engine{Kind: v1alpha1.ClusterOpsKind, Kube: kube, Lock: newLock(kube), Observer: NewObserver(0),
		Metrics: NewMetrics(), EvidenceGrace: time.Second, Now: clk.Now, Budgets: &Budgets{Kube: kube, Reader: kube},
		Ledger: &Ledger{Kube: kube, Reader: kube}}
}

// A backend is a fake simplyblock control plane with one cluster, c1.
type backend struct {
	mu          sync.Mutex
	status      sb.ClusterStatus
	rebalancing bool
	nodes       []sb.StorageNodeDTO
	listErr     error
	callErr     error
	// onCall runs inside the state-changing call, before it answers.
	onCall func()

	reads int
	sent  []string
}

// testEvents are the backend's log.
var testEvents = []sb.ClusterLogEntry{
	clusterStatusEntry(1, "in_activation", "unready"),
	nodeStatusEntry(2, "n1", "offline", "online"),
}

// testPosition is the position after testEvents' newest.
var testPosition = positionOf(parseEvents(testEvents))

// testLogStart is the date of entry 0 of a test log.
var testLogStart = time.Date(2026, 8, 22, 20, 0, 0, 0, time.UTC)

// logEntry is a control-plane entry of a test log as the backend writes it
// (cluster_ops.py:2386-2412), dated n ms after testLogStart.
func logEntry(n int, kind, node, msg string) sb.ClusterLogEntry {
	if node == "" {
		node = sb.LogNone
	}
	return sb.ClusterLogEntry{Date: testLogStart.Add(time.Duration(n) * time.Millisecond).Format("2006-01-02 15:04:05.000"),
		NodeID: node, Event: kind, Level: "Info", Message: msg, StorageID: sb.LogNone, VUID: sb.LogNone, Status: sb.LogNone}
}

// clusterStatusEntry is entry n: the cluster's status changed
// (cluster_events.py:34-41).
func clusterStatusEntry(n int, from, to string) sb.ClusterLogEntry {
	return logEntry(n, "STATUS_CHANGE", "", fmt.Sprintf("Cluster status changed from %s to %s", from, to))
}

// nodeStatusEntry is entry n: node's status changed (storage_events.py:46-56).
func nodeStatusEntry(n int, node, from, to string) sb.ClusterLogEntry {
	return logEntry(n, "STATUS_CHANGE", node, fmt.Sprintf("Storage node status changed from: %s to: %s", from, to))
}

// taskEntry is entry n: a task was created (tasks_events.py:12-30).
func taskEntry(n int) sb.ClusterLogEntry {
	e := logEntry(n, "OBJ_CREATED", fmt.Sprintf("7a5c0000-0000-4000-8000-%012d", n), "Task created")
	e.Status = "new"
	return e
}

func (b *backend) set(st sb.ClusterStatus) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.status = st
}

func (b *backend) read() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reads++
}

func (b *backend) sentCalls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.sent...)
}

func (b *backend) api() *sbfake.MockClient {
	return &sbfake.MockClient{
		MockListClusters: func(_ context.Context) ([]sb.ClusterDTO, error) {
			b.read()
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.listErr != nil {
				return nil, b.listErr
			}
			return []sb.ClusterDTO{{ID: "c0", Status: sb.ClusterActive}, {ID: testClusterID, Status: b.status, IsReBalancing: b.rebalancing}}, nil
		},
		MockGetCluster: func(_ context.Context, id string) (*sb.ClusterDTO, error) {
			b.read()
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.listErr != nil {
				return nil, b.listErr
			}
			return &sb.ClusterDTO{ID: id, Status: b.status, IsReBalancing: b.rebalancing}, nil
		},
		MockListStorageNodes: func(_ context.Context, _ string) ([]sb.StorageNodeDTO, error) {
			b.read()
			b.mu.Lock()
			defer b.mu.Unlock()
			return b.nodes, nil
		},
		MockClusterLogs: func(_ context.Context, _ string, _ int) ([]sb.ClusterLogEntry, error) {
			b.read()
			return testEvents, nil
		},
		MockListTasks: func(_ context.Context, _ string) ([]sb.TaskDTO, error) {
			b.read()
			return nil, nil
		},
		MockActivateCluster: func(_ context.Context, id string) error {
			if b.onCall != nil {
				b.onCall()
			}
			b.mu.Lock()
			defer b.mu.Unlock()
			b.sent = append(b.sent, "activate "+id)
			return b.callErr
		},
	}
}

// A stepModifier changes the test step.
type stepModifier func(*Step)

// testStep is an activation: it waits while the cluster is in_expansion,
// takes any change of the cluster's status as evidence, is done once the
// cluster is active and fails when it is suspended.
func testStep(m ...stepModifier) Step {
	s := Step{Name: "activate", Needs: Needs{Events: true}, Endpoint: "POST /clusters/{id}/activate", Path: testPath,
		CheckHint: "the cluster's status",
		Call:      func(ctx context.Context, api sb.API) error { return api.ActivateCluster(ctx, testClusterID) },
		Gate: func(s *Snapshot) (string, string) {
			if s.Cluster.Status == sb.ClusterInExpansion {
				return "the cluster is in_expansion", ""
			}
			return "", ""
		},
		Evidence: func(b Baseline, s *Snapshot) bool { return string(s.Cluster.Status) != b.Status },
		Check: func(_ Baseline, s *Snapshot) Verdict {
			switch s.Cluster.Status {
			case sb.ClusterActive:
				return Verdict{Done: true}
			case sb.ClusterSuspended:
				return Verdict{Failure: "the activation failed", Reason: "ActivationFailed"}
			}
			return Verdict{Progress: "the cluster is " + string(s.Cluster.Status)}
		}}
	for _, f := range m {
		f(&s)
	}
	return s
}

// queueOf lists every ClusterOps of the test namespace.
func queueOf(kube client.Reader) func(ctx context.Context) ([]Object, error) {
	return func(ctx context.Context) ([]Object, error) {
		l := &v1alpha1.ClusterOpsList{}
		if err := kube.List(ctx, l, client.InNamespace(testNS)); err != nil {
			return nil, err
		}
		out := make([]Object, 0, len(l.Items))
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
		return out, nil
	}
}

func runOf(kube client.Reader, o *v1alpha1.ClusterOps, api sb.API, steps ...Step) Run {
	return Run{Object: o, Target: targetKey, TargetDescription: "StorageCluster " + testTarget, ClusterID: testClusterID,
		HistoryID: testClusterID, Source: Source{Key: "test", API: api}, SpecHash: testHash,
		Plan: func([]string) []Step { return steps }, Queue: queueOf(kube)}
}
