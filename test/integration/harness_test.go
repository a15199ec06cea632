package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/simplyblock/provider-simplyblock/apis"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	simplyblockcontroller "github.com/simplyblock/provider-simplyblock/internal/controller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// testOpsSettings tune the operation engine for a simulator running 200
// times faster than real time.
var testOpsSettings = ops.Settings{
	EvidenceGrace: 3 * time.Second,
	// Shared observations age as in production: decisions must not depend
	// on them being young.
	ObserveMaxAge: ops.DefaultSettings.ObserveMaxAge,
	Poll: ops.PollIntervals{Fast: 100 * time.Millisecond, Running: 250 * time.Millisecond, FastFor: 10 * time.Second,
		Waiting: time.Second, Watched: time.Second, Jitter: 0.1},
	// Running operations are woken by the watcher, as in production.
	WatchInterval:    100 * time.Millisecond,
	MaxReconcileRate: 100,
}

const (
	adminToken     = "integration-admin-token"
	providerConfig = "sim"
	waitTimeout    = 60 * time.Second
)

// A harness is one test's world: a namespace, a simulator (HTTPS, its
// responses checked against the vendor spec), a ProviderConfig pointing at
// it, and the provider's controllers running in a manager.
type harness struct {
	t    *testing.T
	ctx  context.Context
	kube client.Client
	sim  *simulator.Simulator
	ns   string
	poll time.Duration // the drift-check poll of the steady-state kinds
	// opsSettings are the operation engine's settings.
	opsSettings ops.Settings
	// features are the provider's feature flags.
	features *feature.Flags
}

type harnessOptions struct {
	speed    float64
	token    string        // the token in the credentials Secret; adminToken when empty
	endpoint string        // overrides the simulator's URL (e.g. a closed port)
	poll     time.Duration // the drift-check poll of the steady-state kinds; 1 s when zero
	// holdLimit is the engine's hold limit (how long the backend may hold a
	// request and still apply it); the evidence grace when zero.
	holdLimit time.Duration
	// windowNow is the clock maintenance windows are read on; time.Now
	// when nil.
	windowNow func() time.Time
	// managementPolicies enables the management policies feature.
	managementPolicies bool
}

func newHarness(t *testing.T, o harnessOptions) *harness {
	t.Helper()
	if o.speed == 0 {
		o.speed = 200
	}
	if o.token == "" {
		o.token = adminToken
	}
	if o.poll == 0 {
		o.poll = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)

	validator := contract.Load(t)
	sim := simulator.New(simulator.Options{
		Speed:       o.speed,
		AdminTokens: []string{adminToken},
		TLS:         true,
		Middleware:  validator.Middleware,
	})
	if err := sim.Start(); err != nil {
		t.Fatalf("cannot start simulator: %v", err)
	}
	t.Cleanup(sim.Close)

	scheme := runtime.NewScheme()
	must(t, clientgoscheme.AddToScheme(scheme))
	must(t, apis.AddToScheme(scheme))
	kube, err := client.New(restConfig, client.Options{Scheme: scheme})
	must(t, err)

	ns := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(ns) > 50 {
		ns = ns[:50]
	}
	ns = fmt.Sprintf("%s-%d", strings.TrimSuffix(ns, "-"), time.Now().UnixNano()%100000)
	h := &harness{t: t, ctx: ctx, kube: kube, sim: sim, ns: ns, poll: o.poll, opsSettings: testOpsSettings}
	h.opsSettings.HoldLimit = o.holdLimit
	h.opsSettings.WindowNow = o.windowNow
	h.features = &feature.Flags{}
	if o.managementPolicies {
		h.features.Enable(feature.EnableBetaManagementPolicies)
	}

	endpoint := sim.URL()
	if o.endpoint != "" {
		endpoint = o.endpoint
	}
	h.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	h.create(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: ns},
		StringData: map[string]string{"token": o.token, "ca.crt": string(sim.CACertPEM())},
	})
	h.create(&apisv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: providerConfig, Namespace: ns},
		Spec: apisv1alpha1.ProviderConfigSpec{
			Endpoint: endpoint,
			Credentials: apisv1alpha1.ProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: apisv1alpha1.SecretKeySelector{Name: "creds", Key: "token"},
			},
			TLS:                   &apisv1alpha1.TLSConfig{CABundleSecretRef: &apisv1alpha1.SecretKeySelector{Name: "creds", Key: "ca.crt"}},
			RequestTimeoutSeconds: 5,
		},
	})
	h.startManager(scheme)
	return h
}

// startManager runs the provider's controllers, watching only this test's
// namespace so earlier tests' leftovers are not reconciled.
func (h *harness) startManager(scheme *runtime.Scheme) {
	h.t.Helper()
	mgr, err := ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{h.ns: {}}, ByObject: ops.LedgerCache()},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Each test runs its own manager in this process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	must(h.t, err)
	o := controller.Options{
		Logger:                  logging.NewLogrLogger(zap.New(zap.UseDevMode(true)).WithName(h.ns)),
		MaxConcurrentReconciles: 5,
		PollInterval:            h.poll,
		GlobalRateLimiter:       ratelimiter.NewGlobal(100),
		Features:                h.features,
	}
	must(h.t, simplyblockcontroller.Setup(mgr, o, h.opsSettings))
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			h.t.Errorf("manager stopped: %v", err)
		}
	}()
	h.t.Cleanup(func() { cancel(); <-done })
}

func (h *harness) create(obj client.Object) {
	h.t.Helper()
	if obj.GetNamespace() == "" {
		if _, isNS := obj.(*corev1.Namespace); !isNS {
			obj.SetNamespace(h.ns)
		}
	}
	if err := h.kube.Create(h.ctx, obj); err != nil {
		h.t.Fatalf("cannot create %T %s: %v", obj, obj.GetName(), err)
	}
}

// providerConfigRef is the reference every test resource uses.
func providerConfigRef() *xpv2.ProviderConfigReference {
	return &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: providerConfig}
}

// eventually polls cond until it returns true or the timeout passes; the
// last description it returned is reported on failure.
func (h *harness) eventually(what string, cond func() (bool, string)) {
	h.t.Helper()
	h.eventuallyWithin(waitTimeout, what, cond)
}

// eventuallyWithin is eventually with its own timeout, for a wait that is
// long by design (hundreds of operations).
func (h *harness) eventuallyWithin(timeout time.Duration, what string, cond func() (bool, string)) {
	h.t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, desc := cond()
		if ok {
			return
		}
		last = desc
		time.Sleep(100 * time.Millisecond)
	}
	h.t.Fatalf("timed out waiting for %s; last seen: %s", what, last)
}

// get refreshes obj from the API server.
func (h *harness) get(obj client.Object) error {
	return h.kube.Get(h.ctx, client.ObjectKeyFromObject(obj), obj)
}

// conditionOf returns the condition of type ct of a managed resource.
func conditionOf(conds []xpv2.Condition, ct xpv2.ConditionType) xpv2.Condition {
	for _, c := range conds {
		if c.Type == ct {
			return c
		}
	}
	return xpv2.Condition{Type: ct, Status: corev1.ConditionUnknown}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
