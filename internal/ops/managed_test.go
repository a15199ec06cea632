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
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// events records the reasons of the events it is given.
type events struct {
	mu      sync.Mutex
	reasons []string
}

func (r *events) Event(_ runtime.Object, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reasons = append(r.reasons, string(e.Reason))
}

func (r *events) WithAnnotations(...string) event.Recorder { return r }

func (r *events) count(reason string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.reasons {
		if x == reason {
			n++
		}
	}
	return n
}

// TestExternalStopsDeletedOperation drives a deleted two-step operation
// through External as the managed reconciler does: Observe, then Delete
// while the resource "exists", then the reconciler's status write. The
// second step finishes what the first began, so the deleted operation still
// sends its call (from Delete, once), then goes away with its record.
func TestExternalStopsDeletedOperation(t *testing.T) {
	ctx := context.Background()
	op := operation(sent(0), deletedAt(time.Minute))
	kube := newKube(t, nil, storageCluster(lockedBy(lockOf(op, v1alpha1.OperationRunning))), op)
	clk := &clock{now: t0.Add(2 * time.Minute)}
	e := newEngine(kube, clk)
	rec := &events{}
	e.Recorder = rec
	b := &backend{status: sb.ClusterActive} // the first step is done
	api := b.api()
	plan := []Step{testStep(), testStep(func(s *Step) { s.Name = "second" })}

	// reconcile is one pass of the managed reconciler on a deleted
	// operation; it returns whether the operation may go (its finalizer is
	// removed).
	reconcile := func(what string) bool {
		t.Helper()
		o := getOp(t, kube, "op1")
		x := &External[*v1alpha1.ClusterOps]{kube: kube, engine: e, source: Source{Key: "test", API: api},
			run: func(_ context.Context, kube client.Client, src Source, o *v1alpha1.ClusterOps) (Run, error) {
				return runOf(kube, o, src.API, plan...), nil
			}}
		obs, err := x.Observe(ctx, o)
		if err != nil {
			t.Fatalf("%s: Observe(...): %v", what, err)
		}
		if !obs.ResourceExists {
			return true
		}
		if _, err := x.Delete(ctx, o); err != nil {
			t.Fatalf("%s: Delete(...): %v", what, err)
		}
		if err := kube.Status().Update(ctx, o); err != nil {
			t.Fatalf("%s: cannot write status: %v", what, err)
		}
		clk.Advance(time.Second)
		return false
	}

	if reconcile("first step done") {
		t.Fatal("first step done: the operation went away before its second step")
	}
	if st := getOp(t, kube, "op1").Status.AtProvider; st.Step != 1 {
		t.Fatalf("first step done: at step %d (%s), want 1", st.Step, st.Message)
	}
	b.onCall = func() { b.set(sb.ClusterInActivation) }
	if reconcile("second step due") || reconcile("second step running") {
		t.Fatal("second step: the operation went away before its step finished")
	}
	b.set(sb.ClusterActive)
	if !reconcile("second step done") {
		t.Fatalf("second step done: the operation is kept: %s", getOp(t, kube, "op1").Status.AtProvider.Message)
	}

	if diff := cmp.Diff([]string{"activate c1"}, b.sentCalls()); diff != "" {
		t.Errorf("calls sent while deleted: -want, +got:\n%s", diff)
	}
	if n := rec.count(ReasonStopping); n != 1 {
		t.Errorf("%d %s events, want 1 (events: %v)", n, ReasonStopping, rec.reasons)
	}
	c := getCluster(t, kube)
	if c.Status.AtProvider.ActiveOperation != nil {
		t.Errorf("lock %+v, want released", c.Status.AtProvider.ActiveOperation)
	}
	h := c.Status.AtProvider.OperationHistory
	if len(h) != 1 || h[0].Phase != v1alpha1.OperationSucceeded || h[0].Reason != ReasonDeletedWhileRunning {
		t.Errorf("history %+v, want one Succeeded/%s record", h, ReasonDeletedWhileRunning)
	}
}
