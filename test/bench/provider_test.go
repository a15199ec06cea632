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
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat;
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// A provider is one provider process, with its metrics endpoint on a free
// local port.
type provider struct {
	cmd         *exec.Cmd
	metricsAddr string
	pprofAddr   string
	logPath     string
	exited      chan struct{}
}

// startProvider runs the provider binary against the envtest API server
// with the provider's default flags, except the listen addresses, plus
// BENCH_PROVIDER_ARGS and extra, and BENCH_PROVIDER_ENV in its environment.
// It is stopped at t's end.
func startProvider(t *testing.T, name string, extra ...string) *provider {
	t.Helper()
	p := &provider{metricsAddr: freeAddr(t), exited: make(chan struct{})}
	args := []string{"--metrics-bind-address=" + p.metricsAddr, "--health-probe-bind-address=0"}
	if world.sizes.Pprof {
		p.pprofAddr = freeAddr(t)
		args = append(args, "--pprof-bind-address="+p.pprofAddr)
	}
	args = append(args, world.sizes.ProviderArgs...)
	args = append(args, extra...)
	p.logPath = filepath.Join(world.logDir, name+".provider.log")
	logf, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(world.providerBin, args...) //nolint:gosec // the binary TestMain built.
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	p.cmd.Env = append(append(env, world.sizes.ProviderEnv...), "KUBECONFIG="+world.kubeconfig)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	p.cmd.WaitDelay = 5 * time.Second
	setProcAttrs(p.cmd)
	if err := p.cmd.Start(); err != nil {
		_ = logf.Close()
		t.Fatalf("cannot start the provider: %v", err)
	}
	go func() {
		_ = p.cmd.Wait()
		_ = logf.Close()
		close(p.exited)
	}()
	t.Cleanup(p.stop)
	t.Logf("provider pid %d, args %v, log %s", p.cmd.Process.Pid, args, p.logPath)
	// Wait for the metrics endpoint: the manager is up.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := p.metrics(); err == nil {
			return p
		}
		select {
		case <-p.exited:
			t.Fatalf("the provider exited at start (%s); log %s", p.cmd.ProcessState, p.logPath)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the provider's metrics endpoint did not come up within 60s; log %s", p.logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// alive fails t when the provider has exited.
func (p *provider) alive(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("the provider exited unexpectedly (%s); log %s", p.cmd.ProcessState, p.logPath)
	default:
	}
}

// stop sends SIGTERM, and SIGKILL after 10 s.
func (p *provider) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

// cpuSeconds reads the user and system CPU time of process pid and its
// parent's pid from /proc/<pid>/stat (Linux only).
func cpuSeconds(pid int) (float64, int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// The command (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0
	}
	f := strings.Fields(string(b)[i+1:])
	// f[0] is field 3 (state), f[1] the parent's pid; utime and stime are
	// fields 14 and 15.
	if len(f) <= 12 {
		return 0, 0
	}
	ppid, _ := strconv.Atoi(f[1])
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (u + st) / clockTicks, ppid
}

// neighbourCPU returns the CPU seconds used so far by the processes that
// share the machine with the provider: the envtest kube-apiserver and etcd
// this test binary started (its children), by command name, and this test
// binary itself ("bench": the simulator, the recorders and the test client).
func neighbourCPU() map[string]float64 {
	self := os.Getpid()
	own, _ := cpuSeconds(self)
	out := map[string]float64{"bench": own}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if name != "kube-apiserver" && name != "etcd" {
			continue
		}
		if cpu, ppid := cpuSeconds(pid); ppid == self {
			out[name] += cpu
		}
	}
	return out
}

// procStats are the provider's resource use so far.
type procStats struct {
	CPUSeconds float64 // user + system
	RSSBytes   int64   // VmRSS
	PeakBytes  int64   // VmHWM: the peak resident set since the start
	// RSSAnonBytes and RSSFileBytes split VmRSS: the process's own memory
	// (Go heap, stacks, runtime) and mapped files (the binary's text).
	RSSAnonBytes, RSSFileBytes int64
}

// stats reads /proc/<pid>/stat and /proc/<pid>/status (Linux only; zeros
// elsewhere).
func (p *provider) stats() procStats {
	var s procStats
	pid := p.cmd.Process.Pid
	s.CPUSeconds, _ = cpuSeconds(pid)
	if f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			fs := strings.Fields(v)
			if len(fs) == 0 {
				continue
			}
			n, _ := strconv.ParseInt(fs[0], 10, 64)
			switch k {
			case "VmRSS":
				s.RSSBytes = n * 1024
			case "VmHWM":
				s.PeakBytes = n * 1024
			case "RssAnon":
				s.RSSAnonBytes = n * 1024
			case "RssFile":
				s.RSSFileBytes = n * 1024
			}
		}
		_ = f.Close()
	}
	return s
}

// metrics scrapes the provider's /metrics endpoint.
func (p *provider) metrics() (promText, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.metricsAddr+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return parseProm(string(b)), nil
}

// scrape reads the provider's metrics, failing the test when it cannot.
func (p *provider) scrape(t *testing.T) promText {
	t.Helper()
	m, err := p.metrics()
	if err != nil {
		t.Fatalf("cannot scrape the provider's metrics: %v", err)
	}
	return m
}

// kubeRequests returns controller-runtime's rest_client_requests_total by
// HTTP method (the verb: GET also counts list and watch).
func (p *provider) kubeRequests(t *testing.T) map[string]float64 {
	t.Helper()
	m := p.scrape(t)
	return m.sumBy("rest_client_requests_total", "method")
}

// kubeRequestsByKind returns the provider's API requests, by "VERB
// resource[/sub]".
func (p *provider) kubeRequestsByKind(t *testing.T) map[string]float64 {
	t.Helper()
	m := p.scrape(t)
	out := map[string]float64{}
	for _, s := range m {
		if s.name != "provider_simplyblock_kube_requests_total" {
			continue
		}
		kind := s.labels["verb"] + " " + s.labels["resource"]
		if sub := s.labels["subresource"]; sub != "" {
			kind += "/" + sub
		}
		out[kind] += s.value
	}
	return out
}

// operationWrites returns the ClusterOps writes the engine counts by what
// they record: "status <queued|intent|progress|finished>" and
// "event <reason>".
func (p *provider) operationWrites(t *testing.T) map[string]float64 {
	t.Helper()
	m := p.scrape(t)
	out := map[string]float64{}
	for _, s := range m {
		if s.labels["kind"] != "ClusterOps" {
			continue
		}
		switch s.name {
		case "simplyblock_operation_status_writes_total":
			out["status "+s.labels["write"]] += s.value
		case "simplyblock_operation_events_total":
			out["event "+s.labels["reason"]] += s.value
		}
	}
	return out
}

// A controllerLoad is what one controller's work queue did: reconciles, and
// the total and count of the waits of its items from being added to being
// picked up by a worker (controller-runtime's workqueue metrics).
type controllerLoad struct {
	reconciles, reconcileSeconds, waitSeconds, waits float64
}

// controllerLoad scrapes the work of the controller named name.
func (p *provider) controllerLoad(t *testing.T, name string) controllerLoad {
	t.Helper()
	m := p.scrape(t)
	return controllerLoad{
		reconciles:       m.sumBy("controller_runtime_reconcile_total", "controller")[name],
		reconcileSeconds: m.sumBy("controller_runtime_reconcile_time_seconds_sum", "controller")[name],
		waitSeconds:      m.sumBy("workqueue_queue_duration_seconds_sum", "name")[name],
		waits:            m.sumBy("workqueue_queue_duration_seconds_count", "name")[name],
	}
}

// writesOf keeps the writes (POST, PUT, PATCH, DELETE) of requests by kind.
func writesOf(byKind map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range byKind {
		verb, _, _ := strings.Cut(k, " ")
		switch verb {
		case "POST", "PUT", "PATCH", "DELETE":
			out[k] = v
		}
	}
	return out
}

// profile saves a CPU profile of seconds and a heap profile of the
// provider into the log folder when BENCH_PPROF=1; it returns the paths.
func (p *provider) profile(t *testing.T, name string, seconds int) []string {
	t.Helper()
	if p.pprofAddr == "" {
		return nil
	}
	var paths []string
	for _, pr := range []struct{ file, url string }{
		{name + ".cpu.pprof", fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds)},
		{name + ".heap.pprof", "/debug/pprof/heap"},
	} {
		path := filepath.Join(world.logDir, pr.file)
		if err := fetch(http.DefaultClient, "http://"+p.pprofAddr+pr.url, path, time.Duration(seconds+30)*time.Second); err != nil {
			t.Logf("pprof %s: %v", pr.url, err)
			continue
		}
		paths = append(paths, path)
	}
	return paths
}

// profileAPIServer saves a CPU profile of seconds of the envtest
// kube-apiserver into the log folder when BENCH_PPROF=1; it returns the path.
func profileAPIServer(t *testing.T, name string, seconds int) []string {
	t.Helper()
	hc, err := rest.HTTPClientFor(world.restConfig)
	if err != nil {
		t.Logf("pprof kube-apiserver: %v", err)
		return nil
	}
	path := filepath.Join(world.logDir, name+".kube-apiserver.cpu.pprof")
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimSuffix(world.restConfig.Host, "/"), seconds)
	if err := fetch(hc, url, path, time.Duration(seconds+30)*time.Second); err != nil {
		t.Logf("pprof kube-apiserver: %v", err)
		return nil
	}
	return []string{path}
}

// profileBench saves a CPU profile of this test binary (the simulator, the
// recorders and the test client) over seconds into the log folder as
// <name>.bench.cpu.pprof; it returns the path.
func profileBench(t *testing.T, name string, seconds int) []string {
	t.Helper()
	path := filepath.Join(world.logDir, name+".bench.cpu.pprof")
	f, err := os.Create(path) //nolint:gosec // a path under the log folder.
	if err != nil {
		t.Logf("pprof bench: %v", err)
		return nil
	}
	defer func() { _ = f.Close() }()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Logf("pprof bench: %v", err)
		return nil
	}
	time.Sleep(time.Duration(seconds) * time.Second)
	pprof.StopCPUProfile()
	return []string{path}
}

func fetch(hc *http.Client, url, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	f, err := os.Create(path) //nolint:gosec // a path under the log folder.
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	return errors.Join(err, f.Close())
}

// promText is a parsed Prometheus text exposition: one sample per line.
type promText []promSample

type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

func parseProm(text string) promText {
	var out promText
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		s := promSample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				continue
			}
			s.name = line[:i]
			for _, kv := range splitLabels(line[i+1 : j]) {
				k, v, ok := strings.Cut(kv, "=")
				if ok {
					s.labels[k], _ = strconv.Unquote(v)
				}
			}
			rest = strings.TrimSpace(line[j+1:])
		} else {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			s.name, rest = f[0], f[1]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		s.value = v
		out = append(out, s)
	}
	return out
}

// splitLabels splits `a="x",b="y,z"` at the commas outside quotes.
func splitLabels(s string) []string {
	var out []string
	inQuote, esc, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case c == '"':
			inQuote = !inQuote
		case c == ',' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// waitIdle waits until the provider's controller has reconciled at least n
// times and has nothing queued: every object it watches was seen once.
func (p *provider) waitIdle(t *testing.T, controller string, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		m, err := p.metrics()
		if err == nil {
			done := m.sumBy("controller_runtime_reconcile_total", "controller")[controller]
			depth := m.sumBy("workqueue_depth", "name")[controller]
			if done >= float64(n) && depth == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %.0f reconciles, %.0f queued after %s; want %d and none", controller, done, depth, timeout, n)
			}
		}
		p.alive(t)
		time.Sleep(time.Second)
	}
}

// waitQuiet waits until the provider's controller has not reconciled for
// quiet: the work queue's depth counts only ready requests, not those a
// rate limit sent back with a delay, so idle by waitIdle can still have
// reconciles to come.
func (p *provider) waitQuiet(t *testing.T, controller string, quiet, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last, since := -1.0, time.Now()
	for {
		if m, err := p.metrics(); err == nil {
			if done := m.sumBy("controller_runtime_reconcile_total", "controller")[controller]; done != last {
				last, since = done, time.Now()
			}
		}
		if time.Since(since) >= quiet {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still reconciling after %s", controller, timeout)
		}
		p.alive(t)
		time.Sleep(time.Second)
	}
}

// sumBy sums the samples of metric by one label's value.
func (p promText) sumBy(metric, label string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range p {
		if s.name == metric {
			out[s.labels[label]] += s.value
		}
	}
	return out
}

// deltaCounts returns after - before per key, dropping zero entries.
func deltaCounts(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
