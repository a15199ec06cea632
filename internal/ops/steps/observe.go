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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sosodev/duration"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// Cluster statuses of a running cluster.
var running = []sb.ClusterStatus{sb.ClusterActive, sb.ClusterDegraded, sb.ClusterReadOnly}

// Cluster statuses in which another action (the backend's or ours) is
// changing the cluster as a whole.
var transitional = []sb.ClusterStatus{sb.ClusterInActivation, sb.ClusterInExpansion, sb.ClusterInShrink}

func in(st sb.ClusterStatus, set []sb.ClusterStatus) bool { return slices.Contains(set, st) }

// list joins items for a message, naming at most five.
func list(items []string) string {
	const show = 5
	if len(items) > show {
		return strings.Join(items[:show], ", ") + fmt.Sprintf(" and %d more", len(items)-show)
	}
	return strings.Join(items, ", ")
}

// times says how many times: "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// describe renders nodes as "id (status)".
func describe(ns []sb.StorageNodeDTO) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, fmt.Sprintf("%s (%s)", n.ID, n.Status))
	}
	return out
}

// nodesIn returns the live nodes other than except whose status is one of
// sts, described.
func nodesIn(s *ops.Snapshot, except string, sts ...sb.NodeStatus) []string {
	return describe(slices.DeleteFunc(s.LiveNodes(), func(n sb.StorageNodeDTO) bool {
		return n.ID == except || !slices.Contains(sts, n.Status)
	}))
}

// nodesNotIn returns the live nodes other than except whose status is not
// one of sts, described.
func nodesNotIn(s *ops.Snapshot, except string, sts ...sb.NodeStatus) []string {
	return describe(slices.DeleteFunc(s.LiveNodes(), func(n sb.StorageNodeDTO) bool {
		return n.ID == except || slices.Contains(sts, n.Status)
	}))
}

// count returns how many live nodes have status st.
func count(s *ops.Snapshot, st sb.NodeStatus) int {
	c := 0
	for _, n := range s.LiveNodes() {
		if n.Status == st {
			c++
		}
	}
	return c
}

// nodeStatusOf returns the status of node, for a step's baseline.
func nodeStatusOf(node string) func(s *ops.Snapshot) string {
	return func(s *ops.Snapshot) string {
		n, _ := s.Node(node)
		return string(n.Status)
	}
}

// clusterChanges returns the cluster status changes the log shows after
// the baseline.
func clusterChanges(b ops.Baseline, s *ops.Snapshot) []ops.Event {
	var out []ops.Event
	for _, e := range s.EventsSince(b.Event) {
		if e.Subject == ops.SubjectCluster {
			out = append(out, e)
		}
	}
	return out
}

// nodeChanges returns the status changes of node id (any node when empty)
// the log shows after the baseline.
func nodeChanges(b ops.Baseline, s *ops.Snapshot, id string) []ops.Event {
	var out []ops.Event
	for _, e := range s.EventsSince(b.Event) {
		if e.Subject == ops.SubjectNode && (id == "" || e.NodeID == id) {
			out = append(out, e)
		}
	}
	return out
}

func anyTo(evs []ops.Event, to ...string) bool {
	return slices.ContainsFunc(evs, func(e ops.Event) bool { return slices.Contains(to, e.To) })
}

// restartFailures returns the failed restarts of node id (any node when
// empty) the log shows after the baseline. The backend sets a node whose
// restart failed offline before it logs the change, so the entry reads
// "from: offline to: offline" (storage_node_ops.py:4411-4426); only the
// LVStore-recovery abort logs "from: in_restart to: offline" (:5226-5241).
func restartFailures(b ops.Baseline, s *ops.Snapshot, id string) []ops.Event {
	var out []ops.Event
	for _, e := range nodeChanges(b, s, id) {
		if e.To == string(sb.NodeOffline) && (e.From == string(sb.NodeOffline) || e.From == string(sb.NodeInRestart)) {
			out = append(out, e)
		}
	}
	return out
}

// taskCreatedFor reports that the log shows a task created for node after
// the baseline (tasks_events.py:12-30 names the task's node in NodeId).
func taskCreatedFor(b ops.Baseline, s *ops.Snapshot, node string) bool {
	return slices.ContainsFunc(s.EventsSince(b.Event), func(e ops.Event) bool {
		return e.Kind == "OBJ_CREATED" && e.Message == "Task created" && e.NodeID == node
	})
}

// upSince reports that node is online and came online after the call: its
// uptime, which the backend counts from when it came online
// (models/storage_node.py:956-961), is shorter than the time from the call
// to the snapshot.
func upSince(b ops.Baseline, s *ops.Snapshot, node string) bool {
	n, ok := s.Node(node)
	if !ok || n.Status != sb.NodeOnline || b.At.IsZero() {
		return false
	}
	up, ok := uptime(n)
	return ok && up < s.ObservedAt.Sub(b.At)
}

// uptime is a node's uptime, parsed (models/storage_node.py:956-961:
// ISO 8601, "PT3723.456789S"); false when it is not reported.
func uptime(n sb.StorageNodeDTO) (time.Duration, bool) {
	if n.Uptime == nil {
		return 0, false
	}
	up, err := duration.Parse(*n.Uptime)
	if err != nil {
		return 0, false
	}
	return up.ToTimeDuration(), true
}

// anyUpSince reports that some live node came online after the call.
func anyUpSince(b ops.Baseline, s *ops.Snapshot) bool {
	return slices.ContainsFunc(s.LiveNodes(), func(n sb.StorageNodeDTO) bool { return upSince(b, s, n.ID) })
}

// countBaseline records, as a step's baseline, how many live nodes have
// status st.
func countBaseline(st sb.NodeStatus) func(s *ops.Snapshot) string {
	return func(s *ops.Snapshot) string { return strconv.Itoa(count(s, st)) }
}

// fewerThanBaseline reports that fewer live nodes have status st than the
// baseline (countBaseline) recorded.
func fewerThanBaseline(b ops.Baseline, s *ops.Snapshot, st sb.NodeStatus) bool {
	before, err := strconv.Atoi(b.Status)
	return err == nil && count(s, st) < before
}

// reached reports that node went to one of to after the baseline: its
// current status, when that differs from the status before the call (a
// forced shutdown may start from in_shutdown, which is then no evidence),
// or a status change in the log.
func reached(b ops.Baseline, s *ops.Snapshot, node string, to ...sb.NodeStatus) bool {
	if n, ok := s.Node(node); ok && string(n.Status) != b.Status && slices.Contains(to, n.Status) {
		return true
	}
	for _, e := range nodeChanges(b, s, node) {
		if slices.Contains(to, sb.NodeStatus(e.To)) {
			return true
		}
	}
	return false
}

// gone reports that node was removed or left the node list.
func gone(s *ops.Snapshot, node string) bool {
	n, ok := s.Node(node)
	return !ok || n.Status == sb.NodeRemoved
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

// clusterCall returns a cluster action's endpoint template and path.
func clusterCall(verb, id string) (endpoint, path string) {
	return "POST /clusters/{id}/" + verb, "POST /clusters/" + id + "/" + verb
}
