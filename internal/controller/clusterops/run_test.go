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

package clusterops

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

func TestAutoExpandNodes(t *testing.T) {
	node := func(name string, m func(p *v1alpha1.StorageNodeParameters), externalName string) *v1alpha1.StorageNode {
		n := &v1alpha1.StorageNode{}
		n.SetName(name)
		n.SetNamespace("storage")
		n.Spec.ForProvider.Expand = true
		m(&n.Spec.ForProvider)
		if externalName != "" {
			meta.SetExternalName(n, externalName)
		}
		return n
	}
	byID := func(id string) func(p *v1alpha1.StorageNodeParameters) {
		return func(p *v1alpha1.StorageNodeParameters) { p.ClusterID = id }
	}
	byRef := func(name string) func(p *v1alpha1.StorageNodeParameters) {
		return func(p *v1alpha1.StorageNodeParameters) { p.ClusterIDRef = &xpv2.NamespacedReference{Name: name} }
	}
	bySelector := func(p *v1alpha1.StorageNodeParameters) {
		p.ClusterIDSelector = &xpv2.NamespacedSelector{MatchLabels: map[string]string{"cluster": "demo"}}
	}
	noExpand := node("no-expand", byID(cid), "n9")
	noExpand.Spec.ForProvider.Expand = false
	cases := map[string]struct {
		reason string
		nodes  []*v1alpha1.StorageNode
		want   steps.AutoExpansion
	}{
		"AdoptedAndPending": {
			reason: "A node of this cluster in the backend counts by its id; one not in the backend yet is pending.",
			nodes:  []*v1alpha1.StorageNode{node("a", byID(cid), "n4"), node("b", byID(cid), "")},
			want:   steps.AutoExpansion{IDs: []string{"n4"}, Pending: []string{"b"}},
		},
		"ReferenceNotResolvedYet": {
			reason: "A node whose clusterIdRef names this StorageCluster but has not resolved is being added: pending, so the expansion does not decide NothingToDo before its add request.",
			nodes:  []*v1alpha1.StorageNode{node("a", byRef("demo"), "")},
			want:   steps.AutoExpansion{Pending: []string{"a"}},
		},
		"SelectorNotResolvedYet": {
			reason: "A node selecting its StorageCluster by labels may select this one: pending until it resolves.",
			nodes:  []*v1alpha1.StorageNode{node("a", bySelector, "")},
			want:   steps.AutoExpansion{Pending: []string{"a"}},
		},
		"OtherClusters": {
			reason: "Nodes of another cluster, by id or by reference, and nodes without expand: true do not count.",
			nodes:  []*v1alpha1.StorageNode{node("a", byID("other"), "n5"), node("b", byRef("other"), ""), noExpand},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			b := crfake.NewClientBuilder().WithScheme(s)
			for _, n := range tc.nodes {
				b = b.WithObjects(n)
			}
			got, err := autoExpandNodes(context.Background(), b.Build(), clusterOps(v1alpha1.ClusterExpand), cid, "demo")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("\n%s\nautoExpandNodes(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
