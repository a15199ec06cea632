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

package admission_test

import (
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// clusterOpsExamples is the folder of the ClusterOps examples, relative to
// the repository's examples folder.
const clusterOpsExamples = "clusterops"

// clusterOps returns a ClusterOps manifest with the given spec.forProvider
// (YAML).
func clusterOps(forProvider string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: ClusterOps\nspec:\n  forProvider:\n" + indent(4, forProvider)
}

// example returns the manifest in examples/<file>.
func example(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", file)) //nolint:gosec // test input from the repository.
	if err != nil {
		t.Fatalf("cannot read example: %v", err)
	}
	return string(data)
}

// opsDefaults is the forProvider of a ClusterOps that set only its type and
// cluster, as the API server stores it: the policy defaults.
func opsDefaults(typ sbv1alpha1.ClusterOperationType) sbv1alpha1.ClusterOpsParameters {
	return sbv1alpha1.ClusterOpsParameters{
		Type: typ,
		OperationPolicy: sbv1alpha1.OperationPolicy{
			TimeoutSeconds:             new(int64(3600)),
			PreconditionTimeoutSeconds: new(int64(600)),
		},
	}
}

// exampleOps is opsDefaults with the examples' reference to the quickstart
// StorageCluster.
func exampleOps(typ sbv1alpha1.ClusterOperationType) sbv1alpha1.ClusterOpsParameters {
	p := opsDefaults(typ)
	p.ClusterIDRef = &xpv2.NamespacedReference{Name: "demo"}
	return p
}

// byID is opsDefaults targeting a cluster by its UUID.
func byID(typ sbv1alpha1.ClusterOperationType) sbv1alpha1.ClusterOpsParameters {
	p := opsDefaults(typ)
	p.ClusterID = "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"
	return p
}

func TestClusterOpsExamples(t *testing.T) {
	activate := exampleOps(sbv1alpha1.ClusterActivate)
	activate.Activate = &sbv1alpha1.ActivateParameters{ExpectedNodes: new(int64(3))}

	expand := exampleOps(sbv1alpha1.ClusterExpand)
	expand.Expand = &sbv1alpha1.ExpandParameters{ExpectedNodes: new(int64(3))}
	expand.PreconditionTimeoutSeconds = new(int64(1800))

	shutdown := exampleOps(sbv1alpha1.ClusterShutdown)
	start := exampleOps(sbv1alpha1.ClusterStart)

	restart := exampleOps(sbv1alpha1.ClusterRestart)
	restart.Retry = &sbv1alpha1.RetryPolicy{MaxAttempts: new(int64(5)), InitialBackoffSeconds: new(int64(5)), MaxBackoffSeconds: new(int64(300))}

	rolling := exampleOps(sbv1alpha1.ClusterNodeRollingRestart)
	rolling.NodeRollingRestart = &sbv1alpha1.NodeRollingRestartParameters{HealthGate: new(true), PerNodeTimeoutSeconds: new(int64(1200))}
	rolling.TimeoutSeconds = new(int64(7200))

	upgrade := exampleOps(sbv1alpha1.ClusterUpgrade)
	upgrade.Upgrade = &sbv1alpha1.UpgradeParameters{ManagementImage: new("simplyblock/simplyblock:25.10.1"), Restart: true}
	upgrade.TimeoutSeconds = new(int64(7200))

	rebalance := exampleOps(sbv1alpha1.ClusterRebalance)
	rebalance.TTLSecondsAfterFinished = new(int64(3600))

	cases := map[string]struct {
		reason string
		file   string
		// want is forProvider as read back after the create.
		want sbv1alpha1.ClusterOpsParameters
	}{
		"Activate": {
			reason: "The Activate example targets the quickstart cluster, waits for its three nodes and gets the policy defaults.",
			file:   "activate.yaml",
			want:   activate,
		},
		"Expand": {
			reason: "The Expand example waits for three online nodes, up to 30 minutes.",
			file:   "expand.yaml",
			want:   expand,
		},
		"Shutdown": {
			reason: "The Shutdown example has no parameters and gets the policy defaults.",
			file:   "shutdown.yaml",
			want:   shutdown,
		},
		"Start": {
			reason: "The Start example has no parameters and gets the policy defaults.",
			file:   "start.yaml",
			want:   start,
		},
		"Restart": {
			reason: "The Restart example's retry policy gets the default backoffs next to its maxAttempts.",
			file:   "restart.yaml",
			want:   restart,
		},
		"NodeRollingRestart": {
			reason: "The NodeRollingRestart example keeps its explicit health gate and per-node timeout.",
			file:   "node-rolling-restart.yaml",
			want:   rolling,
		},
		"Upgrade": {
			reason: "The Upgrade example sets a management image and restarts the nodes.",
			file:   "upgrade.yaml",
			want:   upgrade,
		},
		"Rebalance": {
			reason: "The Rebalance example deletes itself an hour after it finished.",
			file:   "rebalance.yaml",
			want:   rebalance,
		},
	}

	t.Run("EveryExampleAndTypeCovered", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(repoRoot, "examples", clusterOpsExamples, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var got, want, types []string
		for _, f := range files {
			got = append(got, filepath.Base(f))
		}
		for _, tc := range cases {
			want = append(want, tc.file)
			types = append(types, string(tc.want.Type))
		}
		sort.Strings(want)
		sort.Strings(types)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("\nEvery file in examples/clusterops must have a case here.\nfiles: -want, +got:\n%s", diff)
		}
		allTypes := []string{"Activate", "Expand", "NodeRollingRestart", "Rebalance", "Restart", "Shutdown", "Start", "Upgrade"}
		if diff := cmp.Diff(allTypes, types); diff != "" {
			t.Errorf("\nEvery operation type must have an example.\ntypes: -want, +got:\n%s", diff)
		}
	})

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, example(t, filepath.Join(clusterOpsExamples, tc.file)))
			checkErr(t, tc.reason, "", err)
			got := &sbv1alpha1.ClusterOps{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestClusterOpsCreate(t *testing.T) {
	retryDefaults := byID(sbv1alpha1.ClusterStart)
	retryDefaults.Retry = &sbv1alpha1.RetryPolicy{MaxAttempts: new(int64(3)), InitialBackoffSeconds: new(int64(5)), MaxBackoffSeconds: new(int64(300))}

	rollingDefaults := byID(sbv1alpha1.ClusterNodeRollingRestart)
	rollingDefaults.NodeRollingRestart = &sbv1alpha1.NodeRollingRestartParameters{HealthGate: new(true), PerNodeTimeoutSeconds: new(int64(1800))}

	rollingUngated := byID(sbv1alpha1.ClusterNodeRollingRestart)
	rollingUngated.NodeRollingRestart = &sbv1alpha1.NodeRollingRestartParameters{
		HealthGate:            new(false),
		PerNodeTimeoutSeconds: new(int64(1800)),
		Order:                 []string{"node-b", "node-a"},
	}

	spdkOnly := byID(sbv1alpha1.ClusterUpgrade)
	spdkOnly.Upgrade = &sbv1alpha1.UpgradeParameters{SpdkImage: new("simplyblock/spdk:25.10.1")}

	restartOnly := byID(sbv1alpha1.ClusterUpgrade)
	restartOnly.Upgrade = &sbv1alpha1.UpgradeParameters{Restart: true}

	ttlZero := byID(sbv1alpha1.ClusterRebalance)
	ttlZero.TTLSecondsAfterFinished = new(int64(0))

	bySelector := opsDefaults(sbv1alpha1.ClusterActivate)
	bySelector.ClusterIDSelector = &xpv2.NamespacedSelector{MatchLabels: map[string]string{"app": "demo"}}

	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is forProvider as read back after an accepted create.
		want *sbv1alpha1.ClusterOpsParameters
	}{
		"MinimalGetsPolicyDefaults": {
			reason:   "An operation with only a type and a cluster gets a one-hour deadline and a ten-minute precondition wait.",
			manifest: clusterOps("type: Shutdown\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			want:     new(byID(sbv1alpha1.ClusterShutdown)),
		},
		"EmptyRetryGetsDefaults": {
			reason:   "An empty retry policy gets 3 attempts, 5 s initial and 300 s maximum backoff.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {}"),
			want:     &retryDefaults,
		},
		"EmptyNodeRollingRestartGetsDefaults": {
			reason:   "Empty nodeRollingRestart parameters get the health gate and a 30-minute per-node timeout.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {}"),
			want:     &rollingDefaults,
		},
		"NodeRollingRestartWithoutParameters": {
			reason:   "nodeRollingRestart parameters are optional; without them nothing is defaulted, so the controller must apply the same defaults.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			want:     new(byID(sbv1alpha1.ClusterNodeRollingRestart)),
		},
		"HealthGateFalseKept": {
			reason: "An explicit healthGate false must not be replaced by the default true; an order is kept as written.",
			manifest: clusterOps(`
type: NodeRollingRestart
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeRollingRestart:
  healthGate: false
  order: [node-b, node-a]
`),
			want: &rollingUngated,
		},
		"ExpandWithoutParameters": {
			reason:   "expand parameters are optional.",
			manifest: clusterOps("type: Expand\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			want:     new(byID(sbv1alpha1.ClusterExpand)),
		},
		"UpgradeSpdkImageOnly": {
			reason:   "An upgrade may change only the SPDK image.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {spdkImage: 'simplyblock/spdk:25.10.1'}"),
			want:     &spdkOnly,
		},
		"UpgradeRestartOnly": {
			reason:   "An upgrade may only restart the nodes on their current images.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {restart: true}"),
			want:     &restartOnly,
		},
		"ZeroTTLAccepted": {
			reason:   "ttlSecondsAfterFinished 0 deletes the object as soon as it finished.",
			manifest: clusterOps("type: Rebalance\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nttlSecondsAfterFinished: 0"),
			want:     &ttlZero,
		},
		"ClusterBySelector": {
			reason:   "clusterIdSelector may stand in for clusterId, which the resolver fills in later.",
			manifest: clusterOps("type: Activate\nclusterIdSelector: {matchLabels: {app: demo}}"),
			want:     &bySelector,
		},
		"UnknownType": {
			reason:   "type must be one of the eight cluster operations.",
			manifest: clusterOps("type: Reboot\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			wantErr:  `spec.forProvider.type: Unsupported value: "Reboot": supported values: "Activate", "Expand", "Shutdown", "Start", "Restart", "NodeRollingRestart", "Upgrade", "Rebalance"`,
		},
		"MissingType": {
			reason:   "An operation must say what to run.",
			manifest: clusterOps("clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			wantErr:  "spec.forProvider.type: Required value",
		},
		"ExpandParametersOnShutdown": {
			reason:   "Parameters of another type are a mistake, not something to ignore.",
			manifest: clusterOps("type: Shutdown\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nexpand: {expectedNodes: 3}"),
			wantErr:  "expand parameters are only allowed when type is Expand",
		},
		"ActivateParametersOnExpand": {
			reason:   "Activate's node count on an Expand would be silently ignored.",
			manifest: clusterOps("type: Expand\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nactivate: {expectedNodes: 3}"),
			wantErr:  "activate parameters are only allowed when type is Activate",
		},
		"UpgradeParametersOnActivate": {
			reason:   "Parameters of another type are a mistake, not something to ignore.",
			manifest: clusterOps("type: Activate\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {restart: true}"),
			wantErr:  "upgrade parameters are only allowed when type is Upgrade",
		},
		"NodeRollingRestartParametersOnRestart": {
			reason:   "A whole-cluster Restart has no per-node settings.",
			manifest: clusterOps("type: Restart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {healthGate: false}"),
			wantErr:  "nodeRollingRestart parameters are only allowed when type is NodeRollingRestart",
		},
		"UpgradeWithoutParameters": {
			reason:   "An upgrade must say what to upgrade to.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			wantErr:  "type Upgrade requires upgrade parameters",
		},
		"UpgradeEmptyParameters": {
			reason:   "An upgrade that changes no image and restarts nothing does nothing.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {}"),
			wantErr:  "upgrade needs managementImage, spdkImage or restart",
		},
		"UpgradeRestartFalseOnly": {
			reason:   "restart false alone is as empty as no parameters.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {restart: false}"),
			wantErr:  "upgrade needs managementImage, spdkImage or restart",
		},
		"UpgradeEmptyImage": {
			reason:   "An empty image name would let the backend keep the current image while the operation claims an upgrade.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {managementImage: ''}"),
			wantErr:  "spec.forProvider.upgrade.managementImage in body should be at least 1 chars long",
		},
		"MissingCluster": {
			reason:   "An operation must name its cluster one way or another.",
			manifest: clusterOps("type: Activate"),
			wantErr:  "one of clusterId, clusterIdRef or clusterIdSelector is required",
		},
		"CrossNamespaceReference": {
			reason:   "References resolve only within the operation's own namespace.",
			manifest: clusterOps("type: Activate\nclusterIdRef: {name: demo, namespace: other}"),
			wantErr:  "clusterIdRef and clusterIdSelector resolve in the ClusterOps' own namespace: leave their namespace unset",
		},
		"CrossNamespaceSelector": {
			reason:   "Selectors resolve only within the operation's own namespace.",
			manifest: clusterOps("type: Activate\nclusterIdSelector: {matchLabels: {app: demo}, namespace: other}"),
			wantErr:  "clusterIdRef and clusterIdSelector resolve in the ClusterOps' own namespace: leave their namespace unset",
		},
		"ZeroTimeout": {
			reason:   "An operation needs at least one second to run.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\ntimeoutSeconds: 0"),
			wantErr:  "spec.forProvider.timeoutSeconds in body should be greater than or equal to 1",
		},
		"NegativePreconditionTimeout": {
			reason:   "A precondition wait must be at least one second.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\npreconditionTimeoutSeconds: -1"),
			wantErr:  "spec.forProvider.preconditionTimeoutSeconds in body should be greater than or equal to 1",
		},
		"NegativeTTL": {
			reason:   "An object cannot be deleted before it finished.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nttlSecondsAfterFinished: -1"),
			wantErr:  "spec.forProvider.ttlSecondsAfterFinished in body should be greater than or equal to 0",
		},
		"ZeroMaxAttempts": {
			reason:   "A call is sent at least once.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {maxAttempts: 0}"),
			wantErr:  "spec.forProvider.retry.maxAttempts in body should be greater than or equal to 1",
		},
		"MaxAttemptsAbove20": {
			reason:   "At most 20 attempts, the size of the call audit.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {maxAttempts: 21}"),
			wantErr:  "spec.forProvider.retry.maxAttempts in body should be less than or equal to 20",
		},
		"ZeroInitialBackoff": {
			reason:   "Retries must not hammer the backend.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {initialBackoffSeconds: 0}"),
			wantErr:  "spec.forProvider.retry.initialBackoffSeconds in body should be greater than or equal to 1",
		},
		"NegativeMaxBackoff": {
			reason:   "Retries must not hammer the backend.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {maxBackoffSeconds: -5}"),
			wantErr:  "spec.forProvider.retry.maxBackoffSeconds in body should be greater than or equal to 1",
		},
		"ZeroExpectedNodes": {
			reason:   "A cluster cannot be expanded onto no nodes.",
			manifest: clusterOps("type: Expand\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nexpand: {expectedNodes: 0}"),
			wantErr:  "spec.forProvider.expand.expectedNodes in body should be greater than or equal to 1",
		},
		"TimeoutAtItsBound": {
			reason:   "A deadline of 30 days is allowed.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\ntimeoutSeconds: 2592000"),
		},
		"TimeoutAboveItsBound": {
			reason:   "A deadline over 30 days is refused, naming the field and the bound.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\ntimeoutSeconds: 2592001"),
			wantErr:  "spec.forProvider.timeoutSeconds in body should be less than or equal to 2592000",
		},
		"TimeoutInt64Max": {
			reason:   "int64's maximum (which wrapped around to a deadline in the past) is refused at admission.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\ntimeoutSeconds: 9223372036854775807"),
			wantErr:  "spec.forProvider.timeoutSeconds in body should be less than or equal to",
		},
		"PreconditionTimeoutAboveItsBound": {
			reason:   "A precondition wait over 30 days is refused.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\npreconditionTimeoutSeconds: 2592001"),
			wantErr:  "spec.forProvider.preconditionTimeoutSeconds in body should be less than or equal to 2592000",
		},
		"ApprovalTimeoutAboveItsBound": {
			reason:   "An approval wait over 30 days is refused.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\napproval: Required\napprovalTimeoutSeconds: 2592001"),
			wantErr:  "spec.forProvider.approvalTimeoutSeconds in body should be less than or equal to 2592000",
		},
		"TTLAtItsBound": {
			reason:   "A TTL of a year is allowed.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nttlSecondsAfterFinished: 31536000"),
		},
		"TTLInt64Max": {
			reason:   "int64's maximum as a TTL (which deleted the object at once) is refused at admission.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nttlSecondsAfterFinished: 9223372036854775807"),
			wantErr:  "spec.forProvider.ttlSecondsAfterFinished in body should be less than or equal to",
		},
		"InitialBackoffAboveADay": {
			reason:   "A retry waits at most a day.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {initialBackoffSeconds: 86401}"),
			wantErr:  "spec.forProvider.retry.initialBackoffSeconds in body should be less than or equal to 86400",
		},
		"MaxBackoffAboveADay": {
			reason:   "A retry waits at most a day.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nretry: {maxBackoffSeconds: 86401}"),
			wantErr:  "spec.forProvider.retry.maxBackoffSeconds in body should be less than or equal to 86400",
		},
		"PerNodeTimeoutAboveItsBound": {
			reason:   "A node's steps are bounded by 30 days at most.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {perNodeTimeoutSeconds: 2592001}"),
			wantErr:  "spec.forProvider.nodeRollingRestart.perNodeTimeoutSeconds in body should be less than or equal to 2592000",
		},
		"ManagementImageAtItsBound": {
			reason:   "An image reference of 512 characters is accepted.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {managementImage: " + strings.Repeat("a", 512) + "}"),
		},
		"ManagementImageTooLong": {
			reason:   "A 200,000-character image reference (which would have been sent to the backend) is refused, naming the field and the bound.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {managementImage: " + strings.Repeat("a", 200000) + "}"),
			wantErr:  "spec.forProvider.upgrade.managementImage: Too long: may not be more than 512 bytes",
		},
		"SpdkImageTooLong": {
			reason:   "The SPDK image reference has the same bound.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {spdkImage: " + strings.Repeat("a", 513) + "}"),
			wantErr:  "spec.forProvider.upgrade.spdkImage: Too long: may not be more than 512 bytes",
		},
		"ClusterIDTooLong": {
			reason:   "A cluster id is a UUID: 36 characters.",
			manifest: clusterOps("type: Start\nclusterId: " + strings.Repeat("c", 37)),
			wantErr:  "spec.forProvider.clusterId: Too long: may not be more than 36 bytes",
		},
		"RollingRestartOrderTooLong": {
			reason:   "A rolling restart orders at most 128 nodes.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {order: [" + strings.TrimSuffix(strings.Repeat("n, ", 129), ", ") + "]}"),
			wantErr:  "spec.forProvider.nodeRollingRestart.order: Too many: 129: must have at most 128 items",
		},
		"RollingRestartOrderEntryTooLong": {
			reason:   "Each entry of the order is a node UUID.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {order: [" + strings.Repeat("n", 37) + "]}"),
			wantErr:  "spec.forProvider.nodeRollingRestart.order[0]: Too long: may not be more than 36 bytes",
		},
		"IDAndReferenceTogether": {
			reason:   "An id and a reference on create may name two different clusters: refused (the reference resolver fills the id in).",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nclusterIdRef: {name: other}"),
			wantErr:  "set clusterId or clusterIdRef/clusterIdSelector, not both: a reference fills clusterId in",
		},
		"IDAndSelectorTogether": {
			reason:   "The same holds for a selector.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nclusterIdSelector: {matchLabels: {app: demo}}"),
			wantErr:  "set clusterId or clusterIdRef/clusterIdSelector, not both",
		},
		"ConfirmResendMalformed": {
			reason:   "confirmResend is a token <step>/<attempt>.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nconfirmResend: later"),
			wantErr:  "spec.forProvider.confirmResend in body should match",
		},
		"ZeroPerNodeTimeout": {
			reason:   "Each node needs at least one second.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {perNodeTimeoutSeconds: 0}"),
			wantErr:  "spec.forProvider.nodeRollingRestart.perNodeTimeoutSeconds in body should be greater than or equal to 1",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &sbv1alpha1.ClusterOps{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestClusterOpsUpdate(t *testing.T) {
	initial := clusterOps(`
type: Start
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
retry: {maxAttempts: 5}
`)
	byRef := clusterOps("type: Start\nclusterIdRef: {name: demo}")
	cases := map[string]updateCase{
		"CancelAccepted": {
			reason:   "cancel is the one field that may change after creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {cancel: true}}",
		},
		"AnnotationChangeAccepted": {
			reason:   "Immutability rules must not get in the way of metadata changes such as the external-name annotation.",
			manifest: initial,
			patch:    "metadata: {annotations: {crossplane.io/external-name: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
		},
		"TypeImmutable": {
			reason:   "An operation runs once, as it was written.",
			manifest: initial,
			patch:    "spec: {forProvider: {type: Rebalance}}",
			wantErr:  "type is immutable: create a new operation instead",
		},
		"ClusterIDImmutable": {
			reason:   "An operation cannot move to another cluster.",
			manifest: initial,
			patch:    "spec: {forProvider: {clusterId: 9d3e0c57-4d1b-4f0e-8a2b-7c1f5e6d4a20}}",
			wantErr:  "clusterId is immutable once set",
		},
		"ClusterIDCannotBeRemoved": {
			reason:   "Removing clusterId is a change too.",
			manifest: clusterOps("type: Start\nclusterIdRef: {name: demo}"),
			resolved: "spec: {forProvider: {clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
			patch:    "spec: {forProvider: {clusterId: null}}",
			wantErr:  "clusterId is immutable once set",
		},
		"ClusterIDFilledInByResolver": {
			reason:   "The reference resolver sets clusterId after creation; that first write is not a change.",
			manifest: byRef,
			patch:    "spec: {forProvider: {clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
		},
		"ClusterIDFilledInBySelector": {
			reason:   "The selector resolver sets clusterIdRef and clusterId after creation; that first write is not a change.",
			manifest: clusterOps("type: Start\nclusterIdSelector: {matchLabels: {app: demo}}"),
			patch:    "spec: {forProvider: {clusterIdRef: {name: demo}, clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
		},
		"ClusterIDRefImmutable": {
			reason:   "An operation cannot move to another StorageCluster.",
			manifest: byRef,
			patch:    "spec: {forProvider: {clusterIdRef: {name: other}}}",
			wantErr:  "clusterIdRef is immutable once set",
		},
		"ActivateImmutable": {
			reason:   "Activate parameters cannot change once the operation exists.",
			manifest: clusterOps("type: Activate\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nactivate: {expectedNodes: 3}"),
			patch:    "spec: {forProvider: {activate: {expectedNodes: 4}}}",
			wantErr:  "activate is immutable: create a new operation instead",
		},
		"ExpandImmutable": {
			reason:   "Expand parameters cannot change once the operation exists.",
			manifest: clusterOps("type: Expand\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nexpand: {expectedNodes: 3}"),
			patch:    "spec: {forProvider: {expand: {expectedNodes: 4}}}",
			wantErr:  "expand is immutable: create a new operation instead",
		},
		"ExpandCannotBeAdded": {
			reason:   "Setting optional parameters later is a change too.",
			manifest: clusterOps("type: Expand\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			patch:    "spec: {forProvider: {expand: {expectedNodes: 4}}}",
			wantErr:  "expand is immutable: create a new operation instead",
		},
		"UpgradeImmutable": {
			reason:   "The target images cannot change once the operation exists.",
			manifest: clusterOps("type: Upgrade\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nupgrade: {managementImage: 'simplyblock/simplyblock:25.10.1', restart: true}"),
			patch:    "spec: {forProvider: {upgrade: {managementImage: 'simplyblock/simplyblock:25.10.2'}}}",
			wantErr:  "upgrade is immutable: create a new operation instead",
		},
		"NodeRollingRestartImmutable": {
			reason:   "The per-node settings cannot change while nodes are being restarted.",
			manifest: clusterOps("type: NodeRollingRestart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nnodeRollingRestart: {healthGate: true}"),
			patch:    "spec: {forProvider: {nodeRollingRestart: {healthGate: false}}}",
			wantErr:  "nodeRollingRestart is immutable: create a new operation instead",
		},
		"TimeoutSecondsImmutable": {
			reason:   "The deadline is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {timeoutSeconds: 7200}}",
			wantErr:  "timeoutSeconds is immutable: create a new operation instead",
		},
		"DroppedTimeoutDoesNotRevertToDefault": {
			reason:   "Removing an explicitly set deadline would let the API server put the default back, which changes it.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\ntimeoutSeconds: 7200"),
			patch:    "spec: {forProvider: {timeoutSeconds: null}}",
			wantErr:  "timeoutSeconds is immutable: create a new operation instead",
		},
		"PreconditionTimeoutSecondsImmutable": {
			reason:   "The precondition wait is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {preconditionTimeoutSeconds: 60}}",
			wantErr:  "preconditionTimeoutSeconds is immutable: create a new operation instead",
		},
		"RetryImmutable": {
			reason:   "The retry policy is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {retry: {maxAttempts: 10}}}",
			wantErr:  "retry is immutable: create a new operation instead",
		},
		"RetryCannotBeAdded": {
			reason:   "Setting a retry policy later is a change too.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			patch:    "spec: {forProvider: {retry: {maxAttempts: 10}}}",
			wantErr:  "retry is immutable: create a new operation instead",
		},
		"TTLImmutable": {
			reason:   "ttlSecondsAfterFinished is fixed at creation.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nttlSecondsAfterFinished: 3600"),
			patch:    "spec: {forProvider: {ttlSecondsAfterFinished: 60}}",
			wantErr:  "ttlSecondsAfterFinished is immutable: create a new operation instead",
		},
		"TTLCannotBeAdded": {
			reason:   "Setting ttlSecondsAfterFinished later is a change too.",
			manifest: initial,
			patch:    "spec: {forProvider: {ttlSecondsAfterFinished: 60}}",
			wantErr:  "ttlSecondsAfterFinished is immutable: create a new operation instead",
		},
		"ApprovalTimeoutImmutable": {
			reason:   "approvalTimeoutSeconds is fixed at creation: the bound shown with the plan holds.",
			manifest: clusterOps("type: Start\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\napproval: Required\napprovalTimeoutSeconds: 3600"),
			patch:    "spec: {forProvider: {approvalTimeoutSeconds: 7200}}",
			wantErr:  "approvalTimeoutSeconds is immutable: create a new operation instead",
		},
	}
	maps.Copy(cases, finishedOperationCases(initial))
	runUpdateCases(t, cases)
}
