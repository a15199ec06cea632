/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package steps

import (
	"context"
	"fmt"
	"slices"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// A Node is the storage node a step works on.
type Node struct {
	Cluster, ID string
	// SkipIfGone skips the step when the node was removed meanwhile (a
	// rolling restart goes on with its next node); otherwise a node that is
	// gone fails the step.
	SkipIfGone bool
}

// skip combines the node's "gone" skip with the step's own.
func (n Node) skip(own func(s *ops.Snapshot) (bool, string)) func(s *ops.Snapshot) (bool, string) {
	return func(s *ops.Snapshot) (bool, string) {
		if n.SkipIfGone && gone(s, n.ID) {
			return true, fmt.Sprintf("node %s is gone; skipped", n.ID)
		}
		return own(s)
	}
}

// skipIn skips the step when the node's status is one of sts.
func (n Node) skipIn(why string, sts ...sb.NodeStatus) func(s *ops.Snapshot) (bool, string) {
	return n.skip(func(s *ops.Snapshot) (bool, string) {
		if node, ok := s.Node(n.ID); ok && slices.Contains(sts, node.Status) {
			return true, fmt.Sprintf("node %s is %s", n.ID, why)
		}
		return false, ""
	})
}

// A ShutdownGate is how much of the cluster's health a graceful node
// shutdown waits for, beyond the backend's own checks.
type ShutdownGate int

// Shutdown gates.
const (
	// PeersOnline waits until every other live node is online: shutting
	// this one down while another is out would exceed the cluster's fault
	// tolerance.
	PeersOnline ShutdownGate = iota
	// ClusterHealthy also waits for the cluster to be active and not
	// rebalancing (a rolling restart's health gate).
	ClusterHealthy
	// BackendChecksOnly waits only for what the backend itself refuses (a
	// rolling restart without its health gate).
	BackendChecksOnly
)

// ShutdownOptions shape a node shutdown.
type ShutdownOptions struct {
	// Force skips the backend's checks (and the gate's).
	Force bool
	// Gate is what a graceful shutdown waits for.
	Gate ShutdownGate
	// RestartFollows says the plan restarts the node next: a late original
	// of a lost shutdown would then take the restarted node down again.
	RestartFollows bool
	// MovesTo, for a node migration, skips the shutdown of a node that is
	// already online at this address (it moved already).
	MovesTo string
}

// NodeShutdown shuts a node down: POST …/shutdown[?force=true], 202
// (docs/steps.md, "Node shutdown").
func NodeShutdown(n Node, o ShutdownOptions) ops.Step {
	s := ops.Step{Name: "shutdown", Needs: ops.Needs{Nodes: true, Events: true, Tasks: !o.Force},
		WithoutEvidence: ops.NoEvidenceFails, OnServerError: ops.ServerErrorIsRefusal, BaselineOf: nodeStatusOf(n.ID),
		CheckHint: "the node's status: a shutdown may be running (in_shutdown)",
		Call: func(ctx context.Context, api sb.API) error {
			return api.ShutdownStorageNode(ctx, n.Cluster, n.ID, o.Force)
		}}
	s.Endpoint, s.Path = nodeCall("POST", "shutdown", n.Cluster, n.ID)
	s.Path += query(flag{"force", o.Force})
	switch {
	case o.Force:
		s.OnLostAnswer = ops.LostAnswerFails
		s.CheckHint = "the node's status: a forced shutdown may be running (in_shutdown), and a second one kills SPDK again"
	case o.RestartFollows:
		s.OnLostAnswer = ops.LostAnswerAsks
		s.RefusedForNow, s.WithoutEvidence = shutdownRefusedForNow, ops.NoEvidenceSendsAgain
	default:
		s.OnLostAnswer = ops.LostAnswerResends
		s.RefusedForNow, s.WithoutEvidence = shutdownRefusedForNow, ops.NoEvidenceSendsAgain
	}
	s.Skip = n.skipIn("already offline", sb.NodeOffline)
	if o.MovesTo != "" {
		offline, there := s.Skip, onlineAt(n, o.MovesTo)
		s.Skip = func(snap *ops.Snapshot) (bool, string) {
			if skip, why := there(snap); skip {
				return skip, why
			}
			return offline(snap)
		}
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		node, refusal := lookup(snap, n.ID)
		if refusal != "" {
			return "", refusal
		}
		if st := snap.Cluster.Status; st == sb.ClusterInActivation || st == sb.ClusterInExpansion {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if o.Force {
			return "", ""
		}
		switch node.Status {
		case sb.NodeOnline, sb.NodeSuspended, sb.NodeDown:
		default:
			return fmt.Sprintf("node %s is %s; a graceful shutdown needs online, suspended or down (force shuts a node down from any status)", n.ID, node.Status), ""
		}
		switch bad := nodesNotIn(snap, n.ID, sb.NodeOnline); {
		case o.Gate == ClusterHealthy && snap.Cluster.Status != sb.ClusterActive:
			return fmt.Sprintf("health gate: the cluster is %s, not active", snap.Cluster.Status), ""
		case o.Gate == ClusterHealthy && snap.Cluster.IsReBalancing:
			return "health gate: the cluster is rebalancing", ""
		case o.Gate == ClusterHealthy && len(bad) > 0:
			return "health gate: other nodes are not online: " + list(bad), ""
		case o.Gate == PeersOnline && len(bad) > 0:
			return "safety gate: with other nodes not online, shutting this one down would exceed the cluster's fault tolerance (force skips this check); not online: " + list(bad), ""
		}
		return migrationsBlockShutdown(snap, n.ID), ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return reached(b, snap, n.ID, sb.NodeInShutdown, sb.NodeOffline)
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		switch node, _ := snap.Node(n.ID); node.Status {
		case sb.NodeOffline:
			return ops.Verdict{Done: true}
		case sb.NodeInShutdown:
			return ops.Verdict{Progress: "node is in_shutdown (the backend sets a node stuck in_shutdown offline after 120 s)"}
		default:
			return ops.Verdict{Progress: fmt.Sprintf("node is %s", node.Status)}
		}
	}
	return s
}

// NodeRestart restarts an offline node: POST …/restart (verb "restart") or
// …/start (verb "start"), the same call in the backend, 202
// (docs/steps.md, "Node restart").
func NodeRestart(n Node, verb string, p sb.RestartParams) ops.Step {
	s := ops.Step{Name: verb, Needs: ops.Needs{Nodes: true, Events: true},
		WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerResends, BaselineOf: nodeStatusOf(n.ID),
		CheckHint: "the node's status: a restart may be running (in_restart)"}
	s.Call = func(ctx context.Context, api sb.API) error { return api.RestartStorageNode(ctx, n.Cluster, n.ID, p) }
	if verb == "start" {
		s.Call = func(ctx context.Context, api sb.API) error { return api.StartStorageNode(ctx, n.Cluster, n.ID, p) }
	}
	from := []sb.NodeStatus{sb.NodeOffline}
	if p.Force {
		s.OnLostAnswer = ops.LostAnswerFails
		s.CheckHint = "the node's status: a forced restart may be running (in_restart) or done, and a second one kills SPDK again"
		from = append(from, sb.NodeUnreachable, sb.NodeSchedulable, sb.NodeDown)
	}
	s.Endpoint, s.Path = nodeCall("POST", verb, n.Cluster, n.ID)
	s.Skip = n.skipIn("already online", sb.NodeOnline)
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		node, refusal := lookup(snap, n.ID)
		if refusal != "" {
			return "", refusal
		}
		if snap.Cluster.Status == sb.ClusterInActivation {
			return "the cluster is in_activation (the backend refuses node restarts then)", ""
		}
		if !slices.Contains(from, node.Status) {
			if p.Force {
				return fmt.Sprintf("node %s is %s; waiting for offline, unreachable, schedulable or down", n.ID, node.Status), ""
			}
			return fmt.Sprintf("node %s is %s, waiting for offline (force restarts a node that failed without being shut down)", n.ID, node.Status), ""
		}
		if busy := nodesIn(snap, n.ID, sb.NodeInRestart, sb.NodeInShutdown); len(busy) > 0 {
			return "other nodes are restarting or shutting down (the backend refuses a restart silently then): " + list(busy), ""
		}
		return "", ""
	}
	// The backend first makes sure a node_restart task exists for the node
	// (storage_node_ops.py:4292-4325), logging "Task created" when it makes
	// one; its runner carries out a restart the call's own pass refused.
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return reached(b, snap, n.ID, sb.NodeInRestart, sb.NodeOnline) || taskCreatedFor(b, snap, n.ID)
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		node, _ := snap.Node(n.ID)
		if node.Status == sb.NodeOnline {
			return ops.Verdict{Done: true}
		}
		failed := len(restartFailures(b, snap, n.ID))
		switch {
		case failed > 0 && node.Status == sb.NodeOffline:
			return ops.Verdict{Progress: fmt.Sprintf("the restart failed %s since the call (the backend logged the node offline again); the backend's node_restart task retries it once its lease goes stale (180 s)", times(failed))}
		case failed > 0:
			return ops.Verdict{Progress: fmt.Sprintf("node is %s; the restart failed %s since the call (the backend logged the node offline again) and the backend is retrying it", node.Status, times(failed))}
		}
		return ops.Verdict{Progress: fmt.Sprintf("node is %s", node.Status)}
	}
	return s
}

// NodeRestartAt restarts a node at a new address, a node moving to another
// host: NodeRestart with node_address set, done once the node is online
// there (docs/steps.md, "Node migration").
func NodeRestartAt(n Node, p sb.RestartParams) ops.Step {
	addr := ""
	if p.NodeAddress != nil {
		addr = *p.NodeAddress
	}
	ips := sb.HostIPs(context.Background(), addr)
	s := NodeRestart(n, "restart", p)
	s.Name = "restart at " + addr
	s.Needs.Tasks = true
	s.Describe = nodeState(n.ID)
	s.CheckHint = fmt.Sprintf("the node's status and management IP: a restart at %s may be running (in_restart), and the new host's agent must be reachable", addr)
	s.Skip = onlineAt(n, addr)
	restartGate := s.Gate
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if _, refusal := lookup(snap, n.ID); refusal != "" {
			return "", refusal
		}
		if st := snap.Cluster.Status; !in(st, []sb.ClusterStatus{sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly}) {
			return fmt.Sprintf("the cluster is %s; a node moves only while its cluster runs (active, degraded or read_only)", st), ""
		}
		if bad := nodesNotIn(snap, n.ID, sb.NodeOnline); len(bad) > 0 {
			return "every other node must be online while this one moves; not online: " + list(bad), ""
		}
		if !p.Force {
			for _, fn := range []string{"node_restart", "balancing_on_restart"} {
				if t := openTaskOn(snap, n.ID, fn); t != nil {
					return fmt.Sprintf("a %s task (%s) is %s on node %s (force moves it anyway)", fn, t.ID, t.Status, n.ID), ""
				}
			}
		}
		return restartGate(snap)
	}
	restartCheck := s.Check
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		v := restartCheck(b, snap)
		if node, _ := snap.Node(n.ID); v.Done && !node.IsAt(addr, ips) {
			return ops.Verdict{Failure: fmt.Sprintf("node %s came back online at %s, not at %s: the backend did not move it", n.ID, node.MgmtIP, sb.AddressHost(addr)), Reason: "MigrationFailed"}
		}
		return v
	}
	return s
}

// onlineAt skips a step of a node migration when the node is already online
// at address's host (StorageNodeDTO.IsAt).
func onlineAt(n Node, address string) func(s *ops.Snapshot) (bool, string) {
	ips := sb.HostIPs(context.Background(), address)
	return n.skip(func(snap *ops.Snapshot) (bool, string) {
		if node, ok := snap.Node(n.ID); ok && node.Status == sb.NodeOnline && node.IsAt(address, ips) {
			return true, fmt.Sprintf("node %s is already online at %s", n.ID, sb.AddressHost(address))
		}
		return false, ""
	})
}

// NodePromote re-adds a moved node's new devices and sets its primary IP:
// POST …/promote, 204 after about 5 s, no checks in the backend
// (docs/steps.md, "Node migration").
func NodePromote(n Node) ops.Step {
	s := ops.Step{Name: "promote", Needs: ops.Needs{Nodes: true},
		OnLostAnswer: ops.LostAnswerResends, Describe: nodeState(n.ID), BaselineOf: nodeStatusOf(n.ID),
		CheckHint: "the node's devices: a promote re-adds new devices, and a second one finds none to add",
		Call:      func(ctx context.Context, api sb.API) error { return api.PromoteStorageNode(ctx, n.Cluster, n.ID) }}
	s.Endpoint, s.Path = nodeCall("POST", "promote", n.Cluster, n.ID)
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		node, refusal := lookup(snap, n.ID)
		switch {
		case refusal != "":
			return "", refusal
		case node.Status != sb.NodeOnline:
			return fmt.Sprintf("node %s is %s; it is promoted once online", n.ID, node.Status), ""
		}
		return "", ""
	}
	s.Check = func(b ops.Baseline, _ *ops.Snapshot) ops.Verdict {
		if b.Sent {
			return ops.Verdict{Done: true}
		}
		return ops.Verdict{Progress: "waiting for the promote's answer"}
	}
	return s
}

// nodeState describes a node for failure messages: "node X is offline at
// 10.0.0.11".
func nodeState(id string) func(s *ops.Snapshot) string {
	return func(s *ops.Snapshot) string {
		node, ok := s.Node(id)
		if !ok {
			return fmt.Sprintf("node %s is gone", id)
		}
		return fmt.Sprintf("node %s is %s at %s", id, node.Status, node.MgmtIP)
	}
}

// syncCheck completes a synchronous call: its 204 means the backend
// already set the node to goal. Resolved by evidence instead, the node
// went to goal after the baseline.
func syncCheck(node string, goal sb.NodeStatus) func(b ops.Baseline, s *ops.Snapshot) ops.Verdict {
	return func(b ops.Baseline, s *ops.Snapshot) ops.Verdict {
		n, _ := s.Node(node)
		if b.Sent || n.Status == goal || reached(b, s, node, goal) {
			return ops.Verdict{Done: true}
		}
		return ops.Verdict{Progress: fmt.Sprintf("node is %s", n.Status)}
	}
}

// NodeSuspend suspends an online node: POST …/suspend, 204, synchronous
// (docs/steps.md, "Node suspend and resume").
func NodeSuspend(n Node) ops.Step {
	return nodeToggle(n, "suspend", sb.NodeOnline, sb.NodeSuspended,
		func(ctx context.Context, api sb.API) error {
			return api.SuspendStorageNode(ctx, n.Cluster, n.ID, false)
		},
		"already suspended", "only an online node can be suspended",
		"the node's status: if it is suspended the suspend took effect (a second suspend is refused with a 500)")
}

// NodeResume resumes a suspended node: POST …/resume, 204, synchronous
// (docs/steps.md, "Node suspend and resume").
func NodeResume(n Node) ops.Step {
	return nodeToggle(n, "resume", sb.NodeSuspended, sb.NodeOnline,
		func(ctx context.Context, api sb.API) error { return api.ResumeStorageNode(ctx, n.Cluster, n.ID) },
		"online, not suspended: nothing to resume (it was never suspended, or was resumed already)", "only a suspended node can be resumed",
		"the node's status: if it is online the resume took effect (a second resume is refused with a 500)")
}

// nodeToggle is a synchronous call that moves a node from one status to
// another and is refused with a 500 in any other.
func nodeToggle(n Node, verb string, from, to sb.NodeStatus, call func(ctx context.Context, api sb.API) error, skipWhy, gateWhy, hint string) ops.Step {
	s := ops.Step{Name: verb, Needs: ops.Needs{Nodes: true, Events: true},
		OnLostAnswer: ops.LostAnswerResends, OnServerError: ops.ServerErrorIsRefusal, BaselineOf: nodeStatusOf(n.ID),
		CheckHint: hint, Call: call}
	s.Endpoint, s.Path = nodeCall("POST", verb, n.Cluster, n.ID)
	s.Skip = n.skipIn(skipWhy, to)
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		node, refusal := lookup(snap, n.ID)
		switch {
		case refusal != "":
			return "", refusal
		case node.Status != from:
			return fmt.Sprintf("node %s is %s; %s", n.ID, node.Status, gateWhy), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool { return reached(b, snap, n.ID, to) }
	s.Check = syncCheck(n.ID, to)
	return s
}

// NodeRemove removes a node: DELETE …/storage-nodes/{id}/ with its force
// flags, 204 once a node_removal task is queued (docs/steps.md, "Node
// removal").
func NodeRemove(n Node, o sb.NodeDeleteOptions) ops.Step {
	s := ops.Step{Name: "remove", Needs: ops.Needs{Nodes: true, Events: true},
		OnLostAnswer: ops.LostAnswerFails, OnServerError: ops.ServerErrorIsAmbiguous, BaselineOf: nodeStatusOf(n.ID),
		CheckHint: "the node's status and the cluster's tasks: a removal may be queued (node_removal task) or running (the node in_shutdown or offline)",
		Call:      func(ctx context.Context, api sb.API) error { return api.DeleteStorageNode(ctx, n.Cluster, n.ID, o) }}
	s.Endpoint, s.Path = nodeCall("DELETE", "", n.Cluster, n.ID)
	s.Path += query(flag{"force_remove", o.ForceRemove}, flag{"force_migrate", o.ForceMigrate}, flag{"force_delete", o.ForceDelete})
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		node, ok := snap.Node(n.ID)
		switch {
		case !ok:
			return true, fmt.Sprintf("node %s is already removed (it is not in the cluster's node list)", n.ID)
		case node.Status == sb.NodeRemoved:
			return true, fmt.Sprintf("node %s is already removed", n.ID)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		node, _ := snap.Node(n.ID)
		if st := snap.Cluster.Status; st == sb.ClusterInActivation || st == sb.ClusterInExpansion {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if node.Status != sb.NodeOnline && node.Status != sb.NodeSuspended {
			return fmt.Sprintf("node %s is %s; the backend removes only an online or suspended node", n.ID, node.Status), ""
		}
		if bad := nodesNotIn(snap, n.ID, sb.NodeOnline); len(bad) > 0 {
			return "the backend removes a node only while every other node is online; not online: " + list(bad), ""
		}
		if node.Lvols > 0 {
			return fmt.Sprintf("node %s still holds %d volumes; the backend removes only a node without volumes or snapshots", n.ID, node.Lvols), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		if _, ok := snap.Node(n.ID); !ok {
			return true
		}
		return reached(b, snap, n.ID, sb.NodeInShutdown, sb.NodeOffline, sb.NodeRemoved)
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if gone(snap, n.ID) {
			return ops.Verdict{Done: true}
		}
		node, _ := snap.Node(n.ID)
		return ops.Verdict{Progress: fmt.Sprintf("node is %s; the backend's node_removal task shuts it down and migrates its data away (minutes to hours)", node.Status)}
	}
	return s
}
