package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strings"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/contract/logshape"
)

// Subjects a Classifier returns.
const (
	SubjectCluster = "cluster"
	SubjectNode    = "node"
)

// A Classifier says what the provider reads a log entry as: a status
// change of the cluster (SubjectCluster) or of node NodeId (SubjectNode),
// from and to which status, or "" for anything else. The provider's is
// internal/ops.ParseLogEntry (cmd/simplyblock-conformance adapts it; this
// package cannot import internal/ops, which imports internal/providerconfig).
type Classifier func(sb.ClusterLogEntry) (subject, from, to string)

// Status-change messages by their writer: cluster_events.py:34-41,
// storage_events.py:46-56. Other STATUS_CHANGE entries (pool, device,
// health check, task canceled) are no status change of a cluster or node.
const (
	clusterChangePrefix = "Cluster status changed"
	nodeChangePrefix    = "Storage node status changed"
	statusChangeEvent   = "STATUS_CHANGE"
	internalServerError = "Internal Server Error"
)

// isPlain500 reports Starlette's plain-text 500, which the backend
// answers for any ValueError: an empty log (cluster/__init__.py:205-206),
// a task outside the TaskDTO enum.
func isPlain500(resp *sb.RawResponse) bool {
	if resp == nil || resp.StatusCode != 500 {
		return false
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/plain" && string(bytes.TrimSpace(resp.Body)) == internalServerError
}

// checkLogBody checks a /logs 200 body with logshape, the code of
// internal/contract's log-entry-shape check, and decodes its entries.
// Problems the provider cannot read past (logshape.Problem.Unreadable) are
// fatal; the others strict, but for 200 [] which the provider reads as an
// empty log: a note.
func checkLogBody(body []byte) ([]sb.ClusterLogEntry, findings) {
	var f findings
	var unreadable, other []logshape.Problem
	for _, p := range logshape.Check(body) {
		switch {
		case p.Kind == logshape.KindEmpty:
			f.addStrict("%s", p.Msg)
		case p.Unreadable():
			unreadable = append(unreadable, p)
		default:
			other = append(other, p)
		}
	}
	for _, l := range logshape.Render(unreadable) {
		f.addFatal("%s", l)
	}
	for _, l := range logshape.Render(other) {
		f.addStrict("%s", l)
	}
	var entries []sb.ClusterLogEntry
	if len(f.fatal) == 0 {
		if err := json.Unmarshal(body, &entries); err != nil {
			f.addFatal("does not decode as log entries: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	return entries, f
}

// classCounts counts what classifyEntries saw.
type classCounts struct {
	cluster, node, other int
}

// classifyEntries checks that classify reads every entry as its writer
// meant it: "Cluster status changed from X to Y" (STATUS_CHANGE) as a
// cluster change between statuses a cluster record has, "Storage node
// status changed from: X to: Y" as a change of node NodeId between node
// statuses, and nothing else as a status change (a pool's "Pool status
// changed from X to Y" would match a looser pattern).
func classifyEntries(entries []sb.ClusterLogEntry, classify Classifier) (classCounts, findings) {
	var n classCounts
	var f findings
	for i, e := range entries {
		want := ""
		if e.Event == statusChangeEvent {
			switch {
			case strings.HasPrefix(e.Message, clusterChangePrefix):
				want = SubjectCluster
			case strings.HasPrefix(e.Message, nodeChangePrefix):
				want = SubjectNode
			}
		}
		got, from, to := classify(e)
		if got != want {
			f.addFatal("entry %d %q (Event %s, NodeId %s) is read as %s, want %s", i, e.Message, e.Event, e.NodeID,
				subjectName(got), subjectName(want))
			continue
		}
		switch want {
		case SubjectCluster:
			n.cluster++
			if !slices.Contains(clusterModelStatuses, from) || !slices.Contains(clusterModelStatuses, to) {
				f.addFatal("entry %d %q: a cluster status the provider does not know", i, e.Message)
			}
		case SubjectNode:
			n.node++
			if !slices.Contains(nodeStatuses, from) || !slices.Contains(nodeStatuses, to) {
				f.addFatal("entry %d %q: a node status the provider does not know", i, e.Message)
			}
		default:
			n.other++
		}
	}
	return n, f
}

func subjectName(s string) string {
	switch s {
	case SubjectCluster:
		return "a cluster status change"
	case SubjectNode:
		return "a node status change"
	}
	return "no status change"
}

// distribCount is the " (<count>)" the backend appends to the message of
// device_status and node_status rows, whose count it rewrites
// (cluster_ops.py:2398-2400, main_distr_event_collector.py:436-511).
var distribCount = regexp.MustCompile(` \(\d+\)$`)

// entryKey identifies an entry across reads: its date, node, kind and
// message, without the count and status the backend rewrites on
// data-plane rows.
func entryKey(e sb.ClusterLogEntry) string {
	msg := e.Message
	if !slices.Contains(logshape.Events, e.Event) {
		msg = distribCount.ReplaceAllString(msg, "")
	}
	return strings.Join([]string{e.Date, e.NodeID, e.Event, msg}, "\x00")
}

func keysOf(entries []sb.ClusterLogEntry) []string {
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = entryKey(e)
	}
	return keys
}

// runIn returns where run occurs in keys as a contiguous run, or -1.
func runIn(keys, run []string) int {
	if len(run) == 0 {
		return 0
	}
	for i := 0; i+len(run) <= len(keys); i++ {
		if slices.Equal(keys[i:i+len(run)], run) {
			return i
		}
	}
	return -1
}

// checkLimits compares three reads of one log, in the order they were
// sent: all (limit=0), limited (limit=n) and more (limit=asked, more than
// all held). Events may be appended between the reads, never inserted (and
// in 30 days none expire): all is where more starts, and limited is a run
// of more that reaches at least all's newest entry, n long unless it is
// the whole log.
func checkLimits(n int, all, limited, more []sb.ClusterLogEntry, asked int) []string {
	var out []string
	ak, lk, mk := keysOf(all), keysOf(limited), keysOf(more)
	if len(mk) < len(ak) || !slices.Equal(mk[:len(ak)], ak) {
		out = append(out, fmt.Sprintf("limit=0 (%d entries) is not the whole log: limit=%d returned %d others", len(all), asked, len(more)))
	}
	i := runIn(mk, lk)
	switch {
	case len(limited) > n:
		out = append(out, fmt.Sprintf("limit=%d returned %d entries", n, len(limited)))
	case i < 0:
		out = append(out, fmt.Sprintf("the %d entries of limit=%d are not a run of the log (limit=%d), oldest first", len(limited), n, asked))
	case i+len(limited) < len(all):
		out = append(out, fmt.Sprintf("limit=%d did not return the newest entries: it returned entries %d to %d of the %d of limit=0",
			n, i, i+len(limited)-1, len(all)))
	case len(limited) < n && i != 0:
		out = append(out, fmt.Sprintf("limit=%d returned %d entries although the log holds %d older ones", n, len(limited), i))
	}
	return out
}
