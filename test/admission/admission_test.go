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

// Package admission_test installs the provider's CRDs into a real
// kube-apiserver (envtest) and checks what the API server itself accepts,
// defaults and rejects: OpenAPI validation, defaults and CEL rules. No
// controller runs.
//
// The kube-apiserver and etcd binaries come from $KUBEBUILDER_ASSETS when it
// is set, and otherwise from hack/envtest-binaries.sh, which caches them
// outside the repository (the first build takes about ten minutes).
package admission_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/apis"
)

// testNamespace holds every namespaced object the tests create.
const testNamespace = "admission"

// repoRoot is the repository root, relative to this package.
const repoRoot = "../.."

// kube is a client of the test API server, set up by TestMain.
var kube client.Client

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	assets, err := envtestAssets()
	if err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot find kube-apiserver and etcd: %v\n", err)
		return 1
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Join(repoRoot, "package", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot start envtest: %v\n", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "admission tests: cannot stop envtest: %v\n", err)
		}
	}()

	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot build scheme: %v\n", err)
		return 1
	}
	if err := apis.AddToScheme(s); err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot build scheme: %v\n", err)
		return 1
	}
	kube, err = client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot create client: %v\n", err)
		return 1
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}
	if err := kube.Create(ctx, ns); err != nil {
		fmt.Fprintf(os.Stderr, "admission tests: cannot create namespace: %v\n", err)
		return 1
	}

	return m.Run()
}

// envtestAssets returns the folder holding kube-apiserver and etcd.
func envtestAssets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	cmd := exec.Command("bash", "hack/envtest-binaries.sh")
	cmd.Dir = repoRoot
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/envtest-binaries.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// objectName turns a test case name into a valid, unique object name.
func objectName(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(t.Name())
	name = regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(name, "-")
	name = strings.Trim(name, "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[len(name)-63:], "-")
		name = strings.TrimLeft(name, "-")
	}
	return name
}

// clusterScoped are the provider's kinds without a namespace.
var clusterScoped = map[string]bool{"ClusterProviderConfig": true, "DisruptionBudget": true}

// fromYAML decodes a manifest and names it after the running test. Namespaced
// kinds are placed in the test namespace.
func fromYAML(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatalf("cannot decode manifest: %v\n%s", err, manifest)
	}
	u.SetName(objectName(t))
	if !clusterScoped[u.GetKind()] {
		u.SetNamespace(testNamespace)
	}
	return u
}

// create sends the manifest to the API server and returns its answer. A
// successfully created object is deleted when the test ends.
func create(t *testing.T, manifest string) (*unstructured.Unstructured, error) {
	t.Helper()
	u := fromYAML(t, manifest)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := kube.Create(ctx, u); err != nil {
		return u, err
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = kube.Delete(ctx, u)
	})
	return u, nil
}

// mergePatch applies a JSON merge patch, given as YAML, to an object.
func mergePatch(t *testing.T, u *unstructured.Unstructured, patchYAML string) error {
	t.Helper()
	patch, err := yaml.YAMLToJSON([]byte(patchYAML))
	if err != nil {
		t.Fatalf("cannot decode patch: %v\n%s", err, patchYAML)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch))
}

// statusPatch applies a JSON merge patch, given as YAML, to an object's
// status subresource (what the provider writes).
func statusPatch(t *testing.T, u *unstructured.Unstructured, patchYAML string) error {
	t.Helper()
	patch, err := yaml.YAMLToJSON([]byte(patchYAML))
	if err != nil {
		t.Fatalf("cannot decode patch: %v\n%s", err, patchYAML)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return kube.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, patch))
}

// readBack reads the object named after the running test into obj, which
// shows the values the API server stored, defaults included.
func readBack(t *testing.T, namespace string, obj client.Object) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: objectName(t)}, obj); err != nil {
		t.Fatalf("cannot read back %s: %v", objectName(t), err)
	}
}

// checkErr reports whether err matches wantErr: nil for "", otherwise an
// error whose message contains wantErr.
func checkErr(t *testing.T, reason, wantErr string, err error) {
	t.Helper()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("\n%s\nwant the API server to accept, got: %v", reason, err)
	case wantErr != "" && err == nil:
		t.Fatalf("\n%s\nwant the API server to reject with %q, got no error", reason, wantErr)
	case wantErr != "" && !strings.Contains(err.Error(), wantErr):
		t.Fatalf("\n%s\nwant an error containing:\n  %q\ngot:\n  %v", reason, wantErr, err)
	}
}

// indent prefixes every line of s with n spaces, to nest YAML fragments.
func indent(n int, s string) string {
	var b bytes.Buffer
	for _, line := range strings.Split(strings.Trim(s, "\n"), "\n") {
		b.WriteString(strings.Repeat(" ", n) + line + "\n")
	}
	return b.String()
}

// An updateCase creates an object, applies the writes the provider would
// make, then a user's patch, and checks the API server's answer to that.
type updateCase struct {
	reason   string
	manifest string
	// resolved, when set, is the reference resolver's write (a merge
	// patch in YAML) applied between the create and patch.
	resolved string
	// status, when set, is the provider's status write (a merge patch in
	// YAML) applied before the patch.
	status string
	// patch is a JSON merge patch, in YAML, applied after the create.
	patch   string
	wantErr string
}

// runUpdateCases runs each case in its own subtest.
func runUpdateCases(t *testing.T, cases map[string]updateCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := create(t, tc.manifest)
			if err != nil {
				t.Fatalf("cannot create the initial object: %v", err)
			}
			if tc.resolved != "" {
				if err := mergePatch(t, u, tc.resolved); err != nil {
					t.Fatalf("cannot write the resolved reference: %v", err)
				}
			}
			if tc.status != "" {
				if err := statusPatch(t, u, tc.status); err != nil {
					t.Fatalf("cannot write the status: %v", err)
				}
			}
			checkErr(t, tc.reason, tc.wantErr, mergePatch(t, u, tc.patch))
		})
	}
}

// finishedOperationCases are the update cases both operation kinds share:
// cancel and confirmResend once the operation (initial, a manifest) has
// finished.
func finishedOperationCases(initial string) map[string]updateCase {
	return map[string]updateCase{
		"CancelOnAFinishedOperation": {
			reason:   "cancel cannot be set once the operation finished: it would have no effect, and the message says why.",
			manifest: initial,
			status:   "status: {atProvider: {phase: Succeeded}}",
			patch:    "spec: {forProvider: {cancel: true}}",
			wantErr:  "spec.forProvider.cancel cannot change: the operation has finished (Succeeded), so it would have no effect",
		},
		"CancelWhileRunning": {
			reason:   "cancel may be set while the operation runs.",
			manifest: initial,
			status:   "status: {atProvider: {phase: Running}}",
			patch:    "spec: {forProvider: {cancel: true}}",
		},
		"ConfirmResendOnAFinishedOperation": {
			reason:   "confirmResend cannot change once the operation finished.",
			manifest: initial,
			status:   "status: {atProvider: {phase: Failed}}",
			patch:    "spec: {forProvider: {confirmResend: 0/1}}",
			wantErr:  "spec.forProvider.confirmResend cannot change: the operation has finished (Failed), so it would have no effect",
		},
		"FinishedOperationKeepsMetadataChanges": {
			reason:   "A finished operation still takes metadata changes (the provider removes its finalizer, users label it).",
			manifest: initial,
			status:   "status: {atProvider: {phase: Succeeded}}",
			patch:    "metadata: {labels: {reviewed: \"true\"}}",
		},
	}
}
