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

// planFor returns the steps of cr's type, built from the step library
// (docs/steps.md). autoExpand lists the nodes added with expand: true,
// which the backend expands the cluster for by itself.
func planFor(cr *v1alpha1.ClusterOps, clusterID string, autoExpand steps.AutoExpansion) func(targets []string) []ops.Step {
	p := cr.Spec.ForProvider
	return func(targets []string) []ops.Step {
		switch p.Type {
		case v1alpha1.ClusterActivate:
			return []ops.Step{steps.Activate(clusterID)}
		case v1alpha1.ClusterExpand:
			var expected int64
			if p.Expand != nil && p.Expand.ExpectedNodes != nil {
				expected = *p.Expand.ExpectedNodes
			}
			return []ops.Step{steps.Expand(clusterID, expected, autoExpand)}
		case v1alpha1.ClusterShutdown:
			return []ops.Step{steps.ClusterShutdown(clusterID)}
		case v1alpha1.ClusterStart:
			return []ops.Step{steps.ClusterStart(clusterID, false)}
		case v1alpha1.ClusterRestart:
			sd, st := steps.ClusterShutdown(clusterID), steps.ClusterStart(clusterID, true)
			sd.Name, st.Name = "restart: shutdown", "restart: start"
			return []ops.Step{sd, st}
		case v1alpha1.ClusterNodeRollingRestart:
			return rollingRestartSteps(clusterID, p.NodeRollingRestart, targets)
		case v1alpha1.ClusterUpgrade:
			params := sb.UpdateParams{}
			if u := p.Upgrade; u != nil {
				params = sb.UpdateParams{ManagementImage: u.ManagementImage, SpdkImage: u.SpdkImage, Restart: u.Restart}
			}
			return []ops.Step{steps.Update(clusterID, params)}
		case v1alpha1.ClusterRebalance:
			return []ops.Step{steps.Rebalance(clusterID)}
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

// rollingRestartSteps: per node, in order: shutdown (graceful), restart,
// then wait for the rebalancing the restart causes to end. With the health
// gate, a node is only shut down while every other node is online and the
// cluster is active and not rebalancing. A node removed meanwhile is
// skipped. The operation can be cancelled between nodes.
func rollingRestartSteps(id string, p *v1alpha1.NodeRollingRestartParameters, targets []string) []ops.Step {
	gate, perNode := steps.ClusterHealthy, 30*time.Minute
	if p != nil && p.HealthGate != nil && !*p.HealthGate {
		gate = steps.BackendChecksOnly
	}
	if p != nil && p.PerNodeTimeoutSeconds != nil {
		perNode = time.Duration(*p.PerNodeTimeoutSeconds) * time.Second
	}
	out := make([]ops.Step, 0, 3*len(targets))
	for i, node := range targets {
		n := steps.Node{Cluster: id, ID: node, SkipIfGone: true}
		prefix := fmt.Sprintf("node %d/%d %s", i+1, len(targets), node)
		for j, s := range []ops.Step{
			steps.NodeShutdown(n, steps.ShutdownOptions{Gate: gate, RestartFollows: true}),
			steps.NodeRestart(n, "restart", sb.RestartParams{}),
			steps.WaitForRebalancing(n),
		} {
			s.Name = prefix + ": " + s.Name
			s.Timeout = perNode
			s.ProgressDone, s.ProgressTotal = int64(i), int64(len(targets))
			s.Cancellable = j == 0
			out = append(out, s)
		}
	}
	return out
}
