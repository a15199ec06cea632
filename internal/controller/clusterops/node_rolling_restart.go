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
	"fmt"
	"slices"
	"time"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// nodeRollingRestartType: per node, in order: a graceful shutdown, a restart,
// then a wait for the rebalancing the restart causes. With the health
// gate a node is only shut down while every other node is online and the
// cluster is active and not rebalancing. A node removed meanwhile is
// skipped; the operation can be cancelled between nodes.
var nodeRollingRestartType = opType{disruptive: true, plan: rollingRestartSteps, targets: rollingRestartTargets}

func rollingRestartSteps(in planInput) []ops.Step {
	p := in.params.NodeRollingRestart
	gate, perNode := steps.ClusterHealthy, 30*time.Minute
	if p != nil && p.HealthGate != nil && !*p.HealthGate {
		gate = steps.BackendChecksOnly
	}
	if p != nil && p.PerNodeTimeoutSeconds != nil {
		perNode = ops.Seconds(*p.PerNodeTimeoutSeconds)
	}
	out := make([]ops.Step, 0, 3*len(in.targets))
	for i, node := range in.targets {
		n := steps.Node{Cluster: in.clusterID, ID: node, SkipIfGone: true}
		prefix := fmt.Sprintf("node %d/%d %s", i+1, len(in.targets), node)
		for j, s := range []ops.Step{
			steps.NodeShutdown(n, steps.ShutdownOptions{Gate: gate, RestartFollows: true}),
			steps.NodeRestart(n, "restart", sb.RestartParams{}),
			steps.WaitForRebalancing(n),
		} {
			s.Name = prefix + ": " + s.Name
			s.Timeout = perNode
			s.ProgressDone, s.ProgressTotal, s.ProgressUnit = int64(i), int64(len(in.targets)), "nodes"
			s.SafePoint = j == 0
			out = append(out, s)
		}
	}
	return out
}

// rollingRestartTargets fixes the node order when the operation starts:
// the listed order first, then the remaining live nodes in the backend's
// order.
func rollingRestartTargets(p v1alpha1.ClusterOpsParameters, s *ops.Snapshot) []string {
	var order []string
	if r := p.NodeRollingRestart; r != nil {
		order = r.Order
	}
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
