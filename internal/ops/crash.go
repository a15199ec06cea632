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

package ops

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// CrashEnv names the test-only environment variable that makes the
// provider kill itself (SIGKILL) at injected points, so the crash suites
// can prove that no backend call is repeated across crashes. Its value is
// a comma-separated list of points "<namespace>/<name>:<moment>:<step>",
// for example "ns/restart-1:after-call:1".
const CrashEnv = "SIMPLYBLOCK_OPS_CRASH_AT"

// Crash moments around a guarded backend call. Around a steady-state
// resource's create, CrashAfterIntent is after crossplane-runtime's
// create-pending annotation and CrashAfterCall after the create's answer.
const (
	CrashBeforeIntent = "before-intent"
	CrashAfterIntent  = "after-intent"
	CrashAfterCall    = "after-call"
	CrashAfterOutcome = "after-outcome"
)

// Crash moments around an operation's end, at step 0: after its record was
// appended to the ledger, and after the lock was released with its record
// in the target's status history, each before its own final status.
const (
	CrashAfterLedger  = "after-ledger"
	CrashAfterRelease = "after-release"
)

// crashPoints is parsed once from CrashEnv; empty in production.
var crashPoints = parseCrashPoints(os.Getenv(CrashEnv))

func parseCrashPoints(v string) map[string]bool {
	points := map[string]bool{}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			points[p] = true
		}
	}
	return points
}

// CrashPoint kills the process when the point for this object, moment and
// step was requested through CrashEnv. It prints the point first, so the
// test supervisor knows which one fired. The steady-state resources use it
// around their create call, at step 0.
func CrashPoint(namespace, name, moment string, step int64) {
	if len(crashPoints) == 0 {
		return
	}
	p := fmt.Sprintf("%s/%s:%s:%d", namespace, name, moment, step)
	if !crashPoints[p] {
		return
	}
	fmt.Fprintf(os.Stderr, "SIMPLYBLOCK_OPS_CRASH %s\n", p)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never returns
}
