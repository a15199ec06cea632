// Package logshape checks a GET /clusters/{id}/logs body against the entry
// the real backend builds (sbcli 754ff3e1, simplyblock_core/cluster_ops.py:
// 2380-2413; backend-contract.md §3.2). It is the code of the contract
// check log-entry-shape (internal/contract), kept free of the OpenAPI
// machinery so that the provider and the conformance check
// (internal/conformance) run the very same check on a live backend.
package logshape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// The real log entry (cluster_ops.py:2401-2410).
var (
	// Keys are the keys of every entry, in the backend's order.
	Keys = []string{"Date", "NodeId", "Event", "Level", "Message", "Storage_ID", "VUID", "Status"}
	// Levels are the entry levels (models/events.py:9-13).
	Levels = []string{"Info", "Warning", "Error", "Critical", "Debug"}
	// Events are the kinds the control plane writes
	// (controllers/events_controller.py:12-15); any other Event is a
	// lower-case distrib (data-plane) event type such as device_status
	// (services/main_distr_event_collector.py).
	Events = []string{"STATUS_CHANGE", "OBJ_CREATED", "OBJ_DELETED", "CAPACITY"}
	// ReadKeys are the keys the provider reads (internal/ops/eventlog.go):
	// without them, or with them in another form, it cannot place or
	// classify an entry.
	ReadKeys = []string{"Date", "NodeId", "Event", "Message"}

	distribEventRE = regexp.MustCompile(`^[a-z_]+$`)
	// str(datetime.fromtimestamp(ms/1000))[:23]: milliseconds, or none when
	// the microseconds are 0 (models/events.py:33-37).
	dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{3})?$`)
)

// DateFormat describes the Date spelling.
const DateFormat = "YYYY-MM-DD HH:MM:SS[.mmm]"

// A Kind classifies a Problem.
type Kind string

// Problem kinds.
const (
	// KindNotJSON: the body is not JSON.
	KindNotJSON Kind = "NotJSON"
	// KindBody: the body is not a non-empty array.
	KindBody Kind = "Body"
	// KindEmpty: the body is []; the backend answers an empty log with a
	// plain-text 500 instead (simplyblock_web/api/v2/cluster/__init__.py:
	// 203-206).
	KindEmpty Kind = "Empty"
	// KindEntry: an entry is not an object.
	KindEntry Kind = "Entry"
	// KindKeys: an entry lacks keys or has others (Missing, Unexpected).
	KindKeys Kind = "Keys"
	// KindType: a value is not a string.
	KindType Kind = "Type"
	// KindLevel, KindEvent: a Level or Event outside the known values.
	KindLevel Kind = "Level"
	KindEvent Kind = "Event"
	// KindDate: a Date in another format.
	KindDate Kind = "Date"
	// KindOrder: a Date older than the entry before it (the log is oldest
	// first).
	KindOrder Kind = "Order"
)

// A Problem is one way one entry (or the body) differs from the real log.
type Problem struct {
	Kind Kind
	// Entry is the index of the entry, -1 for the body.
	Entry int
	// Field is the key concerned, "" for the entry or the body.
	Field string
	// Msg describes the problem; it never holds more of the body than the
	// offending Date, Level or Event value.
	Msg string
	// Missing and Unexpected are the keys of a KindKeys problem.
	Missing, Unexpected []string
}

// Unreadable reports whether the provider cannot read the log the way it
// decides on it (internal/ops/eventlog.go) because of p: the body is not a
// list of entries, or a key it reads is missing, not a string, or (Date)
// in another format or order. A Level, an Event value, an extra key or a
// missing key it does not read changes nothing it decides, nor does an
// empty array, which it reads as an empty log.
func (p Problem) Unreadable() bool {
	switch p.Kind {
	case KindNotJSON, KindBody, KindEntry, KindDate, KindOrder:
		return true
	case KindType:
		return slices.Contains(ReadKeys, p.Field)
	case KindKeys:
		return slices.ContainsFunc(p.Missing, func(k string) bool { return slices.Contains(ReadKeys, k) })
	}
	return false
}

// Check returns every problem of a /logs 200 body, in entry order. The
// backend reads the newest events by key, whose date part is the event's
// time in ms, and reverses them, so Date never decreases (Date is
// server-local time: the image runs in UTC, with no DST step back).
func Check(body []byte) []Problem {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return []Problem{{Kind: KindNotJSON, Entry: -1, Msg: "response body is not JSON"}}
	}
	entries, ok := raw.([]any)
	if !ok {
		return []Problem{{Kind: KindBody, Entry: -1, Msg: fmt.Sprintf("got %s, want an array of log entries", jsonKind(raw))}}
	}
	if len(entries) == 0 {
		return []Problem{{Kind: KindEmpty, Entry: -1,
			Msg: "response body is an empty array: the backend answers an empty log with a plain-text 500, never 200 []"}}
	}
	var problems []Problem
	var prev time.Time
	prevDate, prevIdx := "", -1
	for i, e := range entries {
		entry, ok := e.(map[string]any)
		if !ok {
			problems = append(problems, Problem{Kind: KindEntry, Entry: i, Msg: fmt.Sprintf("got %s, want a log entry object", jsonKind(e))})
			continue
		}
		if p, ok := keySetProblem(i, entry); ok {
			problems = append(problems, p)
		}
		str := map[string]string{}
		for _, k := range Keys {
			v, present := entry[k]
			if !present {
				continue
			}
			s, ok := v.(string)
			if !ok {
				msg := fmt.Sprintf("got %s, want string (every log value is a string)", jsonKind(v))
				if v == nil {
					msg = `got null, want string (a missing value is the string "None")`
				}
				problems = append(problems, Problem{Kind: KindType, Entry: i, Field: k, Msg: msg})
				continue
			}
			str[k] = s
		}
		if lvl, ok := str["Level"]; ok && !slices.Contains(Levels, lvl) {
			problems = append(problems, Problem{Kind: KindLevel, Entry: i, Field: "Level",
				Msg: fmt.Sprintf("%q is not one of %s", lvl, strings.Join(Levels, ", "))})
		}
		if ev, ok := str["Event"]; ok && !slices.Contains(Events, ev) && !distribEventRE.MatchString(ev) {
			problems = append(problems, Problem{Kind: KindEvent, Entry: i, Field: "Event",
				Msg: fmt.Sprintf("%q is neither one of %s nor a lower-case distrib event type", ev, strings.Join(Events, ", "))})
		}
		date, ok := str["Date"]
		if !ok {
			continue
		}
		at, err := ParseDate(date)
		if err != nil {
			problems = append(problems, Problem{Kind: KindDate, Entry: i, Field: "Date",
				Msg: fmt.Sprintf("%q is not %s (str(datetime)[:23], no zone)", date, DateFormat)})
			continue
		}
		if prevIdx >= 0 && at.Before(prev) {
			problems = append(problems, Problem{Kind: KindOrder, Entry: i, Field: "Date",
				Msg: fmt.Sprintf("%q is older than entry %d's %q: the log is oldest first", date, prevIdx, prevDate)})
		}
		prev, prevDate, prevIdx = at, date, i
	}
	return problems
}

// keySetProblem describes how entry's keys differ from the real entry's.
func keySetProblem(i int, entry map[string]any) (Problem, bool) {
	var missing, unexpected []string
	for _, k := range Keys {
		if _, ok := entry[k]; !ok {
			missing = append(missing, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(entry)) {
		if !slices.Contains(Keys, k) {
			unexpected = append(unexpected, k)
		}
	}
	if len(missing) == 0 && len(unexpected) == 0 {
		return Problem{}, false
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(unexpected) > 0 {
		parts = append(parts, "unexpected "+strings.Join(unexpected, ", "))
	}
	msg := "not a log entry: " + strings.Join(parts, "; ")
	if len(missing) == len(Keys) {
		msg += " (want exactly the keys " + strings.Join(Keys, ", ") + ")"
	}
	return Problem{Kind: KindKeys, Entry: i, Msg: msg, Missing: missing, Unexpected: unexpected}, true
}

// ParseDate parses a log Date, refusing anything but the backend's two
// spellings.
func ParseDate(s string) (time.Time, error) {
	if !dateRE.MatchString(s) {
		return time.Time{}, errors.New("bad format")
	}
	layout := "2006-01-02 15:04:05"
	if len(s) > len(layout) {
		layout += ".000"
	}
	return time.Parse(layout, s)
}

// Render renders one line per distinct problem, naming the first entry
// with it and counting the others, e.g. "response body at /0/Date: ...
// (and 2 more entries)".
func Render(problems []Problem) []string {
	type group struct {
		first Problem
		more  int
	}
	var order []string
	groups := map[string]*group{}
	for _, p := range problems {
		key := p.Field + "\x00" + p.Msg
		if g, ok := groups[key]; ok {
			g.more++
			continue
		}
		groups[key] = &group{first: p}
		order = append(order, key)
	}
	out := make([]string, 0, len(order))
	for _, key := range order {
		g := groups[key]
		var line string
		switch {
		case g.first.Entry < 0 && g.first.Kind == KindBody:
			line = "response body: " + g.first.Msg
		case g.first.Entry < 0:
			line = g.first.Msg
		default:
			at := fmt.Sprintf("response body at /%d", g.first.Entry)
			if g.first.Field != "" {
				at += "/" + g.first.Field
			}
			line = at + ": " + g.first.Msg
		}
		switch {
		case g.more == 1:
			line += " (and 1 more entry)"
		case g.more > 1:
			line += fmt.Sprintf(" (and %d more entries)", g.more)
		}
		out = append(out, line)
	}
	return out
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
