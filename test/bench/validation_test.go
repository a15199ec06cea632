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

package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	celcommon "k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"
)

// finishWrites returns the status writes that finish an operation of the
// burst, as the API server receives them (an old and a new object each),
// keyed by what they are: the operation's own last status
// ("ClusterOps status") and the lock release with its history record
// ("StorageCluster status"). op and sc are read back after the burst; the
// old objects are them as they were just before those writes.
func finishWrites(op, sc *unstructured.Unstructured) map[string]update {
	opOld := op.DeepCopy()
	_ = unstructured.SetNestedField(opOld.Object, "Running", "status", "atProvider", "phase")
	_ = unstructured.SetNestedField(opOld.Object, "Triggering", "status", "atProvider", "reason")
	unstructured.RemoveNestedField(opOld.Object, "status", "atProvider", "completedAt")
	scOld := sc.DeepCopy()
	if h, ok, _ := unstructured.NestedSlice(scOld.Object, "status", "atProvider", "operationHistory"); ok && len(h) > 0 {
		_ = unstructured.SetNestedSlice(scOld.Object, h[:len(h)-1], "status", "atProvider", "operationHistory")
	}
	return map[string]update{
		"ClusterOps status":     {crd: "simplyblock.m.crossplane.io_clusterops.yaml", old: opOld.Object, new: op.Object},
		"StorageCluster status": {crd: "simplyblock.m.crossplane.io_storageclusters.yaml", old: scOld.Object, new: sc.Object},
	}
}

// update is one update of a custom resource: its CRD's file in
// package/crds, the object before and after.
type update struct {
	crd      string
	old, new map[string]any
}

// celMicros returns the CPU time, in microseconds, that the API server's
// CEL validation of u's CRD takes for u: the apiextensions validator the
// API server runs on every create and update of a custom resource (status
// updates included: their rules see the whole object), with ratcheting as
// on an update. The rules of an
// operation kind are written to keep this small (docs/operations-engine.md,
// "What an operation costs the API server").
func celMicros(t *testing.T, u update) float64 {
	t.Helper()
	crdFile := filepath.Join(world.root, "package", "crds", u.crd)
	raw, err := os.ReadFile(filepath.Clean(crdFile))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatal(err)
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	// Objects as the API server decodes them: integers as int64.
	oldU, newU := runtime.DeepCopyJSON(u.old), runtime.DeepCopyJSON(u.new)
	v := cel.NewValidator(s, true, celconfig.PerCallLimit)
	validate := func() error {
		errs, _ := v.Validate(context.Background(), field.NewPath(""), s, newU, oldU, celconfig.RuntimeCELCostBudget,
			cel.WithRatcheting(celcommon.NewCorrelatedObject(newU, oldU, &model.Structural{Structural: s})))
		return errs.ToAggregate()
	}
	if err := validate(); err != nil {
		t.Fatalf("%s: the update measured is not valid: %v", crdFile, err)
	}
	res := testing.Benchmark(func(b *testing.B) {
		for range b.N {
			_ = validate()
		}
	})
	return round3(float64(res.NsPerOp()) / 1000)
}
