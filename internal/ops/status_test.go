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
	"testing"
	"time"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestStatusWriteOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		op     *v1alpha1.ClusterOps
		want   string
	}{
		"Queued": {
			reason: "An operation that has not left its queue writes that it waits.",
			op:     operation(queuedAs(2)),
			want:   "queued",
		},
		"HoldsTheLock": {
			reason: "An operation that took its lock and sent nothing writes progress.",
			op:     operation(holding(time.Second)),
			want:   "progress",
		},
		"Intent": {
			reason: "An operation about to send a call writes its intent.",
			op:     operation(unresolved(v1alpha1.GuardIntended, time.Second)),
			want:   "intent",
		},
		"Answered": {
			reason: "The answer to an accepted call is progress.",
			op:     operation(sent(time.Second)),
			want:   "progress",
		},
		"Finished": {
			reason: "A terminal phase is the finished status, whatever the guard shows.",
			op:     operation(unresolved(v1alpha1.GuardIntended, time.Second), finished(v1alpha1.OperationFailed, ReasonOutcomeUnknown, time.Minute)),
			want:   "finished",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := StatusWriteOf(tc.op); got != tc.want {
				t.Errorf("\n%s\nStatusWriteOf(...) = %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}
