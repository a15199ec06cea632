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

package bench_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/simplyblock/provider-simplyblock/apis"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// world is what every scenario shares; TestMain sets it up once. Each
// scenario brings its own simulator (with its own speed) and its own
// provider process, and purges its objects when it ends.
var world struct {
	root        string
	restConfig  *rest.Config // admin access, high client-side rate limits
	kube        client.Client
	scheme      *kruntime.Scheme
	kubeconfig  string // the provider process's kubeconfig
	providerBin string
	logDir      string
	sizes       sizes
	results     *results
}

func TestMain(m *testing.M) {
	flag.Parse()
	// The informers and clients of the harness log through
	// controller-runtime; keep them quiet.
	ctrllog.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	if testing.Short() {
		// Every scenario skips itself; start nothing.
		os.Exit(m.Run())
	}
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	start := time.Now()
	fail := func(format string, args ...any) int {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
		return 1
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return fail("%v", err)
	}
	world.root = root
	world.sizes = loadSizes()
	world.results = newResults(root, world.sizes)

	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		out, err := exec.Command("bash", filepath.Join(root, "hack", "envtest-binaries.sh")).Output() //nolint:gosec // the repository's own script.
		if err != nil {
			return fail("cannot provide kube-apiserver and etcd: %v", err)
		}
		_ = os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out)))
	}

	keep := os.Getenv("BENCH_KEEP_LOGS") != ""
	if d := os.Getenv("BENCH_LOG_DIR"); d != "" {
		world.logDir, err = d, os.MkdirAll(d, 0o750)
		keep = true
	} else {
		world.logDir, err = os.MkdirTemp("", "provider-simplyblock-bench-")
	}
	if err != nil {
		return fail("cannot create the log folder: %v", err)
	}
	binDir, err := os.MkdirTemp("", "provider-simplyblock-bench-bin-")
	if err != nil {
		return fail("%v", err)
	}
	defer func() { _ = os.RemoveAll(binDir) }()
	defer func() {
		if code == 0 && !keep {
			_ = os.RemoveAll(world.logDir)
			return
		}
		fmt.Fprintf(os.Stderr, "bench: logs kept in %s\n", world.logDir)
	}()

	// Build the provider while the control plane starts.
	world.providerBin = filepath.Join(binDir, "provider")
	built := make(chan error, 1)
	go func() { built <- buildProvider(world.providerBin) }()
	waitBuilt := func() error {
		if built == nil {
			return nil
		}
		err := <-built
		built = nil
		return err
	}
	defer func() { _ = waitBuilt() }()

	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "package", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := env.Start()
	if err != nil {
		return fail("cannot start envtest: %v", err)
	}
	defer func() { _ = env.Stop() }()

	user, err := env.AddUser(envtest.User{Name: "bench-provider", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fail("cannot create a user for the provider: %v", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fail("cannot render the provider's kubeconfig: %v", err)
	}
	world.kubeconfig = filepath.Join(binDir, "kubeconfig")
	if err := os.WriteFile(world.kubeconfig, kubeconfig, 0o600); err != nil {
		return fail("%v", err)
	}

	world.scheme = kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(world.scheme); err != nil {
		return fail("%v", err)
	}
	if err := apis.AddToScheme(world.scheme); err != nil {
		return fail("%v", err)
	}
	world.restConfig = rest.CopyConfig(cfg)
	world.restConfig.QPS, world.restConfig.Burst = 5000, 10000
	world.kube, err = client.New(world.restConfig, client.Options{Scheme: world.scheme})
	if err != nil {
		return fail("%v", err)
	}
	if err := waitBuilt(); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(os.Stderr, "bench: world ready in %s (%s); logs %s\n",
		time.Since(start).Round(time.Millisecond), world.sizes, world.logDir)

	code = m.Run()
	if world.results.empty() {
		return code
	}
	path, err := world.results.write()
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: cannot write the results: %v\n", err)
		if code == 0 {
			code = 1
		}
		return code
	}
	fmt.Printf("bench: results (JSON) written to %s\n", path)
	return code
}

// buildProvider compiles ./cmd/provider into bin (without -race: the
// provider's own costs are measured).
func buildProvider(bin string) error {
	start := time.Now()
	if err := testenv.GoBuild(world.root, bin, "./cmd/provider"); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: built the provider in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// gitDescribe names the commit the figures belong to.
func gitDescribe(root string) string {
	cmd := exec.CommandContext(context.Background(), "git", "describe", "--tags", "--always", "--dirty")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
