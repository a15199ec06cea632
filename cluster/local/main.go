package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
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
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/simplyblock/provider-simplyblock/apis"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/cluster/local/controlplane"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const (
	demoNamespace  = "simplyblock-demo"
	demoToken      = "demo-admin-token"
	demoSecretName = "simplyblock-credentials"
)

// options are the demo's flags.
type options struct {
	providerBinary  string
	quickstartDir   string
	compositionDir  string
	workDir         string
	speed           float64
	timeout         time.Duration
	exitWhenReady   bool
	composite       bool
	crossplaneTools string
}

func main() {
	var o options
	flag.StringVar(&o.providerBinary, "provider-binary", "_output/bin/provider", "Path of the provider binary to run.")
	flag.StringVar(&o.quickstartDir, "quickstart", "examples/quickstart", "Folder of manifests to apply.")
	flag.StringVar(&o.workDir, "work-dir", "_output/demo", "Folder for the kubeconfig and logs.")
	flag.Float64Var(&o.speed, "speed", 20, "Simulator time scale: backend durations are divided by this.")
	flag.BoolVar(&o.exitWhenReady, "exit-when-ready", false, "Exit once every operation Succeeded and everything is Ready (for scripted runs).")
	flag.DurationVar(&o.timeout, "timeout", 20*time.Minute, "How long to wait for each stage's operations to succeed, and then for everything to become Ready.")
	flag.BoolVar(&o.composite, "composite", false, "Run Crossplane core and the composition functions and create an XStorageCluster from -composition instead of applying -quickstart.")
	flag.StringVar(&o.compositionDir, "composition", "examples/composition", "Folder of the composite API and the XR (with -composite).")
	flag.StringVar(&o.crossplaneTools, "crossplane-tools", os.Getenv("CROSSPLANE_TOOLS"), "Folder printed by hack/crossplane-tools.sh (with -composite).")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run runs the demo and stops everything it started, however it ends: an
// error, Ctrl-C, SIGTERM or SIGHUP (the terminal closing).
func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A write to a closed pipe fails with EPIPE instead of killing the demo
	// before it cleaned up (a closed terminal fails writes with EIO).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	if err := os.MkdirAll(o.workDir, 0o750); err != nil {
		return err
	}
	o.workDir, _ = filepath.Abs(o.workDir)
	// envtest and the Kubernetes clients log through controller-runtime's
	// logger, which complains on stderr when it is not set.
	clientLog, err := os.Create(filepath.Join(o.workDir, "demo.log"))
	if err != nil {
		return err
	}
	defer clientLog.Close()
	ctrllog.SetLogger(zap.New(zap.WriteTo(clientLog)))
	var stops cleanup
	defer stops.run()
	mode := runQuickstart
	if o.composite {
		mode = runComposite
	}
	err = mode(ctx, o, &stops)
	if err != nil && ctx.Err() != nil {
		return errors.New("interrupted before everything was ready")
	}
	return err
}

// A cleanup stops what the demo started, in the reverse order of starting.
type cleanup []func()

func (c *cleanup) add(stop func()) { *c = append(*c, stop) }

// run is called through a pointer, so that a deferred run sees the stops
// added after the defer.
func (c *cleanup) run() {
	for i := len(*c) - 1; i >= 0; i-- {
		(*c)[i]()
	}
}

// A demo is what both modes start: the local control plane, the simulator
// and (startProvider) the provider.
type demo struct {
	opts       options
	start      time.Time
	cfg        *rest.Config
	kube       client.Client
	kubeconfig string
	sim        *simulator.Simulator
	// providerLog is the provider's log file.
	providerLog string
}

// startDemo starts kube-apiserver and etcd with the provider's CRDs and
// the simulator, adding their stops to stops.
func startDemo(o options, stops *cleanup) (*demo, error) {
	d := &demo{opts: o, start: time.Now(), providerLog: filepath.Join(o.workDir, "provider.log")}
	step("Starting kube-apiserver and etcd (envtest binaries from %s)", os.Getenv("KUBEBUILDER_ASSETS"))
	env := &envtest.Environment{CRDDirectoryPaths: []string{"package/crds"}, ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	// A failed start may have started etcd already; Stop stops what runs.
	stops.add(func() { step("Stopping the local control plane"); _ = env.Stop() })
	if err != nil {
		return nil, fmt.Errorf("cannot start the local control plane: %w", err)
	}
	// The API server's warnings are printed, instead of going to
	// controller-runtime's log.
	cfg.WarningHandler = &apiWarnings{}
	d.cfg = cfg

	user, err := env.AddUser(envtest.User{Name: "demo", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot create a demo user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, err
	}
	d.kubeconfig = filepath.Join(o.workDir, "kubeconfig")
	if err := os.WriteFile(d.kubeconfig, kubeconfig, 0o600); err != nil {
		return nil, err
	}

	step("Starting the simplyblock simulator (speed x%g)", o.speed)
	simLog, err := os.Create(filepath.Join(o.workDir, "simulator.log"))
	if err != nil {
		return nil, err
	}
	stops.add(func() { _ = simLog.Close() })
	d.sim = simulator.New(simulator.Options{
		Speed:       o.speed,
		AdminTokens: []string{demoToken},
		Logf: func(format string, args ...any) {
			fmt.Fprintf(simLog, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339Nano)}, args...)...)
		},
	})
	if err := d.sim.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the simulator: %w", err)
	}
	stops.add(d.sim.Close)
	out.Printf("    simulator API %s, admin %s\n", d.sim.URL(), d.sim.AdminURL())

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if d.kube, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}
	return d, nil
}

// startProvider runs the provider binary as a process of its own, logging
// to provider.log (written anew), and adds its stop to stops.
func (d *demo) startProvider(stops *cleanup) error {
	args := append([]string{"--debug", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, timingFlags(d.opts.speed)...)
	step("Starting the provider (%s %s)", d.opts.providerBinary, strings.Join(args, " "))
	if err := os.Remove(d.providerLog); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	p, err := controlplane.StartProcess("provider", d.opts.workDir, d.opts.providerBinary, args,
		[]string{"KUBECONFIG=" + d.kubeconfig})
	if err != nil {
		return fmt.Errorf("cannot start the provider: %w", err)
	}
	stops.add(func() { step("Stopping the provider"); p.Stop() })
	return nil
}

// ready prints how long the demo took, the commands to look around with
// and the logs, then waits for a signal (or returns at once with
// -exit-when-ready).
func (d *demo) ready(ctx context.Context, summary string, commands []string, logs []string) error {
	out.Printf("\n%s after %s.\n\n", summary, time.Since(d.start).Round(time.Second))
	out.Printf("  export KUBECONFIG=%s\n", d.kubeconfig)
	for _, c := range commands {
		out.Printf("  %s\n", c)
	}
	out.Printf("\nLogs: %s. Press Ctrl-C to stop and clean up.\n", strings.Join(logs, ", "))
	if d.opts.exitWhenReady {
		return nil
	}
	<-ctx.Done()
	out.Println()
	return nil
}

// runQuickstart is the demo without -composite: it applies the quickstart
// in stages.
func runQuickstart(ctx context.Context, o options, stops *cleanup) error {
	stages, err := loadStages(o.quickstartDir)
	if err != nil {
		return err
	}
	d, err := startDemo(o, stops)
	if err != nil {
		return err
	}

	step("Installing the namespace, credentials Secret and ClusterProviderConfig")
	if err := installProviderConfig(ctx, d.kube, d.sim.URL()); err != nil {
		return err
	}
	if err := d.startProvider(stops); err != nil {
		return err
	}

	logs := []string{d.providerLog, filepath.Join(o.workDir, "simulator.log")}
	view := newProgress(d.kube, demoNamespace, d.start)
	for i, st := range stages {
		step("Applying %s (stage %d of %d)", strings.Join(st.files(), ", "), i+1, len(stages))
		if err := applyStage(ctx, d.kube, st, demoNamespace); err != nil {
			return err
		}
		ops := st.operations()
		if len(ops) == 0 {
			continue
		}
		step("Waiting for ClusterOps %s to succeed", strings.Join(ops, ", "))
		if err := view.wait(ctx, o.timeout, operationsSucceeded(ops...)); err != nil {
			return waitFailed(err, d.providerLog, logs)
		}
		out.Printf("\nClusterOps %s succeeded after %s.\n", strings.Join(ops, ", "), view.elapsed())
	}

	step("Waiting for every managed resource to become Ready")
	if err := view.wait(ctx, o.timeout, everythingReady); err != nil {
		return waitFailed(err, d.providerLog, logs)
	}
	return d.ready(ctx, "Every operation Succeeded and all managed resources are Ready", []string{
		"kubectl get managed -n " + demoNamespace,
		"kubectl get storageclusters,storagenodes,storagepools -n " + demoNamespace + " -o wide",
		"kubectl get clusterops -n " + demoNamespace + " -o wide",
	}, logs)
}

func installProviderConfig(ctx context.Context, kube client.Client, endpoint string) error {
	if err := createCredentials(ctx, kube, demoNamespace); err != nil {
		return err
	}
	return createProviderConfig(ctx, kube, endpoint)
}

// createCredentials creates a namespace and the credentials Secret in it.
func createCredentials(ctx context.Context, kube client.Client, namespace string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := kube.Create(ctx, ns); err != nil {
		return fmt.Errorf("cannot create namespace: %w", err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: demoSecretName, Namespace: namespace},
		StringData: map[string]string{"token": demoToken},
	}
	if err := kube.Create(ctx, secret); err != nil {
		return fmt.Errorf("cannot create credentials secret: %w", err)
	}
	return nil
}

func step(format string, args ...any) {
	out.Printf("==> "+format+"\n", args...)
}

// providerConfigSpec is the spec of the demo's provider configurations:
// the simulator at endpoint (plain HTTP) and the token of the credentials
// Secret, read from secretNamespace (empty: the ProviderConfig's own).
func providerConfigSpec(endpoint, secretNamespace string) apisv1alpha1.ProviderConfigSpec {
	return apisv1alpha1.ProviderConfigSpec{
		Endpoint: endpoint,
		Credentials: apisv1alpha1.ProviderCredentials{
			Source:    xpv2.CredentialsSourceSecret,
			SecretRef: apisv1alpha1.SecretKeySelector{Name: demoSecretName, Namespace: secretNamespace, Key: "token"},
		},
		RequestTimeoutSeconds: 30,
	}
}

// createProviderConfig creates the ClusterProviderConfig named default, the
// one managed resources use when they name none.
func createProviderConfig(ctx context.Context, kube client.Client, endpoint string) error {
	cpc := &apisv1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec:       providerConfigSpec(endpoint, demoNamespace),
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
		// The hold limit (2 min by default) scaled like the evidence grace.
		"--ops-hold-limit=" + scale(2*time.Minute, 5*time.Second).String(),
		"--ops-poll-waiting=" + scale(5*time.Second, time.Second).String(),
	}
}

// waitFailed explains why a wait ended early: a failed operation gets the
// provider's log lines about it.
func waitFailed(err error, providerLog string, logs []string) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted before everything was ready")
	}
	var opErr *operationError
	if errors.As(err, &opErr) {
		if lines := logLinesAbout(providerLog, opErr.op.name, 15); len(lines) > 0 {
			out.Printf("\nThe provider's last log lines about %s:\n", opErr.op.name)
			for _, l := range lines {
				out.Println("  " + l)
			}
		}
	}
	return fmt.Errorf("%w (logs: %s)", err, strings.Join(logs, ", "))
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
