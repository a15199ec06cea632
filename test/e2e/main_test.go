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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	opsv1alpha1 "github.com/crossplane/crossplane/apis/v2/ops/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/apis"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/cluster/local/controlplane"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

const (
	// toolsEnv names the folder hack/crossplane-tools.sh prints.
	toolsEnv   = "CROSSPLANE_TOOLS"
	adminToken = "e2e-admin-token"
	credsName  = "simplyblock-credentials"
	// simSpeed runs the backend 200 times faster than real time.
	simSpeed = 200
)

// providerArgs are the provider's flags: steady-state resources are polled
// every 2 s (so the XR soon shows a cluster's status) and the operation
// engine waits 5 s for evidence, as `make demo` runs it sped up.
var providerArgs = []string{
	"--debug", "--poll=2s", "--ops-evidence-grace=5s", "--ops-hold-limit=5s", "--ops-poll-waiting=1s",
	"--metrics-bind-address=0", "--health-probe-bind-address=0",
}

// world is what every test shares; TestMain builds it once.
var world struct {
	skip        string // why the tier cannot run here; empty when it can
	root        string
	cfg         *rest.Config
	kube        client.Client
	kubeconfig  string
	workDir     string
	providerBin string
	sim         *simulator.Simulator
	xp          *controlplane.Crossplane
	gc          *controlplane.Process

	mu       sync.Mutex
	provider *controlplane.Process
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	// The API server's warnings (e.g. for the v1 XRD API) go to
	// controller-runtime's log, which must be set.
	ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "e2e: "+format+"\n", args...)
		return 1
	}
	_, file, _, _ := runtime.Caller(0)
	world.root = filepath.Join(filepath.Dir(file), "..", "..")
	tools := os.Getenv(toolsEnv)
	if tools == "" {
		world.skip = toolsEnv + " is not set; run make test, or set it to the folder printed by hack/crossplane-tools.sh"
		return m.Run()
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		out, err := exec.Command("bash", filepath.Join(world.root, "hack", "envtest-binaries.sh")).Output() //nolint:gosec // the repository's own script
		if err != nil {
			return fail("cannot provide the envtest binaries: %v", err)
		}
		assets = strings.TrimSpace(string(out))
		_ = os.Setenv("KUBEBUILDER_ASSETS", assets)
	}
	var err error
	if world.workDir, err = os.MkdirTemp("", "provider-simplyblock-e2e-"); err != nil {
		return fail("%v", err)
	}
	defer func() {
		if code == 0 && os.Getenv("E2E_KEEP_LOGS") == "" {
			_ = os.RemoveAll(world.workDir)
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: logs kept in %s\n", world.workDir)
	}()

	// Build the provider and the functions while the control plane starts.
	world.providerBin = filepath.Join(world.workDir, "provider")
	functionBin := filepath.Join(world.workDir, "function-storagecluster")
	scheduledOpsBin := filepath.Join(world.workDir, "function-scheduled-ops")
	built := make(chan error, 1)
	go func() {
		built <- goBuild(map[string]string{world.providerBin: "./cmd/provider", functionBin: "./cmd/function-storagecluster",
			scheduledOpsBin: "./cmd/function-scheduled-ops"})
	}()
	defer func() {
		if built != nil {
			<-built
		}
	}()

	// Every CRD we ship is installed as a cluster would: a CRD the API
	// server refuses (a CEL rule over its cost budget, say) fails here.
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(world.root, "package", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	if world.cfg, err = env.Start(); err != nil {
		return fail("cannot start envtest: %v", err)
	}
	defer func() { _ = env.Stop() }()
	user, err := env.AddUser(envtest.User{Name: "e2e", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fail("cannot add a user: %v", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fail("%v", err)
	}
	world.kubeconfig = filepath.Join(world.workDir, "kubeconfig")
	if err := os.WriteFile(world.kubeconfig, kubeconfig, 0o600); err != nil {
		return fail("%v", err)
	}
	scheme := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, apis.AddToScheme, extv1.AddToScheme, opsv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return fail("%v", err)
		}
	}
	if world.kube, err = client.New(world.cfg, client.Options{Scheme: scheme}); err != nil {
		return fail("%v", err)
	}

	if world.gc, err = controlplane.StartGarbageCollector(assets, world.kubeconfig, world.workDir); err != nil {
		return fail("%v", err)
	}
	defer world.gc.Stop()

	simLog, err := os.Create(filepath.Join(world.workDir, "simulator.log"))
	if err != nil {
		return fail("%v", err)
	}
	defer func() { _ = simLog.Close() }()
	var simLogMu sync.Mutex
	validate, err := startContract()
	if err != nil {
		return fail("%v", err)
	}
	world.sim = simulator.New(simulator.Options{
		Speed: simSpeed, AdminTokens: []string{adminToken}, TLS: true,
		Logf: func(format string, args ...any) {
			simLogMu.Lock()
			defer simLogMu.Unlock()
			_, _ = fmt.Fprintf(simLog, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
		},
		Middleware: validate,
	})
	if err := world.sim.Start(); err != nil {
		return fail("cannot start the simulator: %v", err)
	}
	defer world.sim.Close()

	if err := <-built; err != nil {
		built = nil
		return fail("%v", err)
	}
	built = nil
	ctx := context.Background()
	// The Function objects as shipped: the composite API's and the
	// scheduled operations' (examples/scheduled).
	functionFiles := []string{filepath.Join(world.root, "examples", "composition", "functions.yaml"),
		filepath.Join(world.root, "examples", "scheduled", "function.yaml")}
	var functions []*unstructured.Unstructured
	for _, f := range functionFiles {
		objs, err := readObjects(f)
		if err != nil {
			return fail("%v", err)
		}
		functions = append(functions, objs...)
	}
	world.xp, err = controlplane.StartCrossplane(ctx, world.cfg, controlplane.CrossplaneOptions{
		Tools: tools, FunctionStorageCluster: functionBin, FunctionScheduledOps: scheduledOpsBin,
		Kubeconfig: world.kubeconfig, WorkDir: world.workDir,
		CoreArgs: []string{"--debug", "--enable-operations"}, Registries: controlplane.PackageRegistries(functions),
	})
	if err != nil {
		return fail("cannot start Crossplane: %v", err)
	}
	defer world.xp.Stop()
	if err := startProvider(); err != nil {
		return fail("%v", err)
	}
	defer stopProvider()

	if err := createFile(ctx, functionFiles[1], "", nil); err != nil {
		return fail("%v", err)
	}
	// The composite API exactly as shipped.
	for _, f := range []string{"functions.yaml", "xrd.yaml", "xrd-legacy.yaml", "composition.yaml", "composition-legacy.yaml"} {
		if err := createFile(ctx, filepath.Join(world.root, "examples", "composition", f), "", nil); err != nil {
			return fail("%v", err)
		}
	}
	// Crossplane derives and installs a CRD per XRD (and one for the claim);
	// the tests judge whether the API server took them, so this only waits.
	for _, f := range []string{"xrd.yaml", "xrd-legacy.yaml"} {
		xrds, err := readObjects(filepath.Join(world.root, "examples", "composition", f))
		if err != nil {
			return fail("%v", err)
		}
		_ = controlplane.WaitEstablished(ctx, world.kube, xrds[0], time.Minute)
	}
	code = m.Run()
	if reportContract() > 0 && code == 0 {
		code = 1
	}
	return code
}

// needWorld skips (or, under CI, fails) a test the tier cannot run here.
func needWorld(t *testing.T) {
	t.Helper()
	if world.skip == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal(world.skip)
	}
	t.Skip(world.skip)
}

// goBuild builds each package into its output path.
func goBuild(outputs map[string]string) error {
	for out, pkg := range outputs {
		if err := testenv.GoBuild(world.root, out, pkg); err != nil {
			return err
		}
	}
	return nil
}

// startProvider starts the provider binary (again), logging to provider.log.
func startProvider() error {
	world.mu.Lock()
	defer world.mu.Unlock()
	p, err := controlplane.StartProcess("provider", world.workDir, world.providerBin, providerArgs,
		[]string{"KUBECONFIG=" + world.kubeconfig})
	if err != nil {
		return err
	}
	world.provider = p
	return nil
}

// killProvider SIGKILLs the provider, as a crash would.
func killProvider() {
	world.mu.Lock()
	defer world.mu.Unlock()
	world.provider.Kill()
}

func stopProvider() {
	world.mu.Lock()
	defer world.mu.Unlock()
	world.provider.Stop()
}

// newNamespace creates a namespace for one test with the credentials Secret
// and the namespaced ProviderConfig named default that the example XRs name.
func newNamespace(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: credsName, Namespace: name},
			StringData: map[string]string{"token": adminToken, "ca.crt": string(world.sim.CACertPEM())},
		},
		&apisv1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name},
			Spec: apisv1alpha1.ProviderConfigSpec{
				Endpoint: world.sim.URL(),
				Credentials: apisv1alpha1.ProviderCredentials{
					Source:    xpv2.CredentialsSourceSecret,
					SecretRef: apisv1alpha1.SecretKeySelector{Name: credsName, Key: "token"},
				},
				TLS: &apisv1alpha1.TLSConfig{CABundleSecretRef: &apisv1alpha1.SecretKeySelector{
					Name: credsName, Key: "ca.crt"}},
				RequestTimeoutSeconds: 5,
			},
		},
	}
	for _, o := range objs {
		if err := world.kube.Create(ctx, o); err != nil {
			t.Fatalf("cannot create %T %s: %v", o, o.GetName(), err)
		}
	}
	t.Cleanup(func() {
		checkContract(t)
		if t.Failed() {
			t.Logf("logs: %s", strings.Join(append(world.xp.Logs(), world.provider.Log, world.gc.Log,
				filepath.Join(world.workDir, "simulator.log")), ", "))
		}
	})
	return name
}
