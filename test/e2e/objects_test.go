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
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// API groups and versions the tier reads.
const (
	managedAPI = "simplyblock.m.crossplane.io/v1alpha1"
	xrAPI      = "storage.simplyblock.io/v1alpha1"
	legacyAPI  = "legacy.storage.simplyblock.io/v1alpha1"
)

// waitTimeout bounds every wait for a scenario's end state.
const waitTimeout = 4 * time.Minute

// readObjects decodes every object of a YAML file.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the repository's own examples
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// createFile creates every object of a YAML file, in namespace when it is
// not empty, after mutate (when not nil) changed it.
func createFile(ctx context.Context, path, namespace string, mutate func(*unstructured.Unstructured)) error {
	objs, err := readObjects(path)
	if err != nil {
		return err
	}
	for _, u := range objs {
		if namespace != "" {
			u.SetNamespace(namespace)
		}
		if mutate != nil {
			mutate(u)
		}
		if err := world.kube.Create(ctx, u); err != nil {
			return fmt.Errorf("cannot create %s %s from %s: %w", u.GetKind(), u.GetName(), filepath.Base(path), err)
		}
	}
	return nil
}

// example returns the one object of examples/composition/<file>, moved to
// namespace (when the object is namespaced).
func example(t *testing.T, file, namespace string) *unstructured.Unstructured {
	t.Helper()
	objs, err := readObjects(filepath.Join(world.root, "examples", "composition", file))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%s holds %d objects, want 1", file, len(objs))
	}
	if objs[0].GetNamespace() != "" {
		objs[0].SetNamespace(namespace)
	}
	return objs[0]
}

// get reads an object; nil when it does not exist.
func get(t *testing.T, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	err := world.kube.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, u)
	if client.IgnoreNotFound(err) != nil {
		t.Fatalf("cannot get %s %s/%s: %v", kind, namespace, name, err)
	}
	if err != nil {
		return nil
	}
	return u
}

// list lists a kind in a namespace.
func list(t *testing.T, apiVersion, kind, namespace string) []unstructured.Unstructured {
	t.Helper()
	l := &unstructured.UnstructuredList{}
	gv, _ := schema.ParseGroupVersion(apiVersion)
	l.SetGroupVersionKind(gv.WithKind(kind + "List"))
	if err := world.kube.List(context.Background(), l, client.InNamespace(namespace)); err != nil {
		t.Fatalf("cannot list %s in %s: %v", kind, namespace, err)
	}
	return l.Items
}

// names returns the objects' names.
func names(objs []unstructured.Unstructured) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.GetName())
	}
	return out
}

// condition returns a condition's status, reason and message.
func condition(u *unstructured.Unstructured, ct string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != ct {
			continue
		}
		status, _ = m["status"].(string)
		reason, _ = m["reason"].(string)
		message, _ = m["message"].(string)
		return status, reason, message
	}
	return "", "", ""
}

// field returns a string field, or its JSON-ish rendering.
func field(u *unstructured.Unstructured, path ...string) string {
	v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// waitFor polls cond every half second until it holds or waitTimeout
// passes; cond says what it still waits for.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %s; last seen: %s", what, waitTimeout, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitReady waits for an object's Ready condition to be True.
func waitReady(t *testing.T, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	var u *unstructured.Unstructured
	waitFor(t, fmt.Sprintf("%s %s/%s Ready", kind, namespace, name), func() (bool, string) {
		u = get(t, apiVersion, kind, namespace, name)
		if u == nil {
			return false, "not created"
		}
		s, r, m := condition(u, "Ready")
		if s == "True" {
			return true, ""
		}
		ss, sr, sm := condition(u, "Synced")
		return false, fmt.Sprintf("Ready=%s %s %q, Synced=%s %s %q", s, r, m, ss, sr, sm)
	})
	return u
}

// resourceSummary is one line per composed resource of a namespace, for
// failure messages.
func resourceSummary(t *testing.T, namespace string) string {
	t.Helper()
	var b strings.Builder
	for _, kind := range []string{"StorageCluster", "StorageNode", "StoragePool", "ClusterOps"} {
		for _, o := range list(t, managedAPI, kind, namespace) {
			rs, rr, _ := condition(&o, "Ready")
			ss, _, sm := condition(&o, "Synced")
			fmt.Fprintf(&b, "\n  %s/%s Ready=%s(%s) Synced=%s %q phase=%s deleting=%v", kind, o.GetName(), rs, rr, ss, sm,
				field(&o, "status", "atProvider", "phase"), o.GetDeletionTimestamp() != nil)
		}
	}
	return b.String()
}
