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

// operationKind is the kind whose objects end a stage of the quickstart.
const operationKind = "ClusterOps"

// A manifest is one quickstart file and the objects it holds.
type manifest struct {
	file string
	objs []*unstructured.Unstructured
}

// A stage is a run of quickstart files applied together. A file holding a
// ClusterOps ends its stage: the demo waits for the operation to succeed
// before it applies the next stage, because the later files depend on it
// (nodes added with expand: true need an active cluster).
type stage struct {
	manifests []manifest
}

// files returns the base names of the stage's files.
func (s stage) files() []string {
	out := make([]string, 0, len(s.manifests))
	for _, m := range s.manifests {
		out = append(out, filepath.Base(m.file))
	}
	return out
}

// operations returns the names of the stage's ClusterOps.
func (s stage) operations() []string {
	var out []string
	for _, m := range s.manifests {
		for _, u := range m.objs {
			if u.GetKind() == operationKind {
				out = append(out, u.GetName())
			}
		}
	}
	return out
}

// loadStages reads every YAML file in dir, in file-name order, and splits
// them into stages after each file that holds a ClusterOps. Every file is
// decoded before anything is applied, so a broken file fails the demo early.
func loadStages(dir string) ([]stage, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.yaml files in %s", dir)
	}
	sort.Strings(files)
	var (
		stages []stage
		cur    stage
	)
	for _, f := range files {
		m, err := loadManifest(f)
		if err != nil {
			return nil, err
		}
		cur.manifests = append(cur.manifests, m)
		if len((stage{manifests: []manifest{m}}).operations()) > 0 {
			stages = append(stages, cur)
			cur = stage{}
		}
	}
	if len(cur.manifests) > 0 {
		stages = append(stages, cur)
	}
	return stages, nil
}

// loadManifest reads and decodes one YAML file.
func loadManifest(file string) (manifest, error) {
	data, err := os.ReadFile(file) //nolint:gosec // the demo reads the repository's own examples.
	if err != nil {
		return manifest{}, err
	}
	objs, err := decodeObjects(data)
	if err != nil {
		return manifest{}, fmt.Errorf("%s: %w", file, err)
	}
	return manifest{file: file, objs: objs}, nil
}

// applyStage creates every object of the stage, in file order, in the
// given namespace.
func applyStage(ctx context.Context, kube client.Client, s stage, namespace string) error {
	for _, m := range s.manifests {
		for _, u := range m.objs {
			u.SetNamespace(namespace)
		}
		if err := createManifest(ctx, kube, m); err != nil {
			return err
		}
	}
	return nil
}

// createManifest creates the objects of a manifest as they are.
func createManifest(ctx context.Context, kube client.Client, m manifest) error {
	for _, u := range m.objs {
		if err := kube.Create(ctx, u); err != nil {
			return fmt.Errorf("cannot create %s %s from %s: %w", u.GetKind(), u.GetName(), m.file, err)
		}
		out.Printf("    created %s/%s (%s)\n", u.GetKind(), u.GetName(), filepath.Base(m.file))
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
