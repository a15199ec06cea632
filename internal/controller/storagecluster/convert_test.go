package storagecluster

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

func TestClusterParams(t *testing.T) {
	type args struct {
		p v1alpha1.StorageClusterParameters
	}
	type want struct {
		params simplyblock.ClusterParams
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"EveryFieldMapped": {
			reason: "Every forProvider field reaches the create body; the fields the provider does not expose keep their zero value.",
			args: args{p: v1alpha1.StorageClusterParameters{
				Name: "prod", BlkSize: 4096, PageSizeInBlocks: 1024, CapWarn: 80, CapCrit: 90, ProvCapWarn: 180, ProvCapCrit: 190,
				DistrNdcs: 2, DistrNpcs: 1, DistrBs: 8192, DistrChunkBs: 8192, HAType: "single", QpairCount: 32,
				MaxQueueSize: 64, InflightIOThreshold: 8, EnableNodeAffinity: true, StrictNodeAntiAffinity: true,
				IsSingleNode: true, Fabric: "rdma", ClientDataNic: "eth1", NvmfBasePort: 5420, RPCBasePort: 9080,
				SnodeAPIPort: 60001, MaxSubsys: 7, SpdkVcpuCount: 3, HugepagesMem: "4G", EnableFailureDomain: true,
			}},
			want: want{params: simplyblock.ClusterParams{
				Name: "prod", BlkSize: 4096, PageSizeInBlocks: 1024, CapWarn: 80, CapCrit: 90, ProvCapWarn: 180, ProvCapCrit: 190,
				DistrNdcs: 2, DistrNpcs: 1, DistrBs: 8192, DistrChunkBs: 8192, HAType: "single", QpairCount: 32,
				MaxQueueSize: 64, InflightIOThreshold: 8, EnableNodeAffinity: true, StrictNodeAntiAffinity: true,
				IsSingleNode: true, Fabric: "rdma", ClientDataNic: "eth1", NvmfBasePort: 5420, RPCBasePort: 9080,
				SnodeAPIPort: 60001, MaxSubsys: 7, SpdkVcpuCount: 3, HugepagesMem: "4G", EnableFailureDomain: true,
			}},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := clusterParams(tc.args.p)
			if diff := cmp.Diff(tc.want.params, got); diff != "" {
				t.Errorf("\n%s\nclusterParams(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestObserveConversion(t *testing.T) {
	name := "prod"
	health := v1alpha1.OperationReference{Name: "activate", Phase: v1alpha1.OperationRunning}
	history := []v1alpha1.OperationRecord{{Name: "expand", Phase: v1alpha1.OperationSucceeded}}

	type args struct {
		prev v1alpha1.StorageClusterObservation
		c    *simplyblock.ClusterDTO
	}
	type want struct {
		o v1alpha1.StorageClusterObservation
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"AllFields": {
			reason: "Every backend field is copied, and the operation engine's fields are kept from the previous observation.",
			args: args{
				prev: v1alpha1.StorageClusterObservation{Status: "stale", ActiveOperation: &health, OperationHistory: history},
				c: &simplyblock.ClusterDTO{
					ID: "id", Name: &name, NQN: "nqn", Status: simplyblock.ClusterInExpansion, IsReBalancing: true,
					BlockSize: 512, DistrNdcs: 2, DistrNpcs: 1, HA: true, UtilizationWarning: 80, UtilizationCritical: 90,
					ProvisionedCapacityWarning: 180, ProvisionedCapacityCritical: 190, NodeAffinity: true, AntiAffinity: true,
					EnableFailureDomain: true, Secret: "secret", TLSEnabled: true, MaxFaultTolerance: 1, BackupEnabled: true,
					Capacity: simplyblock.CapacityStatDTO{Date: 9, SizeTotal: 1, SizeProv: 2, SizeUsed: 3, SizeFree: 4, SizeUtil: 5},
				},
			},
			want: want{o: v1alpha1.StorageClusterObservation{
				ID: "id", Name: "prod", NQN: "nqn", Status: "in_expansion", IsReBalancing: true,
				BlockSize: 512, DistrNdcs: 2, DistrNpcs: 1, HA: true, UtilizationWarning: 80, UtilizationCritical: 90,
				ProvisionedCapacityWarning: 180, ProvisionedCapacityCritical: 190, NodeAffinity: true, AntiAffinity: true,
				EnableFailureDomain: true, TLSEnabled: true, MaxFaultTolerance: 1, BackupEnabled: true,
				Capacity:        &v1alpha1.CapacityObservation{SizeTotal: 1, SizeProv: 2, SizeUsed: 3, SizeFree: 4, SizeUtil: 5},
				ActiveOperation: &health, OperationHistory: history,
			}},
		},
		"NullName": {
			reason: "A cluster without a name (null in the backend) is observed with an empty name.",
			args:   args{c: &simplyblock.ClusterDTO{ID: "id"}},
			want:   want{o: v1alpha1.StorageClusterObservation{ID: "id", Capacity: &v1alpha1.CapacityObservation{}}},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := observe(tc.args.prev, tc.args.c)
			if diff := cmp.Diff(tc.want.o, got); diff != "" {
				t.Errorf("\n%s\nobserve(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestAvailability(t *testing.T) {
	cases := map[string]struct {
		reason string
		status simplyblock.ClusterStatus
		want   xpv2.Condition
	}{
		"Unready":      {reason: "A created cluster awaiting activation is available.", status: simplyblock.ClusterUnready, want: xpv2.Available()},
		"InActivation": {reason: "An activating cluster is available.", status: simplyblock.ClusterInActivation, want: xpv2.Available()},
		"Active":       {reason: "An active cluster is available.", status: simplyblock.ClusterActive, want: xpv2.Available()},
		"InExpansion":  {reason: "An expanding cluster is available.", status: simplyblock.ClusterInExpansion, want: xpv2.Available()},
		"Degraded":     {reason: "A degraded cluster is unavailable.", status: simplyblock.ClusterDegraded, want: unavailable("cluster status is degraded")},
		"Suspended":    {reason: "A suspended cluster is unavailable.", status: simplyblock.ClusterSuspended, want: unavailable("cluster status is suspended")},
		"ReadOnly":     {reason: "A read-only cluster is unavailable.", status: simplyblock.ClusterReadOnly, want: unavailable("cluster status is read_only")},
		"Inactive":     {reason: "An inactive cluster is unavailable.", status: simplyblock.ClusterInactive, want: unavailable("cluster status is inactive")},
		"Unknown":      {reason: "An unknown status is unavailable and named.", status: "mystery", want: unavailable("cluster status is mystery")},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := availability(tc.status)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\navailability(%q): -want, +got:\n%s\n", tc.reason, tc.status, diff)
			}
		})
	}
}

func TestShowSeen(t *testing.T) {
	lock := &v1alpha1.OperationReference{Name: "next", UID: "uid-next"}
	history := []v1alpha1.OperationRecord{{Name: "op1", UID: "uid-1", Phase: v1alpha1.OperationSucceeded}}
	cluster := func(id string) *v1alpha1.StorageCluster {
		cr := &v1alpha1.StorageCluster{}
		meta.SetExternalName(cr, id)
		cr.Status.AtProvider = v1alpha1.StorageClusterObservation{ID: id, Status: "active", ActiveOperation: lock, OperationHistory: history}
		cr.SetConditions(xpv2.Available())
		return cr
	}
	seen := &ops.Snapshot{Cluster: simplyblock.ClusterDTO{ID: "c1", Status: simplyblock.ClusterSuspended}}
	unavailable := xpv2.Unavailable()
	unavailable.Message = "cluster status is suspended"

	type want struct {
		status string
		ready  xpv2.Condition
	}
	cases := map[string]struct {
		reason string
		t      ops.Target
		want   want
	}{
		"ShowsTheCluster": {
			reason: "The cluster's status and Ready condition show what the operation saw; its lock and history stay.",
			t:      cluster("c1"),
			want:   want{status: "suspended", ready: unavailable},
		},
		"OtherCluster": {
			reason: "A snapshot of another backend cluster changes nothing.",
			t:      cluster("c2"),
			want:   want{status: "active", ready: xpv2.Available()},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ShowSeen(tc.t, seen)
			cr := tc.t.(*v1alpha1.StorageCluster)
			got := want{status: cr.Status.AtProvider.Status, ready: cr.GetCondition(xpv2.TypeReady)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.IgnoreFields(xpv2.Condition{}, "LastTransitionTime")); diff != "" {
				t.Errorf("\n%s\nShowSeen(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(lock, cr.Status.AtProvider.ActiveOperation); diff != "" {
				t.Errorf("\n%s\nShowSeen(...): lock: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(history, cr.Status.AtProvider.OperationHistory); diff != "" {
				t.Errorf("\n%s\nShowSeen(...): history: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
