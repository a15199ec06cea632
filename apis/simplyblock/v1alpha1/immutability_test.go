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

package v1alpha1

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestOperationParametersAreImmutable fails when a field of an operation's
// parameters is not covered by the CEL rules of its generated CRD: every
// field is in the one rule that keeps the spec as it was created, or has a
// rule of its own (listed with why). A field added to the parameters and
// left out of the rules could be changed under a running operation.
func TestOperationParametersAreImmutable(t *testing.T) {
	// ownRule are the fields with a rule of their own (or none on purpose),
	// and what must be in a rule that names them.
	ownRule := map[string]string{
		"type":              "self == oldSelf",                    // its own field-level rule
		"cancel":            "cancel cannot be undone",            // may be set, never unset
		"approved":          "approved cannot be undone",          // may be set, never unset
		"confirmResend":     "",                                   // the user's answer: set while the operation waits
		"clusterId":         "clusterId is immutable once set",    // a reference fills it in
		"clusterIdRef":      "clusterIdRef is immutable once set", //
		"clusterIdSelector": "",                                   // resolved once into clusterId, which is immutable
		"nodeId":            "nodeId is immutable once set",       // a reference fills it in
		"nodeIdRef":         "nodeIdRef is immutable once set",    //
		"nodeIdSelector":    "",                                   // resolved once into nodeId, which is immutable
	}
	cases := map[string]struct {
		crd    string
		params reflect.Type
	}{
		"ClusterOps":     {crd: "simplyblock.m.crossplane.io_clusterops.yaml", params: reflect.TypeOf(ClusterOpsParameters{})},
		"StorageNodeOps": {crd: "simplyblock.m.crossplane.io_storagenodeops.yaml", params: reflect.TypeOf(StorageNodeOpsParameters{})},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rules := forProviderRules(t, tc.crd)
			immutable := ""
			for _, r := range rules {
				if strings.Contains(r.MessageExpression, "is immutable: create a new operation instead") {
					immutable = r.Rule
				}
			}
			if immutable == "" {
				t.Fatalf("%s: no rule on spec.forProvider keeps the parameters as they were created", tc.crd)
			}
			for _, f := range jsonFields(tc.params) {
				if want, ok := ownRule[f]; ok {
					if want != "" && !anyRuleHas(rules, want) {
						t.Errorf("%s: field %s has no rule %q of its own", tc.crd, f, want)
					}
					continue
				}
				clause := "has(self." + f + ") ? has(oldSelf." + f + ") && self." + f + " == oldSelf." + f + " : !has(oldSelf." + f + ")"
				if !strings.Contains(immutable, clause) {
					t.Errorf("%s: spec.forProvider.%s is not in the immutability rule: it could be changed under a running operation (add %q to the rule in the type's kubebuilder markers)", tc.crd, f, clause)
				}
			}
		})
	}
}

// forProviderRules returns the CEL rules on spec.forProvider of a
// generated CRD.
func forProviderRules(t *testing.T, file string) extv1.ValidationRules {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "package", "crds", file)) //nolint:gosec // the repository's own CRD.
	if err != nil {
		t.Fatal(err)
	}
	crd := &extv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	s := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["forProvider"]
	var rules extv1.ValidationRules
	rules = append(rules, s.XValidations...)
	for _, p := range s.Properties {
		rules = append(rules, p.XValidations...)
	}
	return rules
}

func anyRuleHas(rules extv1.ValidationRules, s string) bool {
	for _, r := range rules {
		if strings.Contains(r.Rule, s) || strings.Contains(r.Message, s) {
			return true
		}
	}
	return false
}

// jsonFields returns the JSON names of t's fields, inlined structs' fields
// included.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && strings.Contains(opts, "inline") {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
