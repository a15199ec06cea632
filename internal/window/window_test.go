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

package window

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestOpen(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type want struct {
		open  bool
		start time.Time
	}
	cases := map[string]struct {
		window v1alpha1.MaintenanceWindow
		at     time.Time
		want   want
	}{
		"BeforeTheOpening": {
			window: v1alpha1.MaintenanceWindow{Schedule: "0 2 * * 6", Duration: "4h"},
			at:     at("2026-12-04T23:00:00Z"), // a Friday
			want:   want{open: false, start: at("2026-12-05T02:00:00Z")},
		},
		"AtTheOpening": {
			window: v1alpha1.MaintenanceWindow{Schedule: "0 2 * * 6", Duration: "4h"},
			at:     at("2026-12-05T02:00:00Z"),
			want:   want{open: true, start: at("2026-12-05T02:00:00Z")},
		},
		"InsideTheOpening": {
			window: v1alpha1.MaintenanceWindow{Schedule: "0 2 * * 6", Duration: "4h"},
			at:     at("2026-12-05T05:59:59Z"),
			want:   want{open: true, start: at("2026-12-05T02:00:00Z")},
		},
		"AtTheClose": {
			window: v1alpha1.MaintenanceWindow{Schedule: "0 2 * * 6", Duration: "4h"},
			at:     at("2026-12-05T06:00:00Z"),
			want:   want{open: false, start: at("2026-12-12T02:00:00Z")},
		},
		"InTheWindowsTimeZone": {
			// 02:00 in Berlin is 01:00 UTC in winter.
			window: v1alpha1.MaintenanceWindow{Schedule: "0 2 * * *", Duration: "1h", TimeZone: "Europe/Berlin"},
			at:     at("2026-12-05T01:30:00Z"),
			want:   want{open: true, start: at("2026-12-05T01:00:00Z")},
		},
		"ADescriptor": {
			window: v1alpha1.MaintenanceWindow{Schedule: "@daily", Duration: "30m"},
			at:     at("2026-12-05T00:31:00Z"),
			want:   want{open: false, start: at("2026-12-06T00:00:00Z")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w, err := Parse(tc.window)
			if err != nil {
				t.Fatal(err)
			}
			open, start := w.Open(tc.at)
			if diff := cmp.Diff(tc.want, want{open: open, start: start.UTC()}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Open(%s): -want, +got:\n%s", tc.at, diff)
			}
		})
	}
}

func TestParse(t *testing.T) {
	cases := map[string]struct {
		window v1alpha1.MaintenanceWindow
		err    string
	}{
		"Valid":       {window: v1alpha1.MaintenanceWindow{Schedule: "30 1 * * 1-5", Duration: "1h30m", TimeZone: "America/New_York"}},
		"BadSchedule": {window: v1alpha1.MaintenanceWindow{Schedule: "61 * * * *", Duration: "1h"}, err: `window.schedule "61 * * * *" is not a cron schedule: end of range (61) above maximum (59): 61`},
		"BadDuration": {window: v1alpha1.MaintenanceWindow{Schedule: "@daily", Duration: "1x"}, err: `window.duration "1x" is not a duration: time: unknown unit "x" in duration "1x"`},
		"TooShort":    {window: v1alpha1.MaintenanceWindow{Schedule: "@daily", Duration: "30s"}, err: "window.duration 30s is shorter than a minute"},
		"UnknownZone": {window: v1alpha1.MaintenanceWindow{Schedule: "@daily", Duration: "1h", TimeZone: "Mars/Olympus"}, err: `window.timeZone "Mars/Olympus" is not a known time zone: unknown time zone Mars/Olympus`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(tc.window)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Errorf("Parse: got error %q, want %q", got, tc.err)
			}
		})
	}
}
