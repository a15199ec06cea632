package storagecluster

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// clusterParams maps forProvider onto the backend's create parameters.
func clusterParams(p v1alpha1.StorageClusterParameters) simplyblock.ClusterParams {
	out := simplyblock.DefaultClusterParams()
	out.Name = p.Name
	out.BlkSize = p.BlkSize
	out.PageSizeInBlocks = p.PageSizeInBlocks
	out.CapWarn = p.CapWarn
	out.CapCrit = p.CapCrit
	out.ProvCapWarn = p.ProvCapWarn
	out.ProvCapCrit = p.ProvCapCrit
	out.DistrNdcs = p.DistrNdcs
	out.DistrNpcs = p.DistrNpcs
	out.DistrBs = p.DistrBs
	out.DistrChunkBs = p.DistrChunkBs
	out.HAType = p.HAType
	out.QpairCount = p.QpairCount
	out.MaxQueueSize = p.MaxQueueSize
	out.InflightIOThreshold = p.InflightIOThreshold
	out.EnableNodeAffinity = p.EnableNodeAffinity
	out.StrictNodeAntiAffinity = p.StrictNodeAntiAffinity
	out.IsSingleNode = p.IsSingleNode
	out.Fabric = p.Fabric
	out.ClientDataNic = p.ClientDataNic
	out.NvmfBasePort = p.NvmfBasePort
	out.RPCBasePort = p.RPCBasePort
	out.SnodeAPIPort = p.SnodeAPIPort
	out.MaxSubsys = p.MaxSubsys
	out.SpdkVcpuCount = p.SpdkVcpuCount
	out.HugepagesMem = p.HugepagesMem
	out.EnableFailureDomain = p.EnableFailureDomain
	return out
}

// observe copies the backend's view into atProvider, keeping the fields the
// operation engine owns (active operation, history).
func observe(prev v1alpha1.StorageClusterObservation, c *simplyblock.ClusterDTO) v1alpha1.StorageClusterObservation {
	return v1alpha1.StorageClusterObservation{
		ID:                          c.ID,
		Name:                        clusterName(c),
		NQN:                         c.NQN,
		Status:                      string(c.Status),
		IsReBalancing:               c.IsReBalancing,
		BlockSize:                   c.BlockSize,
		DistrNdcs:                   c.DistrNdcs,
		DistrNpcs:                   c.DistrNpcs,
		HA:                          c.HA,
		UtilizationWarning:          c.UtilizationWarning,
		UtilizationCritical:         c.UtilizationCritical,
		ProvisionedCapacityWarning:  c.ProvisionedCapacityWarning,
		ProvisionedCapacityCritical: c.ProvisionedCapacityCritical,
		NodeAffinity:                c.NodeAffinity,
		AntiAffinity:                c.AntiAffinity,
		EnableFailureDomain:         c.EnableFailureDomain,
		TLSEnabled:                  c.TLSEnabled,
		MaxFaultTolerance:           c.MaxFaultTolerance,
		BackupEnabled:               c.BackupEnabled,
		Capacity: &v1alpha1.CapacityObservation{
			SizeTotal: c.Capacity.SizeTotal,
			SizeProv:  c.Capacity.SizeProv,
			SizeUsed:  c.Capacity.SizeUsed,
			SizeFree:  c.Capacity.SizeFree,
			SizeUtil:  c.Capacity.SizeUtil,
		},
		ActiveOperation:  prev.ActiveOperation,
		OperationHistory: prev.OperationHistory,
	}
}

// show writes the backend's view of c into cr's status: atProvider and
// the Ready condition.
func show(cr *v1alpha1.StorageCluster, c *simplyblock.ClusterDTO) {
	cr.Status.AtProvider = observe(cr.Status.AtProvider, c)
	cr.SetConditions(availability(c.Status))
}

// ShowSeen writes what an operation saw of t, a StorageCluster, into its
// status when the lock is released (ops.Lock.ObserveTarget).
func ShowSeen(t ops.Target, s *ops.Snapshot) {
	if cr, ok := t.(*v1alpha1.StorageCluster); ok && meta.GetExternalName(cr) == s.Cluster.ID {
		show(cr, &s.Cluster)
	}
}

// availability maps the backend status onto the Ready condition. A cluster
// in a normal lifecycle state (created and awaiting activation, activating,
// active, expanding) is available; a degraded, suspended or read-only one is
// not, and the condition says why.
func availability(s simplyblock.ClusterStatus) xpv2.Condition {
	switch s {
	case simplyblock.ClusterUnready, simplyblock.ClusterInActivation, simplyblock.ClusterActive, simplyblock.ClusterInExpansion:
		return xpv2.Available()
	default:
		c := xpv2.Unavailable()
		c.Message = "cluster status is " + string(s)
		return c
	}
}

func clusterName(c *simplyblock.ClusterDTO) string {
	if c.Name == nil {
		return ""
	}
	return *c.Name
}

func connectionDetails(c *simplyblock.ClusterDTO) managed.ConnectionDetails {
	return managed.ConnectionDetails{
		ConnectionKeyClusterID: []byte(c.ID),
		ConnectionKeyNQN:       []byte(c.NQN),
		ConnectionKeySecret:    []byte(c.Secret),
	}
}
