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
	"testing"
)

// The fleet fields every operation kind shares: approval, approved and the
// maintenance window; and the DisruptionBudget.

// operationKinds build a manifest of each operation kind from policy
// fields (YAML lines of forProvider).
var operationKinds = map[string]func(policy string) string{
	"ClusterOps": func(policy string) string {
		return clusterOps("type: Restart\nclusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\n" + policy)
	},
	"StorageNodeOps": func(policy string) string {
		return storageNodeOps("type: Restart\nnodeId: 7c1f5e6d-4a20-4d1b-9d0e-0f6f2b1a9c11\n" + policy)
	},
}

func TestOperationFleetFieldsCreate(t *testing.T) {
	cases := map[string]struct {
		reason  string
		policy  string
		wantErr string
	}{
		"ApprovalRequired":  {reason: "An operation may need approval.", policy: "approval: Required"},
		"ApprovalAutomatic": {reason: "Automatic is the same as leaving approval out.", policy: "approval: Automatic"},
		"ApprovalUnknown": {reason: "approval is Automatic or Required.", policy: "approval: Maybe",
			wantErr: `spec.forProvider.approval: Unsupported value: "Maybe"`},
		"ApprovedAtCreation": {reason: "A plan reviewed elsewhere may be approved at creation.", policy: "approval: Required\napproved: true"},
		"ApprovedWithoutApproval": {reason: "approved means nothing without approval Required: refused rather than ignored.", policy: "approved: true",
			wantErr: "approved applies only to an operation with approval: Required"},
		"Window": {reason: "A window with a five-field schedule, a duration and an IANA zone.",
			policy: "window: {schedule: '0 2 * * 6', duration: 4h, timeZone: Europe/Berlin}"},
		"WindowDescriptor": {reason: "A cron descriptor is a schedule too.", policy: "window: {schedule: '@daily', duration: 1h30m}"},
		"WindowScheduleFields": {reason: "A schedule has five fields.", policy: "window: {schedule: '0 2 * *', duration: 4h}",
			wantErr: "spec.forProvider.window.schedule in body should match"},
		"WindowDurationFormat": {reason: "A duration is hours, minutes and seconds.", policy: "window: {schedule: '@daily', duration: 2d}",
			wantErr: "spec.forProvider.window.duration in body should match"},
		"WindowTooShort": {reason: "A window lasts at least a minute.", policy: "window: {schedule: '@daily', duration: 30s}",
			wantErr: "window.duration must be between 1m and 720h"},
		"WindowTooLong": {reason: "A window lasts at most 30 days.", policy: "window: {schedule: '@daily', duration: 721h}",
			wantErr: "window.duration must be between 1m and 720h"},
		"WindowTimeZoneFormat": {reason: "A time zone is an IANA name.", policy: "window: {schedule: '@daily', duration: 1h, timeZone: 'Europe Berlin'}",
			wantErr: "spec.forProvider.window.timeZone in body should match"},
		"WindowNeedsADuration": {reason: "A window without a duration is refused.", policy: "window: {schedule: '@daily'}",
			wantErr: "spec.forProvider.window.duration: Required value"},
	}
	for kind, manifest := range operationKinds {
		for name, tc := range cases {
			t.Run(kind+"/"+name, func(t *testing.T) {
				_, err := create(t, manifest(tc.policy))
				checkErr(t, tc.reason, tc.wantErr, err)
			})
		}
	}
}

func TestOperationFleetFieldsUpdate(t *testing.T) {
	for kind, manifest := range operationKinds {
		required := manifest("approval: Required")
		cases := map[string]updateCase{
			"Approve": {
				reason:   "approved may be set while the operation awaits approval.",
				manifest: required,
				status:   "status: {atProvider: {phase: Pending, reason: AwaitingApproval}}",
				patch:    "spec: {forProvider: {approved: true}}",
			},
			"ApprovalCannotBeUndone": {
				reason:   "An approval cannot be taken back: cancel is the way to stop.",
				manifest: manifest("approval: Required\napproved: true"),
				patch:    "spec: {forProvider: {approved: false}}",
				wantErr:  "approved cannot be undone",
			},
			"ApprovalImmutable": {
				reason:   "Whether an operation needs approval is fixed at creation.",
				manifest: required,
				patch:    "spec: {forProvider: {approval: Automatic}}",
				wantErr:  "approval is immutable: create a new operation instead",
			},
			"ApproveOnAFinishedOperation": {
				reason:   "approved cannot be set once the operation finished (a cancelled one, say).",
				manifest: required,
				status:   "status: {atProvider: {phase: Failed}}",
				patch:    "spec: {forProvider: {approved: true}}",
				wantErr:  "spec.forProvider.approved cannot change: the operation has finished (Failed), so it would have no effect",
			},
			"WindowImmutable": {
				reason:   "The window is fixed at creation.",
				manifest: manifest("window: {schedule: '0 2 * * 6', duration: 4h}"),
				patch:    "spec: {forProvider: {window: {duration: 8h}}}",
				wantErr:  "window is immutable: create a new operation instead",
			},
			"WindowCannotBeAdded": {
				reason:   "Adding a window later is a change too.",
				manifest: required,
				patch:    "spec: {forProvider: {window: {schedule: '0 2 * * 6', duration: 4h}}}",
				wantErr:  "window is immutable: create a new operation instead",
			},
		}
		t.Run(kind, func(t *testing.T) { runUpdateCases(t, maps.Clone(cases)) })
	}
}

func TestDisruptionBudgetCreate(t *testing.T) {
	budget := func(spec string) string {
		return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: DisruptionBudget\nspec:\n" + indent(2, spec)
	}
	cases := map[string]struct {
		reason   string
		manifest string
		wantErr  string
	}{
		"Example": {reason: "The example budget is accepted.", manifest: example(t, "fleet/disruption-budget.yaml")},
		"SelectsEveryCluster": {reason: "An empty selector selects every cluster.",
			manifest: budget("clusterSelector: {}\nmaxDisrupted: 2")},
		"ZeroDisrupted": {reason: "A budget lets at least one cluster be disrupted, or no disruptive operation could ever run.",
			manifest: budget("clusterSelector: {matchLabels: {env: prod}}\nmaxDisrupted: 0"),
			wantErr:  "spec.maxDisrupted in body should be greater than or equal to 1"},
		"NeedsASelector": {reason: "A budget says which clusters it bounds.", manifest: budget("maxDisrupted: 1"),
			wantErr: "spec.clusterSelector: Required value"},
		"TooManyExpressions": {reason: "A selector has at most 16 expressions (CEL cost bound).",
			manifest: budget("maxDisrupted: 1\nclusterSelector: {matchExpressions: [" + repeatExpr(17) + "]}"),
			wantErr:  "clusterSelector.matchExpressions may have at most 16 expressions"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
		})
	}
}

func repeatExpr(n int) string {
	s := ""
	for i := range n {
		if i > 0 {
			s += ", "
		}
		s += "{key: env, operator: Exists}"
	}
	return s
}
