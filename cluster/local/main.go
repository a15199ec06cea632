package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
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
		exitWhenReady  = flag.Bool("exit-when-ready", false, "Exit once every operation Succeeded and everything is Ready (for scripted runs).")
		timeout        = flag.Duration("timeout", 20*time.Minute, "How long to wait for each stage's operations to succeed, and then for everything to become Ready.")
	)
	flag.Parse()
	if err := run(*providerBinary, *quickstartDir, *workDir, *speed, *timeout, *exitWhenReady); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(providerBinary, quickstartDir, workDir string, speed float64, timeout time.Duration, exitWhenReady bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()

	if err := os.MkdirAll(workDir, 0o750); err != nil {
		return err
	}
	workDir, _ = filepath.Abs(workDir)
	stages, err := loadStages(quickstartDir)
	if err != nil {
		return err
	}

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

	providerArgs := append([]string{"--debug", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, timingFlags(speed)...)
	step("Starting the provider (%s %s)", providerBinary, strings.Join(providerArgs, " "))
	providerLogPath := filepath.Join(workDir, "provider.log")
	providerLog, err := os.Create(providerLogPath)
	if err != nil {
		return err
	}
	defer providerLog.Close()
	provider := exec.Command(providerBinary, providerArgs...) //nolint:gosec // the demo runs the binary it just built.
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

	logs := fmt.Sprintf("logs: %s, %s", providerLogPath, filepath.Join(workDir, "simulator.log"))
	view := newProgress(kube, demoNamespace, start)
	for i, st := range stages {
		step("Applying %s (stage %d of %d)", strings.Join(st.files(), ", "), i+1, len(stages))
		if err := applyStage(ctx, kube, st, demoNamespace); err != nil {
			return err
		}
		ops := st.operations()
		if len(ops) == 0 {
			continue
		}
		step("Waiting for ClusterOps %s to succeed", strings.Join(ops, ", "))
		if err := view.wait(ctx, timeout, operationsSucceeded(ops...)); err != nil {
			return waitFailed(err, providerLogPath, logs)
		}
		fmt.Printf("\nClusterOps %s succeeded after %s.\n", strings.Join(ops, ", "), view.elapsed())
	}

	step("Waiting for every managed resource to become Ready")
	if err := view.wait(ctx, timeout, everythingReady); err != nil {
		return waitFailed(err, providerLogPath, logs)
	}
	fmt.Printf("\nEvery operation Succeeded and all managed resources are Ready after %s.\n\n", time.Since(start).Round(time.Second))
	fmt.Printf("  export KUBECONFIG=%s\n  kubectl get managed -n %s\n  kubectl get storageclusters,storagenodes,storagepools -n %s -o wide\n  kubectl get clusterops -n %s -o wide\n\n", kubeconfigPath, demoNamespace, demoNamespace, demoNamespace)
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

// timingFlags returns the provider's poll and operation-engine flags for a
// simulator that runs speed times faster than the backend. Steady-state
// resources are polled every 10 s, or every 2-10 s when sped up (the
// provider's default is 1 m), so the table shows a cluster's status changes
// (unready, in_activation, active, in_expansion) soon after they happen. The
// engine waits less for evidence that a call took effect (30 s by default,
// at least 5 s) and polls queued operations more often (every 5 s by
// default, at least every 1 s).
func timingFlags(speed float64) []string {
	if speed <= 1 {
		return []string{"--poll=10s"}
	}
	scale := func(d, floor time.Duration) time.Duration {
		return max(time.Duration(float64(d)/speed), floor).Round(time.Millisecond)
	}
	return []string{
		"--poll=" + min(scale(time.Minute, 2*time.Second), 10*time.Second).String(),
		"--ops-evidence-grace=" + scale(30*time.Second, 5*time.Second).String(),
		"--ops-poll-waiting=" + scale(5*time.Second, time.Second).String(),
	}
}

// waitFailed explains why a wait ended early: a failed operation gets the
// provider's log lines about it.
func waitFailed(err error, providerLog, logs string) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted before everything was ready")
	}
	var opErr *operationError
	if errors.As(err, &opErr) {
		if lines := logLinesAbout(providerLog, opErr.op.name, 15); len(lines) > 0 {
			fmt.Printf("\nThe provider's last log lines about %s:\n", opErr.op.name)
			for _, l := range lines {
				fmt.Println("  " + l)
			}
		}
	}
	return fmt.Errorf("%w (%s)", err, logs)
}

// routineLogLines are the provider's debug lines written on every
// reconcile; they say nothing about how an operation went.
var routineLogLines = []string{"\tReconciling\t", "\tExternal resource is up to date\t"}

// logLinesAbout returns the last n lines of the log file that mention the
// named object, without the routine reconcile lines.
func logLinesAbout(path, name string, n int) []string {
	data, err := os.ReadFile(path) //nolint:gosec // the demo's own log file.
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, `"`+name+`"`) && !strings.Contains(l, "/"+name+`"`) {
			continue
		}
		if slices.ContainsFunc(routineLogLines, func(r string) bool { return strings.Contains(l, r) }) {
			continue
		}
		out = append(out, l)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
