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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/opstest"
)

// TestExpandFollowsTheBackendsOwnExpansion covers nodes added with
// expand: true, for which the backend expands the cluster by itself.
func TestExpandFollowsTheBackendsOwnExpansion(t *testing.T) {
	online := func(id string) ops.Event { return opstest.NodeEvent(id, "in_creation", "online") }
	expansion := func(to string) ops.Event { return opstest.ClusterEvent("in_expansion", to) }
	base := func(evs ...ops.Event) *ops.Snapshot {
		return opstest.Snap("c", sb.ClusterActive, opstest.Nodes("n1=online", "n4=online", "n5=online"), opstest.Events(evs...))
	}
	type want struct {
		skip    bool
		waiting string
	}
	cases := map[string]struct {
		reason     string
		autoExpand []string
		pending    []string
		snap       *ops.Snapshot
		want       want
	}{
		"WaitsForTheBackendsExpansion": {
			reason:     "A node added with expand: true came online and no expansion followed yet: calling /expand now would race the cluster_expand task.",
			autoExpand: []string{"n4", "n5"},
			snap:       base(online("n4"), expansion("active"), online("n5")),
			want:       want{waiting: "waiting for the backend's own expansion (cluster_expand task) for the nodes added with expand: true: n5"},
		},
		"SkipsOnceTheBackendExpanded": {
			reason:     "An in_expansion → active change after the last auto-expanded node came online means the backend did the work: no call.",
			autoExpand: []string{"n4", "n5"},
			snap:       base(online("n4"), online("n5"), expansion("active")),
			want:       want{skip: true},
		},
		"OldNodesOutsideTheWindowCountAsExpanded": {
			reason:     "A node whose coming online left the event window is long expanded.",
			autoExpand: []string{"n4"},
			snap:       base(),
			want:       want{skip: true},
		},
		"AStaleLogWindowDoesNotHideANewNode": {
			reason:     "A node the node list shows online for 2 s, whose coming online is not in an older log window, is not taken as expanded by an earlier expansion: the parts of a snapshot are read at different times.",
			autoExpand: []string{"n4", "n5"},
			snap: opstest.Snap("c", sb.ClusterActive, opstest.Nodes("n1=online", "n4=online", "n5=online"),
				opstest.Events(online("n4"), expansion("active")), opstest.ObservedAfter(time.Second), opstest.Uptime("n5", "PT2S")),
			want: want{waiting: "waiting for the backend's own expansion (cluster_expand task) for the nodes added with expand: true: n5"},
		},
		"NodesNotYetInTheBackendAreWaitedFor": {
			reason:     "A StorageNode added with expand: true that the backend has not created yet keeps the step waiting, even if the others expanded.",
			autoExpand: []string{"n4"},
			pending:    []string{"node-5"},
			snap:       base(online("n4"), expansion("active")),
			want:       want{waiting: "StorageNodes added with expand: true are not in the backend yet: node-5"},
		},
		"PlainNodesNeedACall": {
			reason: "Without nodes added with expand: true, the step calls /expand.",
			snap:   base(online("n4"), online("n5")),
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := Expand("c", 0, AutoExpansion{IDs: tc.autoExpand, Pending: tc.pending})
			skip, _ := s.Skip(tc.snap)
			waiting, refusal := s.Gate(tc.snap)
			got := want{skip: skip}
			if !skip {
				got.waiting = waiting
			}
			if refusal != "" {
				t.Errorf("\n%s\nunexpected refusal %q", tc.reason, refusal)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
