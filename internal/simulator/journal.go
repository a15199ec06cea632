package simulator

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// JournalEntry records one API call as the backend saw it.
type JournalEntry struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Status is the status the simulator produced. For a dropped response it
	// is the status the client never saw.
	Status   int           `json:"status"`
	Time     time.Time     `json:"time"`
	Duration time.Duration `json:"duration_ns"`
	// Dropped is true when the response was lost on purpose (the call took
	// effect but the connection was closed without a reply).
	Dropped bool `json:"dropped,omitempty"`
}

// Journal returns a copy of every API call recorded so far, oldest first.
func (s *Simulator) Journal() []JournalEntry {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	return append([]JournalEntry(nil), s.journal...)
}

// ResetJournal forgets all recorded calls.
func (s *Simulator) ResetJournal() {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	s.journal = nil
}

// Calls counts the journal entries with the method whose path ends with
// pathSuffix, e.g. Calls("POST", "/start"). An empty method matches any.
func (s *Simulator) Calls(method, pathSuffix string) int {
	s.journalMu.Lock()
	defer s.journalMu.Unlock()
	n := 0
	for _, e := range s.journal {
		if (method == "" || e.Method == method) && strings.HasSuffix(e.Path, pathSuffix) {
			n++
		}
	}
	return n
}

type journalKey struct{}

// callInfo lets inner layers report what happened to the outermost one.
type callInfo struct {
	status  int
	dropped bool
}

// statusRecorder captures the status while passing everything through,
// including Hijack (needed to drop a response).
type statusRecorder struct {
	http.ResponseWriter
	info *callInfo
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.info.status == 0 {
		w.info.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.info.status == 0 {
		w.info.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// journalMiddleware records every call (also dropped ones, by recovering
// the abort panic long enough to write the entry) and logs one line per
// call: method path status duration.
func (s *Simulator) journalMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &callInfo{}
		start := time.Now()
		defer func() {
			d := time.Since(start)
			e := JournalEntry{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: info.status,
				Time: start, Duration: d, Dropped: info.dropped}
			s.journalMu.Lock()
			s.journal = append(s.journal, e)
			s.journalMu.Unlock()
			suffix := ""
			if info.dropped {
				suffix = " (response dropped)"
			}
			s.logf("%s %s %d %s%s", r.Method, r.URL.Path, info.status, d.Round(time.Microsecond), suffix)
		}()
		r = r.WithContext(context.WithValue(r.Context(), journalKey{}, info))
		next.ServeHTTP(&statusRecorder{ResponseWriter: w, info: info}, r)
	})
}

func callInfoFrom(r *http.Request) *callInfo {
	if ci, ok := r.Context().Value(journalKey{}).(*callInfo); ok {
		return ci
	}
	return &callInfo{}
}
