package config

import (
	"context"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

const (
	errGetConfig        = "cannot get provider config"
	errPatchConformance = "cannot update the BackendConformant condition"
)

// conformanceReconciler runs crossplane-runtime's ProviderConfig reconciler
// (usage tracking, deletion blocking) and then sets the BackendConformant
// condition: the verdict of the connect-time check of the config's control
// plane (internal/conformance.Probe), which every managed resource using
// the config shares through providerconfig.Clients. It requeues the config
// when the verdict is due to be checked again.
type conformanceReconciler struct {
	inner     reconcile.Reconciler
	kube      client.Client
	newConfig func() resource.ProviderConfig
	clients   *providerconfig.ClientCache
}

func (r *conformanceReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	res, err := r.inner.Reconcile(ctx, req)
	if err != nil || r.clients == nil || r.clients.Verify == nil {
		return res, err
	}
	pc := r.newConfig()
	if err := r.kube.Get(ctx, req.NamespacedName, pc); err != nil {
		return res, errors.Wrap(resource.IgnoreNotFound(err), errGetConfig)
	}
	if meta.WasDeleted(pc) {
		return res, nil
	}
	cond, recheck := r.condition(ctx, pc)
	if old := pc.GetCondition(cond.Type); !old.Equal(cond) {
		orig, ok := pc.DeepCopyObject().(client.Object)
		if !ok {
			return res, nil
		}
		pc.SetConditions(cond)
		if err := r.kube.Status().Patch(ctx, pc, client.MergeFrom(orig)); err != nil {
			return res, errors.Wrap(err, errPatchConformance)
		}
	}
	if recheck > 0 && (res.RequeueAfter == 0 || recheck < res.RequeueAfter) {
		res.RequeueAfter = recheck
	}
	return res, nil
}

// condition resolves pc into its client configuration and returns the
// condition of the verdict on its control plane. A configuration that
// does not resolve (a missing Secret) is Unchecked; managed resources
// report the same error when they connect.
func (r *conformanceReconciler) condition(ctx context.Context, pc resource.ProviderConfig) (xpv2.Condition, time.Duration) {
	cfg, err := providerconfig.ConfigOf(ctx, r.kube, pc)
	if err != nil {
		// A Secret created or fixed later does not trigger a reconcile.
		v := conformance.Verdict{State: conformance.Unchecked, Reason: "the configuration does not resolve: " + err.Error()}
		return providerconfig.BackendConformant(v, !r.clients.WarnOnly), providerconfig.RecheckUnchecked
	}
	v, recheck, err := r.clients.Verdict(ctx, cfg)
	if err != nil {
		v = conformance.Verdict{State: conformance.Unchecked, Reason: err.Error()}
		recheck = providerconfig.RecheckUnchecked
	}
	return providerconfig.BackendConformant(v, !r.clients.WarnOnly), recheck
}
