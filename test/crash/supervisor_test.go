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
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeProviderEnv re-executes the test binary as a stand-in provider that
// follows the crash contract, so the supervisor can be tested before the
// real provider has crash points. Its value is the behaviour:
//
//	crash    announce the first armed point on stderr and SIGKILL itself;
//	         with none armed, run until killed
//	exit     exit with status 3 without a crash line
//	unarmed  announce a point that was not armed and SIGKILL itself
const fakeProviderEnv = "CRASH_FAKE_PROVIDER"

func fakeProvider(mode string) {
	fmt.Printf("fake provider: args %v, KUBECONFIG=%s, %s=%q\n", os.Args[1:], os.Getenv("KUBECONFIG"), crashEnv, os.Getenv(crashEnv))
	fmt.Fprintln(os.Stderr, "fake provider: some log line on stderr")
	die := func(point string) {
		time.Sleep(50 * time.Millisecond)
		fmt.Fprintf(os.Stderr, "%s%s\n", crashLinePrefix, point)
		self, _ := os.FindProcess(os.Getpid())
		_ = self.Kill()
		time.Sleep(time.Minute)
	}
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake provider: giving up")
		os.Exit(3)
	case "unarmed":
		die("never-armed")
	default:
		if armed := os.Getenv(crashEnv); armed != "" {
			die(strings.Split(armed, ",")[0])
		}
		for {
			time.Sleep(time.Hour)
		}
	}
}

// fakeSupervisor runs the stand-in provider in the given mode; failures
// the supervisor reports are collected instead of failing t.
func fakeSupervisor(t *testing.T, mode string, points []string) (*supervisor, func() []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []string
	s := startSupervisor(t, points, supervisorOptions{
		binary: exe,
		env:    []string{fakeProviderEnv + "=" + mode},
		report: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			reports = append(reports, fmt.Sprintf(format, args...))
		},
	})
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(reports)
	}
}

// TestSupervisorContract checks the supervisor's handling of the crash
// contract against a stand-in provider.
func TestSupervisorContract(t *testing.T) {
	t.Run("points fire in order and are disarmed", func(t *testing.T) {
		s, reports := fakeSupervisor(t, "crash", []string{"a", "b", "c", "b"})
		s.WaitFired(t, 30*time.Second, "a", "b", "c")
		if got := s.Fired(); !slices.Equal(got, []string{"a", "b", "c"}) {
			t.Errorf("fired = %v, want [a b c]", got)
		}
		if r := s.Restarts(); r != 3 {
			t.Errorf("restarts = %d, want 3", r)
		}
		if rem := s.Remaining(); len(rem) != 0 {
			t.Errorf("remaining = %v, want none", rem)
		}
		s.Kill()
		s.Stop()
		runs := s.Runs()
		want := [][]string{{"a", "b", "c"}, {"b", "c"}, {"c"}, nil, nil}
		if len(runs) != len(want) {
			t.Fatalf("%d runs, want %d: %s", len(runs), len(want), s)
		}
		for i, r := range runs {
			if !slices.Equal(r.Armed, want[i]) {
				t.Errorf("run #%d armed %v, want %v", i+1, r.Armed, want[i])
			}
		}
		if runs[3].Cause != "killed by the test" || runs[4].Cause != "stopped" {
			t.Errorf("causes of the last runs = %q, %q", runs[3].Cause, runs[4].Cause)
		}
		if r := reports(); len(r) != 0 || s.Err() != nil {
			t.Errorf("reports = %v, err = %v, want none", r, s.Err())
		}
		log, _ := os.ReadFile(s.LogPath())
		for _, want := range []string{"--poll=10s", "KUBECONFIG=" + suite.kubeconfig, crashEnv + `="a,b,c"`, crashLinePrefix + "a"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("log lacks %q", want)
			}
		}
		t.Logf("supervisor: %s", s)
	})

	t.Run("an exit without a crash line fails", func(t *testing.T) {
		s, reports := fakeSupervisor(t, "exit", []string{"a"})
		s.await(30*time.Second, func() bool { return s.err != nil })
		err := s.Err()
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "without a crash line") ||
			!strings.Contains(err.Error(), "fake provider: giving up") {
			t.Fatalf("err = %v, want an unexpected exit with the log tail", err)
		}
		if r := reports(); len(r) != 1 {
			t.Errorf("reports = %v, want one", r)
		}
		if r := s.Restarts(); r != 0 {
			t.Errorf("restarts = %d, want 0 after an unexpected exit", r)
		}
	})

	t.Run("an unarmed point fails", func(t *testing.T) {
		s, _ := fakeSupervisor(t, "unarmed", []string{"a"})
		s.await(30*time.Second, func() bool { return s.err != nil })
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), `"never-armed", which was not armed`) {
			t.Fatalf("err = %v, want an unarmed point", err)
		}
	})
}
