package storagepool

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

const (
	errNoClusterID    = "clusterId is not set: set it, or clusterIdRef/clusterIdSelector to a StorageCluster that has been created"
	errGetPool        = "cannot get storage pool"
	errListPools      = "cannot list storage pools to find a pool whose create answer was lost"
	errCreatePool     = "cannot create storage pool"
	errUpdatePool     = "cannot update storage pool"
	errDeletePool     = "cannot delete storage pool"
	errMayHaveCreated = "the create may have reached the backend; the provider adopts a pool named %q if one appears"
)

// An external observes and changes one storage pool.
type external struct {
	api simplyblock.API
}

// Observe reads the pool named by the external name. A resource with no
// external name that already tried a create adopts the pool with its name.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.StoragePool) (managed.ExternalObservation, error) {
	clusterID := cr.Spec.ForProvider.ClusterID
	if clusterID == "" {
		return managed.ExternalObservation{}, errors.New(errNoClusterID)
	}
	id := meta.GetExternalName(cr)
	adopted := false
	if id == "" {
		if !managedcontroller.CreateOutcomeUnknown(cr) {
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		found, err := e.findByName(ctx, clusterID, cr.Spec.ForProvider.Name)
		if err != nil || found == "" {
			return managed.ExternalObservation{ResourceExists: false}, err
		}
		meta.SetExternalName(cr, found)
		managedcontroller.CreateOutcomeFound(cr)
		id, adopted = found, true
	}

	p, err := e.api.GetStoragePool(ctx, clusterID, id)
	if simplyblock.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetPool)
	}
	cr.Status.AtProvider = observe(p)
	cr.SetConditions(availability(p.Status))
	return managed.ExternalObservation{
		ResourceExists:          true,
		ResourceUpToDate:        upToDate(cr.Spec.ForProvider, p),
		ResourceLateInitialized: adopted,
	}, nil
}

func (e *external) findByName(ctx context.Context, clusterID, name string) (string, error) {
	pools, err := e.api.ListStoragePools(ctx, clusterID)
	if err != nil {
		return "", errors.Wrap(err, errListPools)
	}
	for _, p := range pools {
		if p.Name == name {
			return p.ID, nil
		}
	}
	return "", nil
}

// Create creates the pool; its backend UUID becomes the external name.
func (e *external) Create(ctx context.Context, cr *v1alpha1.StoragePool) (managed.ExternalCreation, error) {
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterIntent, 0)
	p, err := e.api.CreateStoragePool(ctx, cr.Spec.ForProvider.ClusterID, poolParams(cr.Spec.ForProvider))
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterCall, 0)
	if simplyblock.MayHaveTakenEffect(err) {
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
		return managed.ExternalCreation{}, errors.Wrapf(errors.Wrap(err, errCreatePool), errMayHaveCreated, cr.Spec.ForProvider.Name)
	}
	meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errCreatePool)
	}
	meta.SetExternalName(cr, p.ID)
	return managed.ExternalCreation{}, nil
}

// Update sends the pool's name, size and QoS limits. See updateParams for
// the backend quirks it works around.
func (e *external) Update(ctx context.Context, cr *v1alpha1.StoragePool) (managed.ExternalUpdate, error) {
	params, err := updateParams(cr.Spec.ForProvider, cr.Status.AtProvider)
	if err != nil {
		return managed.ExternalUpdate{}, errors.Wrap(err, errUpdatePool)
	}
	err = e.api.UpdateStoragePool(ctx, cr.Spec.ForProvider.ClusterID, meta.GetExternalName(cr), params)
	return managed.ExternalUpdate{}, errors.Wrap(err, errUpdatePool)
}

// Delete deletes the pool. The backend refuses an inactive pool (400) and
// a pool with volumes (500); both surface as conditions.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.StoragePool) (managed.ExternalDelete, error) {
	err := e.api.DeleteStoragePool(ctx, cr.Spec.ForProvider.ClusterID, meta.GetExternalName(cr))
	if err == nil || simplyblock.IsNotFound(err) {
		return managed.ExternalDelete{}, nil
	}
	return managed.ExternalDelete{}, errors.Wrap(err, errDeletePool)
}

// Disconnect does nothing: the client holds no connection state.
func (e *external) Disconnect(context.Context) error { return nil }
