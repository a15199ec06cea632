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
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Saturdays 02:00 to 06:00 Berlin time: 01:00 to 05:00 UTC in winter,
// 00:00 to 04:00 UTC in summer.
const berlinSaturdays = `{"schedule":"0 2 * * 6","duration":"4h","timeZone":"Europe/Berlin"}`

const rollingRestart = `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps",
	"metadata":{"namespace":"storage","name":"prod-weekly-restart","labels":{"team":"storage"},"annotations":{"note":"weekly"}},
	"spec":{"forProvider":{"type":"NodeRollingRestart","clusterIdRef":{"name":"prod"},
		"nodeRollingRestart":{"healthGate":true,"perNodeTimeoutSeconds":1200}}}}`

// input is a ScheduledOperation of a window and a template (JSON).
func input(window, template string) string {
	return `{"apiVersion":"scheduling.fn.simplyblock.io/v1alpha1","kind":"ScheduledOperation",
		"window":` + window + `,"template":` + template + `}`
}

// replace replaces old by new once in s, failing when s has no old.
func replace(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in %s", old, s)
	}
	return strings.Replace(s, old, new, 1)
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// run runs the function at now on the input (JSON, or none when empty).
func run(t *testing.T, now time.Time, in string, desired map[string]*fnv1.Resource) *fnv1.RunFunctionResponse {
	t.Helper()
	req := &fnv1.RunFunctionRequest{Desired: &fnv1.State{Resources: desired}}
	if in != "" {
		req.Input = resource.MustStructJSON(in)
	}
	f := NewFunction(logging.NewNopLogger())
	f.now = func() time.Time { return now }
	rsp, err := f.RunFunction(context.Background(), req)
	if err != nil {
		t.Fatalf("RunFunction: %v", err)
	}
	return rsp
}

// An outcome is the gist of one run.
type outcome struct {
	// Resources are the desired resources' kinds and names by key.
	Resources map[string]string `json:",omitempty"`
	Output    *Output           `json:",omitempty"`
	Results   []string          `json:",omitempty"`
	Fatal     string            `json:",omitempty"`
}

func summarize(t *testing.T, rsp *fnv1.RunFunctionResponse) outcome {
	t.Helper()
	var out outcome
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			out.Fatal = r.GetMessage()
			continue
		}
		out.Results = append(out.Results, r.GetReason()+": "+r.GetMessage())
	}
	for name, r := range rsp.GetDesired().GetResources() {
		if out.Resources == nil {
			out.Resources = map[string]string{}
		}
		u := unstructured.Unstructured{Object: r.GetResource().AsMap()}
		out.Resources[name] = u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
	}
	if o := rsp.GetOutput(); o != nil {
		b, err := json.Marshal(o.AsMap())
		if err != nil {
			t.Fatal(err)
		}
		out.Output = &Output{}
		if err := json.Unmarshal(b, out.Output); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// scheduled is the outcome of a ClusterOps scheduled for an opening.
func scheduled(name, opening string, open bool, result string) outcome {
	return outcome{
		Resources: map[string]string{string(ResourceName): "ClusterOps storage/" + name},
		Output: &Output{APIVersion: "simplyblock.m.crossplane.io/v1alpha1", Kind: "ClusterOps", Namespace: "storage",
			Name: name, Opening: opening, WindowOpen: open},
		Results: []string{"Scheduled: ClusterOps storage/" + name + " for the opening at " + result},
	}
}

func TestRunFunction(t *testing.T) {
	type args struct {
		now     string
		input   func(t *testing.T) string
		desired map[string]*fnv1.Resource
	}
	weekly := func(*testing.T) string { return input(berlinSaturdays, rollingRestart) }
	cases := map[string]struct {
		reason string
		args   args
		want   outcome
	}{
		"AtTheOpening": {
			reason: "A run at the opening names the operation after it, in UTC (02:00 Berlin is 01:00 UTC in winter).",
			args:   args{now: "2026-12-05T01:00:00Z", input: weekly},
			want: scheduled("prod-weekly-restart-20261205-0100", "2026-12-05T02:00:00+01:00", true,
				"2026-12-05 02:00 CET (the window is open)"),
		},
		"LateInTheOpening": {
			reason: "A retry late in the opening applies the operation of that opening again.",
			args:   args{now: "2026-12-05T04:59:59Z", input: weekly},
			want: scheduled("prod-weekly-restart-20261205-0100", "2026-12-05T02:00:00+01:00", true,
				"2026-12-05 02:00 CET (the window is open)"),
		},
		"BeforeTheOpening": {
			reason: "A run while the window is closed names the next opening; the operation waits for it.",
			args:   args{now: "2026-12-04T12:00:00Z", input: weekly},
			want: scheduled("prod-weekly-restart-20261205-0100", "2026-12-05T02:00:00+01:00", false,
				"2026-12-05 02:00 CET (the window is closed; the operation waits for this opening)"),
		},
		"AfterTheWindowClosed": {
			reason: "A run after the window closed names next week's opening, as next week's run will: no second operation.",
			args:   args{now: "2026-12-05T05:00:00Z", input: weekly},
			want: scheduled("prod-weekly-restart-20261212-0100", "2026-12-12T02:00:00+01:00", false,
				"2026-12-12 02:00 CET (the window is closed; the operation waits for this opening)"),
		},
		"SummerTime": {
			reason: "The window's time zone decides the opening; the name is in UTC (02:00 Berlin is 00:00 UTC in summer).",
			args:   args{now: "2026-06-06T00:30:00Z", input: weekly},
			want: scheduled("prod-weekly-restart-20260606-0000", "2026-06-06T02:00:00+02:00", true,
				"2026-06-06 02:00 CEST (the window is open)"),
		},
		"EveryMinute": {
			reason: "A window without a time zone is read in UTC; each minute of an every-minute window is an opening of its own.",
			args: args{now: "2026-12-05T10:03:59Z", input: func(*testing.T) string {
				return input(`{"schedule":"* * * * *","duration":"1m"}`, rollingRestart)
			}},
			want: scheduled("prod-weekly-restart-20261205-1003", "2026-12-05T10:03:00Z", true,
				"2026-12-05 10:03 UTC (the window is open)"),
		},
		"OverlappingOpenings": {
			reason: "When openings overlap (hourly for two hours), a run is for the latest opening that contains it, not an earlier one still open.",
			args: args{now: "2026-12-05T10:00:30Z", input: func(*testing.T) string {
				return input(`{"schedule":"0 * * * *","duration":"2h"}`, rollingRestart)
			}},
			want: scheduled("prod-weekly-restart-20261205-1000", "2026-12-05T10:00:00Z", true,
				"2026-12-05 10:00 UTC (the window is open)"),
		},
		"StorageNodeOps": {
			reason: "A StorageNodeOps is scheduled as a ClusterOps is.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return input(berlinSaturdays, `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"StorageNodeOps",
					"metadata":{"namespace":"storage","name":"node-1-restart"},
					"spec":{"forProvider":{"type":"Restart","nodeIdRef":{"name":"prod-node-1"}}}}`)
			}},
			want: outcome{
				Resources: map[string]string{"operation": "StorageNodeOps storage/node-1-restart-20261205-0100"},
				Output: &Output{APIVersion: "simplyblock.m.crossplane.io/v1alpha1", Kind: "StorageNodeOps", Namespace: "storage",
					Name: "node-1-restart-20261205-0100", Opening: "2026-12-05T02:00:00+01:00", WindowOpen: true},
				Results: []string{"Scheduled: StorageNodeOps storage/node-1-restart-20261205-0100 for the opening at 2026-12-05 02:00 CET (the window is open)"},
			},
		},
		"KeepsEarlierSteps": {
			reason: "Resources an earlier step of the pipeline desired are kept.",
			args: args{now: "2026-12-05T01:00:00Z", input: weekly, desired: map[string]*fnv1.Resource{
				"note": {Resource: resource.MustStructJSON(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"storage","name":"note"}}`)},
			}},
			want: func() outcome {
				o := scheduled("prod-weekly-restart-20261205-0100", "2026-12-05T02:00:00+01:00", true,
					"2026-12-05 02:00 CET (the window is open)")
				o.Resources["note"] = "ConfigMap storage/note"
				return o
			}(),
		},
		"NoInput": {
			reason: "A step without input cannot say what to schedule.",
			args:   args{now: "2026-12-05T01:00:00Z", input: func(*testing.T) string { return "" }},
			want:   outcome{Fatal: errNoInput},
		},
		"OtherFunctionsInput": {
			reason: "Another function's input is named by its kind, not by its first unknown field.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(*testing.T) string {
				return `{"apiVersion":"pt.fn.crossplane.io/v1beta1","kind":"Resources","resources":[]}`
			}},
			want: outcome{Fatal: `cannot use an input of kind "Resources" (apiVersion "pt.fn.crossplane.io/v1beta1"): want kind ScheduledOperation of scheduling.fn.simplyblock.io/v1alpha1`},
		},
		"MisspeltField": {
			reason: "An unknown field is refused, not ignored.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"window"`, `"windows"`)
			}},
			want: outcome{Fatal: `cannot read the input: json: unknown field "windows"`},
		},
		"TemplateWithGenerateName": {
			reason: "A template's metadata is name, namespace, labels and annotations: a generated name would defeat the deterministic one.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"name":"prod-weekly-restart"`, `"generateName":"prod-"`)
			}},
			want: outcome{Fatal: `cannot read the input: json: unknown field "generateName"`},
		},
		"ScheduleNotCron": {
			reason: "A schedule of the wrong shape is refused with the shape it must have.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"0 2 * * 6"`, `"0 2 * *"`)
			}},
			want: outcome{Fatal: `input.window.schedule "0 2 * *" must be five cron fields or a descriptor such as @weekly`},
		},
		"ScheduleOutOfRange": {
			reason: "Five fields that are not a cron schedule are refused with the parser's reason.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"0 2 * * 6"`, `"0 25 * * 6"`)
			}},
			want: outcome{Fatal: `cannot use input.window: window.schedule "0 25 * * 6" is not a cron schedule: end of range (25) above maximum (23): 25`},
		},
		"ScheduleWithTimeZonePrefix": {
			reason: "The window's time zone goes in timeZone; the CRON_TZ= prefix belongs to the CronOperation's schedule.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"0 2 * * 6"`, `"CRON_TZ=Europe/Berlin 0 2 * * 6"`)
			}},
			want: outcome{Fatal: `input.window.schedule "CRON_TZ=Europe/Berlin 0 2 * * 6" carries a time zone: set input.window.timeZone instead (only the CronOperation's schedule takes a CRON_TZ= prefix)`},
		},
		"DurationNotADuration": {
			reason: "A duration must be written as the CRDs accept it.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"4h"`, `"four hours"`)
			}},
			want: outcome{Fatal: `input.window.duration "four hours" must be a duration such as 4h or 1h30m`},
		},
		"DurationTooShort": {
			reason: "An opening lasts at least a minute.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"4h"`, `"30s"`)
			}},
			want: outcome{Fatal: `input.window.duration 30s must be between 1m and 720h`},
		},
		"UnknownTimeZone": {
			reason: "A time zone that is not in the zone database is refused.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"Europe/Berlin"`, `"Europe/Atlantis"`)
			}},
			want: outcome{Fatal: `cannot use input.window: window.timeZone "Europe/Atlantis" is not a known time zone: unknown time zone Europe/Atlantis`},
		},
		"NeverOpens": {
			reason: "A schedule that never fires (February 30) is refused rather than scheduling nothing forever.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"0 2 * * 6"`, `"0 2 30 2 *"`)
			}},
			want: outcome{Fatal: `cannot schedule an operation: window "0 2 30 2 *" for 4h0m0s (Europe/Berlin) never opens`},
		},
		"NotAnOperation": {
			reason: "Only ClusterOps and StorageNodeOps are scheduled.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"kind":"ClusterOps"`, `"kind":"StorageCluster"`)
			}},
			want: outcome{Fatal: `input.template.kind must be ClusterOps or StorageNodeOps, not "StorageCluster"`},
		},
		"OtherAPIVersion": {
			reason: "The template is of the provider's namespaced API.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"simplyblock.m.crossplane.io/v1alpha1"`, `"simplyblock.crossplane.io/v1alpha1"`)
			}},
			want: outcome{Fatal: `input.template.apiVersion must be simplyblock.m.crossplane.io/v1alpha1, not "simplyblock.crossplane.io/v1alpha1"`},
		},
		"NoName": {
			reason: "The template's name is the prefix of every operation's name.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"name":"prod-weekly-restart",`, ``)
			}},
			want: outcome{Fatal: errNoName},
		},
		"NoNamespace": {
			reason: "Operations are namespaced; the Operation that applies them is not.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"namespace":"storage",`, ``)
			}},
			want: outcome{Fatal: errNoNamespace},
		},
		"NoForProvider": {
			reason: "An operation's parameters are in spec.forProvider.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(*testing.T) string {
				return input(berlinSaturdays, `{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps",
					"metadata":{"namespace":"storage","name":"prod"},"spec":{"type":"Rebalance"}}`)
			}},
			want: outcome{Fatal: errNoForProvider},
		},
		"TemplateSetsWindow": {
			reason: "The window comes from input.window only, so that the name and the window cannot disagree.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"type":"NodeRollingRestart",`, `"type":"NodeRollingRestart","window":`+berlinSaturdays+`,`)
			}},
			want: outcome{Fatal: errTemplateWindow},
		},
		"NameTooLong": {
			reason: "A prefix that leaves no room for the opening is refused before anything is applied.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"prod-weekly-restart"`, `"`+strings.Repeat("p", 240)+`"`)
			}},
			want: outcome{Fatal: `cannot name the operation "` + strings.Repeat("p", 240) + `-20261205-0100" (input.template.metadata.name "` +
				strings.Repeat("p", 240) + `" plus the opening): must be no more than 253 characters`},
		},
		"NameNotLowerCase": {
			reason: "The name must be an object name.",
			args: args{now: "2026-12-05T01:00:00Z", input: func(t *testing.T) string {
				return replace(t, weekly(t), `"prod-weekly-restart"`, `"Prod_Weekly"`)
			}},
			want: outcome{Fatal: `cannot name the operation "Prod_Weekly-20261205-0100" (input.template.metadata.name "Prod_Weekly" plus the opening): ` +
				`a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, at(t, tc.args.now), tc.args.input(t), tc.args.desired)
			if diff := cmp.Diff(tc.want, summarize(t, rsp)); diff != "" {
				t.Errorf("%s\nRunFunction(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestOperationObject checks the operation field by field: the template's
// spec, labels and annotations, the name, the opening and the window.
func TestOperationObject(t *testing.T) {
	rsp := run(t, at(t, "2026-12-05T03:00:00Z"), input(berlinSaturdays, rollingRestart), nil)
	var want map[string]any
	if err := json.Unmarshal([]byte(`{"apiVersion":"simplyblock.m.crossplane.io/v1alpha1","kind":"ClusterOps",
		"metadata":{"name":"prod-weekly-restart-20261205-0100","namespace":"storage","labels":{"team":"storage"},
			"annotations":{"note":"weekly","scheduling.fn.simplyblock.io/opening":"2026-12-05T02:00:00+01:00"}},
		"spec":{"forProvider":{"type":"NodeRollingRestart","clusterIdRef":{"name":"prod"},
			"nodeRollingRestart":{"healthGate":true,"perNodeTimeoutSeconds":1200},
			"window":{"schedule":"0 2 * * 6","duration":"4h","timeZone":"Europe/Berlin"}}}}`), &want); err != nil {
		t.Fatal(err)
	}
	got := rsp.GetDesired().GetResources()[string(ResourceName)].GetResource().AsMap()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the desired operation: -want, +got:\n%s", diff)
	}
}
