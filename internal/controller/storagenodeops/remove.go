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
	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// removeType: one DELETE …/storage-nodes/{id}/ with the remove flags.
var removeType = opType{disruptive: true, plan: func(in planInput) []ops.Step {
	return one(steps.NodeRemove(in.node, removeOptions(in.params.Remove)))
}}

func removeOptions(p *v1alpha1.NodeRemoveParameters) sb.NodeDeleteOptions {
	if p == nil {
		return sb.NodeDeleteOptions{}
	}
	return sb.NodeDeleteOptions{ForceRemove: p.ForceRemove, ForceMigrate: p.ForceMigrate, ForceDelete: p.ForceDelete}
}
