package storagecluster

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/pkg/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

const (
	errGetCluster    = "cannot get cluster"
	errListClusters  = "cannot list clusters to find a cluster whose create answer was lost"
	errCreateCluster = "cannot create cluster"
	errRenameCluster = "cannot rename cluster"
	errDeleteCluster = "cannot delete cluster"
	errLockHolder    = "cannot check the operation holding the cluster's lock"
	errLockHeld      = "waiting for %s to finish: it holds the cluster's lock, and the cluster is deleted only after it"
	errNotEmpty      = "the backend deletes only empty clusters: delete the cluster's StorageNodes and StoragePools first " +
		"(node records left in state removed also block deletion)"
	errMayHaveCreated = "the create may have reached the backend; the provider adopts a cluster named %q if one appears"
)

// Connection detail keys published for consumers such as the CSI driver.
const (
	ConnectionKeyClusterID = "clusterId"
	ConnectionKeyNQN       = "nqn"
	ConnectionKeySecret    = "secret"
)

// An external observes and changes one simplyblock cluster.
type external struct {
	api simplyblock.API
	// locks reads lock holders (ops.RunningHolder).
	locks client.Reader
}

// Observe reads the cluster named by the external name into atProvider. A
// resource with no external name that already tried a create (the create
// answer was lost) adopts the backend cluster with its name, if any.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.StorageCluster) (managed.ExternalObservation, error) {
	id := meta.GetExternalName(cr)
	adopted := false
	if id == "" {
		if !managedcontroller.CreateOutcomeUnknown(cr) {
			return managed.ExternalObservation{ResourceExists: false}, nil
		}
		found, err := e.findByName(ctx, cr.Spec.ForProvider.Name)
		if err != nil || found == "" {
			return managed.ExternalObservation{ResourceExists: false}, err
		}
		meta.SetExternalName(cr, found)
		managedcontroller.CreateOutcomeFound(cr)
		id, adopted = found, true
	}

	c, err := e.api.GetCluster(ctx, id)
	if simplyblock.IsNotFound(err) {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	if err != nil {
		return managed.ExternalObservation{}, errors.Wrap(err, errGetCluster)
	}

	show(cr, c)

	return managed.ExternalObservation{
		ResourceExists:          true,
		ResourceUpToDate:        clusterName(c) == cr.Spec.ForProvider.Name,
		ResourceLateInitialized: adopted,
		ConnectionDetails:       connectionDetails(c),
	}, nil
}

// findByName returns the id of the backend cluster with the given name, or
// "" when there is none. Names are unique in the backend.
func (e *external) findByName(ctx context.Context, name string) (string, error) {
	clusters, err := e.api.ListClusters(ctx)
	if err != nil {
		return "", errors.Wrap(err, errListClusters)
	}
	for i := range clusters {
		if clusterName(&clusters[i]) == name {
			return clusters[i].ID, nil
		}
	}
	return "", nil
}

// Create creates the cluster; its backend UUID becomes the external name.
func (e *external) Create(ctx context.Context, cr *v1alpha1.StorageCluster) (managed.ExternalCreation, error) {
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterIntent, 0)
	c, err := e.api.CreateCluster(ctx, clusterParams(cr.Spec.ForProvider))
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterCall, 0)
	if simplyblock.MayHaveTakenEffect(err) {
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
		return managed.ExternalCreation{}, errors.Wrapf(errors.Wrap(err, errCreateCluster), errMayHaveCreated, cr.Spec.ForProvider.Name)
	}
	meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errCreateCluster)
	}
	meta.SetExternalName(cr, c.ID)
	return managed.ExternalCreation{ConnectionDetails: connectionDetails(c)}, nil
}

// Update renames the cluster: the name is the only parameter the backend
// can change, every other one is immutable at admission.
func (e *external) Update(ctx context.Context, cr *v1alpha1.StorageCluster) (managed.ExternalUpdate, error) {
	err := e.api.UpdateClusterName(ctx, meta.GetExternalName(cr), cr.Spec.ForProvider.Name)
	return managed.ExternalUpdate{}, errors.Wrap(err, errRenameCluster)
}

// Delete deletes the cluster. The backend refuses while any node or pool
// record exists; that refusal surfaces as a condition and the reconciler
// retries with backoff.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.StorageCluster) (managed.ExternalDelete, error) {
	// Deleting a cluster in the middle of an operation would leave the
	// operation's next call to a cluster on its way out; the deletion is
	// retried once the lock is released (a lock whose holder is gone does
	// not count).
	a, err := ops.RunningHolder(ctx, e.locks, cr)
	if err != nil {
		return managed.ExternalDelete{}, errors.Wrap(err, errLockHolder)
	}
	if a != nil {
		return managed.ExternalDelete{}, errors.Errorf(errLockHeld, a)
	}
	err = e.api.DeleteCluster(ctx, meta.GetExternalName(cr))
	switch {
	case err == nil, simplyblock.IsNotFound(err):
		return managed.ExternalDelete{}, nil
	case simplyblock.IsConflict(err):
		return managed.ExternalDelete{}, errors.Wrap(errors.Wrap(err, errNotEmpty), errDeleteCluster)
	default:
		return managed.ExternalDelete{}, errors.Wrap(err, errDeleteCluster)
	}
}

// Disconnect does nothing: the client holds no connection state.
func (e *external) Disconnect(context.Context) error { return nil }
