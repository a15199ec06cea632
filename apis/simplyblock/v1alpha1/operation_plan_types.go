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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// An ApprovalPolicy says whether an operation runs when its turn comes or
// waits for someone to approve its plan.
// +kubebuilder:validation:Enum=Automatic;Required
type ApprovalPolicy string

// Approval policies.
const (
	// ApprovalAutomatic runs the operation when its turn comes.
	ApprovalAutomatic ApprovalPolicy = "Automatic"
	// ApprovalRequired shows the plan and waits for approved: true.
	ApprovalRequired ApprovalPolicy = "Required"
)

// A MaintenanceWindow is when an operation may start, and start each node
// of a rolling restart: openings on a cron schedule, each open for a
// duration.
// +kubebuilder:validation:XValidation:rule="!self.duration.matches('^([0-9]{1,6}(h|m|s))+$') || (duration(self.duration) >= duration('1m') && duration(self.duration) <= duration('720h'))",message="window.duration must be between 1m and 720h"
type MaintenanceWindow struct {
	// Schedule is when the window opens, in cron syntax: five fields
	// (minute, hour, day of month, month, day of week; "0 2 * * 6" is
	// Saturdays at 02:00) or a descriptor such as @daily.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[^ ]+( +[^ ]+){4})$`
	Schedule string `json:"schedule"`

	// Duration is how long each opening lasts, e.g. "4h" or "1h30m";
	// between a minute and 30 days. A string, not a metav1.Duration: a
	// Duration would be written back as "4h0m0s" and no longer equal the
	// stored "4h".
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]{1,6}(h|m|s))+$`
	Duration string `json:"duration"`

	// TimeZone is the IANA time zone the schedule is read in, e.g.
	// Europe/Berlin; UTC when unset.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$`
	TimeZone string `json:"timeZone,omitempty"`
}

// An OperationPlan is what an operation will do, shown for approval.
type OperationPlan struct {
	// ID identifies the plan's steps and targets: a plan recomputed at
	// approval must have the same ID to run.
	ID string `json:"id"`

	// ComputedAt is when the plan was computed, on a fresh read of the
	// backend.
	ComputedAt metav1.Time `json:"computedAt"`

	// Targets are the items the operation works through, in order (the
	// nodes of a NodeRollingRestart, as "<hostname> (<uuid>)").
	// +optional
	// +listType=atomic
	Targets []string `json:"targets,omitempty"`

	// Steps are the operation's steps, in order.
	// +listType=atomic
	Steps []PlannedStep `json:"steps"`
}

// A PlannedStep is one step of a plan.
type PlannedStep struct {
	// Name names the step, as status.atProvider.progress will.
	Name string `json:"name"`

	// Call is the state-changing backend call the step sends, e.g.
	// "POST /storage-nodes/<uuid>/shutdown"; empty for a step that only
	// waits.
	// +optional
	Call string `json:"call,omitempty"`

	// Verdict is, for the first step, what its precondition says on the
	// backend's state when the plan was computed: "ready", "waits: …",
	// "refused: …" or "skipped: …"; for a later step, what it will do when
	// its turn comes ("later: sends …" or "later: waits; sends nothing"),
	// since the steps before it change the cluster.
	Verdict string `json:"verdict"`
}
