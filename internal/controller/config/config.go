// Package config reconciles ProviderConfig and ClusterProviderConfig: it
// tracks which managed resources use each config, blocks a config's
// deletion while it is in use, and shows in the BackendConformant condition
// whether the config's control plane answers the way the provider reads it.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	sbpc "github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

// Setup adds the ProviderConfig and ClusterProviderConfig controllers.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	if err := setup(mgr, o, v1alpha1.ProviderConfigGroupVersionKind, newProviderConfig); err != nil {
		return err
	}
	return setup(mgr, o, v1alpha1.ClusterProviderConfigGroupVersionKind, newClusterProviderConfig)
}

// SetupGated registers each config controller to start once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	if err := managedcontroller.Gated(mgr, o, v1alpha1.ProviderConfigGroupVersionKind, func(m ctrl.Manager, o controller.Options) error {
		return setup(m, o, v1alpha1.ProviderConfigGroupVersionKind, newProviderConfig)
	}); err != nil {
		return err
	}
	return managedcontroller.Gated(mgr, o, v1alpha1.ClusterProviderConfigGroupVersionKind, func(m ctrl.Manager, o controller.Options) error {
		return setup(m, o, v1alpha1.ClusterProviderConfigGroupVersionKind, newClusterProviderConfig)
	})
}

func newProviderConfig() resource.ProviderConfig        { return &v1alpha1.ProviderConfig{} }
func newClusterProviderConfig() resource.ProviderConfig { return &v1alpha1.ClusterProviderConfig{} }

func setup(mgr ctrl.Manager, o controller.Options, gvk schema.GroupVersionKind, newConfig func() resource.ProviderConfig) error {
	name := providerconfig.ControllerName(gvk.GroupKind().String())
	kinds := resource.ProviderConfigKinds{
		Config:    gvk,
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	inner := providerconfig.NewReconciler(mgr, kinds,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))))
	r := &conformanceReconciler{inner: inner, kube: mgr.GetClient(), clients: sbpc.Clients, newConfig: newConfig}

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(newConfig()).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
