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

package crash_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
)

// A summaryRow is one cell of the crash matrix.
type summaryRow struct {
	Type   string // the operation type, e.g. Activate
	Point  string // the crash point, or "" for a run without crash
	Calls  string // the backend calls seen, e.g. "POST /activate x1"
	Phase  string // the operation's final phase
	Reason string // the final reason or a note
}

// A summaryTable collects the rows of a crash matrix and logs them as an
// aligned table at the end of the test that created it. Rows may be added
// from subtests.
type summaryTable struct {
	mu   sync.Mutex
	rows []summaryRow
}

// newSummaryTable returns a table that is logged with t.Log when t ends,
// and also written to $CRASH_SUMMARY_FILE when that is set (make test
// prints it, since go test hides the logs of passing packages).
func newSummaryTable(t *testing.T) *summaryTable {
	t.Helper()
	s := &summaryTable{}
	t.Cleanup(func() {
		if s.len() == 0 {
			return
		}
		t.Log("crash matrix summary:\n" + s.String())
		if f := os.Getenv("CRASH_SUMMARY_FILE"); f != "" {
			out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600) //nolint:gosec // a path the Makefile chose.
			if err == nil {
				_, err = out.WriteString(t.Name() + ":\n" + s.String() + "\n")
				err = errors.Join(err, out.Close())
			}
			if err != nil {
				t.Errorf("cannot write the summary: %v", err)
			}
		}
	})
	return s
}

// Add records one row.
func (s *summaryTable) Add(typ, point, calls, phase, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, summaryRow{Type: typ, Point: point, Calls: calls, Phase: phase, Reason: reason})
}

func (s *summaryTable) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}

// String renders the table, one row per line, columns aligned.
func (s *summaryTable) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TYPE\tPOINT\tCALLS SEEN\tFINAL PHASE\tREASON")
	for _, r := range s.rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", orDash(r.Type), orDash(r.Point), orDash(r.Calls), orDash(r.Phase), orDash(r.Reason))
	}
	_ = w.Flush()
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
