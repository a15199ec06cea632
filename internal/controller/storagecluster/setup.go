package storagecluster

import (
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

// SetupGated registers Setup to run once the StorageCluster CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	return managedcontroller.Gated(mgr, o, v1alpha1.StorageClusterGroupVersionKind, Setup)
}

// Setup adds a controller that reconciles StorageCluster managed resources.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	name := managed.ControllerName(v1alpha1.StorageClusterGroupKind)
	opts, err := managedcontroller.Options(mgr, o, name, &v1alpha1.StorageClusterList{})
	if err != nil {
		return err
	}
	opts = append(opts, managed.WithTypedExternalConnector[*v1alpha1.StorageCluster](&connector{
		Connector: providerconfig.Connector{
			Kube:      mgr.GetClient(),
			Usage:     resource.NewProviderConfigUsageTracker(mgr.GetClient(), &apisv1alpha1.ProviderConfigUsage{}),
			NewClient: providerconfig.Clients.Client,
		},
		Locks: mgr.GetAPIReader(),
	}))

	r := managedcontroller.NewReconciler(mgr, resource.ManagedKind(v1alpha1.StorageClusterGroupVersionKind), opts...)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.StorageCluster{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
