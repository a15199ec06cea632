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
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestLockChanged(t *testing.T) {
	lockedBy := func(uid string) func(c *v1alpha1.StorageCluster) {
		return func(c *v1alpha1.StorageCluster) {
			c.Status.AtProvider.ActiveOperation = &v1alpha1.OperationReference{Name: uid, UID: types.UID(uid)}
		}
	}
	recorded := func(uid string) func(c *v1alpha1.StorageCluster) {
		return func(c *v1alpha1.StorageCluster) {
			c.Status.AtProvider.OperationHistory = append(c.Status.AtProvider.OperationHistory,
				v1alpha1.OperationRecord{Name: uid, UID: types.UID(uid), Phase: v1alpha1.OperationSucceeded})
		}
	}
	cluster := func(mods ...func(c *v1alpha1.StorageCluster)) *v1alpha1.StorageCluster {
		c := &v1alpha1.StorageCluster{}
		c.Status.AtProvider.Status = "active"
		for _, m := range mods {
			m(c)
		}
		return c
	}
	cases := map[string]struct {
		reason   string
		old, new *v1alpha1.StorageCluster
		want     bool
	}{
		"LockTaken":     {reason: "Taking the free lock moves the queue.", old: cluster(), new: cluster(lockedBy("a")), want: true},
		"LockReleased":  {reason: "Releasing the lock moves the queue.", old: cluster(lockedBy("a")), new: cluster(recorded("a")), want: true},
		"HolderChanged": {reason: "A lock taken over moves the queue.", old: cluster(lockedBy("a")), new: cluster(lockedBy("b")), want: true},
		"Recorded": {reason: "A new history record (an operation finished) moves the queue.",
			old: cluster(lockedBy("a")), new: cluster(lockedBy("a"), recorded("b")), want: true},
		"OtherStatus": {reason: "A backend status change under the same holder does not concern the waiting operations.",
			old: cluster(lockedBy("a")), new: func() *v1alpha1.StorageCluster {
				c := cluster(lockedBy("a"))
				c.Status.AtProvider.Status = "in_expansion"
				return c
			}(), want: false},
	}
	p := LockChanged()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := p.Update(event.UpdateEvent{ObjectOld: tc.old, ObjectNew: tc.new})
			if got != tc.want {
				t.Errorf("\n%s\nLockChanged().Update(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestTargetAppeared(t *testing.T) {
	cluster := func(externalName string, holder string) *v1alpha1.StorageCluster {
		c := &v1alpha1.StorageCluster{}
		if externalName != "" {
			meta.SetExternalName(c, externalName)
		}
		if holder != "" {
			c.Status.AtProvider.ActiveOperation = &v1alpha1.OperationReference{Name: holder, UID: types.UID(holder)}
		}
		return c
	}
	p := TargetAppeared()
	cases := map[string]struct {
		reason string
		got    bool
		want   bool
	}{
		"Created": {reason: "A new StorageCluster may be the target an operation waits for.",
			got: p.Create(event.CreateEvent{Object: cluster("", "")}), want: true},
		"GotItsBackendID": {reason: "A StorageCluster that got its backend id may resolve a reference now.",
			got: p.Update(event.UpdateEvent{ObjectOld: cluster("", ""), ObjectNew: cluster("c-1", "")}), want: true},
		"LockChanged": {reason: "A lock change resolves no reference: the operations it moves are woken by LockChanged.",
			got: p.Update(event.UpdateEvent{ObjectOld: cluster("c-1", ""), ObjectNew: cluster("c-1", "a")}), want: false},
		"Deleted": {reason: "A StorageCluster that is gone resolves nothing.",
			got: p.Delete(event.DeleteEvent{Object: cluster("c-1", "")}), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("\n%s\nTargetAppeared() = %t, want %t", tc.reason, tc.got, tc.want)
			}
		})
	}
}

func TestNextWaiting(t *testing.T) {
	op := func(name string, created time.Duration, mods ...func(o *v1alpha1.ClusterOps)) Object {
		o := &v1alpha1.ClusterOps{}
		o.SetName(name)
		o.SetUID(types.UID(name))
		o.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(created)))
		for _, m := range mods {
			m(o)
		}
		return o
	}
	started := func(o *v1alpha1.ClusterOps) { o.Status.AtProvider.StartedAt = &metav1.Time{} }
	done := func(o *v1alpha1.ClusterOps) { o.Status.AtProvider.Phase = v1alpha1.OperationSucceeded }
	cases := map[string]struct {
		reason string
		objs   []Object
		holder *v1alpha1.OperationReference
		// want is NextWaiting's answer, wantHolder NotStartedHolder's,
		// wantWoken WokenByLockChange's.
		want, wantHolder string
		wantWoken        []string
	}{
		"FirstCreated": {reason: "The operation created first is next.",
			objs: []Object{op("b", 2*time.Second), op("a", time.Second)}, want: "a", wantWoken: []string{"a"}},
		"SkipsHolderFinishedAndStarted": {reason: "The holder, finished operations and one that just released the lock are not waiting.",
			objs:   []Object{op("h", 0, started), op("f", time.Second, done), op("s", 2*time.Second, started), op("w", 3*time.Second)},
			holder: &v1alpha1.OperationReference{UID: "h"}, want: "w"},
		"SkipsOneWaitingForItsWindow": {reason: "An operation waiting for its maintenance window to start does not queue.",
			objs: []Object{op("a", 0, func(o *v1alpha1.ClusterOps) { o.Status.AtProvider.Reason = ReasonWaitingForWindow }), op("b", time.Second)}, want: "b", wantWoken: []string{"b"}},
		"HandedOverHolder": {reason: "A holder that has not started was handed the lock: it is woken, and the next waits behind it, not woken, as it cannot take the lock.",
			objs:   []Object{op("h", 0), op("w", 3*time.Second)},
			holder: &v1alpha1.OperationReference{UID: "h"}, want: "w", wantHolder: "h", wantWoken: []string{"h"}},
		"FinishedHolderNeverStarted": {reason: "A finished holder that never started (handed the lock after it ended) is woken to pass it on.",
			objs:   []Object{op("h", 0, done)},
			holder: &v1alpha1.OperationReference{UID: "h"}, wantHolder: "h", wantWoken: []string{"h"}},
		"HolderOfTheOtherKind": {reason: "A holder that is not among the operations asked about is not woken, nor the next in line while it holds the lock.",
			objs:   []Object{op("w", 0)},
			holder: &v1alpha1.OperationReference{UID: "node-op"}, want: "w"},
		"StartedHolder": {reason: "A change of a lock held by an operation that runs wakes nobody.",
			objs:   []Object{op("h", 0, started), op("w", 3*time.Second)},
			holder: &v1alpha1.OperationReference{UID: "h"}, want: "w"},
		"NoneWaiting": {reason: "Nobody is next when nobody waits.", objs: []Object{op("f", 0, done)}, want: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if n := NextWaiting(tc.objs, tc.holder); n != nil {
				got = n.GetName()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nNextWaiting(...): -want, +got:\n%s", tc.reason, diff)
			}
			got = ""
			if h := NotStartedHolder(tc.objs, tc.holder); h != nil {
				got = h.GetName()
			}
			if diff := cmp.Diff(tc.wantHolder, got); diff != "" {
				t.Errorf("\n%s\nNotStartedHolder(...): -want, +got:\n%s", tc.reason, diff)
			}
			var woken []string
			for _, o := range WokenByLockChange(tc.objs, tc.holder) {
				woken = append(woken, o.GetName())
			}
			if diff := cmp.Diff(tc.wantWoken, woken); diff != "" {
				t.Errorf("\n%s\nWokenByLockChange(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
