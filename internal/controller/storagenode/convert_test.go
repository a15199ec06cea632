package storagenode

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

func ptr[T any](v T) *T { return &v }

func TestNodeParams(t *testing.T) {
	type args struct {
		p v1alpha1.StorageNodeParameters
	}
	type want struct {
		params simplyblock.StorageNodeParams
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Minimal": {
			reason: "Unset optional strings are omitted and an unset dataNics list is sent empty, not null.",
			args: args{p: v1alpha1.StorageNodeParameters{
				NodeAddress: testAddress, InterfaceName: "eth0", MaxSnapshots: 500, HAJm: true, Namespace: "default",
				JmPercent: 3, Partitions: 1,
			}},
			want: want{params: simplyblock.StorageNodeParams{
				NodeAddress: testAddress, InterfaceName: "eth0", MaxSnapshots: ptr(int64(500)), HAJm: ptr(true),
				TestDevice: ptr(false), DataNics: []string{}, Namespace: "default", IDDeviceByNQN: ptr(false),
				JmPercent: 3, Partitions: 1,
			}},
		},
		"EveryField": {
			reason: "Every forProvider field reaches the add body; the delete flags do not.",
			args: args{p: v1alpha1.StorageNodeParameters{
				ClusterID: testClusterID, NodeAddress: testAddress, InterfaceName: "eth0", MaxSnapshots: 10, HAJm: false,
				TestDevice: true, SpdkImage: "spdk:1", SpdkDebug: true, DataNics: []string{"eth1"}, Namespace: "sb",
				IDDeviceByNQN: true, JmPercent: 5, Partitions: 2, IobufSmallPoolCount: 7, IobufLargePoolCount: 8,
				HAJmCount: ptr(int64(4)), Format4k: true, SpdkProxyImage: "proxy:1", SpdkSysMem: "2G",
				FailureDomain: ptr(int64(2)), Expand: true, ForceRemove: true, ForceMigrate: true,
			}},
			want: want{params: simplyblock.StorageNodeParams{
				NodeAddress: testAddress, InterfaceName: "eth0", MaxSnapshots: ptr(int64(10)), HAJm: ptr(false),
				TestDevice: ptr(true), SpdkImage: ptr("spdk:1"), SpdkDebug: true, DataNics: []string{"eth1"}, Namespace: "sb",
				IDDeviceByNQN: ptr(true), JmPercent: 5, Partitions: 2, IobufSmallPoolCount: 7, IobufLargePoolCount: 8,
				HAJmCount: ptr(int64(4)), Format4k: true, SpdkProxyImage: ptr("proxy:1"), SpdkSysMem: ptr("2G"),
				FailureDomain: ptr(int64(2)), Expand: true,
			}},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := nodeParams(tc.args.p)
			if diff := cmp.Diff(tc.want.params, got); diff != "" {
				t.Errorf("\n%s\nnodeParams(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestObserveConversion(t *testing.T) {
	addTask := &v1alpha1.NodeAddTask{ID: testTaskID, Status: "done", Result: nodeAddSuccess}
	op := &v1alpha1.OperationReference{Name: "restart"}
	history := []v1alpha1.OperationRecord{{Name: "suspend"}}

	type args struct {
		prev v1alpha1.StorageNodeObservation
		n    *simplyblock.StorageNodeDTO
	}
	type want struct {
		o v1alpha1.StorageNodeObservation
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"AllFields": {
			reason: "Every record field is copied; the add task and the operation engine's fields are kept.",
			args: args{
				prev: v1alpha1.StorageNodeObservation{Status: "stale", AddTask: addTask, ActiveOperation: op, OperationHistory: history},
				n: &simplyblock.StorageNodeDTO{
					ID: testNodeID, ClusterID: testClusterID, SecondaryNodeID: ptr("sec"), Status: simplyblock.NodeOnline,
					Uptime: ptr("1h"), Hostname: "w1", HostNQN: "nqn", CPUTotalCount: 1, CPUSpdkCount: 2, CPUPollerCount: 3,
					Memory: 4, HugepageMemory: 5, SpdkMem: 6, Lvols: 7, LvolsMax: 8, SnapshotsMax: 9, RPCPort: 10,
					LvolSubsysPort: 11, HublvolPort: 12, NvmfPort: 13, MgmtIP: testMgmtIP, HealthCheck: ptr(true),
					DeviceCount: 14, OnlineDeviceCount: 15, FailureDomain: 16,
					Capacity: simplyblock.CapacityStatDTO{SizeTotal: 1, SizeProv: 2, SizeUsed: 3, SizeFree: 4, SizeUtil: 5},
				},
			},
			want: want{o: v1alpha1.StorageNodeObservation{
				ID: testNodeID, ClusterID: testClusterID, SecondaryNodeID: "sec", Status: "online",
				Uptime: "1h", Hostname: "w1", HostNQN: "nqn", CPUTotalCount: 1, CPUSpdkCount: 2, CPUPollerCount: 3,
				Memory: 4, HugepageMemory: 5, SpdkMem: 6, Lvols: 7, LvolsMax: 8, SnapshotsMax: 9, RPCPort: 10,
				LvolSubsysPort: 11, HublvolPort: 12, NvmfPort: 13, MgmtIP: testMgmtIP, HealthCheck: ptr(true),
				DeviceCount: 14, OnlineDeviceCount: 15, FailureDomain: ptr(int64(16)),
				Capacity: &v1alpha1.CapacityObservation{SizeTotal: 1, SizeProv: 2, SizeUsed: 3, SizeFree: 4, SizeUtil: 5},
				AddTask:  addTask, ActiveOperation: op, OperationHistory: history,
			}},
		},
		"NullOptionals": {
			reason: "Null secondary node id and uptime become empty strings.",
			args:   args{n: &simplyblock.StorageNodeDTO{ID: testNodeID}},
			want: want{o: v1alpha1.StorageNodeObservation{
				ID: testNodeID, FailureDomain: ptr(int64(0)), Capacity: &v1alpha1.CapacityObservation{},
			}},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := observe(tc.args.prev, tc.args.n)
			if diff := cmp.Diff(tc.want.o, got); diff != "" {
				t.Errorf("\n%s\nobserve(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestAvailability(t *testing.T) {
	cases := map[string]struct {
		reason string
		status simplyblock.NodeStatus
		want   xpv2.Condition
	}{
		"Online":     {reason: "An online node is available.", status: simplyblock.NodeOnline, want: xpv2.Available()},
		"InCreation": {reason: "A node in_creation is being created.", status: simplyblock.NodeInCreation, want: creatingMsg("node record is in_creation")},
		"Suspended":  {reason: "A suspended node is unavailable.", status: simplyblock.NodeSuspended, want: unavailable("node status is suspended")},
		"Down":       {reason: "A down node is unavailable.", status: simplyblock.NodeDown, want: unavailable("node status is down")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, availability(tc.status)); diff != "" {
				t.Errorf("\n%s\navailability(%q): -want, +got:\n%s\n", tc.reason, tc.status, diff)
			}
		})
	}
}

func TestCreating(t *testing.T) {
	cases := map[string]struct {
		reason string
		task   *v1alpha1.NodeAddTask
		want   xpv2.Condition
	}{
		"NoTask":  {reason: "Without a task the condition says it waits for it.", want: creatingMsg("waiting for the node_add task")},
		"New":     {reason: "A new task shows its status.", task: &v1alpha1.NodeAddTask{ID: "t", Status: "new"}, want: creatingMsg("node_add task t is new")},
		"Retried": {reason: "A retried task shows its retry count and last result.", task: &v1alpha1.NodeAddTask{ID: "t", Status: "running", Retry: 2, Result: "SPDK not ready"}, want: creatingMsg("node_add task t is running (retry 2): SPDK not ready")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, creating(tc.task)); diff != "" {
				t.Errorf("\n%s\ncreating(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestShowSeen(t *testing.T) {
	history := []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-1", Phase: v1alpha1.OperationSucceeded}}
	node := func() *v1alpha1.StorageNode {
		cr := &v1alpha1.StorageNode{}
		meta.SetExternalName(cr, testNodeID)
		cr.Status.AtProvider = v1alpha1.StorageNodeObservation{ID: testNodeID, Status: "online", OperationHistory: history}
		cr.SetConditions(xpv2.Available())
		return cr
	}
	listing := func(nodes ...simplyblock.StorageNodeDTO) *ops.Snapshot {
		return &ops.Snapshot{Cluster: simplyblock.ClusterDTO{ID: testClusterID}, Nodes: nodes}
	}

	type want struct {
		status string
		ready  xpv2.Condition
	}
	cases := map[string]struct {
		reason string
		seen   *ops.Snapshot
		want   want
	}{
		"ShowsTheNode": {
			reason: "The node's status and Ready condition show what the operation saw; its history stays.",
			seen:   listing(simplyblock.StorageNodeDTO{ID: testNodeID, Status: simplyblock.NodeSuspended}),
			want:   want{status: "suspended", ready: unavailable("node status is suspended")},
		},
		"Removed": {
			reason: "A removed node is shown as its own controller shows it.",
			seen:   listing(simplyblock.StorageNodeDTO{ID: testNodeID, Status: simplyblock.NodeRemoved}),
			want:   want{status: "removed", ready: unavailable(errRemoved)},
		},
		"NoNodeList": {
			reason: "A snapshot without the node list changes nothing.",
			seen:   listing(),
			want:   want{status: "online", ready: xpv2.Available()},
		},
		"NotListed": {
			reason: "A node list without this node changes nothing.",
			seen:   listing(simplyblock.StorageNodeDTO{ID: "other", Status: simplyblock.NodeSuspended}),
			want:   want{status: "online", ready: xpv2.Available()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := node()
			ShowSeen(cr, tc.seen)
			got := want{status: cr.Status.AtProvider.Status, ready: cr.GetCondition(xpv2.TypeReady)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.IgnoreFields(xpv2.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("\n%s\nShowSeen(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(history, cr.Status.AtProvider.OperationHistory); diff != "" {
				t.Errorf("\n%s\nShowSeen(...): history: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
