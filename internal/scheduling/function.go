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
	"context"
	"strings"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/response"
	"github.com/pkg/errors"
	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/window"
)

const (
	// ResourceName is the operation's key among the desired resources.
	ResourceName resource.Name = "operation"

	// AnnotationOpening records on each operation the opening it was made
	// for, in RFC 3339 in the window's time zone.
	AnnotationOpening = InputGroup + "/opening"

	// nameLayout formats an opening, in UTC, as the operation's name suffix.
	nameLayout = "20060102-1504"

	reasonScheduled = "Scheduled"
)

const (
	errWindow          = "cannot use input.window"
	errFmtNeverOpens   = "cannot schedule an operation: window %s never opens"
	errFmtName         = "cannot name the operation %q (input.template.metadata.name %q plus the opening): %s"
	errBuild           = "cannot build the operation"
	errSetDesired      = "cannot set the desired resources"
	errSetOutput       = "cannot set the output"
	msgFmtScheduled    = "%s %s/%s for the opening at %s (%s)"
	stateWindowOpen    = "the window is open"
	stateWindowPending = "the window is closed; the operation waits for this opening"
)

// An Output is what the function reports in the Operation's
// status.pipeline[].output: the operation it returned and its opening.
type Output struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	// Opening is when the opening the operation is for starts, in RFC 3339
	// in the window's time zone.
	Opening string `json:"opening"`
	// WindowOpen says whether the window was open when the function ran.
	WindowOpen bool `json:"windowOpen"`
}

// A Function returns the operation of a window's opening for Crossplane to
// apply.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
	now func() time.Time
}

// NewFunction returns a Function that logs to the supplied logger.
func NewFunction(log logging.Logger) *Function {
	return &Function{log: log, now: time.Now}
}

// RunFunction returns the operation of the latest opening that contains
// now, or of the next opening when the window is closed.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := response.To(req, response.DefaultTTL)

	in, err := readInput(req.GetInput())
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	w, err := window.Parse(in.Window)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errWindow))
		return rsp, nil
	}
	open, start := latestOpening(w, in.Window, f.now())
	if start.IsZero() {
		response.Fatal(rsp, errors.Errorf(errFmtNeverOpens, w))
		return rsp, nil
	}
	name := in.Template.Metadata.Name + "-" + start.UTC().Format(nameLayout)
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		response.Fatal(rsp, errors.Errorf(errFmtName, name, in.Template.Metadata.Name, strings.Join(msgs, "; ")))
		return rsp, nil
	}
	// start is in the window's time zone.
	opening := start.Format(time.RFC3339)

	op, err := operation(in, name, opening)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errBuild))
		return rsp, nil
	}
	if err := response.SetDesiredResources(rsp, map[resource.Name]*unstructured.Unstructured{ResourceName: op}); err != nil {
		response.Fatal(rsp, errors.Wrap(err, errSetDesired))
		return rsp, nil
	}
	if err := response.SetOutput(rsp, Output{
		APIVersion: op.GetAPIVersion(), Kind: op.GetKind(), Namespace: op.GetNamespace(), Name: op.GetName(),
		Opening: opening, WindowOpen: open,
	}); err != nil {
		response.Fatal(rsp, errors.Wrap(err, errSetOutput))
		return rsp, nil
	}
	state := stateWindowOpen
	if !open {
		state = stateWindowPending
	}
	response.Normalf(rsp, msgFmtScheduled, op.GetKind(), op.GetNamespace(), op.GetName(), w.Format(start), state).
		WithReason(reasonScheduled)
	f.log.Debug("Scheduled an operation", "kind", op.GetKind(), "namespace", op.GetNamespace(), "name", op.GetName(),
		"opening", opening, "windowOpen", open)
	return rsp, nil
}

// latestOpening is the opening an operation made at now is for: the latest
// opening that contains now, or the next opening when the window is closed.
// Openings overlap when the duration is longer than the schedule's period
// (hourly for two hours): the CronOperation's run at an opening is for that
// opening, not for an earlier one that is still open, or every other run
// would apply the operation of the run before.
func latestOpening(w *window.Window, spec v1alpha1.MaintenanceWindow, now time.Time) (open bool, start time.Time) {
	open, start = w.Open(now)
	if !open {
		return open, start
	}
	// window.Parse accepted both, so these cannot fail.
	s, err := cron.ParseStandard(spec.Schedule)
	if err != nil {
		return open, start
	}
	for {
		// start is in the window's time zone, which Next keeps.
		next := s.Next(start)
		if next.IsZero() || next.After(now) {
			return open, start
		}
		start = next
	}
}

// operation builds the operation from the template: named, annotated with
// its opening and carrying the window.
func operation(in *ScheduledOperation, name, opening string) (*unstructured.Unstructured, error) {
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&in.Window)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": runtime.DeepCopyJSONValue(in.Template.Spec)}}
	u.SetAPIVersion(in.Template.APIVersion)
	u.SetKind(in.Template.Kind)
	u.SetNamespace(in.Template.Metadata.Namespace)
	u.SetName(name)
	if len(in.Template.Metadata.Labels) > 0 {
		u.SetLabels(in.Template.Metadata.Labels)
	}
	annotations := map[string]string{}
	for k, v := range in.Template.Metadata.Annotations {
		annotations[k] = v
	}
	annotations[AnnotationOpening] = opening
	u.SetAnnotations(annotations)
	if err := unstructured.SetNestedField(u.Object, spec, "spec", "forProvider", "window"); err != nil {
		return nil, err
	}
	return u, nil
}
