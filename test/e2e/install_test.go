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

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestCompositeAPIInstalls checks that everything a user installs is
// accepted by the real API server: every CRD of package/crds, and both
// XRDs, whose CRDs Crossplane derives and installs (the API server refuses a
// CRD whose CEL rules exceed its cost budget; only an install shows that).
func TestCompositeAPIInstalls(t *testing.T) {
	needWorld(t)
	files, err := filepath.Glob(filepath.Join(world.root, "package", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in package/crds: %v", err)
	}
	for _, f := range files {
		objs, err := readObjects(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			t.Run("CRD/"+o.GetName(), func(t *testing.T) { waitEstablished(t, o.GetName()) })
		}
	}
	for _, xrd := range []struct{ file, claimCRD string }{
		{file: "xrd.yaml"},
		{file: "xrd-legacy.yaml", claimCRD: "storageclusterclaims.legacy.storage.simplyblock.io"},
	} {
		u := example(t, xrd.file, "")
		t.Run("XRD/"+u.GetName(), func(t *testing.T) {
			waitFor(t, "XRD "+u.GetName()+" Established and Offered", func() (bool, string) {
				x := get(t, "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", "", u.GetName())
				es, _, em := condition(x, "Established")
				offered, _, om := condition(x, "Offered")
				// Crossplane reports a CRD the API server refused in an event;
				// a refusal over the CEL cost budget is final.
				warning := lastWarning(t, u.GetName())
				if strings.Contains(warning, "exceeds budget") {
					t.Fatalf("the API server refused the CRD Crossplane derives from XRD %s: %s", u.GetName(), warning)
				}
				state := fmt.Sprintf("Established=%s %q, Offered=%s %q, last warning: %s", es, em, offered, om, warning)
				return es == "True" && (xrd.claimCRD == "" || offered == "True"), state
			})
			waitEstablished(t, u.GetName())
			if xrd.claimCRD != "" {
				waitEstablished(t, xrd.claimCRD)
			}
		})
	}
}

// lastWarning returns the newest Warning event about the named object.
func lastWarning(t *testing.T, name string) string {
	t.Helper()
	l := &corev1.EventList{}
	if err := world.kube.List(context.Background(), l, client.MatchingFields{"involvedObject.name": name}); err != nil {
		return err.Error()
	}
	msg := "none"
	for _, e := range l.Items {
		if e.Type == corev1.EventTypeWarning {
			msg = e.Reason + ": " + e.Message
		}
	}
	return msg
}

// waitEstablished waits for a CRD to be Established, and fails at once
// when the API server refused a part of it.
func waitEstablished(t *testing.T, name string) {
	t.Helper()
	waitFor(t, "CRD "+name+" Established", func() (bool, string) {
		crd := &extv1.CustomResourceDefinition{}
		if err := world.kube.Get(context.Background(), client.ObjectKey{Name: name}, crd); err != nil {
			return false, err.Error()
		}
		state := ""
		for _, c := range crd.Status.Conditions {
			if c.Type == extv1.Established && c.Status == extv1.ConditionTrue {
				return true, ""
			}
			state += fmt.Sprintf("%s=%s %q; ", c.Type, c.Status, c.Message)
		}
		return false, state
	})
}

// TestCompositeAPIBounds checks that the XRs' bounds hold at admission: a
// request over a bound is refused with a message that names the field and
// the limit, and nothing is created.
func TestCompositeAPIBounds(t *testing.T) {
	needWorld(t)
	ns := newNamespace(t, "e2e-bounds")
	nodes := func(n int) []any {
		out := make([]any, 0, n)
		for i := range n {
			out = append(out, map[string]any{
				"name": fmt.Sprintf("node-%d", i), "address": fmt.Sprintf("10.9.%d.%d:5000", i/200, i%200+1), "interface": "eth0",
			})
		}
		return out
	}
	cases := map[string]struct {
		reason string
		file   string
		mutate func(u *unstructured.Unstructured)
		want   []string // parts of the refusal
	}{
		"NamespacedXRWith129Nodes": {
			reason: "a cluster has at most 128 nodes",
			file:   "xr.yaml",
			mutate: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedSlice(u.Object, nodes(129), "spec", "nodes")
			},
			want: []string{"spec.nodes", "must have at most 128 items"},
		},
		"ClaimWith129Nodes": {
			reason: "the claim has the XR's bounds",
			file:   "claim.yaml",
			mutate: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedSlice(u.Object, nodes(129), "spec", "nodes")
			},
			want: []string{"spec.nodes", "must have at most 128 items"},
		},
		"AddressLongerThanADNSNameAndAPort": {
			reason: "a node address is host:port, at most 259 characters",
			file:   "xr.yaml",
			mutate: func(u *unstructured.Unstructured) {
				n := nodes(3)
				n[0].(map[string]any)["address"] = strings.Repeat("a", 255) + ":5000"
				_ = unstructured.SetNestedSlice(u.Object, n, "spec", "nodes")
			},
			want: []string{"spec.nodes[0].address", "may not be more than 259"},
		},
		"InterfaceNameLongerThanLinuxAllows": {
			reason: "Linux interface names have at most 15 characters",
			file:   "xr.yaml",
			mutate: func(u *unstructured.Unstructured) {
				n := nodes(3)
				n[1].(map[string]any)["interface"] = "eth0123456789abc"
				_ = unstructured.SetNestedSlice(u.Object, n, "spec", "nodes")
			},
			want: []string{"spec.nodes[1].interface", "may not be more than 15"},
		},
		"SpdkImageOver512Characters": {
			reason: "image references have at most 512 characters",
			file:   "claim.yaml",
			mutate: func(u *unstructured.Unstructured) {
				n := nodes(3)
				n[2].(map[string]any)["options"] = map[string]any{"spdkImage": "registry.example/" + strings.Repeat("x", 500)}
				_ = unstructured.SetNestedSlice(u.Object, n, "spec", "nodes")
			},
			want: []string{"spec.nodes[2].options.spdkImage", "may not be more than 512"},
		},
		"ProviderConfigNameLongerThanAnObjectName": {
			reason: "a ProviderConfig's name is an object name",
			file:   "xr.yaml",
			mutate: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, strings.Repeat("p", 254), "spec", "providerConfigRef", "name")
			},
			want: []string{"spec.providerConfigRef.name", "may not be more than 253"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := example(t, tc.file, ns)
			u.SetName(strings.ToLower(name))
			tc.mutate(u)
			err := world.kube.Create(context.Background(), u)
			if err == nil {
				_ = world.kube.Delete(context.Background(), u)
				t.Fatalf("%s: the API server accepted %s %s", tc.reason, u.GetKind(), u.GetName())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: the refusal does not say %q: %v", tc.reason, w, err)
				}
			}
			if got := get(t, u.GetAPIVersion(), u.GetKind(), ns, u.GetName()); got != nil {
				t.Errorf("%s: %s %s exists after the refusal", tc.reason, u.GetKind(), u.GetName())
			}
		})
	}
}
