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
	"slices"
	"strings"
	"time"

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

// Events adds events to the snapshot's event window. An event without a
// Date is dated after the window's newest, and before Mark's date while
// the window holds no Mark.
func Events(evs ...ops.Event) SnapModifier {
	return func(s *ops.Snapshot) {
		for _, e := range evs {
			if e.Date == "" {
				at := markAt.Add(time.Duration(len(s.Events)-1000) * time.Millisecond)
				if slices.ContainsFunc(s.Events, func(e ops.Event) bool { return e.Date == Mark().Date }) {
					at = markAt.Add(time.Duration(len(s.Events)+1) * time.Millisecond)
				}
				e.Date, e.At = at.Format(logDate), at
			}
			s.Events = append(s.Events, e)
		}
	}
}

// logDate is the event log's date format (with milliseconds).
const logDate = "2006-01-02 15:04:05.000"

// markAt is the date of Mark.
var markAt = time.Date(2026, 8, 22, 20, 0, 0, 0, time.UTC)

// entry parses a control-plane log entry as the backend writes it.
func entry(kind, nodeID, msg string) ops.Event {
	e, _ := ops.ParseLogEntry(sb.ClusterLogEntry{Event: kind, NodeID: nodeID, Level: "Info", Message: msg,
		StorageID: sb.LogNone, VUID: sb.LogNone, Status: sb.LogNone})
	return e
}

// ClusterEvent is the log entry of a cluster status change
// (cluster_events.py:34-41).
func ClusterEvent(from, to string) ops.Event {
	return entry("STATUS_CHANGE", sb.LogNone, fmt.Sprintf("Cluster status changed from %s to %s", from, to))
}

// NodeEvent is the log entry of a node status change
// (storage_events.py:46-56).
func NodeEvent(node, from, to string) ops.Event {
	return entry("STATUS_CHANGE", node, fmt.Sprintf("Storage node status changed from: %s to: %s", from, to))
}

// Base is a baseline taken at Mark with the subject's status.
func Base(status string) ops.Baseline {
	s := ops.Snapshot{Events: []ops.Event{Mark()}}
	return ops.Baseline{Status: status, Event: s.LogPosition()}
}

// Mark is the newest log event before a call (see Base): a task's creation.
func Mark() ops.Event {
	e := entry("OBJ_CREATED", "9f7c0000-0000-4000-8000-00000000000b", "Task created")
	e.Date, e.At = markAt.Format(logDate), markAt
	return e
}

// CallAt is when the calls of the baselines BaseAt builds were intended;
// ObservedAfter dates a snapshot after it.
var CallAt = markAt.Add(time.Second)

// BaseAt is Base with its call intended at CallAt.
func BaseAt(status string) ops.Baseline {
	b := Base(status)
	b.At = CallAt
	return b
}

// ObservedAfter dates the snapshot d after CallAt.
func ObservedAfter(d time.Duration) SnapModifier {
	return func(s *ops.Snapshot) { s.ObservedAt = CallAt.Add(d) }
}

// Uptime sets a node's uptime as the backend writes it (ISO 8601,
// "PT3723.456789S").
func Uptime(node, uptime string) SnapModifier {
	return func(s *ops.Snapshot) {
		for i := range s.Nodes {
			if s.Nodes[i].ID == node {
				s.Nodes[i].Uptime = &uptime
			}
		}
	}
}

// TaskCreated is the log entry of a task created for node
// (tasks_events.py:12-30).
func TaskCreated(node string) ops.Event { return entry("OBJ_CREATED", node, "Task created") }
