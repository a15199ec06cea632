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
	"strconv"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// Activate activates a cluster once expected nodes are online: POST
// /activate, 202 (docs/steps.md, "Cluster activate").
func Activate(id string, expected int64) ops.Step {
	s := ops.Step{Name: "activate", Needs: ops.Needs{Nodes: true, Events: true}, Watches: &ops.Needs{Events: true}, EndInRecord: true,
		WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails,
		CheckHint: "the cluster's status: an activation may still be running (wait until it is active or back to unready) and a second one would run concurrently",
		Call:      func(ctx context.Context, api sb.API) error { return api.ActivateCluster(ctx, id) }}
	s.Endpoint, s.Path = clusterCall("activate", id)
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
		if bad := nodesNotIn(snap, "", sb.NodeOnline); len(bad) > 0 {
			return "every storage node must be online; not yet: " + list(bad), ""
		}
		if online := int64(count(snap, sb.NodeOnline)); online < expected {
			return fmt.Sprintf("%d of the %d expected storage nodes are online", online, expected), ""
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

// An AutoExpansion lists the StorageNodes added with expand: true, which
// the backend expands the cluster for by itself: the backend ids of those
// it has adopted, and the names of those not yet in the backend.
type AutoExpansion struct {
	IDs     []string
	Pending []string
}

// Expand expands a cluster onto its new nodes: POST /expand, 202, or no
// call when the backend expands by itself (docs/steps.md, "Cluster
// expand").
func Expand(id string, expected int64, auto AutoExpansion) ops.Step {
	s := ops.Step{Name: "expand", Needs: ops.Needs{Nodes: true, Events: true, Tasks: true}, Watches: &ops.Needs{Events: true},
		WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails,
		CheckHint: "the cluster's status and logs: an expansion may be running (in_expansion), and a second one would create lvstores concurrently",
		Call:      func(ctx context.Context, api sb.API) error { return api.ExpandCluster(ctx, id) }}
	s.Endpoint, s.Path = clusterCall("expand", id)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if len(auto.IDs) == 0 || len(auto.Pending) > 0 || int64(count(snap, sb.NodeOnline)) < expected ||
			len(nodesIn(snap, "", sb.NodeInCreation)) > 0 || snap.Cluster.Status == sb.ClusterInExpansion {
			return false, ""
		}
		if len(unexpanded(snap, auto.IDs)) == 0 {
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
		if busy := nodesIn(snap, "", sb.NodeInCreation); len(busy) > 0 {
			return "nodes are being added: " + list(busy), ""
		}
		if len(auto.Pending) > 0 {
			return "StorageNodes added with expand: true are not in the backend yet: " + list(auto.Pending), ""
		}
		for _, fn := range []string{"cluster_expand", "node_add"} {
			if t := openTaskOn(snap, "", fn); t != nil {
				return fmt.Sprintf("a %s task is %s", t.FunctionName, t.Status), ""
			}
		}
		if online := int64(count(snap, sb.NodeOnline)); online < expected {
			return fmt.Sprintf("%d of the %d expected storage nodes are online", online, expected), ""
		}
		if waiting := unexpanded(snap, auto.IDs); len(waiting) > 0 {
			return "waiting for the backend's own expansion (cluster_expand task) for the nodes added with expand: true: " + list(waiting), ""
		}
		return "", ""
	}
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return snap.Cluster.Status == sb.ClusterInExpansion || anyTo(clusterChanges(b, snap), string(sb.ClusterInExpansion))
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
		// Without the log (it answered 500), the cluster seen in_expansion
		// and now active: the backend ends an expansion so
		// (cluster_ops.py:1780-1782), and ends a failed one from active so
		// too, which the log would not tell apart either.
		if len(ch) == 0 && b.EvidenceSeen && st == sb.ClusterActive {
			return ops.Verdict{Done: true}
		}
		return ops.Verdict{Progress: fmt.Sprintf("the cluster is %s", st)}
	}
	return s
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
			case e.Subject == ops.SubjectNode && e.NodeID == id && e.To == string(sb.NodeOnline):
				online = i
			case e.Subject == ops.SubjectCluster && e.From == string(sb.ClusterInExpansion) && e.To == string(sb.ClusterActive):
				expanded = i
			}
		}
		switch {
		case online >= 0 && expanded < online:
			out = append(out, id)
		case online < 0 && cameOnlineWithin(snap, n):
			// Its coming online should be in the window but is not: the
			// log was read before the node list (the parts of a snapshot
			// are read at different times), so it cannot show the
			// expansion either.
			out = append(out, id)
		}
	}
	return out
}

// cameOnlineWithin reports that node n, by its uptime, came online after
// the oldest event of the snapshot's log window.
func cameOnlineWithin(snap *ops.Snapshot, n sb.StorageNodeDTO) bool {
	if len(snap.Events) == 0 || snap.Events[0].At.IsZero() || snap.ObservedAt.IsZero() {
		return false
	}
	up, ok := uptime(n)
	return ok && snap.ObservedAt.Add(-up).After(snap.Events[0].At)
}

// ClusterShutdown shuts every node of a cluster down: POST /shutdown, 202
// (docs/steps.md, "Cluster shutdown").
func ClusterShutdown(id string) ops.Step {
	s := ops.Step{Name: "shutdown", Needs: ops.Needs{Nodes: true, Events: true},
		WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails, BaselineOf: countBaseline(sb.NodeOnline),
		CheckHint: "the node statuses: a shutdown may be running, and a second one kills every node again",
		Call:      func(ctx context.Context, api sb.API) error { return api.ShutdownCluster(ctx, id) }}
	s.Endpoint, s.Path = clusterCall("shutdown", id)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if len(snap.LiveNodes()) > 0 && len(nodesNotIn(snap, "", sb.NodeOffline)) == 0 {
			return true, "every storage node is already offline"
		}
		return false, ""
	}
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; in(st, transitional) {
			return fmt.Sprintf("the cluster is %s", st), ""
		}
		if busy := nodesIn(snap, "", sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	// The backend suspends each node, then shuts it down with force
	// (cluster_ops.py:2652-2660): fewer nodes online, or one in_shutdown
	// (which the gate waited out before the call), or the log.
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return fewerThanBaseline(b, snap, sb.NodeOnline) || len(nodesIn(snap, "", sb.NodeInShutdown)) > 0 ||
			anyTo(nodeChanges(b, snap, ""), string(sb.NodeSuspended), string(sb.NodeInShutdown), string(sb.NodeOffline))
	}
	s.Check = func(_ ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		if bad := nodesNotIn(snap, "", sb.NodeOffline); len(bad) > 0 {
			return ops.Verdict{Progress: fmt.Sprintf("%d of %d nodes offline; waiting for %s", count(snap, sb.NodeOffline), len(snap.LiveNodes()), list(bad))}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

// ClusterStart starts every node of a stopped cluster: POST /start, 202
// (docs/steps.md, "Cluster start"). afterShutdown: the start of a Restart,
// which waits for its shutdown to show.
func ClusterStart(id string, afterShutdown bool) ops.Step {
	s := ops.Step{Name: "start", Needs: ops.Needs{Nodes: true, Events: true}, EndInRecord: true,
		WithoutEvidence: ops.NoEvidenceFails, OnLostAnswer: ops.LostAnswerFails,
		CheckHint: "the node statuses: a start may be running, and a second start shuts down the nodes the first brought up",
		Call:      func(ctx context.Context, api sb.API) error { return api.StartCluster(ctx, id) }}
	if afterShutdown {
		s.GateTimeout = 10 * time.Minute
	}
	s.Endpoint, s.Path = clusterCall("start", id)
	s.Skip = func(snap *ops.Snapshot) (bool, string) {
		if !afterShutdown && snap.Cluster.Status == sb.ClusterActive && len(nodesNotIn(snap, "", sb.NodeOnline)) == 0 {
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
		if busy := nodesIn(snap, "", sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	// The backend shuts every node down with force, then restarts them one
	// by one (cluster_ops.py:2622-2649): a node in_shutdown or in_restart
	// (which the gate waited out before the call), one online since the
	// call, or the log.
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return len(nodesIn(snap, "", sb.NodeInShutdown, sb.NodeInRestart)) > 0 || anyUpSince(b, snap) ||
			anyTo(nodeChanges(b, snap, ""), string(sb.NodeInShutdown), string(sb.NodeInRestart))
	}
	s.Check = func(b ops.Baseline, snap *ops.Snapshot) ops.Verdict {
		live := snap.LiveNodes()
		// The start stops at the first node that does not come back online
		// (cluster_ops.py:2633-2636).
		if failed := restartFailures(b, snap, ""); len(failed) > 0 {
			e := failed[0]
			k := slices.IndexFunc(live, func(n sb.StorageNodeDTO) bool { return n.ID == e.NodeID })
			left := nodesNotIn(snap, "", sb.NodeOnline)
			return ops.Verdict{Reason: "StartAborted", Failure: fmt.Sprintf(
				"the start aborted at node %d of %d (%s): its restart failed, and the backend abandons the nodes after it; not online: %s",
				k+1, len(live), e.NodeID, list(left))}
		}
		if bad := nodesNotIn(snap, "", sb.NodeOnline); len(bad) > 0 {
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

// Update changes a cluster's images and, with restart, restarts its nodes:
// POST /update, synchronous (docs/steps.md, "Cluster update").
func Update(id string, params sb.UpdateParams) ops.Step {
	s := ops.Step{Name: "upgrade", Needs: ops.Needs{Nodes: true, Events: true},
		OnLostAnswer: ops.LostAnswerFails, OnServerError: ops.ServerErrorIsAmbiguous,
		CheckHint: "the images of the control plane's deployments and the node statuses: the backend keeps working on an update after the client gave up, and a second update runs a second rolling restart",
		Call:      func(ctx context.Context, api sb.API) error { return api.UpdateCluster(ctx, id, params) }}
	s.Endpoint, s.Path = clusterCall("update", id)
	s.Gate = func(snap *ops.Snapshot) (string, string) {
		if st := snap.Cluster.Status; !in(st, running) {
			return fmt.Sprintf("the cluster is %s; an upgrade starts from active, degraded or read_only", st), ""
		}
		if busy := nodesIn(snap, "", sb.NodeInShutdown, sb.NodeInRestart, sb.NodeInCreation); len(busy) > 0 {
			return "nodes are changing state: " + list(busy), ""
		}
		return "", ""
	}
	// With restart, the backend suspends and shuts down each node, then
	// restarts it (cluster_ops.py:2575-2594): a node in_shutdown or
	// in_restart (which the gate waited out before the call), one online
	// since the call, or the log. Without, nothing shows.
	s.Evidence = func(b ops.Baseline, snap *ops.Snapshot) bool {
		return params.Restart && (len(nodesIn(snap, "", sb.NodeInShutdown, sb.NodeInRestart)) > 0 || anyUpSince(b, snap) ||
			anyTo(nodeChanges(b, snap, ""), string(sb.NodeSuspended), string(sb.NodeInShutdown), string(sb.NodeInRestart)))
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
				if n.Status != sb.NodeOnline || !upSince(b, snap, n.ID) && !anyTo(nodeChanges(b, snap, n.ID), string(sb.NodeOnline)) {
					pending = append(pending, fmt.Sprintf("%s (%s)", n.ID, n.Status))
				}
			}
			if len(pending) > 0 {
				return ops.Verdict{Progress: "waiting for every node to restart: " + list(pending)}
			}
		}
		if bad := nodesNotIn(snap, "", sb.NodeOnline); len(bad) > 0 {
			return ops.Verdict{Progress: "waiting for nodes to come back online: " + list(bad)}
		}
		if st := snap.Cluster.Status; st != sb.ClusterActive {
			return ops.Verdict{Progress: fmt.Sprintf("every node is online; waiting for the cluster to become active (%s)", st)}
		}
		return ops.Verdict{Done: true}
	}
	return s
}

// Rebalance starts data migrations: POST /rebalance, 204 (docs/steps.md,
// "Cluster rebalance").
func Rebalance(id string) ops.Step {
	s := ops.Step{Name: "rebalance", Needs: ops.Needs{Tasks: true},
		WithoutEvidence: ops.NoEvidenceMeansDone, OnLostAnswer: ops.LostAnswerResends,
		DoneWithoutEvidence: "the backend queued no data migration (no balancing task and is_re_balancing never became true)",
		Call:                func(ctx context.Context, api sb.API) error { return api.RebalanceCluster(ctx, id) }}
	s.Endpoint, s.Path = clusterCall("rebalance", id)
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
