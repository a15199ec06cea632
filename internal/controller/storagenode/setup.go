package storagenode

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// SetupGated registers Setup to run once the StorageNode CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.StorageNodeGroupVersionKind, Setup)
}

// Setup adds a controller that reconciles StorageNode managed resources.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	name := managed.ControllerName(v1alpha1.StorageNodeGroupKind)
	opts, err := managedcontroller.Options(mgr, o, name, &v1alpha1.StorageNodeList{})
	if err != nil {
		return err
	}
	opts = append(opts, managed.WithPollIntervalHook(pollInterval), managed.WithTypedExternalConnector[*v1alpha1.StorageNode](&connector{
		Connector: providerconfig.Connector{
			Kube:      mgr.GetClient(),
			Usage:     resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apisv1alpha1.ProviderConfigUsage{}),
			NewClient: providerconfig.Clients.Client,
		},
		Locks: mgr.GetAPIReader(),
	}))

	r := managedcontroller.NewReconciler(mgr, resource.ManagedKind(v1alpha1.StorageNodeGroupVersionKind), opts...)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.StorageNode{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}

// pollInterval polls a node in transition (being added, restarting, being
// removed) every few seconds, and a settled node at the configured interval.
func pollInterval(mg resource.Managed, configured time.Duration) time.Duration {
	cr, ok := mg.(*v1alpha1.StorageNode)
	if !ok || !inTransition(cr) {
		return configured
	}
	return min(configured, transitionPollInterval)
}
