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

// Package opstest helps table tests of operation plans: it applies one of a
// step's rules to a snapshot and compares what the rule said with what a
// case wants.
package opstest

import (
	"fmt"
	"strings"

	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// A Judge is which of a step's rules a case reads.
type Judge int

// Rules of a step.
const (
	Skip Judge = iota
	Gate
	Evidence
	Check
)

// An Outcome is what a step's rule said. Strings are matched as substrings;
// an empty string wants an empty result.
type Outcome struct {
	Skip     bool
	Waiting  string
	Refusal  string
	Evidence bool
	Done     bool
	Failure  string
	Reason   string
	Progress string
}

// Evaluate applies rule j of step s to snapshot sn and baseline b.
func Evaluate(j Judge, s ops.Step, sn *ops.Snapshot, b ops.Baseline) Outcome {
	var o Outcome
	switch j {
	case Skip:
		if s.Skip == nil {
			return o
		}
		o.Skip, o.Progress = s.Skip(sn)
	case Gate:
		if s.Gate == nil {
			return o
		}
		o.Waiting, o.Refusal = s.Gate(sn)
	case Evidence:
		o.Evidence = s.Evidence(b, sn)
	case Check:
		v := s.Check(b, sn)
		o.Done, o.Failure, o.Reason, o.Progress = v.Done, v.Failure, v.Reason, v.Progress
	}
	return o
}

// Mismatch describes how got differs from want, or returns "".
func Mismatch(want, got Outcome) string {
	var d []string
	str := func(field, w, g string) {
		if (w == "") != (g == "") || !strings.Contains(g, w) {
			d = append(d, fmt.Sprintf("%s: got %q, want %q", field, g, w))
		}
	}
	if want.Skip != got.Skip {
		d = append(d, fmt.Sprintf("Skip: got %t, want %t", got.Skip, want.Skip))
	}
	if want.Evidence != got.Evidence {
		d = append(d, fmt.Sprintf("Evidence: got %t, want %t", got.Evidence, want.Evidence))
	}
	if want.Done != got.Done {
		d = append(d, fmt.Sprintf("Done: got %t, want %t", got.Done, want.Done))
	}
	str("Waiting", want.Waiting, got.Waiting)
	str("Refusal", want.Refusal, got.Refusal)
	str("Failure", want.Failure, got.Failure)
	if want.Reason != got.Reason {
		d = append(d, fmt.Sprintf("Reason: got %q, want %q", got.Reason, want.Reason))
	}
	str("Progress", want.Progress, got.Progress)
	return strings.Join(d, "\n")
}
