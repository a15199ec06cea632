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

package kubemetrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDescribe(t *testing.T) {
	type want struct{ Verb, Resource, Subresource string }
	cases := map[string]struct {
		reason string
		method string
		path   string
		watch  bool
		want   want
	}{
		"NamespacedStatus": {
			reason: "A status write names its resource, qualified by group, and the subresource.",
			method: "PUT", path: "/apis/simplyblock.m.crossplane.io/v1alpha1/namespaces/storage/clusterops/op/status",
			want: want{"PUT", "clusterops.simplyblock.m.crossplane.io", "status"},
		},
		"CoreEvent": {
			reason: "Core resources have no group.",
			method: "POST", path: "/api/v1/namespaces/storage/events",
			want: want{"POST", "events", ""},
		},
		"ClusterScopedObject": {
			reason: "A cluster-scoped object has no namespace segment.",
			method: "PATCH", path: "/apis/simplyblock.crossplane.io/v1alpha1/disruptionbudgets/prod",
			want: want{"PATCH", "disruptionbudgets.simplyblock.crossplane.io", ""},
		},
		"List": {
			reason: "A GET of a collection is a LIST.",
			method: "GET", path: "/apis/simplyblock.m.crossplane.io/v1alpha1/clusterops",
			want: want{"LIST", "clusterops.simplyblock.m.crossplane.io", ""},
		},
		"Watch": {
			reason: "A GET of a collection with watch=true is a WATCH.",
			method: "GET", path: "/api/v1/namespaces/storage/secrets", watch: true,
			want: want{"WATCH", "secrets", ""},
		},
		"Namespace": {
			reason: "A namespace itself is the resource namespaces.",
			method: "GET", path: "/api/v1/namespaces/storage",
			want: want{"GET", "namespaces", ""},
		},
		"Discovery": {
			reason: "Discovery names no resource.",
			method: "GET", path: "/apis/simplyblock.m.crossplane.io/v1alpha1",
			want: want{"GET", "", ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			got.Verb, got.Resource, got.Subresource = Describe(tc.method, tc.path, tc.watch)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nDescribe(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
