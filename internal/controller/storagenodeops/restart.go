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

// restartType: a shutdown, then POST …/restart with the restart
// parameters. The restart's force also forces the shutdown before it: a
// forced restart of a running node kills SPDK anyway, and without force the
// shutdown keeps its safety gate.
var restartType = opType{disruptive: true, plan: func(in planInput) []ops.Step {
	rp := restartParams(in.params.Restart)
	return []ops.Step{
		steps.NodeShutdown(in.node, steps.ShutdownOptions{Force: rp.Force, RestartFollows: true}),
		steps.NodeRestart(in.node, "restart", rp),
	}
}}

func restartParams(p *v1alpha1.NodeRestartParameters) sb.RestartParams {
	if p == nil {
		return sb.RestartParams{}
	}
	return sb.RestartParams{Force: p.Force, ReattachVolume: p.ReattachVolume, NodeAddress: p.NodeAddress, NewSsdPcie: slices.Clone(p.NewSsdPcie)}
}
