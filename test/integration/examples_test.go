package integration

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// fromExample creates the object in examples/<file> in the test namespace,
// referencing the test's ProviderConfig, after mutate has edited it. Going
// through unstructured leaves unset fields to the CRD defaults, exactly as
// kubectl apply does. It returns the created object.
func (h *harness) fromExample(file string, mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	h.t.Helper()
	root, err := testenv.RepoRoot()
	must(h.t, err)
	data, err := os.ReadFile(filepath.Join(root, "examples", file)) //nolint:gosec // test input from the repository.
	must(h.t, err)
	u := &unstructured.Unstructured{}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	if err := dec.Decode(&u.Object); err != nil && err != io.EOF {
		h.t.Fatalf("cannot decode %s: %v", file, err)
	}
	u.SetNamespace(h.ns)
	must(h.t, unstructured.SetNestedMap(u.Object, map[string]any{"kind": "ProviderConfig", "name": providerConfig}, "spec", "providerConfigRef"))
	if mutate != nil {
		mutate(u)
	}
	if err := h.kube.Create(h.ctx, u); err != nil {
		h.t.Fatalf("cannot create %s from %s: %v", u.GetName(), file, err)
	}
	return u
}

// setField sets a nested string, int64 or bool field, failing the test on error.
func (h *harness) setField(u *unstructured.Unstructured, value any, path ...string) {
	h.t.Helper()
	must(h.t, unstructured.SetNestedField(u.Object, value, path...))
}
