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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// errReader fails every read.
type errReader struct{ err error }

func (r errReader) Get(_ context.Context, _ client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return r.err
}

func (r errReader) List(_ context.Context, _ client.ObjectList, _ ...client.ListOption) error {
	return r.err
}

func TestAcquire(t *testing.T) {
	op1 := operation(withOpStatus(func(st *v1alpha1.OperationStatus) { st.Phase = v1alpha1.OperationPending }))
	op0 := func(m ...opModifier) *v1alpha1.ClusterOps {
		return operation(append([]opModifier{named("op0", "uid-0"), ofType(v1alpha1.ClusterRestart), createdAt(-time.Hour),
			withOpStatus(func(st *v1alpha1.OperationStatus) { st.Phase = v1alpha1.OperationRunning })}, m...)...)
	}
	held := lockOf(op0(), v1alpha1.OperationRunning)

	type args struct {
		cluster *v1alpha1.StorageCluster
		others  []client.Object
		reader  client.Reader // nil: the fake API
		stale   bool          // the target copy is outdated
	}
	type want struct {
		acquired  bool
		takenOver string
		err       string
		lock      *v1alpha1.OperationReference
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Free": {
			reason: "A free lock is taken and written to the target's status.",
			args:   args{cluster: storageCluster()},
			want:   want{acquired: true, lock: lockOf(op1, v1alpha1.OperationPending)},
		},
		"AlreadyHeld": {
			reason: "An operation that holds the lock holds it still.",
			args:   args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationPending)))},
			want:   want{acquired: true, lock: lockOf(op1, v1alpha1.OperationPending)},
		},
		"HeldByLiveHolder": {
			reason: "A lock whose holder exists and has not finished is refused.",
			args:   args{cluster: storageCluster(lockedBy(held)), others: []client.Object{op0()}},
			want:   want{lock: held},
		},
		"HeldByLiveHolderInCache": {
			reason: "A holder the cache shows running is taken as running without asking the API server (here, one that would fail).",
			args:   args{cluster: storageCluster(lockedBy(held)), others: []client.Object{op0()}, reader: errReader{err: errors.New("boom")}},
			want:   want{lock: held},
		},
		"HolderDeleted": {
			reason: "A lock whose holder was deleted is taken over, and the holder is named.",
			args:   args{cluster: storageCluster(lockedBy(held))},
			want:   want{acquired: true, takenOver: "op0", lock: lockOf(op1, v1alpha1.OperationPending)},
		},
		"HolderTerminal": {
			reason: "A lock whose holder finished without releasing it (a crash in between) is taken over.",
			args: args{cluster: storageCluster(lockedBy(held)), others: []client.Object{op0(withOpStatus(func(st *v1alpha1.OperationStatus) {
				st.Phase = v1alpha1.OperationFailed
			}))}},
			want: want{acquired: true, takenOver: "op0", lock: lockOf(op1, v1alpha1.OperationPending)},
		},
		"HolderRecreated": {
			reason: "A lock whose holder was re-created under a new UID is taken over: the new object is another operation.",
			args:   args{cluster: storageCluster(lockedBy(held)), others: []client.Object{op0(named("op0", "uid-0-new"))}},
			want:   want{acquired: true, takenOver: "op0", lock: lockOf(op1, v1alpha1.OperationPending)},
		},
		"HolderUnreadable": {
			reason: "When the holder cannot be read the lock is not taken over.",
			args:   args{cluster: storageCluster(lockedBy(held)), reader: errReader{err: errors.New("boom")}},
			want:   want{err: errGetHolder + ": boom", lock: held},
		},
		"ConflictingWrite": {
			reason: "When the target changed since it was read the lock is not taken, without an error: the next reconcile looks again.",
			args:   args{cluster: storageCluster(), stale: true},
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newKube(t, nil, append([]client.Object{tc.args.cluster, op1.DeepCopy()}, tc.args.others...)...)
			l := newLock(kube)
			if tc.args.reader != nil {
				l.Reader = tc.args.reader
			}
			c := getCluster(t, kube)
			if tc.args.stale {
				fresh := c.DeepCopy()
				fresh.Status.AtProvider.Status = "active"
				if err := kube.Status().Update(context.Background(), fresh); err != nil {
					t.Fatal(err)
				}
			}
			acquired, takenOver, err := l.Acquire(context.Background(), c, getOp(t, kube, "op1"))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.want.err, gotErr); diff != "" {
				t.Errorf("\n%s\nAcquire(...): error: -want, +got:\n%s", tc.reason, diff)
			}
			if acquired != tc.want.acquired || takenOver != tc.want.takenOver {
				t.Errorf("\n%s\nAcquire(...) = (%t, %q), want (%t, %q)", tc.reason, acquired, takenOver, tc.want.acquired, tc.want.takenOver)
			}
			if diff := cmp.Diff(tc.want.lock, getCluster(t, kube).Status.AtProvider.ActiveOperation); diff != "" {
				t.Errorf("\n%s\npersisted lock: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAcquireConflictLeavesTargetUnchanged: a refused Acquire must not
// leave the caller's copy of the target claiming that o holds the lock.
func TestAcquireConflictLeavesTargetUnchanged(t *testing.T) {
	kube := newKube(t, nil, storageCluster(), operation())
	c := getCluster(t, kube)
	fresh := c.DeepCopy()
	fresh.Status.AtProvider.Status = "active"
	if err := kube.Status().Update(context.Background(), fresh); err != nil {
		t.Fatal(err)
	}
	acquired, _, err := newLock(kube).Acquire(context.Background(), c, getOp(t, kube, "op1"))
	if acquired || err != nil {
		t.Fatalf("Acquire(...) = %t, %v; want false, nil", acquired, err)
	}
	if diff := cmp.Diff((*v1alpha1.OperationReference)(nil), c.GetActiveOperation()); diff != "" {
		t.Errorf("\nA refused Acquire leaves the target copy's lock as it was.\nActiveOperation: -want, +got:\n%s", diff)
	}
}

func record(name string, uid types.UID, reason string) v1alpha1.OperationRecord {
	return v1alpha1.OperationRecord{Name: name, UID: uid, Type: string(v1alpha1.ClusterActivate), Phase: v1alpha1.OperationSucceeded,
		Reason: reason, SpecHash: testHash}
}

func TestFinish(t *testing.T) {
	op1 := operation()
	rec1 := record("op1", "uid-1", ReasonCompleted)
	full := make([]v1alpha1.OperationRecord, v1alpha1.MaxOperationHistory)
	for i := range full {
		full[i] = record(fmt.Sprintf("old-%d", i), types.UID(fmt.Sprintf("uid-old-%d", i)), ReasonCompleted)
	}
	other := &v1alpha1.OperationReference{Name: "op0", UID: "uid-0"}

	seen := &Snapshot{Cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterSuspended}}

	type args struct {
		cluster *v1alpha1.StorageCluster // nil: missing
		rec     *v1alpha1.OperationRecord
		next    Object
		seen    *Snapshot
	}
	type want struct {
		err       string
		lock      *v1alpha1.OperationReference
		history   []v1alpha1.OperationRecord
		unwritten bool
		// shown is the cluster status the target's atProvider shows.
		shown string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"ReleasesAndRecords": {
			reason: "The holder's lock is released and its record appended, in one write.",
			args:   args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning)), withHistory(record("old", "uid-old", ReasonCompleted))), rec: &rec1},
			want:   want{history: []v1alpha1.OperationRecord{record("old", "uid-old", ReasonCompleted), rec1}},
		},
		"HandsOverAndRecords": {
			reason: "The holder's lock goes to the operation next in line in the write that records the holder.",
			args: args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning))), rec: &rec1,
				next: operation(named("op2", "uid-2"), createdAt(time.Minute), withOpStatus(func(st *v1alpha1.OperationStatus) {
					st.Phase, st.Reason = v1alpha1.OperationPending, ReasonQueued
				}))},
			want: want{lock: &v1alpha1.OperationReference{Name: "op2", UID: "uid-2", Type: string(v1alpha1.ClusterActivate), Phase: v1alpha1.OperationPending},
				history: []v1alpha1.OperationRecord{rec1}},
		},
		"OtherHolderNotHandedOver": {
			reason: "A lock held by another operation is not handed over; the record is still appended.",
			args:   args{cluster: storageCluster(lockedBy(other)), rec: &rec1, next: operation(named("op2", "uid-2"))},
			want:   want{lock: other, history: []v1alpha1.OperationRecord{rec1}},
		},
		"HistoryCapped": {
			reason: "The history keeps the newest MaxOperationHistory records; the oldest is dropped.",
			args:   args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning)), withHistory(full...)), rec: &rec1},
			want:   want{history: append(append([]v1alpha1.OperationRecord{}, full[1:]...), rec1)},
		},
		"NoDuplicateRecord": {
			reason: "An operation already recorded is not recorded again (a retried finish); its lock is still released.",
			args: args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning)), withHistory(record("op1", "uid-1", ReasonDeleted))),
				rec: &rec1},
			want: want{history: []v1alpha1.OperationRecord{record("op1", "uid-1", ReasonDeleted)}},
		},
		"OtherHolderKept": {
			reason: "Another operation's lock is never released; the record is still appended.",
			args:   args{cluster: storageCluster(lockedBy(other)), rec: &rec1},
			want:   want{lock: other, history: []v1alpha1.OperationRecord{rec1}},
		},
		"ReleaseOnly": {
			reason: "Without a record only the lock is released.",
			args:   args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning)))},
			want:   want{},
		},
		"NothingToDo": {
			reason: "Neither holding the lock nor a new record: the target is not written.",
			args:   args{cluster: storageCluster(lockedBy(other), withHistory(rec1)), rec: &rec1},
			want:   want{lock: other, history: []v1alpha1.OperationRecord{rec1}, unwritten: true},
		},
		"ShowsWhatWasSeen": {
			reason: "The write that releases the lock also shows what the operation saw of the target after its last call.",
			args:   args{cluster: storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning))), rec: &rec1, seen: seen},
			want:   want{history: []v1alpha1.OperationRecord{rec1}, shown: string(sb.ClusterSuspended)},
		},
		"DeletedTargetShowsItsDeletion": {
			reason: "A target being deleted gets the release and the record, but not what the operation saw: it shows its deletion.",
			args:   args{cluster: storageCluster(beingDeleted(), lockedBy(lockOf(op1, v1alpha1.OperationRunning))), rec: &rec1, seen: seen},
			want:   want{history: []v1alpha1.OperationRecord{rec1}},
		},
		"SeenWrittenOnlyWithTheFinish": {
			reason: "An observation alone is no reason to write the target: that is its own controller's job.",
			args:   args{cluster: storageCluster(lockedBy(other), withHistory(rec1)), rec: &rec1, seen: seen},
			want:   want{lock: other, history: []v1alpha1.OperationRecord{rec1}, unwritten: true},
		},
		"TargetMissing": {
			reason: "A missing target is not an error: there is nothing to keep.",
			args:   args{rec: &rec1},
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := []client.Object{op1.DeepCopy()}
			if tc.args.cluster != nil {
				objs = append(objs, tc.args.cluster)
			}
			kube := newKube(t, nil, objs...)
			rv := ""
			if tc.args.cluster != nil {
				rv = getCluster(t, kube).ResourceVersion
			}
			l := newLock(kube)
			l.ObserveTarget = func(t Target, s *Snapshot) {
				t.(*v1alpha1.StorageCluster).Status.AtProvider.Status = string(s.Cluster.Status)
			}
			err := l.FinishIn(context.Background(), targetKey, targetKey, getOp(t, kube, "op1"), tc.args.rec, tc.args.next, tc.args.seen)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff(tc.want.err, gotErr); diff != "" {
				t.Errorf("\n%s\nFinish(...): error: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.args.cluster == nil {
				return
			}
			c := getCluster(t, kube)
			if diff := cmp.Diff(tc.want.lock, c.Status.AtProvider.ActiveOperation); diff != "" {
				t.Errorf("\n%s\npersisted lock: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.history, c.Status.AtProvider.OperationHistory, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\npersisted history: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.shown, c.Status.AtProvider.Status); diff != "" {
				t.Errorf("\n%s\npersisted atProvider.status: -want, +got:\n%s", tc.reason, diff)
			}
			if tc.want.unwritten && c.ResourceVersion != rv {
				t.Errorf("\n%s\nthe target was written (resourceVersion %s -> %s)", tc.reason, rv, c.ResourceVersion)
			}
		})
	}
}

func TestFinishConfirmsWithTheAPIServer(t *testing.T) {
	op1 := operation()
	locked := storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning)))
	api := newKube(t, nil, op1.DeepCopy(), locked)
	// The cache still shows the cluster as it was before the lock was taken.
	cache := staleGet{Client: api, obj: storageCluster()}
	l := &Lock{Kube: cache, Reader: api, NewTarget: func() Target { return &v1alpha1.StorageCluster{} }}
	if err := l.FinishIn(context.Background(), targetKey, targetKey, getOp(t, api, "op1"), nil, nil, nil); err != nil {
		t.Fatalf("Finish(...): %v", err)
	}
	if a := getCluster(t, api).Status.AtProvider.ActiveOperation; a != nil {
		t.Errorf("\nA lock the cache does not show yet is still released (the API server is asked).\nlock after Finish: %+v", a)
	}
}

func TestFinishRetriesAConflict(t *testing.T) {
	cases := map[string]struct {
		reason    string
		conflicts int // the target's status writes that conflict first
		wantErr   bool
	}{
		"OneConflict": {
			reason:    "A write of the target's status that conflicts with another writer's is tried again at once on a fresh copy: the lock is released and the record written in the same Finish.",
			conflicts: 1,
		},
		"NoConflict": {
			reason: "Without a conflict the target is written once.",
		},
		"ConflictsPersist": {
			reason:    "A conflict on every attempt is returned after the retries.",
			conflicts: 100,
			wantErr:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			op1 := operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0))
			left := tc.conflicts
			kube := newKube(t, &interceptor.Funcs{
				SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					if _, ok := obj.(*v1alpha1.StorageCluster); ok && left > 0 {
						left--
						return kerrors.NewConflict(schema.GroupResource{Resource: "storageclusters"}, obj.GetName(), errors.New("the object has been modified"))
					}
					return c.SubResource(sub).Update(ctx, obj, opts...)
				},
			}, op1.DeepCopy(), storageCluster(lockedBy(lockOf(op1, v1alpha1.OperationRunning))))
			rec := recordFor(op1)
			err := newLock(kube).FinishIn(context.Background(), targetKey, targetKey, getOp(t, kube, "op1"), &rec, nil, nil)
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nFinish(...): %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			c := getCluster(t, kube)
			if a := c.Status.AtProvider.ActiveOperation; a != nil {
				t.Errorf("\n%s\nlock after Finish: %+v, want released", tc.reason, a)
			}
			if RecordOf(c, op1.GetUID()) == nil {
				t.Errorf("\n%s\nno history record after Finish", tc.reason)
			}
		})
	}
}

func TestFinishTrustsACachedRecord(t *testing.T) {
	op1 := operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0))
	recorded := storageCluster()
	recorded.Status.AtProvider.OperationHistory = []v1alpha1.OperationRecord{recordFor(op1)}
	kube := newKube(t, nil, op1.DeepCopy(), recorded)
	l := &Lock{Kube: kube, Reader: errReader{err: errors.New("boom")}, NewTarget: func() Target { return &v1alpha1.StorageCluster{} }}
	if err := l.FinishIn(context.Background(), targetKey, targetKey, getOp(t, kube, "op1"), nil, nil, nil); err != nil {
		t.Errorf("\nA cached copy with the operation's record shows its lock released (one write): the API server is not asked.\nFinish(...): %v", err)
	}
}

func TestRelease(t *testing.T) {
	op1 := operation(finished(v1alpha1.OperationSucceeded, ReasonCompleted, 0))
	mine := &v1alpha1.OperationReference{Name: "op1", UID: "uid-1", Kind: v1alpha1.ClusterOpsKind}
	other := &v1alpha1.OperationReference{Name: "op2", UID: "uid-2", Kind: v1alpha1.ClusterOpsKind}
	cases := map[string]struct {
		reason  string
		cluster *v1alpha1.StorageCluster
		next    Object
		want    *v1alpha1.OperationReference
	}{
		"HeldByTheOperation": {
			reason:  "A lock the cached copy shows the finished operation holding is released.",
			cluster: storageCluster(lockedBy(mine)),
		},
		"HandedOver": {
			reason:  "A released lock with an operation next in line is handed over to it in the same write.",
			cluster: storageCluster(lockedBy(mine)),
			next:    operation(named("op2", "uid-2"), createdAt(time.Minute)),
			want:    &v1alpha1.OperationReference{Name: "op2", UID: "uid-2", Type: string(v1alpha1.ClusterActivate), Kind: v1alpha1.ClusterOpsKind},
		},
		"HandedOverToTheOtherKind": {
			reason:  "The lock is handed over to a StorageNodeOps next in line, named by its own kind.",
			cluster: storageCluster(lockedBy(mine)),
			next: func() Object {
				n := &v1alpha1.StorageNodeOps{}
				n.SetName("node-op")
				n.SetUID("uid-n")
				n.Spec.ForProvider.Type = v1alpha1.NodeRestart
				return n
			}(),
			want: &v1alpha1.OperationReference{Name: "node-op", UID: "uid-n", Type: string(v1alpha1.NodeRestart), Kind: v1alpha1.StorageNodeOpsKind},
		},
		"HeldByAnotherNotHandedOver": {
			reason:  "A lock the operation does not hold is not handed over by it.",
			cluster: storageCluster(lockedBy(other)),
			next:    operation(named("op3", "uid-3"), createdAt(time.Minute)),
			want:    other,
		},
		"HeldByAnother": {
			reason:  "Another operation's lock is left alone.",
			cluster: storageCluster(lockedBy(other)),
			want:    other,
		},
		"Free": {
			reason:  "A free lock whose target has no record of the operation (its record fell out of the bounded history) is not confirmed with the API server.",
			cluster: storageCluster(),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			kube := newKube(t, nil, op1.DeepCopy(), tc.cluster)
			l := &Lock{Kube: kube, Reader: errReader{err: errors.New("boom")}, NewTarget: func() Target { return &v1alpha1.StorageCluster{} },
				Kind: v1alpha1.ClusterOpsKind}
			if err := l.Release(context.Background(), targetKey, getOp(t, kube, "op1"), tc.next); err != nil {
				t.Fatalf("\n%s\nRelease(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, getCluster(t, kube).Status.AtProvider.ActiveOperation); diff != "" {
				t.Errorf("\n%s\nRelease(...): -want lock, +got:\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("TargetGone", func(t *testing.T) {
		kube := newKube(t, nil, op1.DeepCopy())
		l := &Lock{Kube: kube, Reader: errReader{err: errors.New("boom")}, NewTarget: func() Target { return &v1alpha1.StorageCluster{} }}
		if err := l.Release(context.Background(), targetKey, op1, nil); err != nil {
			t.Errorf("\nA target that is gone holds no lock.\nRelease(...): %v", err)
		}
	})
}

// staleGet is a client whose Get answers with an old copy of obj.
type staleGet struct {
	client.Client
	obj client.Object
}

func (s staleGet) Get(_ context.Context, _ client.ObjectKey, o client.Object, _ ...client.GetOption) error {
	s.obj.(*v1alpha1.StorageCluster).DeepCopyInto(o.(*v1alpha1.StorageCluster)) //nolint:forcetypeassert // the test's only kind.
	return nil
}

func TestFinishTargetUnreadable(t *testing.T) {
	// A client whose reads fail with something other than NotFound.
	l := newLock(failingGet{Client: newKube(t, nil), err: errors.New("boom")})
	err := l.FinishIn(context.Background(), targetKey, targetKey, operation(), nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), errGetTarget+": boom") {
		t.Errorf("\nAn unreadable target is an error, wrapped.\nFinish(...): got %v", err)
	}
}

// failingGet is a client whose Get fails.
type failingGet struct {
	client.Client
	err error
}

func (f failingGet) Get(_ context.Context, _ client.ObjectKey, _ client.Object, _ ...client.GetOption) error {
	return f.err
}

func TestRecordOf(t *testing.T) {
	older := record("op1", "uid-1", ReasonDeleted)
	newer := record("op1", "uid-1", ReasonCompleted)
	c := storageCluster(withHistory(older, record("op2", "uid-2", ReasonCompleted), newer))
	cases := map[string]struct {
		reason string
		uid    types.UID
		want   *v1alpha1.OperationRecord
	}{
		"Newest": {reason: "The newest record of the UID is returned.", uid: "uid-1", want: &newer},
		"None":   {reason: "A UID without a record has none.", uid: "uid-9"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RecordOf(c, tc.uid)); diff != "" {
				t.Errorf("\n%s\nRecordOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestTwinOf(t *testing.T) {
	twin := func(m func(r *v1alpha1.OperationRecord)) v1alpha1.OperationRecord {
		r := record("op1", "uid-old", ReasonCompleted)
		if m != nil {
			m(&r)
		}
		return r
	}
	cases := map[string]struct {
		reason  string
		history []v1alpha1.OperationRecord
		want    *v1alpha1.OperationRecord
	}{
		"SameNameTypeSpecOtherUID": {
			reason:  "A record with this name, type and spec but another UID is a twin: this object is a re-creation.",
			history: []v1alpha1.OperationRecord{twin(nil)},
			want:    &[]v1alpha1.OperationRecord{twin(nil)}[0],
		},
		"SameUID": {
			reason:  "The operation's own record is not a twin.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.UID = "uid-1" })},
		},
		"OtherSpec": {
			reason:  "A record with another spec hash is not a twin: the spec changed, so it is a new operation.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.SpecHash = "hash-0" })},
		},
		"OtherType": {
			reason:  "A record of another type is not a twin.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.Type = string(v1alpha1.ClusterRestart) })},
		},
		"OtherName": {
			reason:  "A record of another name is not a twin.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.Name = "op2" })},
		},
		"DeletedIgnored": {
			reason:  "A record of an operation deleted before it sent anything is not a twin: it never ran.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.Reason = ReasonDeleted })},
		},
		"DeletedWhileRunningCounts": {
			reason:  "A record of an operation deleted after it sent a call is a twin: it did run.",
			history: []v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.Reason = ReasonDeletedWhileRunning })},
			want:    &[]v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.Reason = ReasonDeletedWhileRunning })}[0],
		},
		"NewestTwin": {
			reason: "With several twins the newest is returned.",
			history: []v1alpha1.OperationRecord{twin(nil), twin(func(r *v1alpha1.OperationRecord) {
				r.UID, r.Phase = "uid-newer", v1alpha1.OperationFailed
			}), twin(func(r *v1alpha1.OperationRecord) { r.Reason = ReasonDeleted })},
			want: &[]v1alpha1.OperationRecord{twin(func(r *v1alpha1.OperationRecord) { r.UID, r.Phase = "uid-newer", v1alpha1.OperationFailed })}[0],
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := TwinOf(storageCluster(withHistory(tc.history...)), operation(), testHash)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nTwinOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestQueueOrder(t *testing.T) {
	cases := map[string]struct {
		reason string
		ops    []*v1alpha1.ClusterOps
		want   []string
	}{
		"ByCreationTime": {
			reason: "Operations are served first come, first served.",
			ops: []*v1alpha1.ClusterOps{operation(named("c", "u-c"), createdAt(2*time.Second)), operation(named("a", "u-a"), createdAt(3*time.Second)),
				operation(named("b", "u-b"), createdAt(time.Second))},
			want: []string{"b", "c", "a"},
		},
		"SameSecondByName": {
			reason: "Operations created in the same second are ordered by name.",
			ops: []*v1alpha1.ClusterOps{operation(named("zeta", "u-z")), operation(named("alpha", "u-a")),
				operation(named("early", "u-e"), createdAt(-time.Second)), operation(named("mid", "u-m"))},
			want: []string{"early", "alpha", "mid", "zeta"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			objs := make([]Object, 0, len(tc.ops))
			for _, o := range tc.ops {
				objs = append(objs, o)
			}
			QueueOrder(objs)
			got := make([]string, 0, len(objs))
			for _, o := range objs {
				got = append(got, o.GetName())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nQueueOrder(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	o := operation()
	cases := map[string]struct {
		reason string
		lock   *v1alpha1.OperationReference
		want   bool
	}{
		"Free":      {reason: "Nobody holds a free lock."},
		"Holder":    {reason: "The operation named with its UID holds the lock.", lock: lockOf(o, ""), want: true},
		"OtherUID":  {reason: "A lock of an earlier object with the same name is not held.", lock: &v1alpha1.OperationReference{Name: "op1", UID: "uid-0"}},
		"OtherName": {reason: "Another operation's lock is not held.", lock: &v1alpha1.OperationReference{Name: "op0", UID: "uid-0"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Holds(storageCluster(lockedBy(tc.lock)), o); got != tc.want {
				t.Errorf("\n%s\nHolds(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}
