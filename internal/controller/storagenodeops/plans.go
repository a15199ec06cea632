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
	"slices"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// planFor returns the steps of cr's type on node nodeID of cluster
// clusterID, built from the step library (docs/steps.md).
func planFor(cr *v1alpha1.StorageNodeOps, clusterID, nodeID string) []ops.Step {
	p := cr.Spec.ForProvider
	n := steps.Node{Cluster: clusterID, ID: nodeID}
	switch p.Type {
	case v1alpha1.NodeSuspend:
		return []ops.Step{steps.NodeSuspend(n)}
	case v1alpha1.NodeResume:
		return []ops.Step{steps.NodeResume(n)}
	case v1alpha1.NodeShutdown:
		return []ops.Step{steps.NodeShutdown(n, steps.ShutdownOptions{Force: p.Shutdown != nil && p.Shutdown.Force})}
	case v1alpha1.NodeRestart:
		// The restart's force also forces the shutdown before it: a forced
		// restart of a running node kills SPDK anyway, and without force
		// the shutdown keeps its safety gate.
		rp := restartParams(p.Restart)
		return []ops.Step{
			steps.NodeShutdown(n, steps.ShutdownOptions{Force: rp.Force, RestartFollows: true}),
			steps.NodeRestart(n, "restart", rp),
		}
	case v1alpha1.NodeStart:
		return []ops.Step{steps.NodeRestart(n, "start", restartParams(p.Restart))}
	case v1alpha1.NodeRemove:
		return []ops.Step{steps.NodeRemove(n, removeOptions(p.Remove))}
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
