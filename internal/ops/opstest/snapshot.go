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

package opstest

import (
	"fmt"
	"strings"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// A SnapModifier changes a snapshot a case builds.
type SnapModifier func(*ops.Snapshot)

// Snap is a snapshot of cluster id in status st.
func Snap(id string, st sb.ClusterStatus, m ...SnapModifier) *ops.Snapshot {
	s := &ops.Snapshot{Cluster: sb.ClusterDTO{ID: id, Status: st}}
	for _, f := range m {
		f(s)
	}
	return s
}

// Nodes adds nodes of the snapshot's cluster, written "id=status".
func Nodes(spec ...string) SnapModifier {
	return func(s *ops.Snapshot) {
		for _, n := range spec {
			id, st, _ := strings.Cut(n, "=")
			s.Nodes = append(s.Nodes, sb.StorageNodeDTO{ID: id, ClusterID: s.Cluster.ID, Status: sb.NodeStatus(st)})
		}
	}
}

// Events adds events to the snapshot's event window.
func Events(evs ...ops.Event) SnapModifier {
	return func(s *ops.Snapshot) { s.Events = append(s.Events, evs...) }
}

// ClusterEvent is event id: cluster's status changed from one status to another.
func ClusterEvent(id, cluster, from, to string) ops.Event {
	return ops.Event{ID: id, Object: "Cluster", ObjectID: cluster, From: from, To: to,
		Message: fmt.Sprintf("Cluster status changed from %s to %s", from, to)}
}

// NodeEvent is event id: node's status changed from one status to another.
func NodeEvent(id, node, from, to string) ops.Event {
	return ops.Event{ID: id, Object: "StorageNode", ObjectID: node, From: from, To: to,
		Message: fmt.Sprintf("Storage node status changed from %s to %s", from, to)}
}

// Base is a baseline taken at event "b" (see Mark) with the subject's status.
func Base(status string) ops.Baseline { return ops.Baseline{Status: status, Event: "b"} }

// Mark is the baseline event "b" of cluster.
func Mark(cluster string) ops.Event {
	return ops.Event{ID: "b", Object: "Cluster", ObjectID: cluster, Message: "baseline"}
}
