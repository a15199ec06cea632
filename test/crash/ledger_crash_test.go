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

package crash_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// TestLedgerCrashPoints kills the provider right after an operation's
// record reached the ledger (the lock still held) and right after the lock
// was released with the record in the status history (the operation's own
// status not yet written), for a ClusterOps and a StorageNodeOps. Each
// operation ends once, as it would have; the ledger holds one record of
// it, the history holds it, the lock is free, and its re-creation ends
// AlreadyCompleted without a call (docs/operations-engine.md, "The
// ledger").
func TestLedgerCrashPoints(t *testing.T) {
	table := newSummaryTable(t)
	var typs []crashType
	for _, typ := range crashTypes {
		if typ.name == "Rebalance" {
			typs = append(typs, typ)
		}
	}
	typs = append(typs, nodeCrashTypes[0])
	var cases []*crashCase
	var points []string
	for _, typ := range typs {
		for _, m := range []string{ops.CrashAfterLedger, ops.CrashAfterRelease} {
			c := &crashCase{typ: typ, moment: m, ns: newNamespace(t)}
			c.name = fmt.Sprintf("%02d-%s", len(cases), strings.ToLower(typ.name))
			cases = append(cases, c)
			points = append(points, c.point())
		}
	}
	sup := runWithCrashes(t, points, opsArgs...)
	for _, c := range cases {
		runCrashCase(t, table, sup, c)
		checkLedgerAfterCrash(t, c)
	}
	sup.Stop()
}

// checkLedgerAfterCrash checks what c's operation left once it ended, and
// that its re-creation does not run.
func checkLedgerAfterCrash(t *testing.T, c *crashCase) {
	t.Helper()
	id, holder, holderKind := c.clusterID, c.clusterName, "StorageCluster"
	if c.typ.kind == "StorageNodeOps" {
		id, holder, holderKind = c.nodeIDs[0], c.clusterName+"-node-1", "StorageNode"
	}
	cm := &corev1.ConfigMap{}
	if err := suite.kube.Get(ctxBgnd, types.NamespacedName{Namespace: c.ns, Name: ops.LedgerName(id)}, cm); err != nil {
		t.Fatalf("%s %s: cannot read the ledger: %v", c.typ.name, c.label(), err)
	}
	if n := strings.Count(cm.Data["recent"], `"name":"`+c.name+`"`); n != 1 {
		t.Errorf("%s %s: the ledger holds %d records of %s, want 1:\n%s", c.typ.name, c.label(), n, c.name, cm.Data["recent"])
	}
	waitFor(t, time.Minute, func() (bool, string) {
		h, err := getObject(c.ns, holderKind, holder)
		if err != nil {
			return false, err.Error()
		}
		hist, _, _ := unstructured.NestedSlice(h.Object, "status", "atProvider", "operationHistory")
		recorded := 0
		for _, r := range hist {
			if m, ok := r.(map[string]any); ok && m["name"] == c.name {
				recorded++
			}
		}
		sc, err := getObject(c.ns, "StorageCluster", c.clusterName)
		if err != nil {
			return false, err.Error()
		}
		lock := field(sc, "status", "atProvider", "activeOperation", "name")
		return recorded == 1 && lock == "", fmt.Sprintf("%s %s holds %d records of it; lock held by %q", holderKind, holder, recorded, lock)
	})

	// Argo CD re-creates it after its deletion.
	before := len(suite.sim.Journal())
	u, err := getObject(c.ns, c.typ.kindName(), c.name)
	if err != nil {
		t.Fatalf("%s %s: %v", c.typ.name, c.label(), err)
	}
	if err := suite.kube.Delete(ctxBgnd, u); err != nil {
		t.Fatalf("%s %s: cannot delete the operation: %v", c.typ.name, c.label(), err)
	}
	waitFor(t, time.Minute, func() (bool, string) {
		_, err := getObject(c.ns, c.typ.kindName(), c.name)
		return kerrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	createOperation(t, c)
	waitFor(t, time.Minute, func() (bool, string) {
		phase, reason, _ := opPhase(c)
		return reason == ops.ReasonAlreadyCompleted, fmt.Sprintf("re-created %s: %s (%s)", c.name, phase, reason)
	})
	for _, e := range suite.sim.Journal()[before:] {
		if (e.Method == "POST" || e.Method == "PUT" || e.Method == "DELETE") && strings.Contains(e.Path, c.clusterID) {
			t.Errorf("%s %s: the re-created operation sent %s %s", c.typ.name, c.label(), e.Method, e.Path)
		}
	}
}
