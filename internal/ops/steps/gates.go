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
	"net/http"
	"strings"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// What the backend refuses only for now, and the gates that wait for it to
// pass (docs/steps.md, "Refusals that pass").

// shutdownRefusedForNow: the graceful node shutdown's 409s that name a
// passing state, in the texts of check_node_shutdown_preconditions
// (storage_node_ops.py:5780-5899): a live restart claim, a peer restarting
// or "already shutting down", an open restart or migration task; and its
// fault-tolerance 500 (storage_node/__init__.py:214-219). The node's own
// status ("Node is in … state") and a missing node are final.
func shutdownRefusedForNow(status int, msg string) bool {
	if status == http.StatusInternalServerError {
		return true
	}
	if status != http.StatusConflict {
		return false
	}
	for _, s := range []string{"under a live restart claim", "is restarting in this cluster",
		"shutting down in this cluster", "Restart task found", "Migration task found"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// openTaskOn returns an open task of function fn on node (any node when
// empty) among the listed tasks, if any. The list hides device_migration
// tasks, and cannot be read while some task types exist (then nil).
func openTaskOn(s *ops.Snapshot, node, fn string) *sb.TaskDTO {
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if t.FunctionName != fn || !t.Open() {
			continue
		}
		if node == "" || (t.StorageNodeID != nil && *t.StorageNodeID == node) {
			return t
		}
	}
	return nil
}

// migrationsBlockShutdown says what a graceful shutdown of node waits for
// among the backend's passing refusals, or "": a peer restarting or
// shutting down, an open node_restart task on the node, and (below two
// parity chunks) data migrations, which the API shows only cluster-wide.
func migrationsBlockShutdown(s *ops.Snapshot, node string) string {
	if busy := nodesIn(s, node, sb.NodeInRestart, sb.NodeInShutdown); len(busy) > 0 {
		return "other nodes are restarting or shutting down (the backend refuses a graceful shutdown then): " + list(busy)
	}
	if t := openTaskOn(s, node, "node_restart"); t != nil {
		return fmt.Sprintf("a node_restart task (%s) is %s on node %s (the backend refuses a graceful shutdown then)", t.ID, t.Status, node)
	}
	if s.Cluster.DistrNpcs >= 2 {
		return ""
	}
	if s.Cluster.IsReBalancing {
		return "data migrations are running (the cluster is rebalancing; the backend refuses a graceful shutdown of a node they involve)"
	}
	if t := openTaskOn(s, "", "balancing_on_restart"); t != nil {
		return fmt.Sprintf("data migrations are queued or running (balancing task %s is %s; the backend refuses a graceful shutdown of a node they involve)", t.ID, t.Status)
	}
	return ""
}
