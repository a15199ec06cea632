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

package composition

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the rendered output")

// A rendering is the output of one crossplane composition render.
type rendering struct {
	raw      []byte
	xr       *unstructured.Unstructured
	composed []*unstructured.Unstructured
}

// render runs crossplane composition render with the real composition engine
// (the core binary) and returns its output.
func render(t *testing.T, tl tools, xr, composition, functions string, observed []*unstructured.Unstructured) rendering {
	t.Helper()
	args := []string{"composition", "render", xr, composition, functions, "--crossplane-binary=" + tl.core, "--include-function-results"}
	if len(observed) > 0 {
		dir := t.TempDir()
		for i, o := range observed {
			b, err := yaml.Marshal(o.Object)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%02d.yaml", i)), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "--observed-resources="+dir)
	}
	cmd := exec.Command(tl.crossplane, args...) //nolint:gosec // the CLI with test-controlled arguments
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("crossplane %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	r := rendering{raw: sortResults(stdout.Bytes())}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(r.raw), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("cannot parse the rendered output: %v", err)
		}
		switch {
		case len(u.Object) == 0:
		case r.xr == nil:
			r.xr = u
		case u.GetKind() == "Result":
		default:
			r.composed = append(r.composed, u)
		}
	}
	if r.xr == nil {
		t.Fatalf("the rendered output has no XR:\n%s", r.raw)
	}
	return r
}

// sortResults orders the Result documents of a render's output: the
// composition engine emits them in map order.
func sortResults(out []byte) []byte {
	docs := strings.Split(string(out), "---\n")
	var objects, results []string
	for _, d := range docs {
		switch {
		case strings.TrimSpace(d) == "":
		case strings.Contains(d, "\nkind: Result\n"):
			results = append(results, d)
		default:
			objects = append(objects, d)
		}
	}
	sort.Strings(results)
	var b strings.Builder
	for _, d := range append(objects, results...) {
		b.WriteString("---\n")
		b.WriteString(d)
	}
	return []byte(b.String())
}

// golden compares the rendered output with testdata/<name>, or rewrites it
// with -update.
func golden(t *testing.T, name string, r rendering) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, r.raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path) //nolint:gosec // a golden file
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(r.raw)); diff != "" {
		t.Errorf("rendered output differs from %s (-want, +got; run with -update if the change is intended):\n%s", path, diff)
	}
}

// validate runs crossplane resource validate on the rendered output against
// the provider's CRDs and the XRDs; a kind without a schema is an error. The
// XR is validated as the user wrote it (xrFile) with the status the
// composition gave it: render prints only the XR's status and references.
func validate(t *testing.T, tl tools, xrFile string, r rendering) {
	t.Helper()
	ext := t.TempDir()
	crds, err := filepath.Glob(filepath.Join(repoRoot, "package", "crds", "*.yaml"))
	if err != nil || len(crds) == 0 {
		t.Fatalf("no CRDs in package/crds: %v", err)
	}
	for _, f := range append(crds, filepath.Join(repoRoot, "examples/composition/xrd.yaml"),
		filepath.Join(repoRoot, "examples/composition/xrd-legacy.yaml")) {
		b, err := os.ReadFile(f) //nolint:gosec // a file in the repository
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ext, filepath.Base(f)), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(xrFile) //nolint:gosec // a test input
	if err != nil {
		t.Fatal(err)
	}
	xr := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &xr.Object); err != nil {
		t.Fatal(err)
	}
	xr.Object["status"] = r.xr.Object["status"]
	var resources bytes.Buffer
	for _, u := range append([]*unstructured.Unstructured{xr}, r.composed...) {
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		resources.WriteString("---\n")
		resources.Write(b)
	}
	file := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(file, resources.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"resource", "validate", ext, file, "--error-on-missing-schemas", "--crossplane-image=", "--cache-dir=" + t.TempDir()}
	out, err := exec.Command(tl.crossplane, args...).CombinedOutput() //nolint:gosec // the CLI with test-controlled arguments
	if err != nil {
		t.Fatalf("crossplane %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("crossplane resource validate:\n%s", out)
}

// observe turns rendered resources into observed ones, as if the provider
// had reconciled them: settle sets the status each one reports.
func observe(composed []*unstructured.Unstructured, settle func(u *unstructured.Unstructured)) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(composed))
	for _, c := range composed {
		u := c.DeepCopy()
		settle(u)
		out = append(out, u)
	}
	return out
}

// ready marks a managed resource Ready and Synced.
func ready(u *unstructured.Unstructured) {
	_ = unstructured.SetNestedSlice(u.Object, []any{
		map[string]any{"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-11-30T10:00:00Z"},
		map[string]any{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-11-30T10:00:00Z"},
	}, "status", "conditions")
}

// An opSummary is what the tests assert about a composed operation.
type opSummary struct {
	Name          string
	Type          string
	ExpectedNodes int64
}

func operations(r rendering) []opSummary {
	var out []opSummary
	for _, u := range r.composed {
		if u.GetKind() != "ClusterOps" {
			continue
		}
		typ, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "type")
		var n int64
		switch v, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "forProvider", "expand", "expectedNodes"); v := v.(type) {
		case int64:
			n = v
		case float64:
			n = int64(v)
		}
		out = append(out, opSummary{Name: u.GetName(), Type: typ, ExpectedNodes: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// nodes maps each composed StorageNode to its expand flag.
func nodes(r rendering) map[string]bool {
	out := map[string]bool{}
	for _, u := range r.composed {
		if u.GetKind() == "StorageNode" {
			out[u.GetName()], _, _ = unstructured.NestedBool(u.Object, "spec", "forProvider", "expand")
		}
	}
	return out
}

func example(name string) string { return filepath.Join(repoRoot, "examples", "composition", name) }

// TestRenderLifecycle renders one XStorageCluster through its life: created
// with three nodes, grown to five once the backend activated it, and
// rendered again once the expansion finished. Each render's output is the
// next render's observed state, with the status the provider would report.
func TestRenderLifecycle(t *testing.T) {
	tl := needTools(t)
	functions := functionsFile(t, serveFunction(t, tl.pat), serveFunction(t, tl.function))
	composition := example("composition.yaml")

	// 1. A new cluster: three nodes, a pool, the Activate operation.
	created := render(t, tl, example("xr.yaml"), composition, functions, nil)
	golden(t, "new-cluster.yaml", created)
	validate(t, tl, example("xr.yaml"), created)
	if diff := cmp.Diff(map[string]bool{"prod-node-1": false, "prod-node-2": false, "prod-node-3": false}, nodes(created)); diff != "" {
		t.Errorf("new cluster: nodes (name: expand) -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]opSummary{{Name: "prod-activate", Type: "Activate"}}, operations(created)); diff != "" {
		t.Errorf("new cluster: operations -want, +got:\n%s", diff)
	}

	// 2. The backend activated the cluster; the XR now lists five nodes.
	activated := observe(created.composed, func(u *unstructured.Unstructured) {
		ready(u)
		switch u.GetKind() {
		case "StorageCluster":
			_ = unstructured.SetNestedField(u.Object, "active", "status", "atProvider", "status")
			_ = unstructured.SetNestedField(u.Object, "6bd2ba4a-4c6f-4d2b-9b0e-1f1f7d1c0a11", "status", "atProvider", "id")
		case "ClusterOps":
			_ = unstructured.SetNestedField(u.Object, "Succeeded", "status", "atProvider", "phase")
		}
	})
	expanded := render(t, tl, example("xr-expanded.yaml"), composition, functions, activated)
	golden(t, "expansion.yaml", expanded)
	validate(t, tl, example("xr-expanded.yaml"), expanded)
	if diff := cmp.Diff(map[string]bool{"prod-node-1": false, "prod-node-2": false, "prod-node-3": false,
		"prod-node-4": true, "prod-node-5": true}, nodes(expanded)); diff != "" {
		t.Errorf("expansion: nodes (name: expand) -want, +got:\n%s", diff)
	}
	expandOps := operations(expanded)
	if len(expandOps) != 2 || expandOps[1].Type != "Expand" || expandOps[1].ExpectedNodes != 5 ||
		!strings.HasPrefix(expandOps[1].Name, "prod-expand-5-") {
		t.Fatalf("expansion: want prod-activate and one Expand expecting 5 nodes, got %+v", expandOps)
	}

	// 3. The expansion finished; rendering the same XR again composes the
	// same objects: the same Expand operation, no second one.
	settled := observe(expanded.composed, func(u *unstructured.Unstructured) {
		ready(u)
		switch u.GetKind() {
		case "StorageCluster":
			_ = unstructured.SetNestedField(u.Object, "active", "status", "atProvider", "status")
			_ = unstructured.SetNestedField(u.Object, "6bd2ba4a-4c6f-4d2b-9b0e-1f1f7d1c0a11", "status", "atProvider", "id")
			_ = unstructured.SetNestedSlice(u.Object, []any{
				map[string]any{"name": "prod-activate", "kind": "ClusterOps", "type": "Activate", "phase": "Succeeded", "reason": "Completed"},
				map[string]any{"name": expandOps[1].Name, "kind": "ClusterOps", "type": "Expand", "phase": "Succeeded", "reason": "Completed",
					"message": "the backend expanded the cluster onto 5 nodes"},
			}, "status", "atProvider", "operationHistory")
		case "ClusterOps":
			_ = unstructured.SetNestedField(u.Object, "Succeeded", "status", "atProvider", "phase")
		}
	})
	again := render(t, tl, example("xr-expanded.yaml"), composition, functions, settled)
	golden(t, "rerender.yaml", again)
	validate(t, tl, example("xr-expanded.yaml"), again)
	if diff := cmp.Diff(expandOps, operations(again)); diff != "" {
		t.Errorf("re-render: operations -want (as composed by the expansion), +got:\n%s", diff)
	}
	if diff := cmp.Diff(nodes(expanded), nodes(again)); diff != "" {
		t.Errorf("re-render: nodes -want, +got:\n%s", diff)
	}
	last, _, _ := unstructured.NestedString(again.xr.Object, "status", "lastOperation", "name")
	if last != expandOps[1].Name {
		t.Errorf("re-render: status.lastOperation.name = %q, want %q", last, expandOps[1].Name)
	}

	// 4. node-2 moves to another host: one Migrate of it; its StorageNode
	// keeps the address it was added with (immutable).
	movedXR := withText(t, example("xr-expanded.yaml"), "10.0.0.12:5000", "10.0.0.22:5000")
	moving := render(t, tl, movedXR, composition, functions, settled)
	golden(t, "move.yaml", moving)
	validate(t, tl, movedXR, moving)
	migrates := migratesOf(moving)
	if len(migrates) != 1 || !strings.HasPrefix(migrates[0], "prod-migrate-node-2-1-") || !strings.HasSuffix(migrates[0], " to 10.0.0.22:5000") {
		t.Fatalf("move: want one Migrate of node-2 to 10.0.0.22:5000, got %v", migrates)
	}
	if got := nodeAddresses(moving)["prod-node-2"]; got != "10.0.0.12:5000 at 10.0.0.12:5000" {
		t.Errorf("move: node-2 = %s, want added at and still at 10.0.0.12:5000 while it moves", got)
	}

	// 5. The Migrate succeeded: the StorageNode records the new address,
	// and nothing more is composed for it.
	moved := observe(moving.composed, func(u *unstructured.Unstructured) {
		ready(u)
		if k := u.GetKind(); k == "ClusterOps" || k == "StorageNodeOps" {
			_ = unstructured.SetNestedField(u.Object, "Succeeded", "status", "atProvider", "phase")
		}
	})
	after := render(t, tl, movedXR, composition, functions, moved)
	validate(t, tl, movedXR, after)
	if m := migratesOf(after); len(m) != 0 {
		t.Errorf("after the move: want no Migrate, got %v", m)
	}
	if got := nodeAddresses(after)["prod-node-2"]; got != "10.0.0.12:5000 at 10.0.0.22:5000" {
		t.Errorf("after the move: node-2 = %s, want added at 10.0.0.12:5000, at 10.0.0.22:5000", got)
	}

	// 6. New images: one Upgrade, numbered 1, with the XR's parameters.
	upgradeXR := withText(t, movedXR, "simplyblock/simplyblock:25.10.1", "simplyblock/simplyblock:25.10.2")
	// active: the cluster active, every operation in phase (Succeeded
	// unless named in running).
	active := func(running ...string) func(u *unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			ready(u)
			switch u.GetKind() {
			case "StorageCluster":
				_ = unstructured.SetNestedField(u.Object, "active", "status", "atProvider", "status")
			case "ClusterOps", "StorageNodeOps":
				phase := "Succeeded"
				if typ, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "type"); slices.Contains(running, typ) {
					phase = "Running"
				}
				_ = unstructured.SetNestedField(u.Object, phase, "status", "atProvider", "phase")
			}
		}
	}
	settledAfterMove := observe(after.composed, active())
	upgrading := render(t, tl, upgradeXR, composition, functions, settledAfterMove)
	golden(t, "upgrade.yaml", upgrading)
	validate(t, tl, upgradeXR, upgrading)
	if got := opsOfType(upgrading, "Upgrade"); len(got) != 1 || !strings.HasPrefix(got[0], "prod-upgrade-1-") {
		t.Errorf("upgrade: want one Upgrade numbered 1, got %v", got)
	}

	// 7. A restart request: one NodeRollingRestart, beside the Upgrade still
	// running.
	restartXR := withText(t, upgradeXR, `# restartRequestedAt: "2026-12-01T10:00:00Z"`, `restartRequestedAt: "2026-12-01T10:00:00Z"`)
	restarting := render(t, tl, restartXR, composition, functions, observe(upgrading.composed, active("Upgrade")))
	validate(t, tl, restartXR, restarting)
	if got := opsOfType(restarting, "NodeRollingRestart"); len(got) != 1 || !strings.HasPrefix(got[0], "prod-rolling-restart-") {
		t.Errorf("restart: want one NodeRollingRestart, got %v", got)
	}
	if got := opsOfType(restarting, "Upgrade"); len(got) != 1 {
		t.Errorf("restart: want the running Upgrade still composed, got %v", got)
	}
}

// opsOfType lists the composed ClusterOps of type typ by name.
func opsOfType(r rendering, typ string) []string {
	var out []string
	for _, u := range r.composed {
		if t, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "type"); u.GetKind() == "ClusterOps" && t == typ {
			out = append(out, u.GetName())
		}
	}
	sort.Strings(out)
	return out
}

// withText writes a copy of the XR at path with one text (a node
// address, an image) replaced, and returns the copy's path.
func withText(t *testing.T, path, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(path) //nolint:gosec // a file of the repository
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(from)) {
		t.Fatalf("%s has no address %s", path, from)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, bytes.Replace(b, []byte(from), []byte(to), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// migratesOf lists the composed Migrates: "<name> to <address>".
func migratesOf(r rendering) []string {
	var out []string
	for _, u := range r.composed {
		if u.GetKind() == "StorageNodeOps" {
			addr, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "migrate", "nodeAddress")
			out = append(out, u.GetName()+" to "+addr)
		}
	}
	sort.Strings(out)
	return out
}

// nodeAddresses maps each composed StorageNode to "<added with> at <runs at>".
func nodeAddresses(r rendering) map[string]string {
	out := map[string]string{}
	for _, u := range r.composed {
		if u.GetKind() == "StorageNode" {
			added, _, _ := unstructured.NestedString(u.Object, "spec", "forProvider", "nodeAddress")
			out[u.GetName()] = added + " at " + u.GetAnnotations()["storage.simplyblock.io/node-address"]
		}
	}
	return out
}

// TestRenderLegacyClaim renders the cluster-scoped legacy XR that a
// StorageClusterClaim created: its resources go to the claim's namespace.
func TestRenderLegacyClaim(t *testing.T) {
	tl := needTools(t)
	functions := functionsFile(t, serveFunction(t, tl.pat), serveFunction(t, tl.function))

	xr := filepath.Join("testdata", "legacy-xr.yaml")
	r := render(t, tl, xr, example("composition-legacy.yaml"), functions, nil)
	golden(t, "legacy.yaml", r)
	validate(t, tl, xr, r)
	for _, u := range r.composed {
		if u.GetNamespace() != "team-a" {
			t.Errorf("%s %s: namespace %q, want the claim's namespace team-a", u.GetKind(), u.GetName(), u.GetNamespace())
		}
	}
	if diff := cmp.Diff([]opSummary{{Name: "prod-x7k2p-activate", Type: "Activate"}}, operations(r)); diff != "" {
		t.Errorf("operations -want, +got:\n%s", diff)
	}
}
