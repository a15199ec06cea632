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
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// events records the reasons of the events it is given.
type events struct {
	mu       sync.Mutex
	reasons  []string
	messages []string
}

func (r *events) Event(_ runtime.Object, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reasons = append(r.reasons, string(e.Reason))
	r.messages = append(r.messages, e.Message)
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

// noUsage is a usage tracker that records nothing.
var noUsage = resource.ModernTrackerFn(func(context.Context, resource.ModernManaged) error { return nil })

func TestTrackUsage(t *testing.T) {
	pc := &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "sim"}
	// clusterUsage is the usage crossplane-runtime keeps for the
	// StorageCluster with UID "sc-uid", recording ProviderConfig name.
	clusterUsage := func(name string) *apisv1alpha1.ProviderConfigUsage {
		u := &apisv1alpha1.ProviderConfigUsage{}
		u.SetNamespace(testNS)
		u.SetName("sc-uid")
		u.ProviderConfigReference = xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: name}
		return u
	}
	withUID := func(c *v1alpha1.StorageCluster) { c.SetUID("sc-uid") }
	cases := map[string]struct {
		reason  string
		objects []client.Object
		target  bool // the run names the StorageCluster
		tracked bool
	}{
		"CoveredByTheStorageCluster": {
			reason:  "The StorageCluster's usage records the operation's ProviderConfig: the operation writes none of its own.",
			objects: []client.Object{storageCluster(withUID), clusterUsage("sim")},
			target:  true,
			tracked: false,
		},
		"StorageClusterOnAnotherProviderConfig": {
			reason:  "The StorageCluster uses another ProviderConfig: the operation tracks its own usage.",
			objects: []client.Object{storageCluster(withUID), clusterUsage("other")},
			target:  true,
			tracked: true,
		},
		"StorageClusterWithoutUsage": {
			reason:  "A StorageCluster with no usage (yet) covers nothing.",
			objects: []client.Object{storageCluster(withUID)},
			target:  true,
			tracked: true,
		},
		"NoTargetYet": {
			reason:  "An operation whose target is not known yet tracks its own usage.",
			target:  false,
			tracked: true,
		},
		"TargetGone": {
			reason:  "An operation whose StorageCluster does not exist tracks its own usage.",
			target:  true,
			tracked: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := operation(func(o *v1alpha1.ClusterOps) { o.SetProviderConfigReference(pc) })
			kube := newKube(t, nil, append(tc.objects, o)...)
			tracked := false
			x := &External[*v1alpha1.ClusterOps]{kube: kube, engine: newEngine(kube, &clock{now: t0}),
				usage: resource.ModernTrackerFn(func(context.Context, resource.ModernManaged) error { tracked = true; return nil })}
			r := Run{Object: o}
			if tc.target {
				r.Target = types.NamespacedName{Namespace: testNS, Name: testTarget}
			}
			if err := x.trackUsage(context.Background(), r, o); err != nil {
				t.Fatalf("\n%s\ntrackUsage(...): %v", tc.reason, err)
			}
			if tracked != tc.tracked {
				t.Errorf("\n%s\ntrackUsage(...) tracked the operation's own usage: %t, want %t", tc.reason, tracked, tc.tracked)
			}
		})
	}
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
		x := &External[*v1alpha1.ClusterOps]{kube: kube, engine: e, source: Source{Key: "test", API: api}, usage: noUsage,
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

func TestCountedEvents(t *testing.T) {
	cases := map[string]struct {
		reason string
		record func(r event.Recorder)
		want   map[event.Reason]float64
	}{
		"ByReason": {
			reason: "Each event recorded for an operation counts once under its reason.",
			record: func(r event.Recorder) {
				r.Event(operation(), event.Normal(ReasonCompleted, "done"))
				r.Event(operation(), event.Normal(ReasonCompleted, "done again"))
				r.Event(operation(), event.Warning(ReasonOutcomeUnknown, errors.New("lost")))
			},
			want: map[event.Reason]float64{ReasonCompleted: 2, ReasonOutcomeUnknown: 1},
		},
		"WithAnnotations": {
			reason: "A recorder derived with annotations counts too.",
			record: func(r event.Recorder) {
				r.WithAnnotations("k", "v").Event(operation(), event.Normal(ReasonTriggered, "sent"))
			},
			want: map[event.Reason]float64{ReasonTriggered: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kind := "TestCountedEvents" + name
			tc.record(CountedEvents(kind, event.NewNopRecorder()))
			for reason, want := range tc.want {
				if got := testutil.ToFloat64(DefaultMetrics().Events.WithLabelValues(kind, string(reason))); got != want {
					t.Errorf("\n%s\nevents counted for %s: %v, want %v", tc.reason, reason, got, want)
				}
			}
		})
	}
}

func TestTargetResolver(t *testing.T) {
	withName := func(c *v1alpha1.StorageCluster) { meta.SetExternalName(c, testClusterID) }
	finalized := func(o *v1alpha1.ClusterOps) { meta.AddFinalizer(o, managed.FinalizerName) }
	byRef := func(o *v1alpha1.ClusterOps) {
		o.Spec.ForProvider.ClusterID = ""
		o.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: testTarget}
	}
	resolved := func(o *v1alpha1.ClusterOps) {
		o.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: testTarget}
	}
	cases := map[string]struct {
		reason    string
		op        *v1alpha1.ClusterOps
		objects   []client.Object
		wantID    string
		wantWrite bool
	}{
		"ResolvedTargetIsNotWrittenAgain": {
			reason:  "An operation whose target was resolved and written causes no API write when it is resolved again.",
			op:      operation(finalized, resolved),
			objects: []client.Object{storageCluster(withName)},
			wantID:  testClusterID,
		},
		"NewlyResolvedTargetIsWritten": {
			reason:    "An operation with its finalizer whose reference resolves now gets the target written.",
			op:        operation(finalized, byRef),
			objects:   []client.Object{storageCluster(withName)},
			wantID:    testClusterID,
			wantWrite: true,
		},
		"ResolvedInMemoryUntilFinalized": {
			reason:  "Before its finalizer, an operation's target is resolved in memory: the finalizer's update writes it.",
			op:      operation(byRef),
			objects: []client.Object{storageCluster(withName)},
			wantID:  testClusterID,
		},
		"MissingTargetWaits": {
			reason: "A reference to a StorageCluster that does not exist is left unresolved, without an error or a write.",
			op:     operation(finalized, byRef),
		},
		"TargetWithoutIDWaits": {
			reason:  "A StorageCluster without a backend id yet leaves the reference unresolved, without an error or a write.",
			op:      operation(finalized, byRef),
			objects: []client.Object{storageCluster()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wrote := false
			kube := newKube(t, &interceptor.Funcs{
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
					wrote = true
					return nil
				},
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					wrote = true
					return nil
				},
			}, append(tc.objects, tc.op)...)
			if err := (targetResolver{kube: kube}).ResolveReferences(context.Background(), tc.op); err != nil {
				t.Fatalf("\n%s\nResolveReferences(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.wantID, tc.op.Spec.ForProvider.ClusterID); diff != "" {
				t.Errorf("\n%s\nResolveReferences(...): -want clusterId, +got:\n%s", tc.reason, diff)
			}
			if wrote != tc.wantWrite {
				t.Errorf("\n%s\nResolveReferences(...) wrote the operation: %t, want %t", tc.reason, wrote, tc.wantWrite)
			}
		})
	}
}
