package storagenode

import (
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/controller/managedcontroller"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// nodeParams maps forProvider onto the backend's add parameters.
func nodeParams(p v1alpha1.StorageNodeParameters) simplyblock.StorageNodeParams {
	out := simplyblock.DefaultStorageNodeParams(p.NodeAddress, p.InterfaceName)
	out.MaxSnapshots = &p.MaxSnapshots
	out.HAJm = &p.HAJm
	out.TestDevice = &p.TestDevice
	if p.SpdkImage != "" {
		out.SpdkImage = &p.SpdkImage
	}
	out.SpdkDebug = p.SpdkDebug
	if p.DataNics != nil {
		out.DataNics = p.DataNics
	}
	out.Namespace = p.Namespace
	out.IDDeviceByNQN = &p.IDDeviceByNQN
	out.JmPercent = p.JmPercent
	out.Partitions = p.Partitions
	out.IobufSmallPoolCount = p.IobufSmallPoolCount
	out.IobufLargePoolCount = p.IobufLargePoolCount
	out.HAJmCount = p.HAJmCount
	out.Format4k = p.Format4k
	if p.SpdkProxyImage != "" {
		out.SpdkProxyImage = &p.SpdkProxyImage
	}
	if p.SpdkSysMem != "" {
		out.SpdkSysMem = &p.SpdkSysMem
	}
	out.FailureDomain = p.FailureDomain
	out.Expand = p.Expand
	return out
}

// observe copies the node record into atProvider, keeping the add task and
// the fields the operation engine owns.
func observe(prev v1alpha1.StorageNodeObservation, n *simplyblock.StorageNodeDTO) v1alpha1.StorageNodeObservation {
	fd := n.FailureDomain
	return v1alpha1.StorageNodeObservation{
		ID:                n.ID,
		ClusterID:         n.ClusterID,
		SecondaryNodeID:   deref(n.SecondaryNodeID),
		Status:            string(n.Status),
		Uptime:            deref(n.Uptime),
		Hostname:          n.Hostname,
		HostNQN:           n.HostNQN,
		MgmtIP:            n.MgmtIP,
		CPUTotalCount:     n.CPUTotalCount,
		CPUSpdkCount:      n.CPUSpdkCount,
		CPUPollerCount:    n.CPUPollerCount,
		Memory:            n.Memory,
		HugepageMemory:    n.HugepageMemory,
		SpdkMem:           n.SpdkMem,
		Lvols:             n.Lvols,
		LvolsMax:          n.LvolsMax,
		SnapshotsMax:      n.SnapshotsMax,
		RPCPort:           n.RPCPort,
		LvolSubsysPort:    n.LvolSubsysPort,
		HublvolPort:       n.HublvolPort,
		NvmfPort:          n.NvmfPort,
		HealthCheck:       n.HealthCheck,
		DeviceCount:       n.DeviceCount,
		OnlineDeviceCount: n.OnlineDeviceCount,
		FailureDomain:     &fd,
		Capacity: &v1alpha1.CapacityObservation{
			SizeTotal: n.Capacity.SizeTotal,
			SizeProv:  n.Capacity.SizeProv,
			SizeUsed:  n.Capacity.SizeUsed,
			SizeFree:  n.Capacity.SizeFree,
			SizeUtil:  n.Capacity.SizeUtil,
		},
		AddTask:          prev.AddTask,
		ActiveOperation:  prev.ActiveOperation,
		OperationHistory: prev.OperationHistory,
	}
}

// show writes the node record n into cr's status: atProvider and the
// Ready condition.
func show(cr *v1alpha1.StorageNode, n *simplyblock.StorageNodeDTO) {
	cr.Status.AtProvider = observe(cr.Status.AtProvider, n)
	if simplyblock.NodeStatus(n.Status) == simplyblock.NodeRemoved {
		cr.SetConditions(unavailable(errRemoved))
		return
	}
	cr.SetConditions(availability(n.Status))
}

// ShowSeen writes what an operation saw of h, a StorageNode, into its
// status when the operation's record is added to it
// (ops.Lock.ObserveHistory). A snapshot without the node list, or without
// the node's record, changes nothing.
func ShowSeen(h ops.Target, s *ops.Snapshot) {
	cr, ok := h.(*v1alpha1.StorageNode)
	if !ok || meta.GetExternalName(cr) == "" {
		return
	}
	if n, ok := s.Node(meta.GetExternalName(cr)); ok && !(n.Status == simplyblock.NodeInCreation && addFailed(cr)) {
		show(cr, &n)
	}
}

// availability maps the node status onto the Ready condition.
func availability(s simplyblock.NodeStatus) xpv2.Condition {
	switch s {
	case simplyblock.NodeOnline:
		return xpv2.Available()
	case simplyblock.NodeInCreation:
		c := xpv2.Creating()
		c.Message = "node record is in_creation"
		return c
	default:
		return unavailable("node status is " + string(s))
	}
}

// creating reports an add in progress, with the task's progress.
func creating(t *v1alpha1.NodeAddTask) xpv2.Condition {
	c := xpv2.Creating()
	if t == nil {
		c.Message = "waiting for the node_add task"
		return c
	}
	c.Message = fmt.Sprintf("node_add task %s is %s", t.ID, t.Status)
	if t.Retry > 0 {
		c.Message += fmt.Sprintf(" (retry %d)", t.Retry)
	}
	if t.Result != "" {
		c.Message += ": " + t.Result
	}
	return c
}

func unavailable(msg string) xpv2.Condition {
	c := xpv2.Unavailable()
	c.Message = msg
	return c
}

// inTransition reports whether the node is being added, is in a
// transitional state or is being removed, when it is worth observing more
// often. Settled states (online, offline, suspended, down, ...) are polled at
// the configured interval.
func inTransition(cr *v1alpha1.StorageNode) bool {
	if addTaskPending(cr) || managedcontroller.CreateOutcomeUnknown(cr) {
		return true
	}
	status := simplyblock.NodeStatus(cr.Status.AtProvider.Status)
	if cr.GetDeletionTimestamp() != nil {
		return status != simplyblock.NodeRemoved
	}
	switch status {
	case simplyblock.NodeInCreation, simplyblock.NodeInShutdown, simplyblock.NodeInRestart:
		return true
	default:
		return false
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
