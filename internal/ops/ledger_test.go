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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// maxConfigMapBytes is the API server's limit on a ConfigMap's data
// (corev1.MaxSecretSize, which ConfigMaps share).
const maxConfigMapBytes = 1 << 20

var ledgerKey = types.NamespacedName{Namespace: testNS, Name: LedgerName(testClusterID)}

// ledgerOf is the ledger of the test cluster holding recs whole.
func ledgerOf(t *testing.T, recs ...v1alpha1.OperationRecord) *corev1.ConfigMap {
	t.Helper()
	b := &ledgerBook{}
	for _, r := range recs {
		b.add(testNS, r)
	}
	return renderedLedger(b)
}

// compactedLedgerOf is the ledger of the test cluster holding r compacted,
// ended in phase.
func compactedLedgerOf(t *testing.T, r v1alpha1.OperationRecord, phase v1alpha1.OperationPhase) *corev1.ConfigMap {
	t.Helper()
	b := &ledgerBook{compacted: []compactRecord{{key: RunOnceKey(testNS, r.Name, r.Type, r.SpecHash), phase: phase}}}
	return renderedLedger(b)
}

func renderedLedger(b *ledgerBook) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{}
	cm.SetNamespace(ledgerKey.Namespace)
	cm.SetName(ledgerKey.Name)
	cm.SetLabels(map[string]string{LedgerLabel: "true"})
	b.render(cm)
	return cm
}

// ledgerRecords returns the whole records of the test cluster's ledger.
func ledgerRecords(t *testing.T, kube client.Reader) []v1alpha1.OperationRecord {
	t.Helper()
	cm := &corev1.ConfigMap{}
	if err := kube.Get(context.Background(), ledgerKey, cm); err != nil {
		t.Fatalf("cannot get the ledger: %v", err)
	}
	b, err := parseLedgerBook(cm)
	if err != nil {
		t.Fatalf("cannot parse the ledger: %v", err)
	}
	return b.recent
}

// opNamed is operation op in testNS with uid, of the test type and spec.
func opNamed(name string, uid types.UID) *v1alpha1.ClusterOps {
	return operation(named(name, uid))
}

func numbered(i int) v1alpha1.OperationRecord {
	r := record(fmt.Sprintf("op-%05d", i), types.UID(fmt.Sprintf("uid-%05d", i)), ReasonCompleted)
	if i%3 == 0 {
		r.Phase, r.Reason = v1alpha1.OperationFailed, ReasonBackendRejected
	}
	return r
}

func dataBytes(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	return n
}

func TestLedgerBook(t *testing.T) {
	type want struct {
		recent, compacted int
		// twins are the operations (by number) a re-creation of which is
		// recognised, with the phase they ended in; notTwins are not.
		twins    []int
		notTwins []int
	}
	cases := map[string]struct {
		reason  string
		records int
		deleted []int // operations deleted while they ran
		want    want
	}{
		"KeepsRecentRecordsWhole": {
			reason:  "Up to LedgerRecent records stay whole.",
			records: 3,
			want:    want{recent: 3, twins: []int{0, 2}, notTwins: []int{3}},
		},
		"CompactsOlderRecords": {
			reason:  "Records beyond LedgerRecent shrink to their run-once key and still stop a re-creation, with their phase.",
			records: LedgerRecent + 5,
			want: want{recent: LedgerRecent, compacted: 5,
				twins: []int{0, 1, LedgerRecent + 4}},
		},
		"DropsDeletedRecordsOnCompaction": {
			reason:  "A record of an operation deleted while it ran blocks no re-creation: compaction drops it.",
			records: LedgerRecent + 2,
			deleted: []int{1},
			want:    want{recent: LedgerRecent, compacted: 1, twins: []int{0}, notTwins: []int{1}},
		},
		"DropsTheOldestKeysPastTheBound": {
			reason:  "Past LedgerRecent+LedgerCompacted records the oldest compacted keys are dropped, oldest first.",
			records: LedgerRecent + LedgerCompacted + 10,
			want: want{recent: LedgerRecent, compacted: LedgerCompacted,
				twins: []int{10, 11, LedgerRecent + LedgerCompacted + 9}, notTwins: []int{0, 9}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &ledgerBook{}
			for i := range tc.records {
				r := numbered(i)
				for _, d := range tc.deleted {
					if d == i {
						r.Reason = ReasonDeleted
					}
				}
				b.add(testNS, r)
			}
			// What is checked is what a write and a read leave.
			cm := renderedLedger(b)
			got, err := parseLedgerBook(cm)
			if err != nil {
				t.Fatalf("\n%s\nparseLedgerBook(...): %v", tc.reason, err)
			}
			if len(got.recent) != tc.want.recent || len(got.compacted) != tc.want.compacted {
				t.Errorf("\n%s\nledger holds %d whole and %d compacted records, want %d and %d", tc.reason, len(got.recent), len(got.compacted), tc.want.recent, tc.want.compacted)
			}
			for _, i := range tc.want.twins {
				r := numbered(i)
				twin := got.twin(opNamed(r.Name, "uid-new"), testHash)
				if twin == nil || twin.Phase != r.Phase {
					t.Errorf("\n%s\ntwin of %s = %+v, want one that ended %s", tc.reason, r.Name, twin, r.Phase)
				}
			}
			for _, i := range tc.want.notTwins {
				r := numbered(i)
				if twin := got.twin(opNamed(r.Name, "uid-new"), testHash); twin != nil {
					t.Errorf("\n%s\ntwin of %s = %+v, want none", tc.reason, r.Name, twin)
				}
			}
			if n := dataBytes(cm); n > maxConfigMapBytes {
				t.Errorf("\n%s\nledger is %d bytes, over the API server's %d", tc.reason, n, maxConfigMapBytes)
			}
		})
	}
}

// TestLedgerGitOpsCycle runs the GitOps cycle of a year and more on one
// cluster: 10,500 operations, each from its own file in Git, each run once,
// deleted by its TTL and re-created by Argo CD again and again. Every
// re-creation of every operation that ran is recognised, long after it left
// the status history (50 records), through write and read of the ledger.
func TestLedgerGitOpsCycle(t *testing.T) {
	const operations = 10500
	b := &ledgerBook{}
	for i := range operations {
		r := numbered(i)
		if twin := b.twin(opNamed(r.Name, r.UID), testHash); twin != nil {
			t.Fatalf("operation %s is new but the ledger has a twin: %+v", r.Name, twin)
		}
		b.add(testNS, r)
		// Argo CD re-creates files that ran before, in every age band.
		for _, back := range []int{0, 1, 49, 50, 51, LedgerRecent, LedgerRecent + 1, 5000, 10000} {
			if j := i - back; j >= 0 {
				old := numbered(j)
				twin := b.twin(opNamed(old.Name, "uid-recreated"), testHash)
				if twin == nil || twin.Phase != old.Phase {
					t.Fatalf("after %d operations the re-creation of %s is not recognised (%+v): it would run again", i+1, old.Name, twin)
				}
			}
		}
		// Every 250 operations the ledger goes through its ConfigMap:
		// what counts is what a write and a read leave.
		if i%250 == 0 {
			var err error
			if b, err = parseLedgerBook(renderedLedger(b)); err != nil {
				t.Fatalf("operation %d: cannot parse the ledger: %v", i, err)
			}
		}
	}
	cm := renderedLedger(b)
	b, err := parseLedgerBook(cm)
	if err != nil {
		t.Fatal(err)
	}
	for i := range operations {
		old := numbered(i)
		if twin := b.twin(opNamed(old.Name, "uid-recreated"), testHash); twin == nil {
			t.Fatalf("the re-creation of %s (operation %d of %d) is not recognised: it would run again", old.Name, i+1, operations)
		}
	}
	n := dataBytes(cm)
	t.Logf("ledger after %d operations: %d whole and %d compacted records, %d bytes", operations, len(b.recent), len(b.compacted), n)
	if n > maxConfigMapBytes {
		t.Errorf("ledger is %d bytes, over the API server's %d", n, maxConfigMapBytes)
	}
}

func TestLedgerAppend(t *testing.T) {
	op := opNamed("op1", "uid-1")
	mine := rec(v1alpha1.OperationSucceeded, ReasonCompleted, 0)
	type want struct {
		prior   *v1alpha1.OperationRecord
		records []v1alpha1.OperationRecord
		written bool
	}
	cases := map[string]struct {
		reason string
		ledger *corev1.ConfigMap
		seed   []v1alpha1.OperationRecord
		want   want
	}{
		"CreatesTheLedgerWithTheHistory": {
			reason: "The first record creates the ledger, with the status history's records before it (written before the ledger existed).",
			seed:   []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted)},
			want:   want{records: []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted), mine}, written: true},
		},
		"Appends": {
			reason: "A record is appended after the ledger's, and history records it has are not added again.",
			ledger: ledgerOf(t, record("op0", "uid-0", ReasonCompleted)),
			seed:   []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted)},
			want:   want{records: []v1alpha1.OperationRecord{record("op0", "uid-0", ReasonCompleted), mine}, written: true},
		},
		"NeverTwice": {
			reason: "A ledger that has the operation's record (a finish that crashed after writing it) is not written again, and its record is returned: that outcome stands.",
			ledger: ledgerOf(t, rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 0)),
			want: want{prior: func() *v1alpha1.OperationRecord {
				r := rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 0)
				return &r
			}(),
				records: []v1alpha1.OperationRecord{rec(v1alpha1.OperationFailed, ReasonDeadlineExceeded, 0)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var objs []client.Object
			if tc.ledger != nil {
				objs = append(objs, tc.ledger)
			}
			kube := newKube(t, nil, objs...)
			before := ""
			if tc.ledger != nil {
				cm := &corev1.ConfigMap{}
				_ = kube.Get(context.Background(), ledgerKey, cm)
				before = cm.GetResourceVersion()
			}
			l := &Ledger{Kube: kube, Reader: kube}
			prior, err := l.Append(context.Background(), testNS, testClusterID, "StorageCluster "+testTarget, op, mine, tc.seed)
			if err != nil {
				t.Fatalf("\n%s\nAppend(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.prior, prior); diff != "" {
				t.Errorf("\n%s\nAppend(...): prior record: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.records, ledgerRecords(t, kube)); diff != "" {
				t.Errorf("\n%s\nAppend(...): ledger: -want, +got:\n%s", tc.reason, diff)
			}
			cm := &corev1.ConfigMap{}
			_ = kube.Get(context.Background(), ledgerKey, cm)
			if written := cm.GetResourceVersion() != before; written != tc.want.written {
				t.Errorf("\n%s\nAppend(...) wrote the ledger: %t, want %t", tc.reason, written, tc.want.written)
			}
			if cm.GetLabels()[LedgerLabel] != "true" {
				t.Errorf("\n%s\nthe ledger lacks its label %s, so the provider's cache would not see it", tc.reason, LedgerLabel)
			}
		})
	}
}
