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
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/pkg/errors"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// The input's API group, version and kind.
const (
	InputGroup      = "scheduling.fn.simplyblock.io"
	InputAPIVersion = InputGroup + "/v1alpha1"
	InputKind       = "ScheduledOperation"
)

// The kinds a template may have, all of operationAPIVersion.
const (
	operationAPIVersion = "simplyblock.m.crossplane.io/v1alpha1"
	kindClusterOps      = "ClusterOps"
	kindStorageNodeOps  = "StorageNodeOps"
)

// A ScheduledOperation is the function's input: the operation to create in
// each opening of a maintenance window.
type ScheduledOperation struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Metadata is ignored; an input need not have any.
	Metadata map[string]any `json:"metadata,omitempty"`

	// Window is the maintenance window the operation runs in: the schedule
	// of the CronOperation that runs this function, in the window's time
	// zone. It is copied to the operation's spec.forProvider.window.
	Window v1alpha1.MaintenanceWindow `json:"window"`

	// Template is the operation to create.
	Template Template `json:"template"`
}

// A Template is an operation object without its name: a ClusterOps or a
// StorageNodeOps.
type Template struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Metadata   TemplateMetadata `json:"metadata"`
	// Spec is the operation's spec, as it is; its forProvider must not set
	// window.
	Spec map[string]any `json:"spec"`
}

// TemplateMetadata is the metadata a template may set.
type TemplateMetadata struct {
	// Name prefixes the name of each operation:
	// "<name>-<opening in UTC, yyyymmdd-hhmm>".
	Name string `json:"name"`
	// Namespace is the operation's namespace.
	Namespace string `json:"namespace"`
	// Labels are copied to each operation.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are copied to each operation.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// The bounds the ClusterOps and StorageNodeOps CRDs set on a window (see
// v1alpha1.MaintenanceWindow), checked here so that a bad window is a fatal
// result that says why rather than a refused apply.
var (
	schedulePattern = regexp.MustCompile(`^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[^ ]+( +[^ ]+){4})$`)
	durationPattern = regexp.MustCompile(`^([0-9]{1,6}(h|m|s))+$`)
	timeZonePattern = regexp.MustCompile(`^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$`)
)

const maxWindowDuration = 720 * time.Hour

const (
	errNoInput          = "cannot schedule an operation without input: set the step's input to a " + InputKind + " of " + InputAPIVersion
	errReadInput        = "cannot read the input"
	errFmtInputKind     = "cannot use an input of kind %q (apiVersion %q): want kind " + InputKind + " of " + InputAPIVersion
	errFmtScheduleTZ    = "input.window.schedule %q carries a time zone: set input.window.timeZone instead (only the CronOperation's schedule takes a CRON_TZ= prefix)"
	errFmtSchedule      = "input.window.schedule %q must be five cron fields or a descriptor such as @weekly"
	errFmtDuration      = "input.window.duration %q must be a duration such as 4h or 1h30m"
	errFmtDurationRange = "input.window.duration %s must be between 1m and 720h"
	errFmtTimeZone      = "input.window.timeZone %q is not an IANA time zone name such as Europe/Berlin"
	errFmtAPIVersion    = "input.template.apiVersion must be " + operationAPIVersion + ", not %q"
	errFmtKind          = "input.template.kind must be " + kindClusterOps + " or " + kindStorageNodeOps + ", not %q"
	errNoName           = "input.template.metadata.name is required: it prefixes the name of each operation"
	errNoNamespace      = "input.template.metadata.namespace is required: operations are namespaced"
	errNoForProvider    = "input.template.spec.forProvider is required"
	errTemplateWindow   = "input.template.spec.forProvider.window must not be set: the function sets it from input.window"
)

// readInput decodes and checks the function's input. Unknown fields are
// refused, so that a misspelt field is reported, not ignored.
func readInput(in *structpb.Struct) (*ScheduledOperation, error) {
	if in == nil {
		return nil, errors.New(errNoInput)
	}
	b, err := json.Marshal(in.AsMap())
	if err != nil {
		return nil, errors.Wrap(err, errReadInput)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	so := &ScheduledOperation{}
	if err := dec.Decode(so); err != nil {
		// Check the kind first: another function's input fails to decode
		// for its own fields.
		var tm struct{ APIVersion, Kind string }
		if json.Unmarshal(b, &tm) == nil && (tm.APIVersion != InputAPIVersion || tm.Kind != InputKind) {
			return nil, errors.Errorf(errFmtInputKind, tm.Kind, tm.APIVersion)
		}
		return nil, errors.Wrap(err, errReadInput)
	}
	if so.APIVersion != InputAPIVersion || so.Kind != InputKind {
		return nil, errors.Errorf(errFmtInputKind, so.Kind, so.APIVersion)
	}
	if err := checkWindow(so.Window); err != nil {
		return nil, err
	}
	if err := so.Template.check(); err != nil {
		return nil, err
	}
	return so, nil
}

// checkWindow checks a window against the bounds of the CRDs.
func checkWindow(w v1alpha1.MaintenanceWindow) error {
	if strings.Contains(w.Schedule, "TZ=") {
		return errors.Errorf(errFmtScheduleTZ, w.Schedule)
	}
	if !schedulePattern.MatchString(w.Schedule) || len(w.Schedule) > 128 {
		return errors.Errorf(errFmtSchedule, w.Schedule)
	}
	if !durationPattern.MatchString(w.Duration) || len(w.Duration) > 32 {
		return errors.Errorf(errFmtDuration, w.Duration)
	}
	if d, err := time.ParseDuration(w.Duration); err != nil || d < time.Minute || d > maxWindowDuration {
		return errors.Errorf(errFmtDurationRange, w.Duration)
	}
	if w.TimeZone != "" && (!timeZonePattern.MatchString(w.TimeZone) || len(w.TimeZone) > 64) {
		return errors.Errorf(errFmtTimeZone, w.TimeZone)
	}
	return nil
}

// check checks what a template must and must not set.
func (t Template) check() error {
	switch {
	case t.APIVersion != operationAPIVersion:
		return errors.Errorf(errFmtAPIVersion, t.APIVersion)
	case t.Kind != kindClusterOps && t.Kind != kindStorageNodeOps:
		return errors.Errorf(errFmtKind, t.Kind)
	case t.Metadata.Name == "":
		return errors.New(errNoName)
	case t.Metadata.Namespace == "":
		return errors.New(errNoNamespace)
	}
	fp, ok := t.Spec["forProvider"].(map[string]any)
	if !ok {
		return errors.New(errNoForProvider)
	}
	if _, ok := fp["window"]; ok {
		return errors.New(errTemplateWindow)
	}
	return nil
}
