// Package managedcontroller holds the wiring every managed-resource
// controller of this provider shares: the standard reconciler options
// (logger, events, poll interval, management policies, metrics) and the
// safe-start gate registration.
package managedcontroller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Options returns the reconciler options shared by every managed-resource
// controller, and registers the state-metrics recorder for list with mgr.
func Options(mgr ctrl.Manager, o controller.Options, name string, list resource.ManagedList) ([]managed.ReconcilerOption, error) {
	opts := []managed.ReconcilerOption{
		managed.WithLogger(o.Logger.WithValues("controller", name)),
		managed.WithPollInterval(o.PollInterval),
		managed.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name))),
		// Backend UUIDs are the external names: they are set by Create (or
		// adoption in Observe), never defaulted from the object's name.
		managed.WithInitializers(),
		// A create left without its result by a crash is resolved by
		// Observe from the backend (CreateOutcomeUnknown), so the
		// reconciler need not refuse to proceed.
		managed.WithDeterministicExternalName(true),
		managed.WithFinalizer(KeepStatus(resource.NewAPIFinalizer(mgr.GetClient(), managed.FinalizerName))),
	}
	if o.Features.Enabled(feature.EnableBetaManagementPolicies) {
		opts = append(opts, managed.WithManagementPolicies())
	}
	if o.MetricOptions == nil {
		return opts, nil
	}
	if o.MetricOptions.MRMetrics != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricOptions.MRMetrics))
	}
	if o.MetricOptions.MRStateMetrics != nil {
		gvk, err := apiutil.GVKForObject(list, mgr.GetScheme())
		if err != nil {
			return nil, err
		}
		if err := mgr.Add(newStateRecorder(mgr.GetCache(), gvk, o.MetricOptions.MRStateMetrics, o.MetricOptions.PollStateMetricInterval)); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// Gated registers setup to run once the CRD of gvk is established
// (Crossplane's safe-start).
func Gated(mgr ctrl.Manager, o controller.Options, gvk schema.GroupVersionKind, setup func(ctrl.Manager, controller.Options) error) error {
	o.Gate.Register(func() {
		if err := setup(mgr, o); err != nil {
			mgr.GetLogger().Error(err, "unable to set up controller", "gvk", gvk.String())
		}
	}, gvk)
	return nil
}
