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

package storagenodeops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// The per-type policy, from the backend's behaviour (backend-behaviour.md
// sections 4.3, 4.4, 4.5 and 8). The README's "Operations" table
// summarises it.

// Cluster statuses in which a node action must not start: the cluster is
// being changed as a whole. (in_shrink, held during each attempt of a node
// removal, is never seen: the backend answers the cluster GET with a 500
// while it lasts, so no snapshot is taken.)
var clusterBusy = []sb.ClusterStatus{sb.ClusterInActivation, sb.ClusterInExpansion}

// planFor returns the steps of cr's type on node nodeID of cluster
// clusterID.
func planFor(cr *v1alpha1.StorageNodeOps, clusterID, nodeID string) []ops.Step {
	p := cr.Spec.ForProvider
	switch p.Type {
	case v1alpha1.NodeSuspend:
		return []ops.Step{suspendStep(clusterID, nodeID)}
	case v1alpha1.NodeResume:
		return []ops.Step{resumeStep(clusterID, nodeID)}
	case v1alpha1.NodeShutdown:
		return []ops.Step{shutdownStep(clusterID, nodeID, p.Shutdown != nil && p.Shutdown.Force)}
	case v1alpha1.NodeRestart:
		// The restart's force also forces the shutdown before it: a forced
		// restart of a running node kills SPDK anyway, and without force
		// the shutdown keeps its safety gate.
		rp := restartParams(p.Restart)
		return []ops.Step{shutdownStep(clusterID, nodeID, rp.Force), restartStep(clusterID, nodeID, "restart", rp)}
	case v1alpha1.NodeStart:
		return []ops.Step{restartStep(clusterID, nodeID, "start", restartParams(p.Restart))}
	case v1alpha1.NodeRemove:
		return []ops.Step{removeStep(clusterID, nodeID, removeOptions(p.Remove))}
	}
	return nil
}

func restartParams(p *v1alpha1.NodeRestartParameters) sb.RestartParams {
	if p == nil {
		return sb.RestartParams{}
	}
	return sb.RestartParams{Force: p.Force, ReattachVolume: p.ReattachVolume, NodeAddress: p.NodeAddress, NewSsdPcie: slices.Clone(p.NewSsdPcie)}
}

func removeOptions(p *v1alpha1.NodeRemoveParameters) sb.NodeDeleteOptions {
	if p == nil {
		return sb.NodeDeleteOptions{}
	}
	return sb.NodeDeleteOptions{ForceRemove: p.ForceRemove, ForceMigrate: p.ForceMigrate, ForceDelete: p.ForceDelete}
}

func in(st sb.ClusterStatus, set []sb.ClusterStatus) bool { return slices.Contains(set, st) }

func list(items []string) string {
	const show = 5
	if len(items) > show {
		return strings.Join(items[:show], ", ") + fmt.Sprintf(" and %d more", len(items)-show)
	}
	return strings.Join(items, ", ")
}

// A flag is a boolean query parameter of a call.
type flag struct {
	name string
	set  bool
}

// query renders the set flags of a call (the client sends only those) as a
// query string for its Path.
func query(flags ...flag) string {
	var set []string
	for _, f := range flags {
		if f.set {
			set = append(set, f.name+"=true")
		}
	}
	if len(set) == 0 {
		return ""
	}
	return "?" + strings.Join(set, "&")
}

// nodeCall returns a node action's endpoint template and path.
func nodeCall(method, verb, cluster, node string) (endpoint, path string) {
	return method + " /clusters/{id}/storage-nodes/{id}/" + verb, method + " /clusters/" + cluster + "/storage-nodes/" + node + "/" + verb
}

func nodeStatusOf(node string) func(s *ops.Snapshot) string {
	return func(s *ops.Snapshot) string {
		n, _ := s.Node(node)
		return string(n.Status)
	}
}

// lookup returns the node, or a refusal when it is not (or no longer) a
// live node of the cluster: no action but a removal applies to it then.
func lookup(s *ops.Snapshot, node string) (sb.StorageNodeDTO, string) {
	n, ok := s.Node(node)
	switch {
	case !ok:
		return n, fmt.Sprintf("node %s is not in the cluster's node list", node)
	case n.Status == sb.NodeRemoved:
		return n, fmt.Sprintf("node %s is removed", node)
	}
	return n, ""
}

// peers describes the live nodes other than node whose status is (among
// true) or is not (among false) one of sts.
func peers(s *ops.Snapshot, node string, among bool, sts ...sb.NodeStatus) []string {
	var out []string
	for _, n := range s.LiveNodes() {
		if n.ID != node && slices.Contains(sts, n.Status) == among {
			out = append(out, fmt.Sprintf("%s (%s)", n.ID, n.Status))
		}
	}
	return out
}

// nodeChanges returns the status changes of node after the baseline.
func nodeChanges(b ops.Baseline, s *ops.Snapshot, node string) []ops.Event {
	var out []ops.Event
	for _, e := range s.EventsSince(b.Event) {
		if e.Object == "StorageNode" && e.To != "" && e.ObjectID == node {
			out = append(out, e)
		}
	}
	return out
}

// reached reports that node went to one of to after the baseline: a status
// change in the event log, or its current status when that differs from
// the status before the call (a forced shutdown may start from
// in_shutdown, which is then no evidence).
func reached(b ops.Baseline, s *ops.Snapshot, node string, to ...sb.NodeStatus) bool {
	for _, e := range nodeChanges(b, s, node) {
		if slices.Contains(to, sb.NodeStatus(e.To)) {
			return true
		}
	}
	n, ok := s.Node(node)
	return ok && string(n.Status) != b.Status && slices.Contains(to, n.Status)
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

// suspendStep: POST /suspend (204, synchronous). The backend suspends only
// an online node and sets its auto_restart_disabled flag (force is
// ignored, so false is sent). In any other status it answers a plain-text
// 500, which is its refusal: the operation fails with its words and does
// not retry. Done: the node is suspended (the 204 proves it).
//
// A lost answer without evidence is sent again. Evidence (a change to
// suspended after the baseline, or the node suspended now) would show a
// suspend that took effect, so none means it almost certainly did not; and
// a resend first passes the skip and the gate again, so a node found
// suspended completes the step without a call and one no longer online is
// waited for. The only repeat the backend minds is a second suspend of a
// node already suspended, which it refuses with a 500 and changes nothing:
// at worst the operation fails with that refusal, never with a second
// effect. Stopping with OutcomeUnknown instead would fail every lost
// answer of a call that most likely never arrived.
func suspendStep(cluster, node string) ops.Step {
	s := ops.Step{Name: "suspend", Subject: node, Needs: ops.Needs{Nodes: true, Events: true},
		OnAmbiguous: ops.ResendWithoutEvidence, ServerErrorIsRefusal: true, BaselineOf: nodeStatusOf(node),
		CheckHint: "the node's status: if it is suspended the suspend took effect (a second suspend is refused with a 500)",
		Call:      func(ctx context.Context, api sb.API) error { return api.SuspendStorageNode(ctx, cluster, node, false) }}
	s.Endpoint, s.Path = nodeCall("POST", "suspend", cluster, node)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if n, ok := snap.Node(node); ok && n.Status == sb.NodeSuspended {
			return true, fmt.Sprintf("node %s is already suspended", node)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, refusal := lookup(snap, node)
		switch {
		case refusal != "":
			return "", refusal
		case n.Status != sb.NodeOnline:
			return fmt.Sprintf("node %s is %s; only an online node can be suspended", node, n.Status), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool { return reached(b, snap, node, sb.NodeSuspended) }
	s.Check = syncCheck(node, sb.NodeSuspended)
	return s
}

// resumeStep: POST /resume (204, synchronous), the mirror of suspend. The
// backend resumes only a suspended node (→ online, clearing its
// auto_restart_disabled flag) and answers a plain-text 500 otherwise: a
// refusal. A node already online is skipped: it is not suspended, so there
// is nothing to resume (whether it never was or was resumed already). A
// lost answer without evidence is sent again, for the reasons given at
// suspendStep: the skip and the gate run first, and a repeat on a node
// already online is refused with a 500 without any effect.
func resumeStep(cluster, node string) ops.Step {
	s := ops.Step{Name: "resume", Subject: node, Needs: ops.Needs{Nodes: true, Events: true},
		OnAmbiguous: ops.ResendWithoutEvidence, ServerErrorIsRefusal: true, BaselineOf: nodeStatusOf(node),
		CheckHint: "the node's status: if it is online the resume took effect (a second resume is refused with a 500)",
		Call:      func(ctx context.Context, api sb.API) error { return api.ResumeStorageNode(ctx, cluster, node) }}
	s.Endpoint, s.Path = nodeCall("POST", "resume", cluster, node)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if n, ok := snap.Node(node); ok && n.Status == sb.NodeOnline {
			return true, fmt.Sprintf("node %s is online, not suspended: nothing to resume (it was never suspended, or was resumed already)", node)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, refusal := lookup(snap, node)
		switch {
		case refusal != "":
			return "", refusal
		case n.Status != sb.NodeSuspended:
			return fmt.Sprintf("node %s is %s; only a suspended node can be resumed", node, n.Status), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool { return reached(b, snap, node, sb.NodeOnline) }
	s.Check = syncCheck(node, sb.NodeOnline)
	return s
}

// shutdownStep: POST /shutdown?force (202: the checks run synchronously,
// the work in the background).
//
// Graceful (no force): the backend shuts down only an online, suspended or
// down node, and refuses with 409 while a peer restarts or shuts down or a
// migration involves the node, and with a plain-text 500 when its fault
// tolerance check fails. Both are refusals (a 4xx by default, the 500
// through ServerErrorIsRefusal): the operation fails with the backend's
// words. The gate adds a safety check: every other live node must be
// online, since shutting this one down while another is already out would
// exceed the cluster's fault tolerance; it names the nodes it waits for.
// Forced: the backend accepts any status and skips the checks on peers; the
// gate only refuses a removed node.
//
// Either way the gate waits while the cluster is in_activation or
// in_expansion: after its 202 the backend refuses a graceful shutdown
// silently during an expansion (force bypasses that check, but a node
// leaving disturbs an activation or expansion either way). It also refuses
// silently while any lvol migration runs, which the API does not show. So
// evidence is required: the node goes in_shutdown or offline after the
// call. Done: offline. A node whose SPDK could not be killed stays
// in_shutdown until the backend sets it offline after 120 s; the deadline
// covers the rest.
//
// A lost answer without evidence: a graceful repeat is harmless (once the
// node left online, suspended or down it is refused with 409, and the skip
// and gate run again first), so it is sent again; a forced repeat kills
// SPDK again, so the operation stops with OutcomeUnknown.
func shutdownStep(cluster, node string, force bool) ops.Step {
	s := ops.Step{Name: "shutdown", Subject: node, Needs: ops.Needs{Nodes: true, Events: true},
		RequireEvidence: true, OnAmbiguous: ops.ResendWithoutEvidence, ServerErrorIsRefusal: true, BaselineOf: nodeStatusOf(node),
		CheckHint: "the node's status: a shutdown may be running (in_shutdown)",
		Call:      func(ctx context.Context, api sb.API) error { return api.ShutdownStorageNode(ctx, cluster, node, force) }}
	if force {
		s.OnAmbiguous = ops.FailWithoutEvidence
		s.CheckHint = "the node's status: a forced shutdown may be running (in_shutdown), and a second one kills SPDK again"
	}
	s.Endpoint, s.Path = nodeCall("POST", "shutdown", cluster, node)
	s.Path += query(flag{"force", force})
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if n, ok := snap.Node(node); ok && n.Status == sb.NodeOffline {
			return true, fmt.Sprintf("node %s is already offline", node)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, refusal := lookup(snap, node)
		if refusal != "" {
			return "", refusal
		}
		if st := snap.Cluster.Status; in(st, clusterBusy) {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if force {
			return "", ""
		}
		switch n.Status {
		case sb.NodeOnline, sb.NodeSuspended, sb.NodeDown:
		default:
			return fmt.Sprintf("node %s is %s; a graceful shutdown needs online, suspended or down (force shuts a node down from any status)", node, n.Status), ""
		}
		if bad := peers(snap, node, false, sb.NodeOnline); len(bad) > 0 {
			return "safety gate: with other nodes not online, shutting this one down would exceed the cluster's fault tolerance (force skips this check); not online: " + list(bad), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return reached(b, snap, node, sb.NodeInShutdown, sb.NodeOffline)
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		switch n, _ := snap.Node(node); n.Status {
		case sb.NodeOffline:
			return ops.Verdict{Done: true}
		case sb.NodeInShutdown:
			return ops.Verdict{Progress: "node is in_shutdown (the backend sets a node stuck in_shutdown offline after 120 s)"}
		default:
			return ops.Verdict{Progress: fmt.Sprintf("node is %s", n.Status)}
		}
	}
	return s
}

// restartStep: POST /restart or /start (the same call in the backend; 202
// with no synchronous checks). The body carries force, reattach_volume,
// node_address and new_ssd_pcie.
//
// The backend's thread restarts an offline node (with force any status but
// removed), but never while the cluster is in_activation, and not while
// another node restarts or shuts down (unless the cluster is suspended and
// drained, which the API does not show); otherwise it refuses silently. So
// the gate waits for those, and evidence is required: the node goes
// in_restart or online after the call. Done: online. A node already online
// is skipped: within a Restart it came back after the shutdown, within a
// Start there is nothing to start.
//
// A restart that fails after taking the node's restart claim kills SPDK
// and sets the node offline again; the backend's node_restart task retries
// it once its lease goes stale (180 s, up to 11 times). So a failure is
// not final: the step reports it and keeps waiting, and only the deadline
// ends it.
//
// A lost answer without evidence: without force a repeat on a node that is
// no longer offline is a no-op in the backend (and the gate, which wants
// offline, runs again first), so it is sent again; with force a repeat
// after a completed restart is a second full restart (SPDK killed), so the
// operation stops with OutcomeUnknown.
func restartStep(cluster, node, verb string, p sb.RestartParams) ops.Step {
	s := ops.Step{Name: verb, Subject: node, Needs: ops.Needs{Nodes: true, Events: true},
		RequireEvidence: true, OnAmbiguous: ops.ResendWithoutEvidence, BaselineOf: nodeStatusOf(node),
		CheckHint: "the node's status: a restart may be running (in_restart)"}
	s.Call = func(ctx context.Context, api sb.API) error { return api.RestartStorageNode(ctx, cluster, node, p) }
	if verb == "start" {
		s.Call = func(ctx context.Context, api sb.API) error { return api.StartStorageNode(ctx, cluster, node, p) }
	}
	if p.Force {
		s.OnAmbiguous = ops.FailWithoutEvidence
		s.CheckHint = "the node's status: a forced restart may be running (in_restart) or done, and a second one kills SPDK again"
	}
	// Without force the backend restarts only an offline node; with force
	// also one that failed without being shut down (never a suspended one:
	// resume it instead, nor one in transition).
	from := []sb.NodeStatus{sb.NodeOffline}
	if p.Force {
		from = append(from, sb.NodeUnreachable, sb.NodeSchedulable, sb.NodeDown)
	}
	s.Endpoint, s.Path = nodeCall("POST", verb, cluster, node)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if n, ok := snap.Node(node); ok && n.Status == sb.NodeOnline {
			return true, fmt.Sprintf("node %s is already online", node)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, refusal := lookup(snap, node)
		if refusal != "" {
			return "", refusal
		}
		if st := snap.Cluster.Status; st == sb.ClusterInActivation {
			return "the cluster is in_activation (the backend refuses node restarts then)", ""
		}
		if !slices.Contains(from, n.Status) {
			if p.Force {
				return fmt.Sprintf("node %s is %s; waiting for offline, unreachable, schedulable or down", node, n.Status), ""
			}
			return fmt.Sprintf("node %s is %s, waiting for offline (force restarts a node that failed without being shut down)", node, n.Status), ""
		}
		if busy := peers(snap, node, true, sb.NodeInRestart, sb.NodeInShutdown); len(busy) > 0 {
			return "other nodes are restarting or shutting down (the backend refuses a restart silently then): " + list(busy), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return reached(b, snap, node, sb.NodeInRestart, sb.NodeOnline)
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		n, _ := snap.Node(node)
		if n.Status == sb.NodeOnline {
			return ops.Verdict{Done: true}
		}
		ch := nodeChanges(b, snap, node)
		failed := 0
		for _, e := range ch {
			if e.From == string(sb.NodeInRestart) && e.To == string(sb.NodeOffline) {
				failed++
			}
		}
		switch {
		case failed > 0 && n.Status == sb.NodeOffline:
			return ops.Verdict{Progress: fmt.Sprintf("the restart failed %s since the call (in_restart → offline); the backend's node_restart task retries it once its lease goes stale (180 s)", times(failed))}
		case failed > 0:
			return ops.Verdict{Progress: fmt.Sprintf("node is %s; the restart failed %s since the call (in_restart → offline) and the backend is retrying it", n.Status, times(failed))}
		}
		return ops.Verdict{Progress: fmt.Sprintf("node is %s", n.Status)}
	}
	return s
}

// times says how many times: "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// removeStep: DELETE /storage-nodes/{id}/?force_remove&force_migrate&
// force_delete (204 once its synchronous checks passed and a node_removal
// task is queued; a repeat while the removal runs answers 204 with the
// same task).
//
// The backend refuses with a plain-text 500 when the node is not online or
// suspended, another node is not online, the node still has volumes or
// snapshots, it has open tasks (unless force_remove), or its fault
// tolerance or failure-domain checks fail. The gate waits for what the API
// shows (the node's and its peers' statuses, its volume count, the cluster
// not in_activation or in_expansion).
//
// force_delete on a node that is not removed yet answers 500 although the
// removal was queued (the record can only be deleted once removed). So a
// 5xx is ambiguous here, and evidence decides whether the removal was
// queued: the node goes in_shutdown, offline or removed after the call, or
// disappears. An answered call needs no evidence: the backend may take
// long to start on it. Done: the node is removed or gone from the list
// (the backend keeps the removed record even with force_delete). The task
// retries a failed attempt forever, so only the deadline ends a removal
// that does not progress (minutes to hours are normal: it waits for data
// migration).
//
// A lost answer (or a 5xx) without evidence stops the operation with
// OutcomeUnknown. A repeat while the removal runs would be harmless, but
// without evidence that the first was queued, a removal cancelled
// meanwhile (possible from the CLI) would be queued again; a removal is not
// repeated blindly. With force_delete a real refusal (a check the gate
// cannot see) also ends this way, with the hint to check the node.
func removeStep(cluster, node string, o sb.NodeDeleteOptions) ops.Step {
	s := ops.Step{Name: "remove", Subject: node, Needs: ops.Needs{Nodes: true, Events: true},
		OnAmbiguous: ops.FailWithoutEvidence, ServerErrorIsAmbiguous: true, BaselineOf: nodeStatusOf(node),
		CheckHint: "the node's status and the cluster's tasks: a removal may be queued (node_removal task) or running (the node in_shutdown or offline)",
		Call:      func(ctx context.Context, api sb.API) error { return api.DeleteStorageNode(ctx, cluster, node, o) }}
	s.Endpoint, s.Path = nodeCall("DELETE", "", cluster, node)
	s.Path += query(flag{"force_remove", o.ForceRemove}, flag{"force_migrate", o.ForceMigrate}, flag{"force_delete", o.ForceDelete})
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		n, ok := snap.Node(node)
		switch {
		case !ok:
			return true, fmt.Sprintf("node %s is already removed (it is not in the cluster's node list)", node)
		case n.Status == sb.NodeRemoved:
			return true, fmt.Sprintf("node %s is already removed", node)
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, _ := snap.Node(node)
		if st := snap.Cluster.Status; in(st, clusterBusy) {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if n.Status != sb.NodeOnline && n.Status != sb.NodeSuspended {
			return fmt.Sprintf("node %s is %s; the backend removes only an online or suspended node", node, n.Status), ""
		}
		if bad := peers(snap, node, false, sb.NodeOnline); len(bad) > 0 {
			return "the backend removes a node only while every other node is online; not online: " + list(bad), ""
		}
		if n.Lvols > 0 {
			return fmt.Sprintf("node %s still holds %d volumes; the backend removes only a node without volumes or snapshots", node, n.Lvols), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		if _, ok := snap.Node(node); !ok {
			return true
		}
		return reached(b, snap, node, sb.NodeInShutdown, sb.NodeOffline, sb.NodeRemoved)
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		n, ok := snap.Node(node)
		if !ok || n.Status == sb.NodeRemoved {
			return ops.Verdict{Done: true}
		}
		return ops.Verdict{Progress: fmt.Sprintf("node is %s; the backend's node_removal task shuts it down and migrates its data away (minutes to hours)", n.Status)}
	}
	return s
}
