package contract

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pkg/errors"
)

// specCache avoids re-parsing the spec in every test.
var specCache sync.Map // path -> *Spec

// Validator checks HTTP exchanges against the spec on behalf of a test and
// fails that test, at cleanup, with every violation it saw.
type Validator struct {
	spec *Spec
	t    testing.TB

	mu       sync.Mutex
	failures []string
}

// Load returns a Validator for the vendor spec at SpecPath. When the spec
// is absent the test is skipped with a loud message, or fails when the
// environment variable CI is set.
func Load(t testing.TB) *Validator {
	t.Helper()
	path := SpecPath()
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("CONTRACT CHECKS DISABLED: vendor OpenAPI spec not found at %s (%v); "+
			"it lives outside the repository in ../shared/reference", path, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	spec, err := cachedSpec(path)
	if err != nil {
		t.Fatalf("cannot load OpenAPI spec %s: %v", path, err)
	}
	return NewValidator(t, spec)
}

func cachedSpec(path string) (*Spec, error) {
	if s, ok := specCache.Load(path); ok {
		return s.(*Spec), nil
	}
	s, err := LoadSpec(path)
	if err != nil {
		return nil, err
	}
	specCache.Store(path, s)
	return s, nil
}

// NewValidator returns a Validator for spec that reports to t at cleanup.
func NewValidator(t testing.TB, spec *Spec) *Validator {
	v := &Validator{spec: spec, t: t}
	t.Cleanup(func() {
		for _, f := range v.Failures() {
			t.Errorf("contract violation: %s", f)
		}
	})
	return v
}

// NewRecorder returns a Validator bound to no test: it only records, and
// the harness reads Failures itself. It is for harnesses that validate
// traffic across tests, from TestMain (test/e2e).
func NewRecorder(spec *Spec) *Validator { return &Validator{spec: spec} }

// Spec returns the loaded spec.
func (v *Validator) Spec() *Spec { return v.spec }

// Failures returns the violations recorded so far.
func (v *Validator) Failures() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.failures...)
}

func (v *Validator) record(side string, ex Exchange, problems []string) {
	if len(problems) == 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, p := range problems {
		v.failures = append(v.failures, fmt.Sprintf("%s %s %s (HTTP %d): %s", side, ex.Method, ex.Path, ex.Status, p))
	}
}

// RoundTripper validates every request a client sends and every response it
// receives. Any request violation fails the test: the client must only send
// what the spec allows.
func (v *Validator) RoundTripper(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		var body []byte
		if req.Body != nil && req.Body != http.NoBody {
			b, err := io.ReadAll(req.Body)
			_ = req.Body.Close()
			if err != nil {
				return nil, errors.Wrap(err, "contract: cannot read request body")
			}
			body = b
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		ex := Exchange{Method: req.Method, Path: req.URL.Path, Query: req.URL.Query(), RequestHeader: req.Header, RequestBody: body}
		reqProblems := v.spec.CheckRequest(ex)

		resp, err := next.RoundTrip(req)
		if err != nil {
			v.record("client", ex, reqProblems)
			return nil, err
		}
		respBody, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		ex.Status, ex.ResponseHeader, ex.ResponseBody = resp.StatusCode, resp.Header, respBody
		if err != nil {
			v.record("client", ex, reqProblems)
			return nil, err
		}
		v.record("client", ex, append(reqProblems, v.spec.CheckResponse(ex)...))
		return resp, nil
	})
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Middleware validates every request reaching a server and every response
// it writes. A request outside the spec is only a violation when the
// server accepted it (2xx): refusing bad input is the server's job. A
// hijacked connection (fault injection) is not checked.
func (v *Validator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.hijacked {
			return
		}
		ex := Exchange{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RequestHeader: r.Header, RequestBody: body,
			Status: rec.statusOrOK(), ResponseHeader: w.Header(), ResponseBody: rec.body.Bytes()}
		var problems []string
		if ex.Status >= 200 && ex.Status < 300 {
			for _, p := range v.spec.CheckRequest(ex) {
				problems = append(problems, "accepted a request outside the spec: "+p)
			}
		}
		v.record("server", ex, append(problems, v.spec.CheckResponse(ex)...))
	})
}

// recordingWriter tees the status and body of a response.
type recordingWriter struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	hijacked bool
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) statusOrOK() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// Flush passes through to the underlying writer.
func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes through and marks the exchange as not checkable.
func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("contract: underlying ResponseWriter cannot hijack")
	}
	w.hijacked = true
	return h.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// DeviationTable renders Deviations as a Markdown table.
func DeviationTable() string {
	var b strings.Builder
	b.WriteString("| ID | Where | Spec says | Backend does (tolerated) |\n|---|---|---|---|\n")
	for _, d := range Deviations {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", d.ID, d.Where, d.Spec, d.Backend)
	}
	return b.String()
}
