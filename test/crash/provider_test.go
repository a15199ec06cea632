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
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	// crashEnv arms crash points in the provider: a comma-separated list.
	crashEnv = "SIMPLYBLOCK_OPS_CRASH_AT"
	// crashLinePrefix starts the stderr line the provider prints at an armed
	// crash point, just before it SIGKILLs itself.
	crashLinePrefix = "SIMPLYBLOCK_OPS_CRASH "
	// crashDeathTimeout is how long a provider may live on after printing a
	// crash line before the harness calls it a contract violation.
	crashDeathTimeout = 15 * time.Second
)

// providerArgs are the flags every provider process gets.
var providerArgs = []string{"--debug", "--poll=10s", "--metrics-bind-address=0", "--health-probe-bind-address=0"}

// ---- one provider process -----------------------------------------------

// A providerProcess is one run of the provider binary. Its stdout and
// stderr go to a log writer; stderr is scanned for crash lines.
type providerProcess struct {
	cmd     *exec.Cmd
	armed   []string
	started time.Time
	scan    *crashScanner
	killed  atomic.Bool // Kill was called
	exited  chan struct{}

	// Set before exited is closed.
	state *os.ProcessState
	ended time.Time
}

// startProcess starts binary with providerArgs and args, KUBECONFIG and,
// when points is not empty, SIMPLYBLOCK_OPS_CRASH_AT=<points>, plus env.
func startProcess(binary string, logw io.Writer, points, env []string, args ...string) (*providerProcess, error) {
	cmd := exec.Command(binary, append(slices.Clone(providerArgs), args...)...) //nolint:gosec // the binary the suite built.
	cmd.Env = processEnv(points, env)
	scan := newCrashScanner(logw)
	cmd.Stdout, cmd.Stderr = logw, scan
	cmd.WaitDelay = 5 * time.Second // a grandchild holding the pipes must not hang Wait
	setProcAttrs(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &providerProcess{cmd: cmd, armed: slices.Clone(points), started: time.Now(), scan: scan, exited: make(chan struct{})}
	suite.live.Store(p, struct{}{})
	go func() {
		_ = cmd.Wait() // the exit is in ProcessState; Wait also drains the pipes
		p.state, p.ended = cmd.ProcessState, time.Now()
		scan.flush()
		suite.live.Delete(p)
		close(p.exited)
	}()
	return p, nil
}

// processEnv is the parent's environment without KUBECONFIG and crash
// points, plus the test API server's kubeconfig, the armed points and env.
func processEnv(points, env []string) []string {
	out := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, crashEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "KUBECONFIG="+suite.kubeconfig)
	if len(points) > 0 {
		out = append(out, crashEnv+"="+strings.Join(points, ","))
	}
	return append(out, env...)
}

// Kill sends SIGKILL; it does not wait (see Exited).
func (p *providerProcess) Kill() {
	p.killed.Store(true)
	_ = p.cmd.Process.Kill() // an error only means it has exited already
}

// Exited is closed once the process has exited and its output is drained.
func (p *providerProcess) Exited() <-chan struct{} { return p.exited }

// sigkilled reports whether the process died of SIGKILL. Only valid after
// Exited.
func (p *providerProcess) sigkilled() bool {
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// exitString describes how the process ended, e.g. "signal: killed".
func (p *providerProcess) exitString() string {
	if p.state == nil {
		return "running"
	}
	return p.state.String()
}

// crashScanner passes output through to a log and records the crash points
// announced by "SIMPLYBLOCK_OPS_CRASH <point>" lines, and data races
// reported by a -race build.
type crashScanner struct {
	out io.Writer

	mu      sync.Mutex
	partial []byte
	points  []string
	races   int
	crashed chan struct{} // closed at the first crash line
}

func newCrashScanner(out io.Writer) *crashScanner {
	return &crashScanner{out: out, crashed: make(chan struct{})}
}

// Write never fails: a failing log must not break the provider's stderr.
func (c *crashScanner) Write(p []byte) (int, error) {
	_, _ = c.out.Write(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		c.lineLocked(string(c.partial[:i]))
		c.partial = c.partial[i+1:]
	}
	if len(c.partial) > 1<<16 { // a runaway line; crash lines are short
		c.partial = c.partial[:0]
	}
	return len(p), nil
}

// flush handles an unterminated last line.
func (c *crashScanner) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.partial) > 0 {
		c.lineLocked(string(c.partial))
		c.partial = nil
	}
}

func (c *crashScanner) lineLocked(line string) {
	line = strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(line, crashLinePrefix); ok {
		if f := strings.Fields(rest); len(f) > 0 {
			if len(c.points) == 0 {
				close(c.crashed)
			}
			c.points = append(c.points, f[0])
		}
	}
	if strings.Contains(line, "WARNING: DATA RACE") {
		c.races++
	}
}

// fired returns the points announced so far.
func (c *crashScanner) fired() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.points)
}

func (c *crashScanner) raceCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.races
}

// ---- the supervisor -----------------------------------------------------

// A providerRun records one provider process the supervisor ran.
type providerRun struct {
	Armed      []string // crash points armed in this run
	Fired      []string // crash points it announced
	Start, End time.Time
	Exit       string // e.g. "signal: killed"
	Cause      string // "crash at <point>", "killed by the test", "stopped" or "unexpected exit"
}

// A supervisor runs the provider, restarting it after every expected death
// (an announced crash point, or Kill) until Stop. See runWithCrashes.
type supervisor struct {
	t       *testing.T
	binary  string
	env     []string
	args    []string
	logPath string
	logw    *lockedWriter
	logFile *os.File
	report  func(format string, args ...any) // reports failures; t.Errorf

	mu        sync.Mutex
	remaining []string // armed and not yet fired
	fired     []string // in firing order
	runs      []providerRun
	cur       *providerProcess
	kills     int
	stopping  bool
	err       error         // the first failure; ends supervision
	changed   chan struct{} // closed and replaced at every change
	done      chan struct{} // closed when the monitor has returned
}

// supervisorOptions are for testing the supervisor itself.
type supervisorOptions struct {
	binary string                           // default: the provider built by TestMain
	env    []string                         // extra environment
	report func(format string, args ...any) // default: t.Errorf
}

// runWithCrashes starts the provider with the crash points armed and
// supervises it until Stop (at the latest at t's end): whenever the process
// dies, the points it announced are disarmed and it is restarted with the
// remaining ones. A death that is neither an announced crash point nor a
// Kill fails t, with the tail of the log, and ends supervision. extraArgs
// are appended to the provider's flags.
func runWithCrashes(t *testing.T, points []string, extraArgs ...string) *supervisor {
	t.Helper()
	return startSupervisor(t, points, supervisorOptions{}, extraArgs...)
}

func startSupervisor(t *testing.T, points []string, o supervisorOptions, extraArgs ...string) *supervisor {
	t.Helper()
	st := state(t)
	if o.binary == "" {
		o.binary = suite.providerBin
	}
	if o.report == nil {
		o.report = t.Errorf
	}
	path := st.logPath()
	f, err := os.Create(path) //nolint:gosec // a path under the suite's log folder.
	if err != nil {
		t.Fatalf("cannot create the provider log: %v", err)
	}
	var remaining []string
	for _, p := range points {
		if p != "" && !slices.Contains(remaining, p) {
			remaining = append(remaining, p)
		}
	}
	s := &supervisor{t: t, binary: o.binary, env: o.env, args: extraArgs, logPath: path, logFile: f,
		logw: &lockedWriter{w: f}, report: o.report, remaining: remaining,
		changed: make(chan struct{}), done: make(chan struct{})}
	st.addLog(path)
	st.mu.Lock()
	st.supervisors = append(st.supervisors, s)
	st.mu.Unlock()
	t.Cleanup(s.Stop)

	s.mu.Lock()
	err = s.startLocked()
	s.mu.Unlock()
	if err != nil {
		close(s.done)
		t.Fatalf("cannot start the provider: %v", err)
	}
	go s.monitor()
	return s
}

// startLocked starts a process with the remaining points.
func (s *supervisor) startLocked() error {
	n := len(s.runs) + 1
	fmt.Fprintf(s.logw, "=== crash harness: start #%d at %s, armed %v ===\n", n, time.Now().Format("15:04:05.000"), s.remaining)
	p, err := startProcess(s.binary, s.logw, s.remaining, s.env, s.args...)
	if err != nil {
		return err
	}
	s.cur = p
	s.runs = append(s.runs, providerRun{Armed: slices.Clone(s.remaining), Start: p.started})
	s.broadcastLocked()
	return nil
}

func (s *supervisor) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// monitor waits for each process to end, classifies the death and
// restarts the provider when it was expected.
func (s *supervisor) monitor() {
	defer close(s.done)
	for {
		s.mu.Lock()
		p := s.cur
		s.mu.Unlock()

		lingered := awaitDeath(p)

		s.mu.Lock()
		failure := s.classifyLocked(p, lingered)
		if races := p.scan.raceCount(); races > 0 {
			s.report("the provider (run #%d) reported %d data race(s); see %s", len(s.runs), races, s.logPath)
		}
		// A failure is reported before it is broadcast, so whoever waits
		// for it finds the report.
		if failure != "" {
			s.err = errors.New(failure)
			s.report("%s", failure)
			s.broadcastLocked()
			s.mu.Unlock()
			return
		}
		if s.stopping {
			s.broadcastLocked()
			s.mu.Unlock()
			return
		}
		if err := s.startLocked(); err != nil {
			s.err = fmt.Errorf("cannot restart the provider: %w", err)
			s.report("%v", s.err)
			s.broadcastLocked()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// awaitDeath waits for p to exit. A process that announced a crash point
// but is still alive crashDeathTimeout later is killed; it returns true
// then.
func awaitDeath(p *providerProcess) (lingered bool) {
	select {
	case <-p.Exited():
		return false
	case <-p.scan.crashed:
	}
	select {
	case <-p.Exited():
		return false
	case <-time.After(crashDeathTimeout):
		p.Kill()
		<-p.Exited()
		return true
	}
}

// classifyLocked records p's end and returns a failure message when the
// death was not expected.
func (s *supervisor) classifyLocked(p *providerProcess, lingered bool) string {
	run := &s.runs[len(s.runs)-1]
	run.End, run.Exit = p.ended, p.exitString()
	run.Fired = p.scan.fired()
	fmt.Fprintf(s.logw, "=== crash harness: process #%d exited (%s) after %s, announced %v ===\n",
		len(s.runs), run.Exit, run.End.Sub(run.Start).Round(time.Millisecond), run.Fired)

	var problems []string
	for _, pt := range run.Fired {
		i := slices.Index(s.remaining, pt)
		if i < 0 {
			problems = append(problems, fmt.Sprintf("announced crash point %q, which was not armed (armed: %v)", pt, run.Armed))
			continue
		}
		s.remaining = slices.Delete(s.remaining, i, i+1)
		s.fired = append(s.fired, pt)
	}
	switch {
	case len(run.Fired) > 0:
		run.Cause = "crash at " + strings.Join(run.Fired, ",")
		if lingered {
			problems = append(problems, fmt.Sprintf("announced crash point %v but was still alive %s later", run.Fired, crashDeathTimeout))
		} else if !p.sigkilled() && !p.killed.Load() {
			problems = append(problems, fmt.Sprintf("announced crash point %v but ended with %q, not SIGKILL", run.Fired, run.Exit))
		}
	case p.killed.Load() && s.stopping:
		run.Cause = "stopped"
	case p.killed.Load():
		run.Cause = "killed by the test"
	default:
		run.Cause = "unexpected exit"
		problems = append(problems, "exited ("+run.Exit+") without a crash line")
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("provider run #%d (armed %v): %s; log %s; last lines:\n%s",
		len(s.runs), run.Armed, strings.Join(problems, "; "), s.logPath, tailFile(s.logPath, 40))
}

// Kill SIGKILLs the running provider, as an external crash would (an OOM
// kill, a node loss), and returns once the supervisor has restarted it.
// Call it from the test's goroutine.
func (s *supervisor) Kill() {
	s.t.Helper()
	s.mu.Lock()
	if s.stopping || s.err != nil {
		err := s.err
		s.mu.Unlock()
		s.t.Fatalf("Kill: the provider is not supervised any more (error: %v)", err)
	}
	p := s.cur
	s.kills++
	s.mu.Unlock()
	p.Kill()
	if !s.await(60*time.Second, func() bool { return s.cur != p || s.err != nil || s.stopping }) {
		s.t.Fatalf("Kill: the provider was not restarted within 60s; log %s", s.logPath)
	}
	if err := s.Err(); err != nil {
		s.t.Fatalf("Kill: %v", err)
	}
}

// Stop SIGKILLs the running provider and waits until supervision has
// ended; nothing is restarted. It is idempotent and runs at t's end.
func (s *supervisor) Stop() {
	s.mu.Lock()
	if !s.stopping {
		s.stopping = true
		if s.cur != nil {
			s.cur.Kill()
		}
	}
	s.mu.Unlock()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.logFile != nil {
		_ = s.logFile.Close()
		s.logFile = nil
	}
}

// WaitFired waits until all the given points have fired and the provider
// has been restarted after them, failing the test on timeout or when the
// supervisor failed.
func (s *supervisor) WaitFired(t *testing.T, timeout time.Duration, points ...string) {
	t.Helper()
	all := func() bool {
		for _, p := range points {
			if !slices.Contains(s.fired, p) {
				return false
			}
		}
		return true
	}
	ok := s.await(timeout, func() bool { return all() || s.err != nil })
	if err := s.Err(); err != nil {
		t.Fatalf("waiting for crash points %v: %v", points, err)
	}
	if !ok {
		t.Fatalf("crash points %v did not all fire within %s (fired %v, still armed %v); log %s, last lines:\n%s",
			points, timeout, s.Fired(), s.Remaining(), s.logPath, tailFile(s.logPath, 20))
	}
}

// await waits until cond (called with s.mu held) holds or timeout passes.
func (s *supervisor) await(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// Fired returns the crash points that fired, in order.
func (s *supervisor) Fired() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.fired)
}

// Remaining returns the crash points still armed.
func (s *supervisor) Remaining() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.remaining)
}

// Restarts is how many times the provider was started after the first.
func (s *supervisor) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs) - 1
}

// Kills is how many times Kill was called.
func (s *supervisor) Kills() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kills
}

// Runs returns a record of every process run so far.
func (s *supervisor) Runs() []providerRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

// Err is the failure that ended supervision, if any.
func (s *supervisor) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// LogPath is the file the provider's stdout and stderr go to.
func (s *supervisor) LogPath() string { return s.logPath }

// String summarises the supervision, e.g. for t.Log.
func (s *supervisor) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d run(s), fired %v, still armed %v", len(s.runs), s.fired, s.remaining)
	for i, r := range s.runs {
		end := "running"
		if !r.End.IsZero() {
			end = fmt.Sprintf("%s after %s: %s", r.Exit, r.End.Sub(r.Start).Round(time.Millisecond), r.Cause)
		}
		fmt.Fprintf(&b, "\n  #%d armed %v: %s", i+1, r.Armed, end)
	}
	return b.String()
}

// tailFile returns the last n lines of the file at path.
func tailFile(path string, n int) string {
	f, err := os.Open(path) //nolint:gosec // a log the harness wrote.
	if err != nil {
		return "(" + err.Error() + ")"
	}
	defer func() { _ = f.Close() }()
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(fi.Size()-window, io.SeekStart)
	}
	data, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
