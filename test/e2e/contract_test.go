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

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/simplyblock/provider-simplyblock/internal/contract"
)

// contractCheck validates every exchange of the simulator (the in-process
// one the provider binary talks to) against the vendor OpenAPI spec and
// its extra checks, for the whole run: the provider keeps polling between
// tests, so the validator is not bound to one test. Each test that makes a
// namespace reports, at its cleanup, the violations recorded since the
// last report (the tests run one after another); TestMain fails the run
// with any left over.
var contractCheck struct {
	v *contract.Validator

	mu       sync.Mutex
	reported int
}

// maxViolationLines bounds how many distinct violations one report prints:
// the provider repeats its calls, so one bad shape recurs many times.
const maxViolationLines = 20

// startContract loads the vendor spec and returns the simulator's
// Middleware. Without the spec it says so loudly and returns nil, or
// fails under CI, as contract.Load does for a test.
func startContract() (func(http.Handler) http.Handler, error) {
	path := contract.SpecPath()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			return nil, fmt.Errorf("vendor OpenAPI spec not found at %s: %w", path, err)
		}
		fmt.Fprintf(os.Stderr, "e2e: CONTRACT CHECKS DISABLED: vendor OpenAPI spec not found at %s\n", path)
		return nil, nil
	}
	spec, err := contract.LoadSpec(path)
	if err != nil {
		return nil, fmt.Errorf("cannot load the vendor OpenAPI spec: %w", err)
	}
	contractCheck.v = contract.NewRecorder(spec)
	return contractCheck.v.Middleware, nil
}

// newViolations returns the violations recorded since the last call,
// summarized: identical ones once with their count, at most
// maxViolationLines lines.
func newViolations() []string {
	if contractCheck.v == nil {
		return nil
	}
	contractCheck.mu.Lock()
	defer contractCheck.mu.Unlock()
	all := contractCheck.v.Failures()
	fresh := all[contractCheck.reported:]
	contractCheck.reported = len(all)

	count := map[string]int{}
	var order []string
	for _, f := range fresh {
		if count[f] == 0 {
			order = append(order, f)
		}
		count[f]++
	}
	var out []string
	for i, f := range order {
		if i == maxViolationLines {
			out = append(out, fmt.Sprintf("... and %d more distinct violations", len(order)-i))
			break
		}
		if n := count[f]; n > 1 {
			f += fmt.Sprintf(" [%d times]", n)
		}
		out = append(out, f)
	}
	return out
}

// checkContract fails t with the violations recorded since the last
// report.
func checkContract(t *testing.T) {
	t.Helper()
	for _, v := range newViolations() {
		t.Errorf("contract violation: %s", v)
	}
}

// reportContract prints the violations no test reported and returns
// their number of lines.
func reportContract() int {
	left := newViolations()
	for _, v := range left {
		fmt.Fprintf(os.Stderr, "e2e: contract violation: %s\n", v)
	}
	return len(left)
}
