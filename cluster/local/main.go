package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/simplyblock/provider-simplyblock/apis"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const (
	demoNamespace  = "simplyblock-demo"
	demoToken      = "demo-admin-token"
	demoSecretName = "simplyblock-credentials"
)

func main() {
	var (
		providerBinary = flag.String("provider-binary", "_output/bin/provider", "Path of the provider binary to run.")
		quickstartDir  = flag.String("quickstart", "examples/quickstart", "Folder of manifests to apply.")
		workDir        = flag.String("work-dir", "_output/demo", "Folder for the kubeconfig and logs.")
		speed          = flag.Float64("speed", 20, "Simulator time scale: backend durations are divided by this.")
		exitWhenReady  = flag.Bool("exit-when-ready", false, "Exit once everything is Ready (for scripted runs).")
	)
	flag.Parse()
	if err := run(*providerBinary, *quickstartDir, *workDir, *speed, *exitWhenReady); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(providerBinary, quickstartDir, workDir string, speed float64, exitWhenReady bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()

	if err := os.MkdirAll(workDir, 0o750); err != nil {
		return err
	}
	workDir, _ = filepath.Abs(workDir)

	step("Starting kube-apiserver and etcd (envtest binaries from %s)", os.Getenv("KUBEBUILDER_ASSETS"))
	env := &envtest.Environment{CRDDirectoryPaths: []string{"package/crds"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("cannot start the local control plane: %w", err)
	}
	defer func() { step("Stopping the local control plane"); _ = env.Stop() }()

	user, err := env.AddUser(envtest.User{Name: "demo", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("cannot create a demo user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return err
	}
	kubeconfigPath := filepath.Join(workDir, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}

	step("Starting the simplyblock simulator (speed x%g)", speed)
	simLog, err := os.Create(filepath.Join(workDir, "simulator.log"))
	if err != nil {
		return err
	}
	defer simLog.Close()
	sim := simulator.New(simulator.Options{
		Speed:       speed,
		AdminTokens: []string{demoToken},
		Logf:        func(format string, args ...any) { fmt.Fprintf(simLog, format+"\n", args...) },
	})
	if err := sim.Start(); err != nil {
		return fmt.Errorf("cannot start the simulator: %w", err)
	}
	defer sim.Close()
	fmt.Printf("    simulator API %s, admin %s\n", sim.URL(), sim.AdminURL())

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return err
	}
	kube, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}

	step("Installing the namespace, credentials Secret and ClusterProviderConfig")
	if err := installProviderConfig(ctx, kube, sim.URL()); err != nil {
		return err
	}

	step("Starting the provider (%s)", providerBinary)
	providerLog, err := os.Create(filepath.Join(workDir, "provider.log"))
	if err != nil {
		return err
	}
	defer providerLog.Close()
	provider := exec.Command(providerBinary, "--debug", "--poll=10s", "--metrics-bind-address=0", "--health-probe-bind-address=0") //nolint:gosec // the demo runs the binary it just built.
	provider.Env = append(os.Environ(), "KUBECONFIG="+kubeconfigPath)
	provider.Stdout, provider.Stderr = providerLog, providerLog
	if err := provider.Start(); err != nil {
		return fmt.Errorf("cannot start the provider: %w", err)
	}
	defer func() {
		step("Stopping the provider")
		_ = provider.Process.Signal(syscall.SIGTERM)
		_ = provider.Wait()
	}()

	step("Applying %s", quickstartDir)
	if err := applyDir(ctx, kube, quickstartDir, demoNamespace); err != nil {
		return err
	}

	step("Waiting for every managed resource to become Ready")
	if err := watchUntilReady(ctx, kube, demoNamespace); err != nil {
		return err
	}
	fmt.Printf("\nAll managed resources are Ready after %s.\n\n", time.Since(start).Round(time.Second))
	fmt.Printf("  export KUBECONFIG=%s\n  kubectl get managed -n %s\n  kubectl get storageclusters,storagenodes,storagepools -n %s -o wide\n\n", kubeconfigPath, demoNamespace, demoNamespace)
	fmt.Printf("Logs: %s/provider.log, %s/simulator.log. Press Ctrl-C to stop and clean up.\n", workDir, workDir)
	if exitWhenReady {
		return nil
	}
	<-ctx.Done()
	fmt.Println()
	return nil
}

func installProviderConfig(ctx context.Context, kube client.Client, endpoint string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: demoNamespace}}
	if err := kube.Create(ctx, ns); err != nil {
		return fmt.Errorf("cannot create namespace: %w", err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: demoSecretName, Namespace: demoNamespace},
		StringData: map[string]string{"token": demoToken},
	}
	if err := kube.Create(ctx, secret); err != nil {
		return fmt.Errorf("cannot create credentials secret: %w", err)
	}
	return createProviderConfig(ctx, kube, endpoint)
}

func step(format string, args ...any) {
	fmt.Printf("==> "+format+"\n", args...)
}

// createProviderConfig creates the ClusterProviderConfig named default, the
// one managed resources use when they name none.
func createProviderConfig(ctx context.Context, kube client.Client, endpoint string) error {
	cpc := &apisv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: apisv1alpha1.ProviderConfigSpec{
			Endpoint: endpoint,
			Credentials: apisv1alpha1.ProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: apisv1alpha1.SecretKeySelector{Name: demoSecretName, Namespace: demoNamespace, Key: "token"},
			},
			RequestTimeoutSeconds: 30,
		},
	}
	if err := kube.Create(ctx, cpc); err != nil {
		return fmt.Errorf("cannot create ClusterProviderConfig: %w", err)
	}
	return nil
}
