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

// migrateType moves a node to another host, keeping its identity: a
// shutdown (skipped when the node is offline already, or online at the new
// host: a Migrate that finds the move done changes nothing), a restart at
// the new address, a promote, then the rebalancing that follows. No step in
// between is a safe point: a cancelled or deleted Migrate finishes.
var migrateType = opType{disruptive: true, plan: func(in planInput) []ops.Step {
	p := in.params.Migrate
	if p == nil {
		p = &v1alpha1.NodeMigrateParameters{} // admission requires them
	}
	addr := p.NodeAddress
	rp := sb.RestartParams{Force: p.Force, NodeAddress: &addr, NewSsdPcie: slices.Clone(p.NewSsdPcie)}
	return []ops.Step{
		steps.NodeShutdown(in.node, steps.ShutdownOptions{Force: p.Force, RestartFollows: true, MovesTo: addr}),
		steps.NodeRestartAt(in.node, rp),
		steps.NodePromote(in.node),
		steps.WaitForRebalancing(in.node),
	}
}}
