package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyDir creates every object of every YAML file in dir, in file-name
// order, in the given namespace.
func applyDir(ctx context.Context, kube client.Client, dir, namespace string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f) //nolint:gosec // the demo reads the repository's own examples.
		if err != nil {
			return err
		}
		objs, err := decodeObjects(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, u := range objs {
			u.SetNamespace(namespace)
			if err := kube.Create(ctx, u); err != nil {
				return fmt.Errorf("cannot create %s %s from %s: %w", u.GetKind(), u.GetName(), f, err)
			}
			fmt.Printf("    created %s/%s\n", u.GetKind(), u.GetName())
		}
	}
	return nil
}

func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		if len(u.Object) == 0 {
			continue
		}
		out = append(out, u)
	}
}
