package storagenode

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// AnnotationAddTask records the id of the node_add task that Create queued.
const AnnotationAddTask = "simplyblock.m.crossplane.io/node-add-task"

// transitionPollInterval is how often a node in transition is observed.
const transitionPollInterval = 2 * time.Second

// addRecordGrace is how long an add whose outcome is unknown, on a cluster
// whose task list cannot be read, waits for the node's record before the
// add is sent again (awaitRecord): the backend's node_add runner polls
// every 10 s and backs off 10, 20, 40 s on refusals.
const addRecordGrace = 2 * time.Minute

const (
	errNoClusterID = "clusterId is not set: set it, or clusterIdRef/clusterIdSelector to a StorageCluster that has been created"
	errListNodes   = "cannot list storage nodes"
	errGetNode     = "cannot get storage node"
	errGetTask     = "cannot get node_add task %s"
	errListTasks   = "cannot list tasks to find the node's node_add task"
	errAddFailed   = "the backend's node_add task %s ended without adding the node: %s; " +
		"fix the cause, then delete this StorageNode and create it again to retry"
	errAddedNothing = "the backend's node_add task %s ended %q, but no live node record is at %s: the backend skips an add for a host " +
		"it already has a record of, a removed one included (docs/backend.md, \"Node identity\"); delete this StorageNode, or, if the record is " +
		"there under another address, set the annotation %s to its id"
	errAddNode      = "cannot add storage node"
	errMayHaveAdded = "the add may have reached the backend; the provider adopts the node at %s if it appears"
	errDeleteNode   = "cannot remove storage node"
	errLockHeld     = "waiting for %s to finish on %s before removing the node"
	errLockHolder   = "cannot check for an operation running on the node or its cluster"
	errGetCluster   = "cannot get the node's StorageCluster"
	errAmbiguous    = "%d node records are at %s: %s; set the annotation %s to the id of the one this StorageNode manages"
	errRemoved      = "the node was removed in the backend; delete this StorageNode (the provider does not re-add removed nodes)"
	msgAwaitRecord  = "an add may have been sent without its task id being recorded, and the backend's task list cannot be read (%s): " +
		"waiting until %s for the node's record at %s, then adding it again (the backend refuses a second add while the first is open)"
	nodeAddSuccess = "Node add result: Success"
)

// An external observes and changes one storage node.
type external struct {
	api simplyblock.API
	// locks reads the node's StorageCluster and lock holders.
	locks client.Reader
	// now is the clock of awaitRecord; nil is time.Now.
	now func() time.Time
}

// Observe reports the node. Before the node record exists it reports the
// node_add task: an open task means the node exists-in-progress (so Create
// is never repeated); a task that ended without a node is an error naming
// the backend's result.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.StorageNode) (managed.ExternalObservation, error) {
	clusterID := cr.Spec.ForProvider.ClusterID
	if clusterID == "" {
		return managed.ExternalObservation{}, errors.New(errNoClusterID)
	}
	// The task list is 500 for 30 days after any expand: true add or node
	// removal (backend-behaviour.md §2), so its failure is not the end.
	var taskFound bool
	var listErr error
	if managedcontroller.CreateOutcomeUnknown(cr) && cr.GetAnnotations()[AnnotationAddTask] == "" {
		taskFound, listErr = e.findAddTask(ctx, cr, clusterID)
	}
	if addTaskPending(cr) {
		if err := e.observeAddTask(ctx, cr, clusterID); err != nil {
			return managed.ExternalObservation{}, err
		}
	}

	node, err := e.currentNode(ctx, cr, clusterID)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if node == nil && listErr != nil {
		return e.awaitRecord(cr, listErr), nil
	}
	if node == nil || node.Status == simplyblock.NodeInCreation && addFailed(cr) {
		// A failed add can leave a stale in_creation record behind.
		o, err := e.observeWithoutRecord(cr)
		o.ResourceLateInitialized = taskFound
		return o, err
	}
	adopted := meta.GetExternalName(cr) != node.ID || taskFound
	meta.SetExternalName(cr, node.ID)
	if adopted {
		managedcontroller.CreateOutcomeFound(cr)
	}
	if simplyblock.NodeStatus(node.Status) == simplyblock.NodeRemoved && meta.WasDeleted(cr) {
		cr.Status.AtProvider = observe(cr.Status.AtProvider, node)
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	show(cr, node)
	// Every creation parameter is immutable at admission; the delete flags
	// are only read by Delete. There is nothing to update.
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: adopted}, nil
}

// observeWithoutRecord decides existence while no node record exists.
func (e *external) observeWithoutRecord(cr *v1alpha1.StorageNode) (managed.ExternalObservation, error) {
	task := cr.Status.AtProvider.AddTask
	switch {
	case cr.GetAnnotations()[AnnotationAddTask] == "":
		// Never added.
		return managed.ExternalObservation{ResourceExists: false}, nil
	case meta.WasDeleted(cr) && !addTaskPending(cr):
		// Being deleted with nothing to remove. While the add task is still
		// open the node keeps existing, or the finalizer would go and the
		// node the task adds would be leaked.
		return managed.ExternalObservation{ResourceExists: false}, nil
	case addFailed(cr):
		return managed.ExternalObservation{}, errors.Errorf(errAddFailed, task.ID, task.Result)
	case task != nil && taskFinished(task.Status):
		return managed.ExternalObservation{}, errors.Errorf(errAddedNothing, task.ID, task.Result,
			cr.Spec.ForProvider.NodeAddress, meta.AnnotationKeyExternalName)
	default:
		// The add is in progress: the node exists as far as the reconciler
		// is concerned, so Create is not called again.
		cr.SetConditions(creating(task))
		return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, nil
	}
}

// awaitRecord decides an add whose outcome is unknown when the task list
// that would show its task cannot be read and no record is at the node's
// address yet: the add is taken as queued until addRecordGrace after it
// was sent (crossplane-runtime's create-pending time), then as not queued,
// so that Create sends it again; the backend refuses that add while the
// first is open (backend-behaviour.md §8). The README's StorageNode section
// tells users.
func (e *external) awaitRecord(cr *v1alpha1.StorageNode, listErr error) managed.ExternalObservation {
	now := time.Now
	if e.now != nil {
		now = e.now
	}
	until := meta.GetExternalCreatePending(cr).Add(addRecordGrace)
	if !now().Before(until) {
		return managed.ExternalObservation{ResourceExists: false}
	}
	c := xpv2.Creating()
	c.Message = fmt.Sprintf(msgAwaitRecord, listErr, until.UTC().Format(time.RFC3339), simplyblock.AddressHost(cr.Spec.ForProvider.NodeAddress))
	cr.SetConditions(c)
	return managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}
}

// observeAddTask refreshes atProvider.addTask from the backend.
func (e *external) observeAddTask(ctx context.Context, cr *v1alpha1.StorageNode, clusterID string) error {
	taskID := cr.GetAnnotations()[AnnotationAddTask]
	if taskID == "" {
		return nil
	}
	t, err := e.api.GetTask(ctx, clusterID, taskID)
	if err != nil {
		return errors.Wrapf(err, errGetTask, taskID)
	}
	cr.Status.AtProvider.AddTask = &v1alpha1.NodeAddTask{
		ID: t.ID, Status: string(t.Status), Retry: t.Retry, MaxRetry: t.MaxRetry, Result: t.FunctionResult,
	}
	return nil
}

// findAddTask adopts the open node_add task for the node's address, when a
// create may have queued it without its task id being recorded (its answer
// was lost, or the provider stopped around the call). It reports whether
// it found one. No open task and no node record means the add was not
// queued (the backend refuses a second add while one is open), so Create
// may send it.
func (e *external) findAddTask(ctx context.Context, cr *v1alpha1.StorageNode, clusterID string) (bool, error) {
	tasks, err := e.api.ListTasks(ctx, clusterID)
	if err != nil {
		return false, errors.Wrap(err, errListTasks)
	}
	for i := len(tasks) - 1; i >= 0; i-- {
		t := &tasks[i]
		if t.FunctionName != simplyblock.TaskFunctionNodeAdd || !t.Open() || t.FunctionParams["node_addr"] != cr.Spec.ForProvider.NodeAddress {
			continue
		}
		meta.AddAnnotations(cr, map[string]string{AnnotationAddTask: t.ID})
		cr.Status.AtProvider.AddTask = nil // observeAddTask reads it next
		managedcontroller.CreateOutcomeFound(cr)
		return true, nil
	}
	return false, nil
}

// currentNode returns the node record this resource manages: the one named
// by the external name, or else the one at the node's address (the record
// appears after the add task, and an add retry may replace it with a new
// UUID; StorageNodeDTO.IsAt says how a record is matched). Removed records
// are only matched by external name. Several live records at the address
// (one host can hold one per socket, storage_node_ops.py:2681) are an
// error naming them: the user picks one with the external-name annotation.
func (e *external) currentNode(ctx context.Context, cr *v1alpha1.StorageNode, clusterID string) (*simplyblock.StorageNodeDTO, error) {
	if id := meta.GetExternalName(cr); id != "" {
		n, err := e.api.GetStorageNode(ctx, clusterID, id)
		if err == nil {
			return n, nil
		}
		if !simplyblock.IsNotFound(err) {
			return nil, errors.Wrap(err, errGetNode)
		}
	}
	nodes, err := e.api.ListStorageNodes(ctx, clusterID)
	if err != nil {
		return nil, errors.Wrap(err, errListNodes)
	}
	address := cr.Spec.ForProvider.NodeAddress
	ips := simplyblock.HostIPs(ctx, address)
	var found []*simplyblock.StorageNodeDTO
	for i := range nodes {
		if nodes[i].Status != simplyblock.NodeRemoved && nodes[i].IsAt(address, ips) {
			found = append(found, &nodes[i])
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, n := range found {
		ids[i] = fmt.Sprintf("%s (%s)", n.ID, n.Hostname)
	}
	return nil, errors.Errorf(errAmbiguous, len(found), address, strings.Join(ids, ", "), meta.AnnotationKeyExternalName)
}

// Create queues the node add and records the task id.
func (e *external) Create(ctx context.Context, cr *v1alpha1.StorageNode) (managed.ExternalCreation, error) {
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterIntent, 0)
	taskID, err := e.api.AddStorageNode(ctx, cr.Spec.ForProvider.ClusterID, nodeParams(cr.Spec.ForProvider))
	ops.CrashPoint(cr.GetNamespace(), cr.GetName(), ops.CrashAfterCall, 0)
	// A 500 is also the backend's answer to an add while one for the same
	// address is open (backend-behaviour.md §4.2): Observe looks for that
	// add before another is sent, instead of each retry sending it again.
	if simplyblock.MayHaveTakenEffect(err) || simplyblock.IsServerError(err) {
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
		return managed.ExternalCreation{}, errors.Wrapf(errors.Wrap(err, errAddNode), errMayHaveAdded, cr.Spec.ForProvider.NodeAddress)
	}
	meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
	if err != nil {
		return managed.ExternalCreation{}, errors.Wrap(err, errAddNode)
	}
	meta.AddAnnotations(cr, map[string]string{AnnotationAddTask: taskID})
	return managed.ExternalCreation{}, nil
}

// Update does nothing: a node has no updatable parameters.
func (e *external) Update(context.Context, *v1alpha1.StorageNode) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, nil
}

// Delete queues the node's removal. The backend answers 204 again while a
// removal runs, so repeating it is safe; Observe reports the node gone once
// its record is removed.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.StorageNode) (managed.ExternalDelete, error) {
	id := meta.GetExternalName(cr)
	if id == "" {
		return managed.ExternalDelete{}, nil
	}
	// An operation running on the node or its cluster (a rolling restart,
	// an upgrade) would be left with a node on its way out: the removal
	// waits for it.
	a, where, err := e.runningOperation(ctx, cr)
	if err != nil {
		return managed.ExternalDelete{}, errors.Wrap(err, errLockHolder)
	}
	if a != nil {
		return managed.ExternalDelete{}, errors.Errorf(errLockHeld, a, where)
	}
	err = e.api.DeleteStorageNode(ctx, cr.Spec.ForProvider.ClusterID, id, simplyblock.NodeDeleteOptions{
		ForceRemove:  cr.Spec.ForProvider.ForceRemove,
		ForceMigrate: cr.Spec.ForProvider.ForceMigrate,
	})
	if err == nil || simplyblock.IsNotFound(err) {
		return managed.ExternalDelete{}, nil
	}
	return managed.ExternalDelete{}, errors.Wrap(err, errDeleteNode)
}

// runningOperation returns the operation running on the node (a
// StorageNodeOps it shows) or holding its StorageCluster's lock, and which
// of the two it is on; nil when there is none (or only a stale lock).
func (e *external) runningOperation(ctx context.Context, cr *v1alpha1.StorageNode) (*v1alpha1.OperationReference, string, error) {
	if a, err := ops.RunningHolder(ctx, e.locks, cr); err != nil || a != nil {
		return a, "the node", err
	}
	sc, err := e.clusterOf(ctx, cr)
	if err != nil || sc == nil {
		return nil, "", err
	}
	a, err := ops.RunningHolder(ctx, e.locks, sc)
	return a, "its StorageCluster " + sc.GetName(), err
}

// clusterOf returns the StorageCluster the node belongs to: the one its
// reference names, or else the one in its namespace whose external name is
// its clusterId; nil when there is none.
func (e *external) clusterOf(ctx context.Context, cr *v1alpha1.StorageNode) (*v1alpha1.StorageCluster, error) {
	if ref := cr.Spec.ForProvider.ClusterIDRef; ref != nil {
		sc := &v1alpha1.StorageCluster{}
		err := e.locks.Get(ctx, types.NamespacedName{Namespace: cr.GetNamespace(), Name: ref.Name}, sc)
		if kerrors.IsNotFound(err) {
			return nil, nil
		}
		return sc, errors.Wrap(err, errGetCluster)
	}
	l := &v1alpha1.StorageClusterList{}
	if err := e.locks.List(ctx, l, client.InNamespace(cr.GetNamespace())); err != nil {
		return nil, errors.Wrap(err, errGetCluster)
	}
	for i := range l.Items {
		if meta.GetExternalName(&l.Items[i]) == cr.Spec.ForProvider.ClusterID {
			return &l.Items[i], nil
		}
	}
	return nil, nil
}

// Disconnect does nothing: the client holds no connection state.
func (e *external) Disconnect(context.Context) error { return nil }

// addTaskPending reports whether Create queued a node_add task whose end
// has not been observed yet.
func addTaskPending(cr *v1alpha1.StorageNode) bool {
	if cr.GetAnnotations()[AnnotationAddTask] == "" {
		return false
	}
	t := cr.Status.AtProvider.AddTask
	return t == nil || !taskFinished(t.Status)
}

// addFailed reports whether the node_add task ended without adding the node.
func addFailed(cr *v1alpha1.StorageNode) bool {
	t := cr.Status.AtProvider.AddTask
	return t != nil && taskFinished(t.Status) && t.Result != nodeAddSuccess
}

func taskFinished(status string) bool {
	return simplyblock.TaskStatus(status) == simplyblock.TaskDone
}
