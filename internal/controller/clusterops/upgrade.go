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
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// upgradeType: one synchronous POST /update with the images and restart.
var upgradeType = opType{disruptive: true, plan: func(in planInput) []ops.Step {
	params := sb.UpdateParams{}
	if u := in.params.Upgrade; u != nil {
		params = sb.UpdateParams{ManagementImage: u.ManagementImage, SpdkImage: u.SpdkImage, Restart: u.Restart}
	}
	return one(steps.Update(in.clusterID, params))
}}
