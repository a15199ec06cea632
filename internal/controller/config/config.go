// Package config reconciles ProviderConfig and ClusterProviderConfig: it
// tracks which managed resources use each config and blocks a config's
// deletion while it is in use.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
)

// Setup adds the ProviderConfig and ClusterProviderConfig controllers.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	if err := setup(mgr, o, v1alpha1.ProviderConfigGroupVersionKind, &v1alpha1.ProviderConfig{}); err != nil {
		return err
	}
	return setup(mgr, o, v1alpha1.ClusterProviderConfigGroupVersionKind, &v1alpha1.ClusterProviderConfig{})
}

// SetupGated registers each config controller to start once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	if err := managedcontroller.Gated(mgr, o, v1alpha1.ProviderConfigGroupVersionKind, func(m ctrl.Manager, o controller.Options) error {
		return setup(m, o, v1alpha1.ProviderConfigGroupVersionKind, &v1alpha1.ProviderConfig{})
	}); err != nil {
		return err
	}
	return managedcontroller.Gated(mgr, o, v1alpha1.ClusterProviderConfigGroupVersionKind, func(m ctrl.Manager, o controller.Options) error {
		return setup(m, o, v1alpha1.ClusterProviderConfigGroupVersionKind, &v1alpha1.ClusterProviderConfig{})
	})
}

func setup(mgr ctrl.Manager, o controller.Options, gvk schema.GroupVersionKind, of client.Object) error {
	name := providerconfig.ControllerName(gvk.GroupKind().String())
	kinds := resource.ProviderConfigKinds{
		Config:    gvk,
		Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
		UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
	}
	r := providerconfig.NewReconciler(mgr, kinds,
		providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
		providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))))

	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		For(of).
		Watches(&v1alpha1.ProviderConfigUsage{}, &resource.EnqueueRequestForProviderConfig{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
