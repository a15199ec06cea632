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

package argocd

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite examples/argocd/argocd-cm-patch.yaml from the health.lua files")

// healthKeyPrefix starts every argocd-cm key that holds a health check:
// resource.customizations.health.<group>_<kind>.
const healthKeyPrefix = "resource.customizations.health."

const fixCommand = "go test ./test/argocd -run TestConfigMapPatchMatchesScripts -update"

// configMapPatchFile is the argocd-cm snippet, relative to the repository root.
const configMapPatchFile = "examples/argocd/argocd-cm-patch.yaml"

func configMapPatchPath() string { return repoPath(filepath.FromSlash(configMapPatchFile)) }

// scripts returns every health check under examples/argocd/health, by its
// argocd-cm key.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	root := repoPath("examples", "argocd", "health")
	files, err := filepath.Glob(filepath.Join(root, "*", "*", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f) //nolint:gosec // scripts from the repository.
		if err != nil {
			t.Fatal(err)
		}
		kindDir := filepath.Dir(f)
		key := healthKeyPrefix + filepath.Base(filepath.Dir(kindDir)) + "_" + filepath.Base(kindDir)
		out[key] = string(b)
	}
	if len(out) == 0 {
		t.Fatalf("no health checks under %s", root)
	}
	return out
}

// renderConfigMapPatch renders the argocd-cm snippet holding every script
// as a literal block, byte for byte.
func renderConfigMapPatch(scripts map[string]string) ([]byte, error) {
	keys := make([]string, 0, len(scripts))
	for k := range scripts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString(`# Argo CD health checks for the kinds of provider-simplyblock, as argocd-cm keys.
# Merge them into Argo CD's ConfigMap (adjust the namespace if Argo CD is not in "argocd"):
#
#   kubectl -n argocd patch configmap argocd-cm --type merge --patch-file examples/argocd/argocd-cm-patch.yaml
#
# or list this file under "patches:" in the kustomization that installs Argo CD.
# Generated from examples/argocd/health/<group>/<kind>/health.lua; edit those and run
#
#   ` + fixCommand + `
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
data:
`)
	for _, k := range keys {
		s := scripts[k]
		if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") {
			return nil, fmt.Errorf("%s must end with exactly one newline to be kept byte for byte in a YAML literal block", k)
		}
		fmt.Fprintf(&b, "  %s: |\n", k)
		for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			if strings.TrimSpace(line) != line && strings.TrimSpace(line) == "" {
				return nil, fmt.Errorf("%s has a line of only white space, which a YAML literal block does not keep", k)
			}
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
	}
	return b.Bytes(), nil
}

// TestConfigMapPatchMatchesScripts checks that the argocd-cm snippet holds
// exactly the health.lua files, byte for byte.
func TestConfigMapPatchMatchesScripts(t *testing.T) {
	want := scripts(t)
	if *update {
		b, err := renderConfigMapPatch(want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(configMapPatchPath(), b, 0o644); err != nil { //nolint:gosec // a file of the repository, world-readable.
			t.Fatal(err)
		}
	}

	b, err := os.ReadFile(configMapPatchPath())
	if err != nil {
		t.Fatalf("%v\nto create it, run: %s", err, fixCommand)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(b, cm); err != nil {
		t.Fatalf("%s is not a ConfigMap: %v\nto rewrite it, run: %s", configMapPatchFile, err, fixCommand)
	}
	if cm.Kind != "ConfigMap" || cm.Name != "argocd-cm" {
		t.Errorf("%s is %s %s, want ConfigMap argocd-cm", configMapPatchFile, cm.Kind, cm.Name)
	}
	for k, s := range want {
		got, ok := cm.Data[k]
		switch {
		case !ok:
			t.Errorf("%s has no key %s for %s", configMapPatchFile, k, scriptFor(k))
		case got != s:
			t.Errorf("%s: key %s differs from %s (they must be equal byte for byte)", configMapPatchFile, k, scriptFor(k))
		}
	}
	for k := range cm.Data {
		if _, ok := want[k]; !ok && strings.HasPrefix(k, healthKeyPrefix) {
			t.Errorf("%s has key %s, but there is no %s", configMapPatchFile, k, scriptFor(k))
		}
	}
	if t.Failed() {
		t.Logf("the health.lua files are the source: to rewrite %s from them, run:\n\t%s", configMapPatchFile, fixCommand)
	}
}

// scriptFor names the file of an argocd-cm health key.
func scriptFor(key string) string {
	gk := strings.TrimPrefix(key, healthKeyPrefix)
	i := strings.LastIndex(gk, "_")
	if i < 0 {
		return "a health.lua for " + key
	}
	return filepath.Join("examples", "argocd", "health", gk[:i], gk[i+1:], "health.lua")
}

// TestConfigMapPatchScriptsRun runs each script as the snippet holds it
// against an object with no status, the first thing Argo CD sees.
func TestConfigMapPatchScriptsRun(t *testing.T) {
	b, err := os.ReadFile(configMapPatchPath())
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.Unmarshal(b, cm); err != nil {
		t.Fatal(err)
	}
	for k, s := range cm.Data {
		if !strings.HasPrefix(k, healthKeyPrefix) {
			continue
		}
		h, err := runHealth(s, map[string]any{"apiVersion": group + "/v1alpha1", "kind": "Any", "metadata": map[string]any{"name": "x"}})
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if h.Status != "Progressing" {
			t.Errorf("%s: an object without status is %s (%s), want Progressing", k, h.Status, h.Message)
		}
	}
}
