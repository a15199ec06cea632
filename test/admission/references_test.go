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

package admission_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestCrossplaneFieldBounds: the fields every managed resource has from
// Crossplane (providerConfigRef, writeConnectionSecretToRef,
// managementPolicies, the *Ref and *Selector of its target) are bounded at
// admission like the provider's own, with a message naming the field and
// the limit. One table over every kind.
func TestCrossplaneFieldBounds(t *testing.T) {
	const id = "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"
	type kind struct {
		// byID is a valid forProvider naming its target by id; byRef the
		// same with the target's reference field left for the case ("" for
		// a kind without one).
		byID, byRef, ref string
	}
	kinds := map[string]kind{
		"ClusterOps":     {byID: "type: Shutdown\nclusterId: " + id, byRef: "type: Shutdown", ref: "clusterId"},
		"StorageNodeOps": {byID: "type: Suspend\nnodeId: " + id, byRef: "type: Suspend", ref: "nodeId"},
		"StorageNode":    {byID: "clusterId: " + id + "\nnodeAddress: 10.0.0.10:5000\ninterfaceName: eth0", byRef: "nodeAddress: 10.0.0.10:5000\ninterfaceName: eth0", ref: "clusterId"},
		"StoragePool":    {byID: "clusterId: " + id + "\nname: pool1", byRef: "name: pool1", ref: "clusterId"},
		"StorageCluster": {byID: "name: sb1\nmaxSubsys: 10\nspdkVcpuCount: 4"},
	}
	labels := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprintf("l%d", i)] = "v"
		}
		return m
	}
	type bound struct {
		reason string
		// byRef uses the kind's byRef forProvider (skipped for a kind
		// without a reference).
		byRef bool
		// set changes the object; path is relative to spec.
		set     func(k kind, u *unstructured.Unstructured)
		wantErr string
	}
	setSpec := func(v any, path ...string) func(kind, *unstructured.Unstructured) {
		return func(_ kind, u *unstructured.Unstructured) {
			if err := unstructured.SetNestedField(u.Object, v, append([]string{"spec"}, path...)...); err != nil {
				panic(err)
			}
		}
	}
	setRef := func(suffix string, v any, path ...string) func(kind, *unstructured.Unstructured) {
		return func(k kind, u *unstructured.Unstructured) {
			setSpec(v, append([]string{"forProvider", k.ref + suffix}, path...)...)(k, u)
		}
	}
	policies := []any{"Observe", "Create", "Update", "Delete", "LateInitialize", "*"}
	bounds := map[string]bound{
		"ProviderConfigNameAtLimit": {reason: "A 253-character provider config name is accepted.",
			set: setSpec(map[string]any{"kind": "ProviderConfig", "name": strings.Repeat("p", 253)}, "providerConfigRef")},
		"ProviderConfigNameTooLong": {reason: "A provider config name longer than an object name is refused.",
			set: setSpec(map[string]any{"kind": "ProviderConfig", "name": strings.Repeat("p", 254)}, "providerConfigRef"), wantErr: "providerConfigRef.name may have at most 253 characters"},
		"ProviderConfigKindTooLong": {reason: "A provider config kind longer than 63 characters is refused.",
			set: setSpec(map[string]any{"kind": strings.Repeat("K", 64), "name": "default"}, "providerConfigRef"), wantErr: "providerConfigRef.kind at most 63"},
		"ConnectionSecretNameTooLong": {reason: "A connection secret name longer than an object name is refused.",
			set: setSpec(strings.Repeat("s", 254), "writeConnectionSecretToRef", "name"), wantErr: "writeConnectionSecretToRef.name may have at most 253 characters"},
		"ManagementPoliciesAtLimit": {reason: "Every management policy once is accepted.",
			set: setSpec(policies, "managementPolicies")},
		"ManagementPoliciesTooMany": {reason: "More management policies than there are is refused.",
			set: setSpec(append(policies, "Observe"), "managementPolicies"), wantErr: "managementPolicies may have at most 6 entries"},
		"ReferenceNameAtLimit": {reason: "A 253-character reference name is accepted.", byRef: true,
			set: setRef("Ref", strings.Repeat("r", 253), "name")},
		"ReferenceNameTooLong": {reason: "A reference name longer than an object name is refused.", byRef: true,
			set: setRef("Ref", strings.Repeat("r", 254), "name"), wantErr: "Ref.name may have at most 253 characters"},
		"SelectorLabelsAtLimit": {reason: "A selector with 64 labels is accepted.", byRef: true,
			set: setRef("Selector", labels(64), "matchLabels")},
		"SelectorLabelsTooMany": {reason: "A selector with more than 64 labels is refused.", byRef: true,
			set: setRef("Selector", labels(65), "matchLabels"), wantErr: "Selector.matchLabels may have at most 64 labels"},
	}
	for kindName, k := range kinds {
		for name, b := range bounds {
			t.Run(kindName+"/"+name, func(t *testing.T) {
				if b.byRef && k.ref == "" {
					t.Skipf("%s has no target reference", kindName)
				}
				fp := k.byID
				if b.byRef {
					fp = k.byRef
				}
				u := fromYAML(t, "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: "+kindName+"\nspec:\n  forProvider:\n"+indent(4, fp))
				b.set(k, u)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := kube.Create(ctx, u)
				if err == nil {
					t.Cleanup(func() { _ = kube.Delete(context.Background(), u) })
				}
				checkErr(t, b.reason, b.wantErr, err)
			})
		}
	}
}
