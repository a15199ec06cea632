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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/test/argocd/sandbox"
)

var update = flag.Bool("update", false, "rewrite examples/argocd/argocd-cm-patch.yaml from the scripts under examples/argocd/health and examples/argocd/actions")

const (
	// healthKeyPrefix starts every argocd-cm key that holds a health
	// check: resource.customizations.health.<group>_<kind>.
	healthKeyPrefix = "resource.customizations.health."
	// actionsKeyPrefix starts every argocd-cm key that holds the actions
	// of a kind: resource.customizations.actions.<group>_<kind>.
	actionsKeyPrefix = "resource.customizations.actions."
)

const fixCommand = "go test ./test/argocd -run TestConfigMapPatchMatchesScripts -update"

// configMapPatchFile is the argocd-cm snippet, relative to the repository root.
const configMapPatchFile = "examples/argocd/argocd-cm-patch.yaml"

func configMapPatchPath() string { return repoPath(filepath.FromSlash(configMapPatchFile)) }

// resourceActions is the value of an actions key as Argo CD reads it (its
// ResourceActions, decoded from YAML): the discovery script and one
// definition per action.
type resourceActions struct {
	Discovery   string             `json:"discovery.lua"`
	Definitions []actionDefinition `json:"definitions"`
}

type actionDefinition struct {
	Name      string `json:"name"`
	ActionLua string `json:"action.lua"`
}

// customizations are the scripts on disk by their argocd-cm key: each
// health check, and each kind's actions.
type customizations struct {
	health  map[string]string
	actions map[string]resourceActions
}

// keyOf returns the argocd-cm key of kindDir, a folder
// <root>/<group>/<kind>: <prefix><group>_<kind>.
func keyOf(prefix, kindDir string) string {
	return prefix + filepath.Base(filepath.Dir(kindDir)) + "_" + filepath.Base(kindDir)
}

// scripts reads every health check under examples/argocd/health and every
// kind's actions under examples/argocd/actions.
func scripts(t *testing.T) customizations {
	t.Helper()
	c := customizations{health: map[string]string{}, actions: map[string]resourceActions{}}
	files, err := filepath.Glob(repoPath("examples", "argocd", "health", "*", "*", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		c.health[keyOf(healthKeyPrefix, filepath.Dir(f))] = readFile(t, f)
	}
	if len(c.health) == 0 {
		t.Fatal("no health checks under examples/argocd/health")
	}
	dirs, err := filepath.Glob(repoPath("examples", "argocd", "actions", "*", "*", "actions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		ra := resourceActions{Discovery: readFile(t, filepath.Join(d, "discovery.lua"))}
		actions, err := filepath.Glob(filepath.Join(d, "*", "action.lua"))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			ra.Definitions = append(ra.Definitions, actionDefinition{Name: filepath.Base(filepath.Dir(a)), ActionLua: readFile(t, a)})
		}
		sort.Slice(ra.Definitions, func(i, j int) bool { return ra.Definitions[i].Name < ra.Definitions[j].Name })
		c.actions[keyOf(actionsKeyPrefix, filepath.Dir(d))] = ra
	}
	if len(c.actions) == 0 {
		t.Fatal("no actions under examples/argocd/actions")
	}
	return c
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // scripts from the repository.
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// literal writes s as the content of a YAML literal block ("|"), each line
// indented by indent, so that YAML reads it back byte for byte.
func literal(b *bytes.Buffer, indent, name, s string) error {
	if !strings.HasSuffix(s, "\n") || strings.HasSuffix(s, "\n\n") {
		return fmt.Errorf("%s must end with exactly one newline to be kept byte for byte in a YAML literal block", name)
	}
	if strings.HasPrefix(s, " ") {
		return fmt.Errorf("%s must not start with a space: YAML would take it for the block's indentation", name)
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if strings.TrimSpace(line) != line && strings.TrimSpace(line) == "" {
			return fmt.Errorf("%s has a line of only white space, which a YAML literal block does not keep", name)
		}
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent + line + "\n")
	}
	return nil
}

// renderActions renders a kind's actions as the YAML Argo CD expects in an
// actions key: discovery.lua, then one definition per action, by name.
func renderActions(key string, ra resourceActions) (string, error) {
	var b bytes.Buffer
	b.WriteString("discovery.lua: |\n")
	if err := literal(&b, "  ", key+" discovery.lua", ra.Discovery); err != nil {
		return "", err
	}
	b.WriteString("definitions:\n")
	for _, d := range ra.Definitions {
		fmt.Fprintf(&b, "- name: %s\n  action.lua: |\n", d.Name)
		if err := literal(&b, "    ", key+" "+d.Name+"/action.lua", d.ActionLua); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// renderConfigMapPatch renders the argocd-cm snippet holding every script
// in literal blocks, byte for byte.
func renderConfigMapPatch(c customizations) ([]byte, error) {
	data := map[string]string{}
	for k, s := range c.health {
		data[k] = s
	}
	for k, ra := range c.actions {
		s, err := renderActions(k, ra)
		if err != nil {
			return nil, err
		}
		data[k] = s
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString(`# Argo CD health checks and resource actions for the kinds of provider-simplyblock, as argocd-cm keys.
# Merge them into Argo CD's ConfigMap (adjust the namespace if Argo CD is not in "argocd"):
#
#   kubectl -n argocd patch configmap argocd-cm --type merge --patch-file examples/argocd/argocd-cm-patch.yaml
#
# or list this file under "patches:" in the kustomization that installs Argo CD. Running an action needs
# the Argo CD RBAC permission action/<group>/<kind>/<action>; the StorageCluster actions create a ClusterOps,
# which the AppProject must permit and Argo CD's server must be allowed to create (see the README).
# Generated from examples/argocd/health/<group>/<kind>/health.lua and
# examples/argocd/actions/<group>/<kind>/actions/; edit those and run
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
		fmt.Fprintf(&b, "  %s: |\n", k)
		if err := literal(&b, "    ", k, data[k]); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// readConfigMapPatch reads the argocd-cm snippet.
func readConfigMapPatch(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	b, err := os.ReadFile(configMapPatchPath())
	if err != nil {
		t.Fatalf("%v\nto create it, run: %s", err, fixCommand)
	}
	cm := &corev1.ConfigMap{}
	if err := yaml.UnmarshalStrict(b, cm); err != nil {
		t.Fatalf("%s is not a ConfigMap: %v\nto rewrite it, run: %s", configMapPatchFile, err, fixCommand)
	}
	return cm
}

// actionsOf reads an actions key's value as Argo CD reads it.
func actionsOf(value string) (resourceActions, error) {
	ra := resourceActions{}
	err := yaml.UnmarshalStrict([]byte(value), &ra)
	return ra, err
}

// TestConfigMapPatchMatchesScripts checks that the argocd-cm snippet holds
// exactly the scripts on disk, byte for byte: one health key per
// health.lua, one actions key per kind with actions, whose discovery.lua
// and definitions are that kind's discovery.lua and <action>/action.lua
// files, and no other key.
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

	cm := readConfigMapPatch(t)
	if cm.Kind != "ConfigMap" || cm.Name != "argocd-cm" {
		t.Errorf("%s is %s %s, want ConfigMap argocd-cm", configMapPatchFile, cm.Kind, cm.Name)
	}
	for k, s := range want.health {
		got, ok := cm.Data[k]
		switch {
		case !ok:
			t.Errorf("%s has no key %s for %s", configMapPatchFile, k, scriptFor(k))
		case got != s:
			t.Errorf("%s: key %s differs from %s (they must be equal byte for byte)", configMapPatchFile, k, scriptFor(k))
		}
	}
	for k, ra := range want.actions {
		value, ok := cm.Data[k]
		if !ok {
			t.Errorf("%s has no key %s for %s", configMapPatchFile, k, scriptFor(k))
			continue
		}
		got, err := actionsOf(value)
		if err != nil {
			t.Errorf("%s: key %s is not the YAML of Argo CD's resource actions: %v", configMapPatchFile, k, err)
			continue
		}
		if diff := cmp.Diff(ra, got); diff != "" {
			t.Errorf("%s: key %s differs from the scripts in %s (they must be equal byte for byte): -want, +got:\n%s",
				configMapPatchFile, k, scriptFor(k), diff)
		}
	}
	for k := range cm.Data {
		_, health := want.health[k]
		_, actions := want.actions[k]
		switch {
		case health || actions:
		case strings.HasPrefix(k, healthKeyPrefix) || strings.HasPrefix(k, actionsKeyPrefix):
			t.Errorf("%s has key %s, but there is no %s", configMapPatchFile, k, scriptFor(k))
		default:
			t.Errorf("%s has key %s, which no script on disk is behind", configMapPatchFile, k)
		}
	}
	if t.Failed() {
		t.Logf("the scripts are the source: to rewrite %s from them, run:\n\t%s", configMapPatchFile, fixCommand)
	}
}

// scriptFor names the file (or folder) behind an argocd-cm key.
func scriptFor(key string) string {
	prefix, root, file := healthKeyPrefix, "health", "health.lua"
	if strings.HasPrefix(key, actionsKeyPrefix) {
		prefix, root, file = actionsKeyPrefix, "actions", "actions"
	}
	gk := strings.TrimPrefix(key, prefix)
	i := strings.LastIndex(gk, "_")
	if i < 0 {
		return "a script for " + key
	}
	return filepath.Join("examples", "argocd", root, gk[:i], gk[i+1:], file)
}

// TestConfigMapPatchScriptsRun runs each script as the snippet holds it
// against an object with no status, the first thing Argo CD sees: a health
// check says Progressing; an actions key's discovery offers exactly its
// definitions, and each action it enables runs.
func TestConfigMapPatchScriptsRun(t *testing.T) {
	cm := readConfigMapPatch(t)
	for k, s := range cm.Data {
		kind := k[strings.LastIndex(k, "_")+1:]
		obj := map[string]any{"apiVersion": group + "/v1alpha1", "kind": kind,
			"metadata": map[string]any{"name": "x", "namespace": "ns", "uid": "00000000-0000-0000-0000-000000000001"},
			"spec":     map[string]any{"forProvider": map[string]any{}}}
		switch {
		case strings.HasPrefix(k, healthKeyPrefix):
			h, err := runHealth(s, obj)
			if err != nil {
				t.Errorf("%s: %v", k, err)
				continue
			}
			if h.Status != "Progressing" {
				t.Errorf("%s: an object without status is %s (%s), want Progressing", k, h.Status, h.Message)
			}
		case strings.HasPrefix(k, actionsKeyPrefix):
			ra, err := actionsOf(s)
			if err != nil {
				t.Errorf("%s: %v", k, err)
				continue
			}
			offered, err := sandbox.Sandbox{}.Discover(ra.Discovery, obj)
			if err != nil {
				t.Errorf("%s: discovery.lua: %v", k, err)
				continue
			}
			var names, defined []string
			for name := range offered {
				names = append(names, name)
			}
			for _, d := range ra.Definitions {
				defined = append(defined, d.Name)
				if a, ok := offered[d.Name]; ok && !a.Disabled {
					if _, err := (sandbox.Sandbox{}).RunAction(d.ActionLua, obj, map[string]string{}); err != nil {
						t.Errorf("%s: action %s, enabled on an object without status, fails: %v", k, d.Name, err)
					}
				}
			}
			sort.Strings(names)
			if diff := cmp.Diff(defined, names); diff != "" {
				t.Errorf("%s: the actions discovery.lua offers are not the definitions: -definitions, +offered:\n%s", k, diff)
			}
		}
	}
}
