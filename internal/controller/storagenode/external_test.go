package storagenode

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

var (
	_ managed.TypedExternalClient[*v1alpha1.StorageNode]    = &external{}
	_ managed.TypedExternalConnector[*v1alpha1.StorageNode] = &connector{}
)

const (
	testClusterID = "c0000000-0000-4000-8000-000000000001"
	testNodeID    = "n0000000-0000-4000-8000-000000000001"
	testNewNodeID = "n0000000-0000-4000-8000-000000000002"
	testTaskID    = "t0000000-0000-4000-8000-000000000001"
	testAddress   = "10.0.0.10:5000"
	testMgmtIP    = "10.0.0.10"
	maxRetryMsg   = "max retry reached"
)

var (
	errNotFound = &simplyblock.Error{Kind: simplyblock.KindNotFound, Outcome: simplyblock.OutcomeAnswered, StatusCode: 404,
		Method: "GET", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/" + testNodeID + "/", Message: "StorageNode not found"}
	errServer = &simplyblock.Error{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
		Method: "GET", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/", Message: "Internal Server Error"}
	errRefused = &simplyblock.Error{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
		Method: "DELETE", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/" + testNodeID + "/",
		Message: "Node is not in online state"}
	errLost = &simplyblock.Error{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown,
		Method: "POST", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/", Message: "request sent, outcome unknown: EOF"}
	errAdd500 = &simplyblock.Error{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
		Method: "POST", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/", Message: "Internal Server Error"}
	errValidation = &simplyblock.Error{Kind: simplyblock.KindValidation, Outcome: simplyblock.OutcomeAnswered, StatusCode: 422,
		Method: "POST", Path: "/api/v2/clusters/" + testClusterID + "/storage-nodes/", Message: "body.interface_name: Field required"}
)

type nodeModifier func(*v1alpha1.StorageNode)

func withClusterID(id string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { cr.Spec.ForProvider.ClusterID = id }
}

func withExternalName(n string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { meta.SetExternalName(cr, n) }
}

func withAddTaskAnnotation(id string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { meta.AddAnnotations(cr, map[string]string{AnnotationAddTask: id}) }
}

// createPendingAt is when the tests' interrupted create wrote its
// create-pending annotation.
var createPendingAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// withCreateInterrupted marks a create that the provider stopped in: the
// create-pending annotation with no result after it.
func withCreateInterrupted() nodeModifier {
	return func(cr *v1alpha1.StorageNode) { meta.SetExternalCreatePending(cr, createPendingAt) }
}

// withCreateAnswerLost marks a create whose answer was lost.
func withCreateAnswerLost() nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		meta.SetExternalCreatePending(cr, createPendingAt)
		meta.SetExternalCreateFailed(cr, createPendingAt)
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
	}
}

// withCreateFound marks the create's result found by Observe: the outcome
// annotation gone and, after an interrupted create, create-succeeded
// recorded (at "now", see sinceNow).
func withCreateFound() nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
		if meta.ExternalCreateIncomplete(cr) {
			meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
		}
	}
}

// sinceNow replaces a create-succeeded time written during the test by
// "now", so that withCreateFound can name it.
func sinceNow(cr *v1alpha1.StorageNode, start time.Time) {
	if t := meta.GetExternalCreateSucceeded(cr); !t.IsZero() && !t.Before(start.Truncate(time.Second)) {
		meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
	}
}

// withoutCreateTimes drops crossplane-runtime's create annotations, which
// the reconciler, not Create, writes.
func withoutCreateTimes() nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		meta.RemoveAnnotations(cr, meta.AnnotationKeyExternalCreatePending, meta.AnnotationKeyExternalCreateFailed)
	}
}

func withAddTask(status simplyblock.TaskStatus, retry int64, result string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		cr.Status.AtProvider.AddTask = &v1alpha1.NodeAddTask{ID: testTaskID, Status: string(status), Retry: retry, Result: result}
	}
}

func withDeleted() nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		cr.SetDeletionTimestamp(&now)
	}
}

func withObserved(n *simplyblock.StorageNodeDTO) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { cr.Status.AtProvider = observe(cr.Status.AtProvider, n) }
}

func withAtProviderStatus(s simplyblock.NodeStatus) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { cr.Status.AtProvider.Status = string(s) }
}

func withConditions(c ...xpv2.Condition) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { cr.SetConditions(c...) }
}

func withForce(remove, migrate bool) nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		cr.Spec.ForProvider.ForceRemove = remove
		cr.Spec.ForProvider.ForceMigrate = migrate
	}
}

func storageNode(m ...nodeModifier) *v1alpha1.StorageNode {
	cr := &v1alpha1.StorageNode{}
	cr.SetName("node-1")
	cr.SetNamespace("storage")
	cr.Spec.ForProvider.ClusterID = testClusterID
	cr.Spec.ForProvider.NodeAddress = testAddress
	cr.Spec.ForProvider.InterfaceName = "eth0"
	for _, f := range m {
		f(cr)
	}
	return cr
}

type dtoModifier func(*simplyblock.StorageNodeDTO)

func withNodeID(id string) dtoModifier {
	return func(n *simplyblock.StorageNodeDTO) { n.ID = id }
}

func withNodeMgmtIP(ip string) dtoModifier {
	return func(n *simplyblock.StorageNodeDTO) { n.MgmtIP = ip }
}

func withNodeStatus(s simplyblock.NodeStatus) dtoModifier {
	return func(n *simplyblock.StorageNodeDTO) { n.Status = s }
}

func withHostname(h string) dtoModifier {
	return func(n *simplyblock.StorageNodeDTO) { n.Hostname = h }
}

func withAddress(a string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) { cr.Spec.ForProvider.NodeAddress = a }
}

func withMgmtIP(ip string) dtoModifier {
	return func(n *simplyblock.StorageNodeDTO) { n.MgmtIP = ip }
}

func nodeDTO(m ...dtoModifier) *simplyblock.StorageNodeDTO {
	n := &simplyblock.StorageNodeDTO{
		ID:        testNodeID,
		ClusterID: testClusterID,
		Status:    simplyblock.NodeOnline,
		Hostname:  "worker-1",
		MgmtIP:    testMgmtIP,
		RPCPort:   8080,
	}
	for _, f := range m {
		f(n)
	}
	return n
}

func task(status simplyblock.TaskStatus, retry int64, result string) *simplyblock.TaskDTO {
	return &simplyblock.TaskDTO{
		ID: testTaskID, ClusterID: testClusterID, Status: status, FunctionName: simplyblock.TaskFunctionNodeAdd,
		Retry: retry, FunctionResult: result,
	}
}

// addTaskFor is an open node_add task for address.
func addTaskFor(id, address string, status simplyblock.TaskStatus) simplyblock.TaskDTO {
	return simplyblock.TaskDTO{ID: id, ClusterID: testClusterID, Status: status, FunctionName: simplyblock.TaskFunctionNodeAdd,
		FunctionParams: map[string]any{"node_addr": address, "iface_name": "eth0"}}
}

func canceled(t simplyblock.TaskDTO) simplyblock.TaskDTO {
	t.Canceled = true
	return t
}

func listTasks(tasks ...simplyblock.TaskDTO) func(context.Context, string) ([]simplyblock.TaskDTO, error) {
	return func(_ context.Context, clusterID string) ([]simplyblock.TaskDTO, error) {
		if clusterID != testClusterID {
			return nil, errors.Errorf("ListTasks(%q), want %q", clusterID, testClusterID)
		}
		return tasks, nil
	}
}

func getTask(t *simplyblock.TaskDTO) func(context.Context, string, string) (*simplyblock.TaskDTO, error) {
	return func(_ context.Context, clusterID, taskID string) (*simplyblock.TaskDTO, error) {
		if clusterID != testClusterID || taskID != testTaskID {
			return nil, errors.Errorf("GetTask(%q, %q), want (%q, %q)", clusterID, taskID, testClusterID, testTaskID)
		}
		return t, nil
	}
}

func listNodes(nodes ...*simplyblock.StorageNodeDTO) func(context.Context, string) ([]simplyblock.StorageNodeDTO, error) {
	return func(_ context.Context, clusterID string) ([]simplyblock.StorageNodeDTO, error) {
		if clusterID != testClusterID {
			return nil, errors.Errorf("ListStorageNodes(%q), want %q", clusterID, testClusterID)
		}
		out := make([]simplyblock.StorageNodeDTO, 0, len(nodes))
		for _, n := range nodes {
			out = append(out, *n)
		}
		return out, nil
	}
}

func getNode(n *simplyblock.StorageNodeDTO, err error) func(context.Context, string, string) (*simplyblock.StorageNodeDTO, error) {
	return func(_ context.Context, clusterID, _ string) (*simplyblock.StorageNodeDTO, error) {
		if clusterID != testClusterID {
			return nil, errors.Errorf("GetStorageNode(%q, ...), want %q", clusterID, testClusterID)
		}
		return n, err
	}
}

func creatingMsg(msg string) xpv2.Condition {
	c := xpv2.Creating()
	c.Message = msg
	return c
}

func TestObserve(t *testing.T) {
	type fields struct {
		api simplyblock.API
		// now is the clock; zero is time.Now.
		now time.Time
	}
	type args struct {
		cr *v1alpha1.StorageNode
	}
	type want struct {
		o   managed.ExternalObservation
		err error
		cr  *v1alpha1.StorageNode
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"NoClusterID": {
			reason: "A node without a clusterId cannot be observed; the error says how to set it.",
			fields: fields{api: &fake.MockClient{}},
			args:   args{cr: storageNode(withClusterID(""))},
			want: want{
				err: errors.New(errNoClusterID),
				cr:  storageNode(withClusterID("")),
			},
		},
		"NeverAdded": {
			reason: "A node with no add task annotation and no record at its address does not exist.",
			fields: fields{api: &fake.MockClient{
				MockListStorageNodes: listNodes(nodeDTO(withMgmtIP("10.0.0.99"))),
			}},
			args: args{cr: storageNode()},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(),
			},
		},
		"ListFailed": {
			reason: "An error listing the nodes is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockListStorageNodes: func(_ context.Context, _ string) ([]simplyblock.StorageNodeDTO, error) { return nil, errServer },
			}},
			args: args{cr: storageNode()},
			want: want{
				err: errors.Wrap(errServer, errListNodes),
				cr:  storageNode(),
			},
		},
		"AddTaskOpen": {
			reason: "While the node_add task runs and no record exists, the node exists (so Create is not repeated) and the Creating condition shows the task's progress.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskRunning, 2, "")),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 2, ""),
					withConditions(creatingMsg("node_add task "+testTaskID+" is running (retry 2)"))),
			},
		},
		"AddTaskFetchFailed": {
			reason: "An error reading the node_add task is returned naming the task.",
			fields: fields{api: &fake.MockClient{
				MockGetTask: func(_ context.Context, _, _ string) (*simplyblock.TaskDTO, error) { return nil, errServer },
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID))},
			want: want{
				err: errors.Wrapf(errServer, errGetTask, testTaskID),
				cr:  storageNode(withAddTaskAnnotation(testTaskID)),
			},
		},
		"RecordAppearedAdopted": {
			reason: "Once the node record appears at the node's management address it is adopted: the external name is set and a late init persists it.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 0, nodeAddSuccess)),
				MockListStorageNodes: listNodes(nodeDTO(withNodeID("other"), withMgmtIP("10.0.0.11")), nodeDTO()),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
					withExternalName(testNodeID), withObserved(nodeDTO()), withConditions(xpv2.Available())),
			},
		},
		"RecordAtHostName": {
			reason: "M8: a node added by DNS name is found by its hostname (the agent's host name plus _<rpc_port>, storage_node_ops.py:3184), whatever its mgmt_ip.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 0, nodeAddSuccess)),
				MockListStorageNodes: listNodes(nodeDTO(withNodeID("other"), withHostname("worker-2_8080")), nodeDTO(withHostname("worker-1_8080"))),
			}},
			args: args{cr: storageNode(withAddress("worker-1.invalid:5000"), withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withAddress("worker-1.invalid:5000"), withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
					withExternalName(testNodeID), withObserved(nodeDTO(withHostname("worker-1_8080"))), withConditions(xpv2.Available())),
			},
		},
		"AddSkippedForAKnownHost": {
			reason: "M17: the backend skips an add for a host it has a record of, removed included, and still ends the task Success (storage_node_ops.py:3011-3062, 3645): an error says so instead of waiting forever.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 0, nodeAddSuccess)),
				MockListStorageNodes: listNodes(nodeDTO(withNodeStatus(simplyblock.NodeRemoved))),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""))},
			want: want{
				err: errors.Errorf(errAddedNothing, testTaskID, nodeAddSuccess, testAddress, "crossplane.io/external-name"),
				cr:  storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess)),
			},
		},
		"SeveralRecordsAtAddress": {
			reason: "M8: one host can hold several records (storage_node_ops.py:2681); none is taken at random, the error names them.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 0, nodeAddSuccess)),
				MockListStorageNodes: listNodes(nodeDTO(withHostname("worker-1_8080")), nodeDTO(withNodeID("second"), withHostname("worker-1_8081"))),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""))},
			want: want{
				err: errors.Errorf(errAmbiguous, 2, testAddress, testNodeID+" (worker-1_8080), second (worker-1_8081)", "crossplane.io/external-name"),
				cr:  storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess)),
			},
		},
		"RecordInCreationWhileTaskOpen": {
			reason: "A record still in_creation while the add task runs is adopted and reported as Creating.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskRunning, 0, "")),
				MockListStorageNodes: listNodes(nodeDTO(withNodeStatus(simplyblock.NodeInCreation))),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""),
					withExternalName(testNodeID), withObserved(nodeDTO(withNodeStatus(simplyblock.NodeInCreation))),
					withConditions(creatingMsg("node record is in_creation"))),
			},
		},
		"RecordReplacedReadopted": {
			reason: "When an add retry replaces the record with a new UUID (GET of the old one is 404), the new record at the same address is adopted.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:        getTask(task(simplyblock.TaskRunning, 1, "")),
				MockGetStorageNode: getNode(nil, errNotFound),
				MockListStorageNodes: listNodes(
					nodeDTO(withNodeStatus(simplyblock.NodeRemoved)),
					nodeDTO(withNodeID(testNewNodeID), withNodeStatus(simplyblock.NodeInCreation)),
				),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""),
				withExternalName(testNodeID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 1, ""),
					withExternalName(testNewNodeID),
					withObserved(nodeDTO(withNodeID(testNewNodeID), withNodeStatus(simplyblock.NodeInCreation))),
					withConditions(creatingMsg("node record is in_creation"))),
			},
		},
		"Online": {
			reason: "A settled online node is available; the finished add task is not read again.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nodeDTO(), nil),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
				withExternalName(testNodeID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
					withExternalName(testNodeID), withObserved(nodeDTO()), withConditions(xpv2.Available())),
			},
		},
		"Offline": {
			reason: "An offline node is unavailable and the condition names the status.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nodeDTO(withNodeStatus(simplyblock.NodeOffline)), nil),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withExternalName(testNodeID), withObserved(nodeDTO(withNodeStatus(simplyblock.NodeOffline))),
					withConditions(unavailable("node status is offline"))),
			},
		},
		"GetFailed": {
			reason: "An error other than 404 reading the node is returned wrapped, not mistaken for absence.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nil, errServer),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{
				err: errors.Wrap(errServer, errGetNode),
				cr:  storageNode(withExternalName(testNodeID)),
			},
		},
		"AddTaskFailed": {
			reason: "A node_add task that ended without a node is an error naming the backend's result.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 3, maxRetryMsg)),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 2, ""))},
			want: want{
				err: errors.Errorf(errAddFailed, testTaskID, maxRetryMsg),
				cr:  storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg)),
			},
		},
		"AddTaskFailedStaleRecord": {
			reason: "A failed add that left a stale in_creation record is still an error naming the result; the record is not adopted.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 3, maxRetryMsg)),
				MockListStorageNodes: listNodes(nodeDTO(withNodeStatus(simplyblock.NodeInCreation))),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 2, ""))},
			want: want{
				err: errors.Errorf(errAddFailed, testTaskID, maxRetryMsg),
				cr:  storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg)),
			},
		},
		"AddTaskFailedStaleRecordAdopted": {
			reason: "A failed add whose in_creation record was adopted while the task ran is still an error naming the result.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:        getTask(task(simplyblock.TaskDone, 3, maxRetryMsg)),
				MockGetStorageNode: getNode(nodeDTO(withNodeStatus(simplyblock.NodeInCreation)), nil),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 2, ""),
				withExternalName(testNodeID))},
			want: want{
				err: errors.Errorf(errAddFailed, testTaskID, maxRetryMsg),
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg),
					withExternalName(testNodeID)),
			},
		},
		"AddTaskFailedAlreadyObserved": {
			reason: "A node_add task already observed as ended is not read again, and stays an error naming the result.",
			fields: fields{api: &fake.MockClient{
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg))},
			want: want{
				err: errors.Errorf(errAddFailed, testTaskID, maxRetryMsg),
				cr:  storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg)),
			},
		},
		"AddTaskFailedWhileDeleting": {
			reason: "A failed add leaves nothing the provider can remove, so a deleted resource does not exist.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskDone, 3, maxRetryMsg)),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withDeleted())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 3, maxRetryMsg), withDeleted()),
			},
		},
		"AddTaskOpenWhileDeleting": {
			reason: "While the node_add task runs a deleted resource keeps existing, or its finalizer goes and the node the task adds is leaked.",
			fields: fields{api: &fake.MockClient{
				MockGetTask:          getTask(task(simplyblock.TaskRunning, 0, "")),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withDeleted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskRunning, 0, ""), withDeleted(),
					withConditions(creatingMsg("node_add task "+testTaskID+" is running"))),
			},
		},
		"RemovedNotDeleting": {
			reason: "A node removed in the backend while the resource is not being deleted still exists, unavailable, with advice to delete it.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nodeDTO(withNodeStatus(simplyblock.NodeRemoved)), nil),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withExternalName(testNodeID), withObserved(nodeDTO(withNodeStatus(simplyblock.NodeRemoved))),
					withConditions(unavailable(errRemoved))),
			},
		},
		"RemovedWhileDeleting": {
			reason: "A removed node of a resource being deleted no longer exists, so the finalizer can go.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nodeDTO(withNodeStatus(simplyblock.NodeRemoved)), nil),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID), withDeleted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(withExternalName(testNodeID), withDeleted(),
					withObserved(nodeDTO(withNodeStatus(simplyblock.NodeRemoved)))),
			},
		},
		"OnlineWhileDeleting": {
			reason: "A node being removed still exists until its record is removed, so Delete keeps running.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode: getNode(nodeDTO(withNodeStatus(simplyblock.NodeInShutdown)), nil),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID), withDeleted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withExternalName(testNodeID), withDeleted(),
					withObserved(nodeDTO(withNodeStatus(simplyblock.NodeInShutdown))),
					withConditions(unavailable("node status is in_shutdown"))),
			},
		},
		"CreateInterruptedTaskOpen": {
			reason: "After a create the provider stopped in, the open node_add task for the node's address is adopted: its id is recorded, the create's result with it, and Create is not called again.",
			fields: fields{api: &fake.MockClient{
				MockListTasks: listTasks(
					addTaskFor("older", testAddress, simplyblock.TaskDone),
					addTaskFor("other", "10.0.0.11:5000", simplyblock.TaskRunning),
					addTaskFor(testTaskID, testAddress, simplyblock.TaskNew),
				),
				MockGetTask:          getTask(task(simplyblock.TaskNew, 0, "")),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withCreateInterrupted(), withCreateFound(), withAddTaskAnnotation(testTaskID),
					withAddTask(simplyblock.TaskNew, 0, ""), withConditions(creatingMsg("node_add task "+testTaskID+" is new"))),
			},
		},
		"CreateInterruptedNothingQueued": {
			reason: "After a create the provider stopped in, no open node_add task (done or canceled ones do not count) and no record at the address mean the add was never queued: the node does not exist, so Create sends it.",
			fields: fields{api: &fake.MockClient{
				MockListTasks: listTasks(
					addTaskFor("older", testAddress, simplyblock.TaskDone),
					canceled(addTaskFor("canceled", testAddress, simplyblock.TaskRunning)),
					addTaskFor("other", "10.0.0.11:5000", simplyblock.TaskRunning),
				),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withCreateInterrupted())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(withCreateInterrupted()),
			},
		},
		"CreateInterruptedRecordAppeared": {
			reason: "After a create the provider stopped in, a record at the node's address (its add task already done) is adopted and the create's result recorded.",
			fields: fields{api: &fake.MockClient{
				MockListTasks:        listTasks(addTaskFor(testTaskID, testAddress, simplyblock.TaskDone)),
				MockListStorageNodes: listNodes(nodeDTO()),
			}},
			args: args{cr: storageNode(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withCreateInterrupted(), withCreateFound(), withExternalName(testNodeID),
					withObserved(nodeDTO()), withConditions(xpv2.Available())),
			},
		},
		"CreateAnswerLostTaskOpen": {
			reason: "After an add whose answer was lost, the open node_add task for the address is adopted and the outcome-unknown mark removed.",
			fields: fields{api: &fake.MockClient{
				MockListTasks:        listTasks(addTaskFor(testTaskID, testAddress, simplyblock.TaskRunning)),
				MockGetTask:          getTask(task(simplyblock.TaskRunning, 0, "")),
				MockListStorageNodes: listNodes(),
			}},
			args: args{cr: storageNode(withCreateAnswerLost())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withCreateAnswerLost(), withCreateFound(), withAddTaskAnnotation(testTaskID),
					withAddTask(simplyblock.TaskRunning, 0, ""), withConditions(creatingMsg("node_add task "+testTaskID+" is running"))),
			},
		},
		"CreateInterruptedTaskListFailedWaits": {
			reason: "After an interrupted create, a task list that cannot be read (the 500 that follows any expand) and no record at the address: the add is taken as queued (exists, so no Create) until the grace after it was sent ends, and the wait says why and until when.",
			fields: fields{api: &fake.MockClient{
				MockListTasks:        func(_ context.Context, _ string) ([]simplyblock.TaskDTO, error) { return nil, errServer },
				MockListStorageNodes: listNodes(),
			}, now: createPendingAt.Add(addRecordGrace - time.Second)},
			args: args{cr: storageNode(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: storageNode(withCreateInterrupted(), withConditions(creatingMsg(fmt.Sprintf(msgAwaitRecord,
					errors.Wrap(errServer, errListTasks), createPendingAt.Add(addRecordGrace).Format(time.RFC3339), testMgmtIP)))),
			},
		},
		"CreateInterruptedTaskListFailedRecordAppeared": {
			reason: "After an interrupted create with a task list that cannot be read, the record at the node's address is adopted.",
			fields: fields{api: &fake.MockClient{
				MockListTasks:        func(_ context.Context, _ string) ([]simplyblock.TaskDTO, error) { return nil, errServer },
				MockListStorageNodes: listNodes(nodeDTO()),
			}, now: createPendingAt.Add(time.Second)},
			args: args{cr: storageNode(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: storageNode(withCreateInterrupted(), withCreateFound(), withExternalName(testNodeID),
					withObserved(nodeDTO()), withConditions(xpv2.Available())),
			},
		},
		"CreateInterruptedTaskListFailedGraceOver": {
			reason: "Once the grace after the add was sent is over without a record, the add is taken as not queued, so that Create sends it (the backend refuses it while a first add is open).",
			fields: fields{api: &fake.MockClient{
				MockListTasks:        func(_ context.Context, _ string) ([]simplyblock.TaskDTO, error) { return nil, errServer },
				MockListStorageNodes: listNodes(nodeDTO(withNodeMgmtIP("10.9.9.9"))),
			}, now: createPendingAt.Add(addRecordGrace)},
			args: args{cr: storageNode(withCreateAnswerLost())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(withCreateAnswerLost()),
			},
		},
		"RecordGoneWhileDeleting": {
			reason: "A deleted resource whose record is gone entirely does not exist; removed records at the address are never re-adopted.",
			fields: fields{api: &fake.MockClient{
				MockGetStorageNode:   getNode(nil, errNotFound),
				MockListStorageNodes: listNodes(nodeDTO(withNodeID("older"), withNodeStatus(simplyblock.NodeRemoved))),
			}},
			args: args{cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
				withExternalName(testNodeID), withDeleted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: false},
				cr: storageNode(withAddTaskAnnotation(testTaskID), withAddTask(simplyblock.TaskDone, 0, nodeAddSuccess),
					withExternalName(testNodeID), withDeleted()),
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api}
			if !tc.fields.now.IsZero() {
				e.now = func() time.Time { return tc.fields.now }
			}
			start := time.Now()
			got, err := e.Observe(context.Background(), tc.args.cr)
			sinceNow(tc.args.cr, start)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.o, got); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.cr, tc.args.cr, test.EquateConditions()); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want cr, +got cr:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestObserveAddFailedNamesResult(t *testing.T) {
	e := &external{api: &fake.MockClient{
		MockGetTask:          getTask(task(simplyblock.TaskDone, 3, maxRetryMsg)),
		MockListStorageNodes: listNodes(),
	}}
	_, err := e.Observe(context.Background(), storageNode(withAddTaskAnnotation(testTaskID)))
	if err == nil || !strings.Contains(err.Error(), maxRetryMsg) || !strings.Contains(err.Error(), testTaskID) {
		t.Errorf("e.Observe(...): error %v does not name the task and its result %q", err, maxRetryMsg)
	}
}

func TestCreate(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StorageNode
	}
	type want struct {
		err error
		cr  *v1alpha1.StorageNode
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"AddQueued": {
			reason: "A queued add records the task id in an annotation; the external name stays unset until the record appears.",
			fields: fields{api: &fake.MockClient{
				MockAddStorageNode: func(_ context.Context, clusterID string, p simplyblock.StorageNodeParams) (string, error) {
					if clusterID != testClusterID || p.NodeAddress != testAddress || p.InterfaceName != "eth0" {
						return "", errors.Errorf("AddStorageNode(%q, %+v): unexpected arguments", clusterID, p)
					}
					return testTaskID, nil
				},
			}},
			args: args{cr: storageNode()},
			want: want{cr: storageNode(withAddTaskAnnotation(testTaskID))},
		},
		"AddAnswerLost": {
			reason: "An add whose outcome is unknown returns an error saying the provider adopts the node at its address.",
			fields: fields{api: &fake.MockClient{
				MockAddStorageNode: func(_ context.Context, _ string, _ simplyblock.StorageNodeParams) (string, error) {
					return "", errLost
				},
			}},
			args: args{cr: storageNode()},
			want: want{
				err: errors.Wrapf(errors.Wrap(errLost, errAddNode), errMayHaveAdded, testAddress),
				cr:  storageNode(withCreateAnswerLost(), withoutCreateTimes()),
			},
		},
		"AddAnswered500": {
			reason: "A 500, the backend's answer while an add for the address is open, leaves the outcome unknown, so that Observe looks for that add before another is sent.",
			fields: fields{api: &fake.MockClient{
				MockAddStorageNode: func(_ context.Context, _ string, _ simplyblock.StorageNodeParams) (string, error) {
					return "", errAdd500
				},
			}},
			args: args{cr: storageNode()},
			want: want{
				err: errors.Wrapf(errors.Wrap(errAdd500, errAddNode), errMayHaveAdded, testAddress),
				cr:  storageNode(withCreateAnswerLost(), withoutCreateTimes()),
			},
		},
		"AddRefused": {
			reason: "A definite refusal is returned wrapped, without the adoption message.",
			fields: fields{api: &fake.MockClient{
				MockAddStorageNode: func(_ context.Context, _ string, _ simplyblock.StorageNodeParams) (string, error) {
					return "", errValidation
				},
			}},
			args: args{cr: storageNode()},
			want: want{
				err: errors.Wrap(errValidation, errAddNode),
				cr:  storageNode(),
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api}
			got, err := e.Create(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalCreation{}, got); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.cr, tc.args.cr); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want cr, +got cr:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	e := &external{api: &fake.MockClient{}}
	got, err := e.Update(context.Background(), storageNode(withExternalName(testNodeID)))
	if diff := cmp.Diff(nil, err, test.EquateErrors()); diff != "" {
		t.Errorf("\ne.Update(...): -want error, +got error:\n%s\n", diff)
	}
	if diff := cmp.Diff(managed.ExternalUpdate{}, got); diff != "" {
		t.Errorf("\ne.Update(...): -want, +got:\n%s\n", diff)
	}
}

// lockReader is an API reader holding objs (StorageClusters and the
// operations their locks name).
func lockReader(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatalf("cannot build scheme: %v", err)
	}
	return crfake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// lockRef names an operation of kind in a lock.
func lockRef(kind, name string) *v1alpha1.OperationReference {
	return &v1alpha1.OperationReference{Name: name, UID: types.UID(name + "-uid"), Type: "Restart", Kind: kind}
}

// running names o (an empty operation, so one still running) name.
func running(o client.Object, name string) client.Object {
	o.SetNamespace("storage")
	o.SetName(name)
	o.SetUID(types.UID(name + "-uid"))
	return o
}

// clusterLockedBy is StorageCluster demo (backend cluster testClusterID)
// whose lock ref holds.
func clusterLockedBy(ref *v1alpha1.OperationReference) *v1alpha1.StorageCluster {
	sc := &v1alpha1.StorageCluster{}
	sc.SetNamespace("storage")
	sc.SetName("demo")
	meta.SetExternalName(sc, testClusterID)
	sc.Status.AtProvider.ActiveOperation = ref
	return sc
}

func withClusterRef(name string) nodeModifier {
	return func(cr *v1alpha1.StorageNode) {
		cr.Spec.ForProvider.ClusterIDRef = &xpv2.NamespacedReference{Name: name}
	}
}

func TestDelete(t *testing.T) {
	type fields struct {
		api simplyblock.API
		// objects exist in the API server.
		objects []client.Object
	}
	type args struct {
		cr *v1alpha1.StorageNode
	}
	type want struct {
		err  error
		opts *simplyblock.NodeDeleteOptions
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"FlagsPassed": {
			reason: "Delete removes the node named by the external name with the resource's force flags.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStorageNode: func(_ context.Context, _, _ string, _ simplyblock.NodeDeleteOptions) error { return nil },
			}},
			args: args{cr: storageNode(withExternalName(testNodeID), withForce(true, true))},
			want: want{opts: &simplyblock.NodeDeleteOptions{ForceRemove: true, ForceMigrate: true}},
		},
		"NoFlags": {
			reason: "Without force flags none is sent; ForceDelete is never sent.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStorageNode: func(_ context.Context, _, _ string, _ simplyblock.NodeDeleteOptions) error { return nil },
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{opts: &simplyblock.NodeDeleteOptions{}},
		},
		"NoExternalName": {
			reason: "A node whose record never appeared has nothing to remove; the backend is not called.",
			fields: fields{api: &fake.MockClient{}},
			args:   args{cr: storageNode(withAddTaskAnnotation(testTaskID))},
		},
		"NotFound": {
			reason: "A node that is already gone counts as removed.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStorageNode: func(_ context.Context, _, _ string, _ simplyblock.NodeDeleteOptions) error { return errNotFound },
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{opts: &simplyblock.NodeDeleteOptions{}},
		},
		"WaitsForTheNodeOperation": {
			reason: "A node with a node operation running on it is not removed until the operation finished; the error names it and the backend is not called.",
			fields: fields{api: &fake.MockClient{}, objects: []client.Object{running(&v1alpha1.StorageNodeOps{}, "node-1-restart")}},
			args: args{cr: func() *v1alpha1.StorageNode {
				n := storageNode(withExternalName(testNodeID))
				n.Status.AtProvider.ActiveOperation = lockRef(v1alpha1.StorageNodeOpsKind, "node-1-restart")
				return n
			}()},
			want: want{err: errors.New("waiting for StorageNodeOps node-1-restart (Restart) to finish on the node before removing the node")},
		},
		"WaitsForAnOperationOnItsCluster": {
			reason: "A node whose cluster's lock a running ClusterOps holds (a rolling restart) is not removed until it finished.",
			fields: fields{api: &fake.MockClient{}, objects: []client.Object{
				clusterLockedBy(lockRef(v1alpha1.ClusterOpsKind, "roll")), running(&v1alpha1.ClusterOps{}, "roll"),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID), withClusterRef("demo"))},
			want: want{err: errors.New("waiting for ClusterOps roll (Restart) to finish on its StorageCluster demo before removing the node")},
		},
		"FindsItsClusterByID": {
			reason: "A node that names its cluster by id (no reference) finds the StorageCluster with that external name.",
			fields: fields{api: &fake.MockClient{}, objects: []client.Object{
				clusterLockedBy(lockRef(v1alpha1.ClusterOpsKind, "roll")), running(&v1alpha1.ClusterOps{}, "roll"),
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{err: errors.New("waiting for ClusterOps roll (Restart) to finish on its StorageCluster demo before removing the node")},
		},
		"StaleClusterLockDoesNotBlock": {
			reason: "A lock whose holder no longer exists does not keep the node forever.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStorageNode: func(_ context.Context, _, _ string, _ simplyblock.NodeDeleteOptions) error { return nil },
			}, objects: []client.Object{clusterLockedBy(lockRef(v1alpha1.ClusterOpsKind, "gone"))}},
			args: args{cr: storageNode(withExternalName(testNodeID), withClusterRef("demo"))},
			want: want{opts: &simplyblock.NodeDeleteOptions{}},
		},
		"Refused": {
			reason: "The backend's plain-text 500 refusal is returned wrapped so it surfaces as a condition.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStorageNode: func(_ context.Context, _, _ string, _ simplyblock.NodeDeleteOptions) error { return errRefused },
			}},
			args: args{cr: storageNode(withExternalName(testNodeID))},
			want: want{
				err:  errors.Wrap(errRefused, errDeleteNode),
				opts: &simplyblock.NodeDeleteOptions{},
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var gotOpts *simplyblock.NodeDeleteOptions
			api := tc.fields.api.(*fake.MockClient)
			if inner := api.MockDeleteStorageNode; inner != nil {
				api.MockDeleteStorageNode = func(ctx context.Context, clusterID, nodeID string, opts simplyblock.NodeDeleteOptions) error {
					if clusterID != testClusterID || nodeID != testNodeID {
						t.Errorf("DeleteStorageNode(%q, %q, ...), want (%q, %q)", clusterID, nodeID, testClusterID, testNodeID)
					}
					gotOpts = &opts
					return inner(ctx, clusterID, nodeID, opts)
				}
			}
			e := &external{api: api, locks: lockReader(t, tc.fields.objects...)}
			got, err := e.Delete(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Delete(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalDelete{}, got); diff != "" {
				t.Errorf("\n%s\ne.Delete(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.opts, gotOpts); diff != "" {
				t.Errorf("\n%s\ne.Delete(...): -want options, +got options:\n%s\n", tc.reason, diff)
			}
		})
	}
}
