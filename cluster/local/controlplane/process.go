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

package controlplane

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// stopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
const stopGrace = 10 * time.Second

// A Process is one local process with its output in a log file.
type Process struct {
	Name string
	Log  string // path of the log file

	cmd    *exec.Cmd
	exited chan struct{}

	mu    sync.Mutex
	state *os.ProcessState
}

// StartProcess starts binary with args and the environment env (added to
// this process's environment), writing its output to logDir/<name>.log
// (appended, so a restarted process keeps one log). The process is put in a
// process group of its own and dies with this one (Linux), so a demo closed
// with its terminal leaves nothing behind.
func StartProcess(name, logDir, binary string, args, env []string) (*Process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600) //nolint:gosec // a log in our own folder
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...) //nolint:gosec // binaries the caller built or fetched
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("cannot start %s: %w", name, err)
	}
	p := &Process{Name: name, Log: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logf.Close()
		p.mu.Lock()
		p.state = cmd.ProcessState
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Running reports whether the process has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// ExitState describes how the process ended, or "running".
func (p *Process) ExitState() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		return "running"
	}
	return p.state.String()
}

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill() // an error only means it has exited already
	<-p.exited
}

// Stop sends SIGTERM, waits up to stopGrace, then kills the process.
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		p.Kill()
	}
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // only probing
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until something accepts connections at addr, the
// process exits, or timeout passes.
func waitListening(p *Process, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		if !p.Running() {
			return fmt.Errorf("%s exited (%s) before it listened on %s; see %s", p.Name, p.ExitState(), addr, p.Log)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not listen on %s within %s; see %s", p.Name, addr, timeout, p.Log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
