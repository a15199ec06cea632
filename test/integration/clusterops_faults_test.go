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

package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// TestClusterOpsBackendFaults injects the backend's faults (simulator fault
// modes) around operations and checks how each one ends.
func TestClusterOpsBackendFaults(t *testing.T) {
	type want struct {
		phase    v1alpha1.OperationPhase
		reason   string
		message  []string       // substrings of the final message
		calls    map[string]int // POST path suffix -> journal count
		attempts int64
	}
	cases := map[string]struct {
		reason string
		seed   simulator.SeedCluster
		before string // an operation run first
		file   string
		mutate func(h *harness, u *unstructured.Unstructured)
		faults func(h *harness, id string, nodes []string)
		during func(h *harness) // once the operation is Running
		want   func(id string, nodes []string) want
	}{
		"TransientServiceUnavailableIsRetried": {
			reason: "A 503 answer to the POST is a definite failure: retried after the backoff, and the retry succeeds.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterUnready},
			file:   "activate.yaml",
			mutate: func(h *harness, u *unstructured.Unstructured) {
				h.setField(u, int64(1), "spec", "forProvider", "retry", "initialBackoffSeconds")
			},
			faults: func(h *harness, _ string, _ []string) {
				h.sim.Faults().FailNext("POST", "/clusters/*/activate", 1, 503)
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationSucceeded, reason: "Completed", calls: map[string]int{"/activate": 2}, attempts: 2}
			},
		},
		"ConflictFailsWithTheBackendsMessage": {
			reason: "A 409 is the backend's refusal: the operation fails with its words and does not retry.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "shutdown.yaml",
			faults: func(h *harness, _ string, _ []string) {
				h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultFail, Method: "POST", Path: "/clusters/*/shutdown", Count: 1,
					Status: 409, Body: `{"detail":"Cluster is being modified by another request"}`})
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "BackendRejected",
					message: []string{"Cluster is being modified by another request"}, calls: map[string]int{"/shutdown": 1}, attempts: 1}
			},
		},
		"ValidationErrorFailsWithTheBackendsMessage": {
			reason: "A 422 fails the operation with the backend's validation detail.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "upgrade.yaml",
			faults: func(h *harness, _ string, _ []string) { h.sim.Faults().FailNext("POST", "/clusters/*/update", 1, 422) },
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "BackendRejected", message: []string{"injected fault"},
					calls: map[string]int{"/update": 1}, attempts: 1}
			},
		},
		"LostResponseIsResolvedByEvidence": {
			reason: "The backend applied the activate but the answer was lost: evidence (in_activation) proves it; no second call.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterUnready},
			file:   "activate.yaml",
			faults: func(h *harness, _ string, _ []string) {
				h.sim.Faults().DropResponses("POST", "/clusters/*/activate", 1)
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationSucceeded, reason: "Completed", calls: map[string]int{"/activate": 1}, attempts: 1}
			},
		},
		"ActivationThatRevertsFails": {
			reason: "An activation that goes in_activation and back to unready fails, naming the state.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterUnready},
			file:   "activate.yaml",
			faults: func(h *harness, id string, _ []string) {
				h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultActivationFailure, ClusterID: id, After: simulator.Duration(20 * time.Second)})
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "ActivationFailed", message: []string{"back to unready"},
					calls: map[string]int{"/activate": 1}, attempts: 1}
			},
		},
		"StartAbortedAtNodeKFailsNamingTheNode": {
			reason: "A start whose second node does not come back fails with that node named; nothing is re-sent.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			before: "shutdown.yaml",
			file:   "start.yaml",
			faults: func(h *harness, id string, _ []string) {
				h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultStartAbort, ClusterID: id, NodeIndex: 2})
			},
			want: func(_ string, nodes []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "StartAborted", message: []string{"node 2 of 3", nodes[1]},
					calls: map[string]int{"/start": 1}, attempts: 1}
			},
		},
		"StuckInExpansionHitsTheDeadline": {
			reason: "An expansion that raises after setting in_expansion stays there forever: the deadline ends it.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "expand.yaml",
			mutate: func(h *harness, u *unstructured.Unstructured) {
				h.setField(u, int64(6), "spec", "forProvider", "timeoutSeconds")
			},
			faults: func(h *harness, id string, _ []string) {
				h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultExpansionException, ClusterID: id})
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "DeadlineExceeded", message: []string{"did not finish within 6s"},
					calls: map[string]int{"/expand": 1}, attempts: 1}
			},
		},
		"ServerErrorsWhilePollingDoNotFail": {
			reason: "500s on the reads while the operation runs are waited out; they neither fail nor repeat it.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "node-rolling-restart.yaml",
			during: func(h *harness) { h.sim.Faults().FailNext("GET", "/clusters/", 8, 500) },
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationSucceeded, reason: "Completed",
					calls: map[string]int{"/storage-nodes/*/shutdown": 3, "/storage-nodes/*/restart": 3}, attempts: 6}
			},
		},
		"UpgradeOutlastingTheClientTimeoutIsResolvedByEvidence": {
			reason: "The update call runs longer than the client's 5 s timeout while the backend keeps working: the nodes restarting after the call prove it took effect; it is not sent again.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "upgrade.yaml",
			faults: func(h *harness, _ string, _ []string) {
				h.sim.Faults().DelayResponses("POST", "/clusters/*/update", 1, 8*time.Second)
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationSucceeded, reason: "Completed", calls: map[string]int{"/update": 1}, attempts: 1}
			},
		},
		"SilentRefusalFailsWithNoEffect": {
			reason: "A 202 the backend never acts on (silent refusal) fails after the evidence grace period.",
			seed:   simulator.SeedCluster{Nodes: 3, Status: simplyblock.ClusterActive},
			file:   "shutdown.yaml",
			faults: func(h *harness, _ string, _ []string) {
				h.sim.Faults().MustAdd(simulator.Fault{Kind: simulator.FaultSilentRefusal, Method: "POST", Path: "/clusters/*/shutdown", Count: 1})
			},
			want: func(string, []string) want {
				return want{phase: v1alpha1.OperationFailed, reason: "NoEffect", message: []string{"showed no sign of acting"},
					calls: map[string]int{"/shutdown": 1}, attempts: 1}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, harnessOptions{})
			id, nodes := h.importCluster("demo", tc.seed)
			if tc.before != "" {
				h.operation(tc.before, "before", nil)
				h.waitOp("before", v1alpha1.OperationSucceeded)
				h.sim.ResetJournal()
			}
			if tc.faults != nil {
				tc.faults(h, id, nodes)
			}
			h.operation(tc.file, "op", func(u *unstructured.Unstructured) {
				if tc.mutate != nil {
					tc.mutate(h, u)
				}
			})
			if tc.during != nil {
				h.waitOp("op", v1alpha1.OperationRunning)
				tc.during(h)
			}
			w := tc.want(id, nodes)
			op := h.waitOp("op", w.phase)
			st := op.Status.AtProvider
			if st.Reason != w.reason {
				t.Errorf("%s\nreason = %s (%s), want %s", tc.reason, st.Reason, st.Message, w.reason)
			}
			for _, m := range w.message {
				if !strings.Contains(st.Message, m) {
					t.Errorf("%s\nmessage %q does not contain %q", tc.reason, st.Message, m)
				}
			}
			for suffix, n := range w.calls {
				// A delayed answer is journaled when it is written.
				h.eventually(fmt.Sprintf("POST …%s to have reached the backend %d times", suffix, n), func() (bool, string) {
					got := countPosts(h.sim, suffix)
					return got == n, fmt.Sprintf("%d times", got)
				})
			}
			if st.Attempts != w.attempts {
				t.Errorf("%s\nattempts = %d, want %d", tc.reason, st.Attempts, w.attempts)
			}
			if ready := conditionOf(op.Status.Conditions, "Ready"); (ready.Status == "True") != (w.phase == v1alpha1.OperationSucceeded) {
				t.Errorf("%s\nReady = %s, want True only when Succeeded", tc.reason, ready.Status)
			}
			if sc := h.clusterObj("demo"); sc.Status.AtProvider.ActiveOperation != nil {
				t.Errorf("%s\nthe finished operation still holds the lock: %+v", tc.reason, sc.Status.AtProvider.ActiveOperation)
			}
		})
	}
}
