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

package ops

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The backend's cluster log as the provider reads it: entries without ids,
// classified by their Event, Message and NodeId, and positions in it made of
// a date and the entries at that date (docs/backend.md, "The event log").

// Subjects of a status change.
const (
	SubjectCluster = "cluster"
	SubjectNode    = "node"
)

// The Event kinds the control plane itself writes (events_controller.py:12-15).
// Any other kind is a data-plane (distrib) event, whose count and status the
// backend rewrites after writing it: no decision reads those, and the log
// window leaves them out.
var controlPlaneKinds = map[string]bool{"STATUS_CHANGE": true, "OBJ_CREATED": true, "OBJ_DELETED": true, "CAPACITY": true}

var (
	// cluster_events.py:34-41.
	clusterStatusChange = regexp.MustCompile(`^Cluster status changed from (\S+) to (\S+)$`)
	// storage_events.py:46-56.
	nodeStatusChange = regexp.MustCompile(`^Storage node status changed from: (\S+) to: (\S+)$`)
)

// An Event is one control-plane entry of the backend's cluster log.
type Event struct {
	// Date is the entry's Date as the backend wrote it; At is it parsed
	// (zero when it does not parse).
	Date string
	At   time.Time
	// Kind is the entry's Event: STATUS_CHANGE, OBJ_CREATED, ….
	Kind string
	// NodeID is the entry's NodeId ("" for "None"): a node, a device, a
	// task or the cluster, depending on the writer.
	NodeID  string
	Message string
	// Subject is SubjectCluster or SubjectNode for a status change of the
	// cluster or of node NodeID, and "" for any other entry.
	Subject  string
	From, To string
}

// key identifies an entry among those of its date.
func (e Event) key() string {
	h := fnv.New32a()
	_, _ = fmt.Fprintf(h, "%s\x00%s\x00%s", e.NodeID, e.Kind, e.Message)
	return fmt.Sprintf("%08x", h.Sum32())
}

// logDateLayouts are the formats of a Date: Python's str(datetime)[:23],
// which drops the fraction when the milliseconds are 0 (models/events.py:33-37).
var logDateLayouts = []string{"2006-01-02 15:04:05.000", "2006-01-02 15:04:05"}

func parseLogDate(s string) time.Time {
	for _, l := range logDateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// ParseLogEntry classifies one log entry; false for a data-plane entry.
func ParseLogEntry(r sb.ClusterLogEntry) (Event, bool) {
	if !controlPlaneKinds[r.Event] {
		return Event{}, false
	}
	e := Event{Date: r.Date, At: parseLogDate(r.Date), Kind: r.Event, NodeID: r.NodeID, Message: r.Message}
	if e.NodeID == sb.LogNone {
		e.NodeID = ""
	}
	if e.Kind != "STATUS_CHANGE" {
		return e, true
	}
	if m := clusterStatusChange.FindStringSubmatch(e.Message); m != nil {
		e.Subject, e.From, e.To = SubjectCluster, m[1], m[2]
	} else if m := nodeStatusChange.FindStringSubmatch(e.Message); m != nil && e.NodeID != "" {
		e.Subject, e.From, e.To = SubjectNode, m[1], m[2]
	}
	return e, true
}

// parseEvents returns the control-plane entries of raw, oldest first.
func parseEvents(raw []sb.ClusterLogEntry) []Event {
	evs := make([]Event, 0, len(raw))
	for _, r := range raw {
		if e, ok := ParseLogEntry(r); ok {
			evs = append(evs, e)
		}
	}
	return evs
}

// A position in the log is written as the Date of its newest entry and the
// keys of the entries at that date ("2026-08-22 20:15:34.123|1a2b3c4d"),
// emptyLog when the log held no control-plane entry, or "" when the log was
// not read.
const (
	emptyLog    = "empty"
	positionSep = "|"
)

// positionOf returns the position after the newest of window; events nil:
// the log was not read.
func positionOf(window []Event) string {
	if window == nil {
		return ""
	}
	if len(window) == 0 {
		return emptyLog
	}
	newest := window[len(window)-1]
	keys := []string{newest.Date}
	for i := len(window) - 1; i >= 0 && window[i].Date == newest.Date; i-- {
		keys = append(keys, window[i].key())
	}
	return strings.Join(keys, positionSep)
}

// parsePosition returns a position's date and the keys of its entries at
// that date; false for "", emptyLog, or another format (a position written
// by an older provider).
func parsePosition(pos string) (time.Time, map[string]int, bool) {
	parts := strings.Split(pos, positionSep)
	at := parseLogDate(parts[0])
	if at.IsZero() {
		return at, nil, false
	}
	keys := map[string]int{}
	for _, k := range parts[1:] {
		keys[k]++
	}
	return at, keys, true
}

// eventsAfter returns the events of window (oldest first) after position
// pos. An unknown position has none after it: "since the call" is never
// the whole window.
func eventsAfter(window []Event, pos string) []Event {
	if pos == emptyLog {
		return window
	}
	at, keys, ok := parsePosition(pos)
	if !ok {
		return nil
	}
	var out []Event
	for _, e := range window {
		switch {
		case e.At.After(at):
			out = append(out, e)
		case e.At.Equal(at) && keys[e.key()] > 0:
			keys[e.key()]--
		case e.At.Equal(at):
			out = append(out, e)
		}
	}
	return out
}

// A logWindow is the newest control-plane events of a cluster's log,
// oldest first, and whether they are the whole log.
type logWindow struct {
	events []Event
	whole  bool
}

// reaches reports that no event after pos can be missing from w: w is the
// whole log, or its oldest event is no newer than pos.
func (w logWindow) reaches(pos string) bool {
	if w.whole {
		return pos != ""
	}
	at, _, ok := parsePosition(pos)
	return ok && len(w.events) > 0 && !w.events[0].At.After(at)
}

// appendNewer returns w brought up to date with recent, the newest entries
// of the log read asking for asked of them, and whether recent reached back
// far enough to do so: fewer entries than asked are the whole log;
// otherwise w's events up to recent's oldest date are kept and recent's
// taken after it, which needs w to reach that date. It holds at most
// eventWindow events.
func (w logWindow) appendNewer(recent []sb.ClusterLogEntry, asked int) (logWindow, bool) {
	if len(recent) < asked {
		return logWindow{events: parseEvents(recent), whole: true}, true
	}
	if len(w.events) == 0 || len(recent) == 0 {
		return logWindow{}, false
	}
	oldest := parseLogDate(recent[0].Date)
	if oldest.IsZero() || oldest.After(w.events[len(w.events)-1].At) {
		return logWindow{}, false
	}
	out := make([]Event, 0, len(w.events)+len(recent))
	for _, e := range w.events {
		if e.At.After(oldest) {
			break
		}
		out = append(out, e)
	}
	for _, e := range parseEvents(recent) {
		if e.At.After(oldest) {
			out = append(out, e)
		}
	}
	whole := w.whole
	if len(out) > eventWindow {
		out, whole = out[len(out)-eventWindow:], false
	}
	return logWindow{events: out, whole: whole}, true
}
