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

package crash_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/simplyblock/provider-simplyblock/apis"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

const (
	// group and version of the managed resources.
	group, version = "simplyblock.m.crossplane.io", "v1alpha1"

	adminToken      = "crash-admin-token"
	systemNamespace = "crash-system"
	credsSecret     = "simplyblock-credentials"
	simSpeed        = 200

	// defaultWait is a generous bound for a reconcile to show up in the API
	// server or the simulator (the provider polls every second).
	defaultWait = 90 * time.Second
)

// suite is the world every test shares; TestMain sets it up once.
var suite struct {
	root        string        // repository root
	restConfig  *rest.Config  // admin access to the envtest API server
	kube        client.Client // client for the tests
	kubeconfig  string        // kubeconfig file the provider process uses
	providerBin string        // the provider binary, built once
	raceBuild   bool          // the provider binary was built with -race
	sim         *simulator.Simulator
	logDir      string // provider and simulator logs
	keepLogs    bool
	// namespacedKinds are the namespaced kinds of package/crds, purged from
	// a test's namespaces at its end.
	namespacedKinds []schema.GroupVersionKind
	// validator checks the simulator's traffic against the vendor
	// contract on behalf of the running test; nil when none.
	validator atomic.Pointer[contract.Validator]
	// live tracks running provider processes so TestMain can kill any a
	// test left behind.
	live sync.Map // *providerProcess -> struct{}
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeProviderEnv); mode != "" {
		fakeProvider(mode) // this binary re-executed as a stand-in provider
		return
	}
	flag.Parse()
	if testing.Short() {
		// Every test skips itself; do not start anything.
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	start := time.Now()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "crash suite: "+format+"\n", args...)
		return 1
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return fail("%v", err)
	}
	suite.root = root
	suite.keepLogs = os.Getenv("CRASH_KEEP_LOGS") != ""
	suite.raceBuild = os.Getenv("CRASH_PROVIDER_RACE") != ""

	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		out, err := exec.Command("bash", filepath.Join(root, "hack", "envtest-binaries.sh")).Output() //nolint:gosec // the repository's own script.
		if err != nil {
			return fail("cannot provide kube-apiserver and etcd: %v", err)
		}
		_ = os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out)))
	}

	if d := os.Getenv("CRASH_LOG_DIR"); d != "" {
		suite.logDir = d
		err = os.MkdirAll(d, 0o750)
	} else {
		suite.logDir, err = os.MkdirTemp("", "provider-simplyblock-crash-")
	}
	if err != nil {
		return fail("cannot create the log folder: %v", err)
	}
	binDir, err := os.MkdirTemp("", "provider-simplyblock-crash-bin-")
	if err != nil {
		return fail("cannot create a folder for the provider binary: %v", err)
	}
	defer func() { _ = os.RemoveAll(binDir) }()
	defer func() {
		if code == 0 && !suite.keepLogs {
			_ = os.RemoveAll(suite.logDir)
			return
		}
		fmt.Fprintf(os.Stderr, "crash suite: logs kept in %s\n", suite.logDir)
	}()

	// Build the provider while the control plane starts.
	suite.providerBin = filepath.Join(binDir, "provider")
	built := make(chan error, 1)
	go func() { built <- buildProvider(suite.providerBin) }()
	waitBuilt := func() error {
		if built == nil {
			return nil
		}
		err := <-built
		built = nil
		return err
	}
	defer func() { _ = waitBuilt() }() // never leave the build running

	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "package", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	suite.restConfig, err = env.Start()
	if err != nil {
		return fail("cannot start envtest: %v", err)
	}
	defer func() { _ = env.Stop() }()
	for _, crd := range env.CRDs {
		if crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				suite.namespacedKinds = append(suite.namespacedKinds,
					schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind})
				break
			}
		}
	}

	user, err := env.AddUser(envtest.User{Name: "crash-provider", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fail("cannot create a user for the provider: %v", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fail("cannot render the provider's kubeconfig: %v", err)
	}
	suite.kubeconfig = filepath.Join(binDir, "kubeconfig")
	if err := os.WriteFile(suite.kubeconfig, kubeconfig, 0o600); err != nil {
		return fail("%v", err)
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fail("%v", err)
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return fail("%v", err)
	}
	suite.kube, err = client.New(suite.restConfig, client.Options{Scheme: scheme})
	if err != nil {
		return fail("%v", err)
	}

	simLog, err := os.Create(filepath.Join(suite.logDir, "simulator.log"))
	if err != nil {
		return fail("%v", err)
	}
	defer func() { _ = simLog.Close() }()
	simLogw := &lockedWriter{w: simLog}
	suite.sim = simulator.New(simulator.Options{
		Speed:       simSpeed,
		AdminTokens: []string{adminToken},
		TLS:         true,
		Logf: func(format string, args ...any) {
			_, _ = fmt.Fprintf(simLogw, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
		},
		Middleware: contractMiddleware,
	})
	if err := suite.sim.Start(); err != nil {
		return fail("cannot start the simulator: %v", err)
	}
	defer suite.sim.Close()

	if err := installProviderConfig(context.Background()); err != nil {
		return fail("%v", err)
	}
	buildStart := time.Now()
	if err := waitBuilt(); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(os.Stderr, "crash suite: world ready in %s (waited %s for the provider build); simulator %s, logs %s\n",
		time.Since(start).Round(time.Millisecond), time.Since(buildStart).Round(time.Millisecond), suite.sim.URL(), suite.logDir)

	defer killLeftovers()
	return m.Run()
}

// buildProvider compiles ./cmd/provider into bin.
func buildProvider(bin string) error {
	var flags []string
	if suite.raceBuild {
		flags = append(flags, "-race")
	}
	start := time.Now()
	if err := testenv.GoBuild(suite.root, bin, "./cmd/provider", flags...); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "crash suite: built the provider in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// killLeftovers kills provider processes a test failed to stop (a test that
// called t.FailNow from another goroutine, say).
func killLeftovers() {
	suite.live.Range(func(k, _ any) bool {
		p := k.(*providerProcess) //nolint:forcetypeassert // only providerProcess keys are stored.
		p.Kill()
		<-p.Exited()
		return true
	})
}

// installProviderConfig creates the namespace crash-system, the credentials
// Secret (admin token and the simulator's CA) and the ClusterProviderConfig
// named default, which managed resources use when they name none.
func installProviderConfig(ctx context.Context) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: credsSecret, Namespace: systemNamespace},
			StringData: map[string]string{"token": adminToken, "ca.crt": string(suite.sim.CACertPEM())},
		},
		&apisv1alpha1.ClusterProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "default"},
			Spec: apisv1alpha1.ProviderConfigSpec{
				Endpoint: suite.sim.URL(),
				Credentials: apisv1alpha1.ProviderCredentials{
					Source:    xpv2.CredentialsSourceSecret,
					SecretRef: apisv1alpha1.SecretKeySelector{Name: credsSecret, Namespace: systemNamespace, Key: "token"},
				},
				TLS: &apisv1alpha1.TLSConfig{CABundleSecretRef: &apisv1alpha1.SecretKeySelector{
					Name: credsSecret, Namespace: systemNamespace, Key: "ca.crt"}},
				RequestTimeoutSeconds: 5,
			},
		},
	}
	for _, o := range objs {
		if err := suite.kube.Create(ctx, o); err != nil {
			return fmt.Errorf("cannot create %T %s: %w", o, o.GetName(), err)
		}
	}
	return nil
}

// contractMiddleware validates the simulator's traffic with the running
// test's contract validator, if it has one.
func contractMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := suite.validator.Load(); v != nil {
			v.Middleware(next).ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ---- per-test state -----------------------------------------------------

// testState is what one test (or subtest) owns in the shared world.
type testState struct {
	t *testing.T

	mu          sync.Mutex
	supervisors []*supervisor
	namespaces  []string
	logs        []string
	nextLog     int
}

var (
	states   sync.Map // *testing.T -> *testState
	counter  atomic.Int64
	ctxBgnd  = context.Background()
	nameSafe = strings.NewReplacer("/", "-", "_", "-", " ", "-", "#", "-")
)

// state returns t's state, setting it up on first use: it skips the test
// under -short, resets the simulator's journal, hooks up the contract
// validator and registers the cleanup that stops t's providers and purges
// its namespaces. Every helper calls it first, so that cleanup runs after
// the helpers' own cleanups.
func state(t *testing.T) *testState {
	t.Helper()
	if testing.Short() {
		t.Skip("crash suite: skipped with -short (it runs the provider as a process against envtest and the simulator)")
	}
	if s, ok := states.Load(t); ok {
		return s.(*testState) //nolint:forcetypeassert // only *testState values are stored.
	}
	s := &testState{t: t}
	states.Store(t, s)
	suite.sim.ResetJournal()
	suite.sim.Faults().Clear()
	// Registered first, so it runs last, when t's outcome is final.
	t.Cleanup(func() {
		s.mu.Lock()
		logs := s.logs
		s.mu.Unlock()
		for _, l := range logs {
			switch {
			case t.Failed():
				t.Logf("provider log: %s", l)
			case !suite.keepLogs:
				_ = os.Remove(l)
			}
		}
		if t.Failed() {
			t.Logf("simulator log (all tests): %s", filepath.Join(suite.logDir, "simulator.log"))
		}
	})
	if _, err := os.Stat(contract.SpecPath()); err == nil || os.Getenv("CI") != "" {
		v := contract.Load(t) // reports violations at cleanup, after the one below
		suite.validator.Store(v)
		t.Cleanup(func() { suite.validator.CompareAndSwap(v, nil) })
	} else {
		t.Logf("contract checks disabled: no vendor spec at %s", contract.SpecPath())
	}
	t.Cleanup(func() {
		s.mu.Lock()
		sups, nss := s.supervisors, s.namespaces
		s.mu.Unlock()
		for _, sup := range sups {
			sup.Stop()
		}
		suite.sim.Faults().Clear()
		for _, ns := range nss {
			if err := purgeNamespace(ns); err != nil {
				t.Errorf("cannot clean up namespace %s: %v", ns, err)
			}
		}
		states.Delete(t)
	})
	return s
}

// logPath returns a fresh log file path for one of t's provider processes.
func (s *testState) logPath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := nameSafe.Replace(s.t.Name())
	for {
		s.nextLog++
		name := base
		if s.nextLog > 1 {
			name = fmt.Sprintf("%s-%d", base, s.nextLog)
		}
		// -count=N runs a test N times in one process: keep every log.
		path := filepath.Join(suite.logDir, name+".provider.log")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return path
		}
	}
}

// addLog records a provider log of t, reported when t fails and removed
// otherwise.
func (s *testState) addLog(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs = append(s.logs, path)
}

// failure returns the first unexpected provider exit of t's supervisors.
func (s *testState) failure() error {
	s.mu.Lock()
	sups := append([]*supervisor(nil), s.supervisors...)
	s.mu.Unlock()
	for _, sup := range sups {
		if err := sup.Err(); err != nil {
			return err
		}
	}
	return nil
}

// purgeNamespace deletes every managed resource (any namespaced kind of
// package/crds) in ns with its finalizers stripped, then ns itself. No
// provider runs while it does, so nothing reaches the backend.
func purgeNamespace(ns string) error {
	var errs []error
	for _, gvk := range suite.namespacedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := suite.kube.List(ctxBgnd, l, client.InNamespace(ns)); err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", gvk.Kind, err))
			continue
		}
		for i := range l.Items {
			u := &l.Items[i]
			if len(u.GetFinalizers()) > 0 {
				patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
				if err := suite.kube.Patch(ctxBgnd, u, patch); err != nil && !kerrors.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("strip finalizers of %s %s: %w", gvk.Kind, u.GetName(), err))
				}
			}
			if err := suite.kube.Delete(ctxBgnd, u); err != nil && !kerrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete %s %s: %w", gvk.Kind, u.GetName(), err))
			}
		}
	}
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := suite.kube.Delete(ctxBgnd, nsObj); err != nil && !kerrors.IsNotFound(err) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ---- helpers for tests --------------------------------------------------

// newNamespace creates a namespace for t, purged at t's end.
func newNamespace(t *testing.T) string {
	t.Helper()
	s := state(t)
	base := strings.ToLower(nameSafe.Replace(t.Name()))
	if len(base) > 45 {
		base = base[:45]
	}
	ns := fmt.Sprintf("%s-%d", strings.Trim(base, "-"), counter.Add(1))
	if err := suite.kube.Create(ctxBgnd, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatalf("cannot create namespace %s: %v", ns, err)
	}
	s.mu.Lock()
	s.namespaces = append(s.namespaces, ns)
	s.mu.Unlock()
	return ns
}

// uniqueName returns a name unique in the shared simulator (backend cluster
// names must be unique).
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, counter.Add(1))
}

// waitFor polls cond every 200 ms until it returns true, failing the test
// when timeout passes (with cond's last description) or when one of the
// test's providers exits unexpectedly.
func waitFor(t *testing.T, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	s := state(t)
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		ok, desc := cond()
		if ok {
			return
		}
		last = desc
		if err := s.failure(); err != nil {
			t.Fatalf("gave up waiting: %v; last seen: %s", err, last)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s; last seen: %s", timeout, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// fromExample decodes examples/<file> (one object) into an unstructured
// object in ns, lets mutate edit it and creates it. Unset fields get the
// CRD defaults, as with kubectl apply; the providerConfigRef defaults to
// the ClusterProviderConfig "default".
func fromExample(t *testing.T, ns, file string, mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	state(t)
	data, err := os.ReadFile(filepath.Join(suite.root, "examples", file)) //nolint:gosec // test input from the repository.
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&u.Object); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("cannot decode %s: %v", file, err)
	}
	u.SetNamespace(ns)
	if mutate != nil {
		mutate(u)
	}
	if err := suite.kube.Create(ctxBgnd, u); err != nil {
		t.Fatalf("cannot create %s %s from %s: %v", u.GetKind(), u.GetName(), file, err)
	}
	return u
}

// setField sets a nested field of u, failing the test on error.
func setField(t *testing.T, u *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(u.Object, value, path...); err != nil {
		t.Fatalf("cannot set %s: %v", strings.Join(path, "."), err)
	}
}

// getObject reads a managed resource of the given kind.
func getObject(ns, kind, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
	err := suite.kube.Get(ctxBgnd, types.NamespacedName{Namespace: ns, Name: name}, u)
	return u, err
}

// condition returns the status, reason and message of a condition of u;
// status is "" when u has no such condition.
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

// readySynced reports whether u is Ready and Synced, and describes it.
func readySynced(u *unstructured.Unstructured) (bool, string) {
	rs, rr, rm := condition(u, "Ready")
	ss, sr, sm := condition(u, "Synced")
	return rs == "True" && ss == "True",
		fmt.Sprintf("Ready=%s (%s %s) Synced=%s (%s %s)", rs, rr, rm, ss, sr, sm)
}

// waitReady waits until a managed resource is Ready and Synced and returns
// it.
func waitReady(t *testing.T, ns, kind, name string) *unstructured.Unstructured {
	t.Helper()
	var u *unstructured.Unstructured
	waitFor(t, defaultWait, func() (bool, string) {
		got, err := getObject(ns, kind, name)
		if err != nil {
			return false, err.Error()
		}
		u = got
		ok, desc := readySynced(got)
		return ok, kind + " " + ns + "/" + name + ": " + desc
	})
	return u
}

// newManaged creates a managed resource of the given kind in ns with the
// given spec.forProvider, e.g. a ClusterOps:
//
//	newManaged(t, ns, "ClusterOps", "activate", map[string]any{"type": "Activate", "clusterId": id})
func newManaged(t *testing.T, ns, kind, name string, forProvider map[string]any) *unstructured.Unstructured {
	t.Helper()
	state(t)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind})
	u.SetNamespace(ns)
	u.SetName(name)
	// A JSON round trip turns Go values (int, structs, ...) into the JSON
	// types unstructured objects hold (int64, map[string]any, ...).
	raw, err := json.Marshal(forProvider)
	if err != nil {
		t.Fatalf("cannot encode spec.forProvider of %s %s: %v", kind, name, err)
	}
	fp := map[string]any{}
	if err := utiljson.Unmarshal(raw, &fp); err != nil {
		t.Fatalf("cannot decode spec.forProvider of %s %s: %v", kind, name, err)
	}
	if err := unstructured.SetNestedMap(u.Object, fp, "spec", "forProvider"); err != nil {
		t.Fatalf("cannot set spec.forProvider of %s %s: %v", kind, name, err)
	}
	if err := suite.kube.Create(ctxBgnd, u); err != nil {
		t.Fatalf("cannot create %s %s/%s: %v", kind, ns, name, err)
	}
	return u
}

// field returns a nested field of u as a string ("" when absent), e.g.
// field(u, "status", "atProvider", "phase").
func field(u *unstructured.Unstructured, path ...string) string {
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil || !found || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// externalName returns u's crossplane.io/external-name annotation.
func externalName(u *unstructured.Unstructured) string {
	return u.GetAnnotations()["crossplane.io/external-name"]
}

// seedCluster seeds a backend cluster with the given number of nodes and
// status (sb.ClusterUnready, sb.ClusterActive, ...) in the simulator and
// creates a StorageCluster that imports it (external-name = its UUID, the
// quickstart parameters, which match the seeded defaults) in a fresh
// namespace. It does not wait for the import: that needs a running
// provider (see waitReady). It returns the namespace, the StorageCluster's
// name and the backend cluster id.
func seedCluster(t *testing.T, nodes int, status sb.ClusterStatus) (ns, name, clusterID string) {
	t.Helper()
	ns = newNamespace(t)
	name, clusterID = seedClusterIn(t, ns, nodes, status)
	return ns, name, clusterID
}

// seedClusterIn is seedCluster in an existing namespace.
func seedClusterIn(t *testing.T, ns string, nodes int, status sb.ClusterStatus) (name, clusterID string) {
	t.Helper()
	state(t)
	name = uniqueName("seeded")
	clusterID, _, _ = suite.sim.Seed(simulator.SeedCluster{Name: name, Nodes: nodes, Status: status})
	fromExample(t, ns, "quickstart/00-cluster.yaml", func(u *unstructured.Unstructured) {
		u.SetName(name)
		setField(t, u, name, "spec", "forProvider", "name")
		u.SetAnnotations(map[string]string{"crossplane.io/external-name": clusterID})
	})
	return name, clusterID
}

// countCalls counts the calls the simulator received during this test with
// the method (empty: any) to a path ending in suffix, e.g.
// countCalls("POST", "/clusters/") or countCalls("POST", "/activate").
// Tests run one at a time and the journal is reset when a test starts.
func countCalls(method, suffix string) int {
	return suite.sim.Calls(method, suffix)
}

// callsSince is countCalls restricted to calls that started at or after t0.
func callsSince(t0 time.Time, method, suffix string) int {
	n := 0
	for _, e := range suite.sim.Journal() {
		if !e.Time.Before(t0) && (method == "" || e.Method == method) && strings.HasSuffix(e.Path, suffix) {
			n++
		}
	}
	return n
}

// journalSummary renders the test's calls that changed something (every
// method but GET) as "POST /api/v2/clusters/ 201, ...", for failure
// messages and the summary table.
func journalSummary() string {
	var parts []string
	for _, e := range suite.sim.Journal() {
		if e.Method == http.MethodGet {
			continue
		}
		p := fmt.Sprintf("%s %s %d", e.Method, e.Path, e.Status)
		if e.Dropped {
			p += " (dropped)"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "no writes"
	}
	return strings.Join(parts, ", ")
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
