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

package scheduling

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	opsv1alpha1 "github.com/crossplane/crossplane/apis/v2/ops/v1alpha1"
	"github.com/google/go-cmp/cmp"
	"github.com/robfig/cron/v3"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/internal/window"
)

// TestExample runs the function on the input of the shipped CronOperation
// (examples/scheduled) and checks that the CronOperation fires at the
// window's openings, as Crossplane reads its schedule.
func TestExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "scheduled", "cronoperation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	co := &opsv1alpha1.CronOperation{}
	if err := yaml.UnmarshalStrict(b, co); err != nil {
		t.Fatal(err)
	}
	if n := len(co.Spec.OperationTemplate.Spec.Pipeline); n != 1 {
		t.Fatalf("the example's pipeline has %d steps, want 1", n)
	}
	step := co.Spec.OperationTemplate.Spec.Pipeline[0]
	if step.FunctionRef.Name != "function-scheduled-ops" {
		t.Errorf("the example's step runs %q, want function-scheduled-ops", step.FunctionRef.Name)
	}
	in := &ScheduledOperation{}
	if err := json.Unmarshal(step.Input.Raw, in); err != nil {
		t.Fatal(err)
	}

	// Crossplane parses the schedule as this does (robfig/cron, standard).
	fires, err := cron.ParseStandard(co.Spec.Schedule)
	if err != nil {
		t.Fatalf("Crossplane cannot parse the example's schedule %q: %v", co.Spec.Schedule, err)
	}
	w, err := window.Parse(in.Window)
	if err != nil {
		t.Fatal(err)
	}
	for _, now := range []string{"2026-12-04T12:00:00Z", "2026-06-01T00:00:00Z", "2027-03-27T12:00:00Z"} {
		next := fires.Next(at(t, now))
		if open, start := w.Open(next); !open || !start.Equal(next) {
			t.Errorf("after %s the CronOperation fires at %s, which is not an opening of the window %s (open=%v, opening %s)",
				now, next.UTC(), w, open, start.UTC())
		}
	}

	// A run at the first opening of December 2026.
	rsp := run(t, fires.Next(at(t, "2026-12-01T00:00:00Z")).Add(time.Minute), string(step.Input.Raw), nil)
	want := scheduled("prod-weekly-rolling-restart-20261205-0100", "2026-12-05T02:00:00+01:00", true,
		"2026-12-05 02:00 CET (the window is open)")
	if diff := cmp.Diff(want, summarize(t, rsp)); diff != "" {
		t.Errorf("RunFunction(the example's input): -want, +got:\n%s", diff)
	}
}
