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

package bench_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
)

// results are every figure of one run, written as JSON for comparison
// between commits.
type results struct {
	mu sync.Mutex

	Started time.Time      `json:"started"`
	Commit  string         `json:"commit"`
	Go      string         `json:"go"`
	CPUs    int            `json:"cpus"`
	Sizes   sizes          `json:"sizes"`
	Burst   *burstResult   `json:"burst,omitempty"`
	Rest    *restResult    `json:"rest,omitempty"`
	Rolling *rollingResult `json:"rollingRestart,omitempty"`
}

func newResults(root string, s sizes) *results {
	return &results{Started: time.Now().UTC(), Commit: gitDescribe(root), Go: runtime.Version(), CPUs: runtime.NumCPU(), Sizes: s}
}

func (r *results) empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Burst == nil && r.Rest == nil && r.Rolling == nil
}

func (r *results) set(fn func(r *results)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(r)
}

// write writes the JSON to $BENCH_OUT or _output/bench/bench-<timestamp>.json.
func (r *results) write() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := os.Getenv("BENCH_OUT")
	if path == "" {
		path = filepath.Join(world.root, "_output", "bench", "bench-"+r.Started.Format("20060102-150405")+".json")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(b, '\n'), 0o600)
}

// percentiles summarises a sample of seconds.
type percentiles struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

func summarize(xs []float64) percentiles {
	if len(xs) == 0 {
		return percentiles{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		// Nearest rank.
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return percentiles{N: len(s), P50: round3(q(0.50)), P95: round3(q(0.95)), P99: round3(q(0.99)), Max: round3(s[len(s)-1]),
		Mean: round3(sum / float64(len(s)))}
}

func (p percentiles) String() string {
	return fmt.Sprintf("p50 %.3f  p95 %.3f  p99 %.3f  max %.3f  (n=%d)", p.P50, p.P95, p.P99, p.Max, p.N)
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func secs(d time.Duration) float64 { return round3(d.Seconds()) }

func mib(b int64) float64 { return round3(float64(b) / (1 << 20)) }

// perUnit divides every count by n, rounded to 3 decimals.
func perUnit(m map[string]float64, n float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round3(v / n)
	}
	return out
}

func sum(m map[string]float64) float64 {
	t := 0.0
	for _, v := range m {
		t += v
	}
	return t
}

// A table is rows of cells, printed aligned.
type table struct {
	title string
	rows  [][]string
}

func (t *table) add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		switch v := c.(type) {
		case float64:
			row[i] = fmt.Sprintf("%.3f", v)
		default:
			row[i] = fmt.Sprint(v)
		}
	}
	t.rows = append(t.rows, row)
}

// addCounts adds one row per key of m, sorted, with the value and the
// per-unit value.
func (t *table) addCounts(label string, m map[string]float64, n float64, unit string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		t.add(label, "none")
	}
	for _, k := range keys {
		t.add(label+"  "+k, fmt.Sprintf("%.0f", m[k]), fmt.Sprintf("%.3f %s", m[k]/n, unit))
	}
}

func (t *table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n== %s ==\n", t.title)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range t.rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	_ = w.Flush()
	return b.String()
}

// print shows the table on stdout (for `make bench`) and, unless -v
// already shows stdout as it comes, in the test log.
func (t *table) print(tb testing.TB) {
	s := t.String()
	if !testing.Verbose() {
		tb.Log(s)
	}
	fmt.Print(s)
}

// checkFields fails t when a JSON field of v is missing or null: every
// figure must be present.
func checkFields(t *testing.T, v any, want ...string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range want {
		if x, ok := m[k]; !ok || x == nil {
			t.Errorf("the JSON lacks %q", k)
		}
	}
}
