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

	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// WaitForRebalancing waits for the rebalancing a node's return starts (on
// the backend's next monitor tick) to end; no rebalancing within the
// evidence grace period completes it (docs/steps.md, "Waiting for
// rebalancing").
func WaitForRebalancing(n Node) ops.Step {
	return ops.Step{Name: "wait for rebalancing", Needs: ops.Needs{Nodes: true}, Skip: n.skip(func(*ops.Snapshot) (bool, string) { return false, "" }),
		WithoutEvidence:     ops.NoEvidenceMeansDone,
		DoneWithoutEvidence: fmt.Sprintf("node %s is back online and no rebalancing followed", n.ID),
		Evidence:            func(_ ops.Baseline, s *ops.Snapshot) bool { return s.Cluster.IsReBalancing },
		Check: func(_ ops.Baseline, s *ops.Snapshot) ops.Verdict {
			if s.Cluster.IsReBalancing {
				return ops.Verdict{Progress: "the cluster is rebalancing"}
			}
			return ops.Verdict{Done: true}
		}}
}
