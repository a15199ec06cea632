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

// Command provider runs the simplyblock Crossplane provider: the controllers
// of ProviderConfig and ClusterProviderConfig, the steady-state resources
// (StorageCluster, StorageNode, StoragePool) and the operations (ClusterOps,
// StorageNodeOps), with the operation engine's tunables as flags.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	"os"
	runtimedebug "runtime/debug"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/alecthomas/kingpin/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/gate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/customresourcesgate"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	"go.uber.org/zap/zapcore"
	authv1 "k8s.io/api/authorization/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/simplyblock/provider-simplyblock/apis"
	"github.com/simplyblock/provider-simplyblock/internal/conformance/opsclassify"
	simplyblockcontroller "github.com/simplyblock/provider-simplyblock/internal/controller"
	"github.com/simplyblock/provider-simplyblock/internal/kubemetrics"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
	"github.com/simplyblock/provider-simplyblock/internal/version"
)

func main() {
	var (
		app            = kingpin.New("provider", "Crossplane provider for simplyblock storage clusters.").DefaultEnvars()
		debug          = app.Flag("debug", "Run with debug logging.").Short('d').Bool()
		leaderElection = app.Flag("leader-election", "Use leader election for the controller manager.").Short('l').Default("false").Envar("LEADER_ELECTION").Bool()
		leNamespace    = app.Flag("leader-election-namespace", "Namespace of the leader-election lease; in a pod it defaults to the pod's namespace, outside one it is required.").Default("").Envar("LEADER_ELECTION_NAMESPACE").String()
		leLease        = app.Flag("leader-election-lease-duration", "How long a replica waits after the leader's last renewal before it takes over (after a crash). A leader that stops gracefully releases the lease at once.").Default("12s").Duration()
		leRenew        = app.Flag("leader-election-renew-deadline", "How long the leader keeps trying to renew before it gives up leading.").Default("8s").Duration()
		leRetry        = app.Flag("leader-election-retry-period", "How often replicas try to take or renew the lease.").Default("2s").Duration()

		syncInterval     = app.Flag("sync", "How often all resources are re-listed from the API server to catch missed events.").Short('s').Default("1h").Duration()
		pollInterval     = app.Flag("poll", "How often a steady-state resource is checked against the simplyblock control plane for drift.").Default("1m").Duration()
		pollStateMetric  = app.Flag("poll-state-metric", "How often the managed-resource state metrics are recorded.").Default("5s").Duration()
		maxReconcileRate = app.Flag("max-reconcile-rate", "The global maximum number of reconciles per second, and the concurrency of each controller.").Default("10").Int()

		enableManagementPolicies = app.Flag("enable-management-policies", "Honour spec.managementPolicies on managed resources.").Default("true").Envar("ENABLE_MANAGEMENT_POLICIES").Bool()
		safeStart                = app.Flag("safe-start", "Start a kind's controller only once its CRD is established (Crossplane's safe-start). Falls back to starting all controllers when the provider may not watch CRDs.").Default("true").Envar("SAFE_START").Bool()

		metricsAddr      = app.Flag("metrics-bind-address", "Address of the Prometheus metrics endpoint.").Default(":8080").String()
		healthAddr       = app.Flag("health-probe-bind-address", "Address of the /healthz and /readyz endpoints.").Default(":8081").String()
		opsEvidenceGrace = app.Flag("ops-evidence-grace", "How long an operation looks for evidence that a backend call it sent (or whose answer was lost) took effect.").Default(ops.DefaultSettings.EvidenceGrace.String()).Duration()
		opsHoldLimit     = app.Flag("ops-hold-limit", "How long the backend may hold a request and still apply it: a call whose answer was lost is re-sent (where a repeat is harmless) only after this long without evidence. Default: four request timeouts.").Default(ops.DefaultSettings.HoldLimit.String()).Duration()
		opsPollFast      = app.Flag("ops-poll-fast", "Poll interval of a running operation during the first 30 s of a step, when the watcher is off.").Default(ops.DefaultPollIntervals.Fast.String()).Duration()
		opsPoll          = app.Flag("ops-poll", "Poll interval of a running operation after its first 30 s, when the watcher is off.").Default(ops.DefaultPollIntervals.Running.String()).Duration()
		opsPollWaiting   = app.Flag("ops-poll-waiting", "Poll interval of a queued operation or one waiting for a precondition.").Default(ops.DefaultPollIntervals.Waiting.String()).Duration()
		opsWatch         = app.Flag("ops-watch-interval", "How often the clusters that running operations wait on are polled; a change wakes the operations at once. 0 turns the watcher off: running operations then poll on their own (--ops-poll-fast, --ops-poll).").Default(ops.DefaultSettings.WatchInterval.String()).Duration()
		opsWatchProbe    = app.Flag("ops-watch-probe-interval", "How often the newest event of a watched cluster is probed (one small read); a new event makes its node list, event log and task list be read at once.").Default(ops.DefaultSettings.WatchProbeInterval.String()).Duration()
		opsWatchDetail   = app.Flag("ops-watch-detail-interval", "How often the node list, event log and task list of a watched cluster are read while neither its record (polled every --ops-watch-interval) nor its newest event (--ops-watch-probe-interval) shows a change.").Default(ops.DefaultSettings.ObserveDetailMaxAge.String()).Duration()
		opsReconcileRate = app.Flag("ops-max-reconcile-rate", "Reconciles per second of the operation controllers (ClusterOps, StorageNodeOps), on top of --max-reconcile-rate; 0 shares that budget.").Default(fmt.Sprint(ops.DefaultSettings.MaxReconcileRate)).Int()

		backendConformance = app.Flag("backend-conformance", "What the provider does when the connect-time check of a ProviderConfig's control plane finds answers it would decide wrongly on (the BackendConformant condition): enforce refuses to act on that control plane until it conforms; warn only sets the condition; off does not check.").Default(string(providerconfig.ConformanceEnforce)).Enum(string(providerconfig.ConformanceEnforce), string(providerconfig.ConformanceWarn), string(providerconfig.ConformanceOff))

		pprofAddr = app.Flag("pprof-bind-address", "Address of the pprof endpoint; empty disables it.").Default("").String()
	)
	kingpin.MustParse(app.Parse(os.Args[1:]))

	// Operations end within a second of each other: log times to the
	// nanosecond so that a log orders them.
	zl := zap.New(zap.UseDevMode(*debug), func(o *zap.Options) { o.TimeEncoder = zapcore.RFC3339NanoTimeEncoder })
	log := logging.NewLogrLogger(zl.WithName("provider-simplyblock"))
	if *debug {
		ctrl.SetLogger(zl)
	} else {
		ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	}
	log.Info("Starting provider-simplyblock", "version", version.Version, "poll", pollInterval.String(), "safe-start", *safeStart)

	if p, set := gcPercent(os.LookupEnv("GOGC")); set {
		runtimedebug.SetGCPercent(p)
	}
	// A soft memory limit of 90% of the container's cgroup memory limit,
	// unless GOMEMLIMIT is set (or AUTOMEMLIMIT=off): the garbage collector
	// then works harder near the limit instead of the pod being OOM-killed
	// with twice its live heap.
	if limit, err := memlimit.SetGoMemLimitWithOpts(memlimit.WithRatio(0.9), memlimit.WithProvider(memlimit.FromCgroup)); err != nil {
		log.Info("Cannot set a soft memory limit from the cgroup", "error", err.Error())
	} else if limit > 0 {
		log.Info("Soft memory limit set from the cgroup's memory limit", "GOMEMLIMIT", limit)
	}

	cfg, err := ctrl.GetConfig()
	kingpin.FatalIfError(err, "cannot get API server rest config")

	// The API client's rate limit follows the reconcile budgets: the
	// steady-state controllers' and the operation controllers'.
	mgr, err := ctrl.NewManager(ratelimiter.LimitRESTConfig(kubemetrics.Count(cfg), *maxReconcileRate+max(*opsReconcileRate, 0)), ctrl.Options{
		// managedFields are never read here; not caching them saves about a
		// third of the memory held for every object.
		Cache: cache.Options{SyncPeriod: syncInterval, DefaultTransform: ops.CachedWithIntent(cache.TransformStripManagedFields()),
			// Of ConfigMaps, only the operation ledgers are read.
			ByObject: ops.LedgerCache()},
		Metrics:                    metricsserver.Options{BindAddress: *metricsAddr},
		HealthProbeBindAddress:     *healthAddr,
		LeaderElection:             *leaderElection,
		LeaderElectionID:           "crossplane-leader-election-provider-simplyblock",
		LeaderElectionNamespace:    *leNamespace,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
		// The guard's intent write (optimistic concurrency) fences a deposed
		// leader, so the lease can be short; a graceful stop (a rolling
		// update's SIGTERM) releases it, and main returns right after.
		LeaseDuration:                 leLease,
		RenewDeadline:                 leRenew,
		RetryPeriod:                   leRetry,
		LeaderElectionReleaseOnCancel: true,
	})
	kingpin.FatalIfError(err, "cannot create controller manager")
	kingpin.FatalIfError(apis.AddToScheme(mgr.GetScheme()), "cannot add simplyblock APIs to scheme")
	kingpin.FatalIfError(apiextensionsv1.AddToScheme(mgr.GetScheme()), "cannot add CRD API to scheme")
	kingpin.FatalIfError(mgr.AddHealthzCheck("ping", func(*http.Request) error { return nil }), "cannot add health check")
	kingpin.FatalIfError(mgr.AddReadyzCheck("ping", func(*http.Request) error { return nil }), "cannot add ready check")

	if *pprofAddr != "" {
		go servePprof(*pprofAddr, log)
	}

	mrMetrics := managed.NewMRMetricRecorder()
	stateMetrics := statemetrics.NewMRStateMetrics()
	metrics.Registry.MustRegister(mrMetrics, stateMetrics)
	metrics.Registry.MustRegister(ops.DefaultMetrics().Collectors()...)
	metrics.Registry.MustRegister(kubemetrics.Requests)

	// The connect-time check of a control plane reads the log as the
	// operations do.
	providerconfig.Clients.Configure(providerconfig.ConformanceMode(*backendConformance), opsclassify.Classify)

	opsSettings := ops.DefaultSettings
	opsSettings.EvidenceGrace = *opsEvidenceGrace
	opsSettings.HoldLimit = *opsHoldLimit
	opsSettings.Poll.Fast, opsSettings.Poll.Running, opsSettings.Poll.Waiting = *opsPollFast, *opsPoll, *opsPollWaiting
	opsSettings.MaxReconcileRate = *opsReconcileRate
	opsSettings.WatchInterval = *opsWatch
	opsSettings.ObserveDetailMaxAge = *opsWatchDetail
	opsSettings.WatchProbeInterval = *opsWatchProbe

	o := controller.Options{
		Logger:                  log,
		MaxConcurrentReconciles: *maxReconcileRate,
		PollInterval:            *pollInterval,
		GlobalRateLimiter:       ratelimiter.NewGlobal(*maxReconcileRate),
		Features:                &feature.Flags{},
		MetricOptions: &controller.MetricOptions{
			PollStateMetricInterval: *pollStateMetric,
			MRMetrics:               mrMetrics,
			MRStateMetrics:          stateMetrics,
		},
	}
	if *enableManagementPolicies {
		o.Features.Enable(feature.EnableBetaManagementPolicies)
	}

	if *safeStart && canWatchCRDs(context.Background(), cfg, log) {
		o.Gate = new(gate.Gate[schema.GroupVersionKind])
		kingpin.FatalIfError(customresourcesgate.Setup(mgr, o), "cannot set up the CRD gate")
		kingpin.FatalIfError(simplyblockcontroller.SetupGated(mgr, o, opsSettings), "cannot set up gated simplyblock controllers")
	} else {
		kingpin.FatalIfError(simplyblockcontroller.Setup(mgr, o, opsSettings), "cannot set up simplyblock controllers")
	}
	kingpin.FatalIfError(mgr.Start(ctrl.SetupSignalHandler()), "cannot start controller manager")
}

// canWatchCRDs reports whether the provider's RBAC lets it list and watch
// CustomResourceDefinitions, which safe-start needs. Without it the provider
// falls back to starting every controller at once, as before safe-start.
func canWatchCRDs(ctx context.Context, cfg *rest.Config, log logging.Logger) bool {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		log.Info("Cannot check RBAC for safe-start; starting all controllers", "error", err)
		return false
	}
	for _, verb := range []string{"list", "watch"} {
		review := &authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authv1.ResourceAttributes{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Verb: verb},
		}}
		got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil || !got.Status.Allowed {
			log.Info("Provider may not "+verb+" CRDs; safe-start disabled, starting all controllers", "error", err)
			return false
		}
	}
	return true
}

func servePprof(addr string, log logging.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("Serving pprof", "address", addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Info("pprof server stopped", "error", err)
	}
}
