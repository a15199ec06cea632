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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// TestTargetsThatNeverResolve: an operation whose target never resolves
// (a reference to no object, an id no object has) ends with TargetNotFound
// once its precondition timeout, counted from its creation, passed; it does
// not wait forever or run on whatever appears weeks later.
func TestTargetsThatNeverResolve(t *testing.T) {
	soon := func(h *harness, u *unstructured.Unstructured) {
		h.setField(u, int64(2), "spec", "forProvider", "preconditionTimeoutSeconds")
	}
	cases := map[string]struct {
		reason string
		create func(h *harness)
		kind   string
		want   string // a part of the message
	}{
		"ClusterReferenceToNoObject": {
			reason: "clusterIdRef names no StorageCluster.",
			create: func(h *harness) {
				h.operation("rebalance.yaml", "op", func(u *unstructured.Unstructured) { onCluster(h, "missing")(u); soon(h, u) })
			},
			kind: "ClusterOps", want: "StorageCluster missing (with a backend id) does not exist",
		},
		"UnknownClusterID": {
			reason: "clusterId is no StorageCluster's backend id in the namespace.",
			create: func(h *harness) {
				h.operation("rebalance.yaml", "op", func(u *unstructured.Unstructured) {
					unstructured.RemoveNestedField(u.Object, "spec", "forProvider", "clusterIdRef")
					h.setField(u, "00000000-0000-4000-8000-000000000000", "spec", "forProvider", "clusterId")
					soon(h, u)
				})
			},
			kind: "ClusterOps", want: "StorageCluster 00000000-0000-4000-8000-000000000000 does not exist",
		},
		"NodeReferenceToNoObject": {
			reason: "nodeIdRef names no StorageNode.",
			create: func(h *harness) {
				h.nodeOp("suspend.yaml", "op", func(u *unstructured.Unstructured) { onNode(h, "missing")(u); soon(h, u) })
			},
			kind: "StorageNodeOps", want: "StorageNode missing (with a backend id) does not exist",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
			tc.create(h)
			var st v1alpha1.OperationStatus
			if tc.kind == "ClusterOps" {
				st = h.waitOp("op", v1alpha1.OperationFailed).Status.AtProvider.OperationStatus
			} else {
				st = h.waitNodeOp("op", v1alpha1.OperationFailed).Status.AtProvider.OperationStatus
			}
			if st.Reason != "TargetNotFound" || !strings.Contains(st.Message, tc.want) {
				t.Errorf("%s\nstatus = %s %q, want TargetNotFound naming %q", tc.reason, st.Reason, st.Message, tc.want)
			}
			if st.StartedAt != nil || st.Attempts != 0 {
				t.Errorf("%s\nthe operation started (%v) or sent %d calls; it never had a target", tc.reason, st.StartedAt, st.Attempts)
			}
		})
	}
}
