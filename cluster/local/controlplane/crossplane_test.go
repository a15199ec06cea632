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

package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPackageRegistries(t *testing.T) {
	obj := func(kind, pkg string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": kind, "spec": map[string]any{"package": pkg}}}
	}
	cases := map[string]struct {
		reason string
		objs   []*unstructured.Unstructured
		want   []string
	}{
		"OnePerRegistry": {
			reason: "Each registry of a Function's package is listed once, in order.",
			objs: []*unstructured.Unstructured{
				obj("Function", "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.7"),
				obj("Function", "ghcr.io/simplyblock/function-storagecluster:v0.1.0"),
				obj("Function", "xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.9.0"),
			},
			want: []string{"xpkg.crossplane.io/", "ghcr.io/"},
		},
		"OnlyFunctions": {
			reason: "Objects other than Functions name no package the package manager would pull here.",
			objs:   []*unstructured.Unstructured{obj("Provider", "xpkg.upbound.io/upbound/provider-aws:v1"), obj("Function", "noregistry")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PackageRegistries(tc.objs)); diff != "" {
				t.Errorf("%s\nPackageRegistries(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
