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

package clusterops

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// The per-type policy, from the backend's behaviour (backend-behaviour.md
// sections 3, 4 and 8). The README's "Operations" table summarises it.

// Cluster statuses in which a cluster-level action must not start: another
// action (the backend's or ours) is changing the cluster.
var transitional = []sb.ClusterStatus{sb.ClusterInActivation, sb.ClusterInExpansion, sb.ClusterInShrink}

// Cluster statuses of a running cluster.
var running = []sb.ClusterStatus{sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly}

// planFor returns the steps of cr's type.
// autoExpand lists the nodes added with expand: true, which the backend
// expands the cluster for by itself.
func planFor(cr *v1alpha1.ClusterOps, clusterID string, autoExpand autoExpansion) func(targets []string) []ops.Step {
	p := cr.Spec.ForProvider
	return func(targets []string) []ops.Step {
		switch p.Type {
		case v1alpha1.ClusterActivate:
			return []ops.Step{activateStep(clusterID)}
		case v1alpha1.ClusterExpand:
			var expected int64
			if p.Expand != nil && p.Expand.ExpectedNodes != nil {
				expected = *p.Expand.ExpectedNodes
			}
			return []ops.Step{expandStep(clusterID, expected, autoExpand)}
		case v1alpha1.ClusterShutdown:
			return []ops.Step{shutdownStep(clusterID)}
		case v1alpha1.ClusterStart:
			return []ops.Step{startStep(clusterID, false)}
		case v1alpha1.ClusterRestart:
			sd, st := shutdownStep(clusterID), startStep(clusterID, true)
			sd.Name, st.Name = "restart: shutdown", "restart: start"
			return []ops.Step{sd, st}
		case v1alpha1.ClusterNodeRollingRestart:
			return rollingRestartSteps(clusterID, p.NodeRollingRestart, targets)
		case v1alpha1.ClusterUpgrade:
			return []ops.Step{upgradeStep(clusterID, p.Upgrade)}
		case v1alpha1.ClusterRebalance:
			return []ops.Step{rebalanceStep(clusterID)}
		}
		return nil
	}
}

// chooseTargets fixes the node order of a NodeRollingRestart when it
// starts: the listed order first, then the remaining live nodes in the
// backend's order.
func chooseTargets(cr *v1alpha1.ClusterOps) func(s *ops.Snapshot) []string {
	if cr.Spec.ForProvider.Type != v1alpha1.ClusterNodeRollingRestart {
		return nil
	}
	var order []string
	if p := cr.Spec.ForProvider.NodeRollingRestart; p != nil {
		order = p.Order
	}
	return func(s *ops.Snapshot) []string {
		live := s.LiveNodes()
		out := make([]string, 0, len(live))
		for _, id := range order {
			if n, ok := s.Node(id); ok && n.Status != sb.NodeRemoved && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
		for _, n := range live {
			if !slices.Contains(out, n.ID) {
				out = append(out, n.ID)
			}
		}
		return out
	}
}

func in(st sb.ClusterStatus, set []sb.ClusterStatus) bool { return slices.Contains(set, st) }

// nodesNotIn describes the live nodes whose status is not one of want.
func nodesNotIn(s *ops.Snapshot, want ...sb.NodeStatus) []string {
	var out []string
	for _, n := range s.LiveNodes() {
		if !slices.Contains(want, n.Status) {
			out = append(out, fmt.Sprintf("%s (%s)", n.ID, n.Status))
		}
	}
	return out
}

func count(s *ops.Snapshot, st sb.NodeStatus) int {
	c := 0
	for _, n := range s.LiveNodes() {
		if n.Status == st {
			c++
		}
	}
	return c
}

func list(items []string) string {
	const show = 5
	if len(items) > show {
		return strings.Join(items[:show], ", ") + fmt.Sprintf(" and %d more", len(items)-show)
	}
	return strings.Join(items, ", ")
}

// clusterChanges returns the cluster status changes after the baseline.
func clusterChanges(b ops.Baseline, s *ops.Snapshot) []ops.Event {
	var out []ops.Event
	for _, e := range s.EventsSince(b.Event) {
		if e.Object == "Cluster" && e.To != "" {
			out = append(out, e)
		}
	}
	return out
}

// nodeChanges returns the status changes of node id (any node when empty)
// after the baseline.
func nodeChanges(b ops.Baseline, s *ops.Snapshot, id string) []ops.Event {
	var out []ops.Event
	for _, e := range s.EventsSince(b.Event) {
		if e.Object == "StorageNode" && e.To != "" && (id == "" || e.ObjectID == id) {
			out = append(out, e)
		}
	}
	return out
}

func anyTo(evs []ops.Event, to ...string) bool {
	return slices.ContainsFunc(evs, func(e ops.Event) bool { return slices.Contains(to, e.To) })
}

func clusterCall(verb string, id string, call func(ctx context.Context, api sb.API) error) (string, string, func(ctx context.Context, api sb.API) error) {
	return "POST /clusters/{id}/" + verb, "POST /clusters/" + id + "/" + verb, call
}

// activateStep: POST /activate (202, background). Allowed from unready,
// suspended, degraded or read_only with every node online; never while an
// activation runs (a second one runs concurrently and the status flaps).
// Evidence: the cluster goes in_activation. Done: active. Failure: it
// reverts to the status it had before.
func activateStep(id string) ops.Step {
	s := ops.Step{Name: "activate", Subject: id, Needs: ops.Needs{Nodes: true, Events: true},
		RequireEvidence: true, OnAmbiguous: ops.FailWithoutEvidence,
		CheckHint: "the cluster's status: an activation may still be running (wait until it is active or back to unready) and a second one would run concurrently"}
	s.Endpoint, s.Path, s.Call = clusterCall("activate", id, func(ctx context.Context, api sb.API) error { return api.ActivateCluster(ctx, id) })
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if snap.Cluster.Status == sb.ClusterActive {
			return true, "the cluster is already active; nodes added later join through expansion"
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		st := snap.Cluster.Status
		switch {
		case in(st, transitional):
			return fmt.Sprintf("the cluster is %s", st), ""
		case st != sb.ClusterUnready && st != sb.ClusterSuspended && !in(st, running):
			return fmt.Sprintf("the cluster is %s; activation starts from unready, suspended, degraded or read_only", st), ""
		case len(snap.LiveNodes()) == 0:
			return "the cluster has no storage nodes", ""
		}
		if bad := nodesNotIn(snap, sb.NodeOnline); len(bad) > 0 {
			return "every storage node must be online; not yet: " + list(bad), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return anyTo(clusterChanges(b, snap), string(sb.ClusterInActivation), string(sb.ClusterActive)) ||
			snap.Cluster.Status == sb.ClusterInActivation || snap.Cluster.Status == sb.ClusterActive
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		st := snap.Cluster.Status
		if st == sb.ClusterActive {
			return ops.Verdict{Done: true}
		}
		ch := clusterChanges(b, snap)
		if n := len(ch); n > 0 && ch[n-1].From == string(sb.ClusterInActivation) && ch[n-1].To == b.Status && string(st) == b.Status {
			return ops.Verdict{Reason: "ActivationFailed", Failure: fmt.Sprintf(
				"the activation failed: the cluster went from in_activation back to %s (the backend logs the cause only on its server; common causes are too few online devices or no secondary nodes)", st)}
		}
		if st == sb.ClusterSuspended && b.Status != string(sb.ClusterSuspended) {
			return ops.Verdict{Progress: "the cluster is suspended (the activation watchdog fired); the backend re-activates it once every node is online"}
		}
		return ops.Verdict{Progress: fmt.Sprintf("the cluster is %s", st)}
	}
	return s
}

// expandStep: POST /expand (202, background). Allowed from active,
// degraded or read_only, once the expected nodes are online, no node is
// being created and no node_add or cluster_expand task is open.
//
// Nodes added with expand: true (autoExpand: their ids, from the
// StorageNode objects) make the backend expand the cluster itself through
// a cluster_expand task; calling /expand while that runs would race it. So
// the step waits until an in_expansion → active change follows each such
// node coming online, and then succeeds without a call. (The backend's
// task list fails with a 500 for as long as a cluster_expand task is kept,
// which is 30 days, so the event log is the reliable witness.)
//
// Otherwise evidence and completion come from the event log, because an
// expansion without new nodes flips in_expansion → active within
// milliseconds: the cluster must go in_expansion and then active after the
// call. Failure: it goes back to another status. Stuck in_expansion: the
// deadline.
func expandStep(id string, expected int64, auto autoExpansion) ops.Step {
	autoExpand := auto.ids
	s := ops.Step{Name: "expand", Subject: id, Needs: ops.Needs{Nodes: true, Events: true, Tasks: true},
		RequireEvidence: true, OnAmbiguous: ops.FailWithoutEvidence,
		CheckHint: "the cluster's status and logs: an expansion may be running (in_expansion), and a second one would create lvstores concurrently"}
	s.Endpoint, s.Path, s.Call = clusterCall("expand", id, func(ctx context.Context, api sb.API) error { return api.ExpandCluster(ctx, id) })
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if len(autoExpand) == 0 || len(auto.pending) > 0 || int64(count(snap, sb.NodeOnline)) < expected ||
			len(nodesIn(snap, sb.NodeInCreation)) > 0 || snap.Cluster.Status == sb.ClusterInExpansion {
			return false, ""
		}
		if len(unexpanded(snap, autoExpand)) == 0 {
			return true, "the backend expanded the cluster itself after the nodes added with expand: true came online"
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		st := snap.Cluster.Status
		switch {
		case st == sb.ClusterInExpansion:
			return "an expansion is running (in_expansion)", ""
		case !in(st, running):
			return fmt.Sprintf("the cluster is %s; expansion starts from active, degraded or read_only", st), ""
		}
		if busy := nodesIn(snap, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are being added: " + list(busy), ""
		}
		if len(auto.pending) > 0 {
			return "StorageNodes added with expand: true are not in the backend yet: " + list(auto.pending), ""
		}
		for _, t := range snap.Tasks {
			if t.Status != sb.TaskDone && (t.FunctionName == "cluster_expand" || t.FunctionName == "node_add") {
				return fmt.Sprintf("a %s task is %s", t.FunctionName, t.Status), ""
			}
		}
		if online := int64(count(snap, sb.NodeOnline)); online < expected {
			return fmt.Sprintf("%d of the %d expected storage nodes are online", online, expected), ""
		}
		if waiting := unexpanded(snap, autoExpand); len(waiting) > 0 {
			return "waiting for the backend's own expansion (cluster_expand task) for the nodes added with expand: true: " + list(waiting), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return anyTo(clusterChanges(b, snap), string(sb.ClusterInExpansion))
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		st := snap.Cluster.Status
		if st == sb.ClusterInExpansion {
			return ops.Verdict{Progress: "the cluster is in_expansion"}
		}
		ch := clusterChanges(b, snap)
		for i := len(ch) - 1; i >= 0; i-- {
			if ch[i].From != string(sb.ClusterInExpansion) {
				continue
			}
			if ch[i].To == string(sb.ClusterActive) {
				return ops.Verdict{Done: true}
			}
			return ops.Verdict{Reason: "ExpansionFailed", Failure: fmt.Sprintf(
				"the expansion failed: the cluster went from in_expansion back to %s (in HA mode at least 2 new nodes are needed; the cluster's logs have the cause)", ch[i].To)}
		}
		return ops.Verdict{Progress: fmt.Sprintf("the cluster is %s", st)}
	}
	return s
}

// An autoExpansion lists the StorageNodes added with expand: true: the
// backend ids of those it has adopted, and the names of those not yet in
// the backend.
type autoExpansion struct {
	ids     []string
	pending []string
}

// unexpanded returns the nodes of ids that are online but whose coming
// online (as far as the event window reaches) was not yet followed by an
// in_expansion → active change of the cluster. Nodes not online are left
// to the other gates.
func unexpanded(snap *ops.Snapshot, ids []string) []string {
	var out []string
	for _, id := range ids {
		n, ok := snap.Node(id)
		if !ok || n.Status != sb.NodeOnline {
			continue
		}
		online, expanded := -1, -1
		for i, e := range snap.Events {
			switch {
			case e.Object == "StorageNode" && e.ObjectID == id && e.To == string(sb.NodeOnline):
				online = i
			case e.Object == "Cluster" && e.From == string(sb.ClusterInExpansion) && e.To == string(sb.ClusterActive):
				expanded = i
			}
		}
		if online >= 0 && expanded < online {
			out = append(out, id)
		}
	}
	return out
}

// shutdownStep: POST /shutdown (202, background). The backend has no
// precondition; we wait while the cluster or a node is in transition.
// Evidence: a node goes suspended, in_shutdown or offline. Done: every
// node (not removed) is offline. A node stuck in_shutdown is set offline by
// the backend after 120 s.
func shutdownStep(id string) ops.Step {
	s := ops.Step{Name: "shutdown", Subject: id, Needs: ops.Needs{Nodes: true, Events: true},
		RequireEvidence: true, OnAmbiguous: ops.FailWithoutEvidence,
		CheckHint: "the node statuses: a shutdown may be running, and a second one kills every node again"}
	s.Endpoint, s.Path, s.Call = clusterCall("shutdown", id, func(ctx context.Context, api sb.API) error { return api.ShutdownCluster(ctx, id) })
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if len(snap.LiveNodes()) > 0 && len(nodesNotIn(snap, sb.NodeOffline)) == 0 {
			return true, "every storage node is already offline"
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; in(st, transitional) {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if busy := nodesIn(snap, sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return anyTo(nodeChanges(b, snap, ""), string(sb.NodeSuspended), string(sb.NodeInShutdown), string(sb.NodeOffline))
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if bad := nodesNotIn(snap, sb.NodeOffline); len(bad) > 0 {
			return ops.Verdict{Progress: fmt.Sprintf("%d of %d nodes offline; waiting for %s", count(snap, sb.NodeOffline), len(snap.LiveNodes()), list(bad))}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

func nodesIn(s *ops.Snapshot, want ...sb.NodeStatus) []string {
	var out []string
	for _, n := range s.LiveNodes() {
		if slices.Contains(want, n.Status) {
			out = append(out, fmt.Sprintf("%s (%s)", n.ID, n.Status))
		}
	}
	return out
}

// startStep: POST /start (202, background). The backend first force-shuts
// down every node, so a start on a running cluster is an outage: it is
// refused (or, within a Restart, waited out until the shutdown shows).
// Evidence: nodes go in_shutdown or in_restart. Done: every node online and
// the cluster active (or still unready when it never was activated).
// Failure: a node goes in_restart → offline, where the backend abandons the
// remaining nodes.
func startStep(id string, afterShutdown bool) ops.Step {
	s := ops.Step{Name: "start", Subject: id, Needs: ops.Needs{Nodes: true, Events: true},
		RequireEvidence: true, OnAmbiguous: ops.FailWithoutEvidence,
		CheckHint: "the node statuses: a start may be running, and a second start shuts down the nodes the first brought up"}
	if afterShutdown {
		s.GateTimeout = 10 * time.Minute
	}
	s.Endpoint, s.Path, s.Call = clusterCall("start", id, func(ctx context.Context, api sb.API) error { return api.StartCluster(ctx, id) })
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if !afterShutdown && snap.Cluster.Status == sb.ClusterActive && len(nodesNotIn(snap, sb.NodeOnline)) == 0 {
			return true, "the cluster is already active with every node online"
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		st := snap.Cluster.Status
		switch {
		case in(st, transitional):
			return fmt.Sprintf("the cluster is %s", st), ""
		case in(st, running) && afterShutdown:
			return fmt.Sprintf("the cluster is still %s after the shutdown; waiting for the backend to mark it suspended", st), ""
		case in(st, running):
			return "", fmt.Sprintf("the cluster is %s: start shuts every node down first, which would be an outage; restart individual offline nodes with StorageNodeOps instead", st)
		}
		if busy := nodesIn(snap, sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return anyTo(nodeChanges(b, snap, ""), string(sb.NodeInShutdown), string(sb.NodeInRestart))
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		live := snap.LiveNodes()
		for _, e := range nodeChanges(b, snap, "") {
			if e.From != string(sb.NodeInRestart) || e.To != string(sb.NodeOffline) {
				continue
			}
			k := slices.IndexFunc(live, func(n sb.StorageNodeDTO) bool { return n.ID == e.ObjectID })
			left := nodesNotIn(snap, sb.NodeOnline)
			return ops.Verdict{Reason: "StartAborted", Failure: fmt.Sprintf(
				"the start aborted at node %d of %d (%s): it did not come back online, and the backend abandons the nodes after it; not online: %s",
				k+1, len(live), e.ObjectID, list(left))}
		}
		if bad := nodesNotIn(snap, sb.NodeOnline); len(bad) > 0 {
			return ops.Verdict{Progress: fmt.Sprintf("%d of %d nodes online; waiting for %s", count(snap, sb.NodeOnline), len(live), list(bad))}
		}
		switch st := snap.Cluster.Status; {
		case st == sb.ClusterActive:
			return ops.Verdict{Done: true}
		case st == sb.ClusterUnready && b.Status == string(sb.ClusterUnready):
			return ops.Verdict{Done: true, Progress: "every node is online; the cluster was never activated, run an Activate"}
		default:
			return ops.Verdict{Progress: fmt.Sprintf("every node is online; waiting for the backend to re-activate the cluster (%s)", st)}
		}
	}
	return s
}

// rollingRestartSteps: per node, in order: shutdown (graceful), restart,
// then wait for the rebalancing the restart causes to end. With the health
// gate, a node is only shut down while every other node is online and the
// cluster is not rebalancing. The operation can be cancelled between nodes.
func rollingRestartSteps(id string, p *v1alpha1.NodeRollingRestartParameters, targets []string) []ops.Step {
	gate, perNode := true, 30*time.Minute
	if p != nil && p.HealthGate != nil {
		gate = *p.HealthGate
	}
	if p != nil && p.PerNodeTimeoutSeconds != nil {
		perNode = time.Duration(*p.PerNodeTimeoutSeconds) * time.Second
	}
	steps := make([]ops.Step, 0, 3*len(targets))
	for i, node := range targets {
		prefix := fmt.Sprintf("node %d/%d %s", i+1, len(targets), node)
		for _, s := range []ops.Step{nodeShutdownStep(id, node, gate), nodeRestartStep(id, node), settleStep(node)} {
			s.Name = prefix + ": " + s.Name
			s.Subject = node
			s.Timeout = perNode
			s.ProgressDone, s.ProgressTotal = int64(i), int64(len(targets))
			steps = append(steps, s)
		}
	}
	for i := 0; i < len(steps); i += 3 {
		steps[i].Cancellable = true
	}
	return steps
}

func nodeStatusOf(node string) func(s *ops.Snapshot) string {
	return func(s *ops.Snapshot) string {
		n, _ := s.Node(node)
		return string(n.Status)
	}
}

// nodeGone skips a node's steps once it was removed (or vanished) while
// the rolling restart ran.
func nodeGone(node string) func(snap *ops.Snapshot) (bool, string) {
	return func(snap *ops.Snapshot) (bool, string) {
		if n, ok := snap.Node(node); !ok || n.Status == sb.NodeRemoved {
			return true, fmt.Sprintf("node %s is gone; skipped", node)
		}
		return false, ""
	}
}

func nodeShutdownStep(cluster, node string, healthGate bool) ops.Step {
	s := ops.Step{Name: "shutdown", Needs: ops.Needs{Nodes: true, Events: true}, RequireEvidence: true,
		// A repeated graceful shutdown is refused with 409 once the node
		// left online/suspended/down: harmless.
		OnAmbiguous: ops.ResendWithoutEvidence, BaselineOf: nodeStatusOf(node),
		Endpoint: "POST /clusters/{id}/storage-nodes/{id}/shutdown", Path: "POST /clusters/" + cluster + "/storage-nodes/" + node + "/shutdown",
		Call: func(ctx context.Context, api sb.API) error { return api.ShutdownStorageNode(ctx, cluster, node, false) }}
	s.Skip = nodeGone(node)
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		n, _ := snap.Node(node)
		switch n.Status {
		case sb.NodeOnline, sb.NodeSuspended, sb.NodeDown:
		default:
			return fmt.Sprintf("node %s is %s; a graceful shutdown needs online, suspended or down", node, n.Status), ""
		}
		if !healthGate {
			return "", ""
		}
		if st := snap.Cluster.Status; st != sb.ClusterActive {
			return fmt.Sprintf("health gate: the cluster is %s, not active", st), ""
		}
		if snap.Cluster.IsReBalancing {
			return "health gate: the cluster is rebalancing", ""
		}
		var peers []string
		for _, p := range snap.LiveNodes() {
			if p.ID != node && p.Status != sb.NodeOnline {
				peers = append(peers, fmt.Sprintf("%s (%s)", p.ID, p.Status))
			}
		}
		if len(peers) > 0 {
			return "health gate: other nodes are not online: " + list(peers), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		n, _ := snap.Node(node)
		return anyTo(nodeChanges(b, snap, node), string(sb.NodeInShutdown), string(sb.NodeOffline)) ||
			n.Status == sb.NodeInShutdown || n.Status == sb.NodeOffline
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if n, _ := snap.Node(node); n.Status != sb.NodeOffline {
			return ops.Verdict{Progress: fmt.Sprintf("node is %s", n.Status)}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

func nodeRestartStep(cluster, node string) ops.Step {
	s := ops.Step{Name: "restart", Needs: ops.Needs{Nodes: true, Events: true}, RequireEvidence: true,
		// Without force, a second restart of a node that is no longer
		// offline is a no-op in the backend.
		OnAmbiguous: ops.ResendWithoutEvidence, BaselineOf: nodeStatusOf(node),
		Endpoint: "POST /clusters/{id}/storage-nodes/{id}/restart", Path: "POST /clusters/" + cluster + "/storage-nodes/" + node + "/restart",
		Call: func(ctx context.Context, api sb.API) error {
			return api.RestartStorageNode(ctx, cluster, node, sb.RestartParams{})
		}, Skip: nodeGone(node)}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; st == sb.ClusterInActivation {
			return "the cluster is in_activation (the backend refuses node restarts then)", ""
		}
		if n, _ := snap.Node(node); n.Status != sb.NodeOffline {
			return fmt.Sprintf("node %s is %s, waiting for offline", node, n.Status), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		n, _ := snap.Node(node)
		return anyTo(nodeChanges(b, snap, node), string(sb.NodeInRestart), string(sb.NodeOnline)) ||
			n.Status == sb.NodeInRestart || n.Status == sb.NodeOnline
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if n, _ := snap.Node(node); n.Status != sb.NodeOnline {
			return ops.Verdict{Progress: fmt.Sprintf("node is %s", n.Status)}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

// settleStep waits for the rebalancing a node's return starts (it begins on
// the backend's next monitor tick) to end.
func settleStep(node string) ops.Step {
	return ops.Step{Name: "wait for rebalancing", RequireEvidence: true, Needs: ops.Needs{Nodes: true}, Skip: nodeGone(node),
		NoEvidenceMeansDone: fmt.Sprintf("node %s is back online and no rebalancing followed", node),
		Evidence:            func(_ ops.Baseline, s *ops.Snapshot) bool { return s.Cluster.IsReBalancing },
		Check: func(_ ops.Baseline, s *ops.Snapshot) ops.Verdict {
			if s.Cluster.IsReBalancing {
				return ops.Verdict{Progress: "the cluster is rebalancing"}
			}
			return ops.Verdict{Done: true}
		}}
}

// upgradeStep: POST /update, synchronous, may outlast any client timeout
// while the backend keeps working. A 204 means the backend finished its
// part; with restart the nodes must then all be online and the cluster
// active. A lost answer (timeout) or a 5xx (it may have done part of the
// work) is resolved by evidence: with restart, nodes restarting after the
// call; without restart there is no evidence in the API, so it ends
// OutcomeUnknown.
func upgradeStep(id string, p *v1alpha1.UpgradeParameters) ops.Step {
	params := sb.UpdateParams{}
	if p != nil {
		params = sb.UpdateParams{ManagementImage: p.ManagementImage, SpdkImage: p.SpdkImage, Restart: p.Restart}
	}
	s := ops.Step{Name: "upgrade", Subject: id, Needs: ops.Needs{Nodes: true, Events: true},
		OnAmbiguous: ops.FailWithoutEvidence, ServerErrorIsAmbiguous: true,
		CheckHint: "the images of the control plane's deployments and the node statuses: the backend keeps working on an update after the client gave up, and a second update runs a second rolling restart"}
	s.Endpoint, s.Path, s.Call = clusterCall("update", id, func(ctx context.Context, api sb.API) error { return api.UpdateCluster(ctx, id, params) })
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; !in(st, running) {
			return fmt.Sprintf("the cluster is %s; an upgrade starts from active, degraded or read_only", st), ""
		}
		if busy := nodesIn(snap, sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return params.Restart && anyTo(nodeChanges(b, snap, ""), string(sb.NodeSuspended), string(sb.NodeInShutdown), string(sb.NodeInRestart))
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if !params.Restart {
			return ops.Verdict{Done: true}
		}
		if !b.Sent {
			// Resolved by evidence: the call may still be running; every
			// node must have come back online since.
			var pending []string
			for _, n := range snap.LiveNodes() {
				if !anyTo(nodeChanges(b, snap, n.ID), string(sb.NodeOnline)) || n.Status != sb.NodeOnline {
					pending = append(pending, fmt.Sprintf("%s (%s)", n.ID, n.Status))
				}
			}
			if len(pending) > 0 {
				return ops.Verdict{Progress: "waiting for every node to restart: " + list(pending)}
			}
		}
		if bad := nodesNotIn(snap, sb.NodeOnline); len(bad) > 0 {
			return ops.Verdict{Progress: "waiting for nodes to come back online: " + list(bad)}
		}
		if st := snap.Cluster.Status; st != sb.ClusterActive {
			return ops.Verdict{Progress: fmt.Sprintf("every node is online; waiting for the cluster to become active (%s)", st)}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

// rebalanceStep: POST /rebalance (204, inline): the backend queues one
// listed balancing_on_restart task (reused while open) and hidden
// migrations, and sets is_re_balancing on its next monitor tick (~3 s) until
// they are done. Evidence: a balancing task that was not there before the
// call or is open, or is_re_balancing. The task list is the witness that
// cannot be missed: a short rebalance may start and end between two looks
// at is_re_balancing. Done: neither an open balancing task nor
// is_re_balancing. Without any sign within the grace period the backend
// queued nothing (it answers 204 then too). When the task list cannot be
// read (it fails while a cluster_expand task is kept), only
// is_re_balancing is looked at.
func rebalanceStep(id string) ops.Step {
	s := ops.Step{Name: "rebalance", Subject: id, Needs: ops.Needs{Tasks: true}, RequireEvidence: true, OnAmbiguous: ops.ResendWithoutEvidence,
		NoEvidenceMeansDone: "the backend queued no data migration (no balancing task and is_re_balancing never became true)"}
	s.Endpoint, s.Path, s.Call = clusterCall("rebalance", id, func(ctx context.Context, api sb.API) error { return api.RebalanceCluster(ctx, id) })
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; !in(st, running) {
			return fmt.Sprintf("the cluster is %s; rebalancing needs active, degraded or read_only", st), ""
		}
		if snap.Cluster.IsReBalancing {
			return "the cluster is already rebalancing", ""
		}
		return "", ""
	}
	// The baseline records how many balancing tasks were listed.
	s.BaselineOf = func(snap *ops.Snapshot) string {
		all, _ := balancingTasks(snap)
		return strconv.Itoa(all)
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		all, open := balancingTasks(snap)
		before, err := strconv.Atoi(b.Status)
		return snap.Cluster.IsReBalancing || open > 0 || (err == nil && snap.TasksErr == nil && all > before)
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		switch _, open := balancingTasks(snap); {
		case snap.Cluster.IsReBalancing:
			return ops.Verdict{Progress: "the cluster is rebalancing"}
		case open > 0:
			return ops.Verdict{Progress: "the backend's balancing task is still open"}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

// balancingTasks counts the listed balancing_on_restart tasks, all and
// open (not done); both are 0 when the task list could not be read.
func balancingTasks(snap *ops.Snapshot) (all, open int) {
	if snap.TasksErr != nil {
		return 0, 0
	}
	for _, t := range snap.Tasks {
		if t.FunctionName != "balancing_on_restart" || t.Canceled {
			continue
		}
		all++
		if t.Status != sb.TaskDone {
			open++
		}
	}
	return all, open
}
