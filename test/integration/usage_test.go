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
	"testing"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// usageOf reads the ProviderConfigUsage crossplane-runtime keeps for the
// managed resource with uid; nil when there is none.
func (h *harness) usageOf(uid types.UID) *apisv1alpha1.ProviderConfigUsage {
	h.t.Helper()
	u := &apisv1alpha1.ProviderConfigUsage{}
	u.SetNamespace(h.ns)
	u.SetName(string(uid))
	err := h.get(u)
	if kerrors.IsNotFound(err) {
		return nil
	}
	must(h.t, err)
	return u
}

// TestOperationUsage: an operation that uses its StorageCluster's
// ProviderConfig is covered by that StorageCluster's ProviderConfigUsage and
// writes none of its own; one that uses another ProviderConfig tracks its
// own. Either way the target its reference resolved to is written to its
// spec, with the finalizer, before its call.
func TestOperationUsage(t *testing.T) {
	type want struct {
		ownUsage bool
	}
	cases := map[string]struct {
		reason string
		// otherConfig names a second ProviderConfig (same backend) for the
		// operation; empty: the StorageCluster's.
		otherConfig string
		want        want
	}{
		"SameProviderConfig": {
			reason: "The StorageCluster's usage covers the operation: no usage of its own.",
			want:   want{ownUsage: false},
		},
		"OtherProviderConfig": {
			reason:      "An operation on another ProviderConfig tracks its own usage.",
			otherConfig: "sim-other",
			want:        want{ownUsage: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			id, _ := h.importCluster("demo", simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive})
			if tc.otherConfig != "" {
				pc := &apisv1alpha1.ProviderConfig{}
				pc.SetNamespace(h.ns)
				pc.SetName(providerConfig)
				must(t, h.get(pc))
				other := &apisv1alpha1.ProviderConfig{Spec: pc.Spec}
				other.SetNamespace(h.ns)
				other.SetName(tc.otherConfig)
				h.create(other)
			}
			h.operation("rebalance.yaml", "rebalance", func(u *unstructured.Unstructured) {
				if tc.otherConfig != "" {
					must(t, unstructured.SetNestedMap(u.Object, map[string]any{"kind": "ProviderConfig", "name": tc.otherConfig}, "spec", "providerConfigRef"))
				}
			})
			op := h.waitOp("rebalance", v1alpha1.OperationSucceeded)

			if got := h.usageOf(op.GetUID()) != nil; got != tc.want.ownUsage {
				t.Errorf("\n%s\nthe operation has a ProviderConfigUsage of its own: %t, want %t", tc.reason, got, tc.want.ownUsage)
			}
			if h.usageOf(h.clusterObj("demo").GetUID()) == nil {
				t.Errorf("\n%s\nthe StorageCluster has no ProviderConfigUsage", tc.reason)
			}
			if got := op.Spec.ForProvider.ClusterID; got != id {
				t.Errorf("\n%s\nspec.forProvider.clusterId = %q, want the resolved %q", tc.reason, got, id)
			}
			if n := countPosts(h.sim, "/rebalance"); n != 1 {
				t.Errorf("\n%s\nrebalance was sent %d times, want 1", tc.reason, n)
			}
		})
	}
}
