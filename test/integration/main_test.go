// Package integration runs the real controllers against a real
// kube-apiserver and etcd (envtest) and the simplyblock simulator, in
// process. Each test gets its own namespace, simulator and manager.
package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// restConfig points at the envtest kube-apiserver shared by every test.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// controller-runtime's own log: reconcile panics and errors.
	ctrl.SetLogger(zap.New())
	root, err := testenv.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		out, err := exec.Command("bash", filepath.Join(root, "hack", "envtest-binaries.sh")).Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "cannot provide kube-apiserver and etcd:", err)
			return 1
		}
		_ = os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out)))
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "package", "crds")},
		ErrorIfCRDPathMissing: true,
	}
	restConfig, err = env.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot start envtest:", err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	return m.Run()
}
