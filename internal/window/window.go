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

// Package window reads maintenance windows: a cron schedule of openings, each
// open for a duration, in a time zone. Operations wait for their window
// (docs/operations-engine.md, "Maintenance windows"), and the scheduled
// operation function names what it creates after the window it runs in.
package window

import (
	"fmt"
	"time"
	// The provider's image has no zoneinfo: embed it, so every IANA zone
	// a window names can be loaded.
	_ "time/tzdata"

	"github.com/pkg/errors"
	"github.com/robfig/cron/v3"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// A Window is a parsed maintenance window.
type Window struct {
	schedule cron.Schedule
	duration time.Duration
	location *time.Location
	spec     v1alpha1.MaintenanceWindow
}

// Parse reads w. Its error says what is wrong with the schedule, the
// duration or the time zone.
func Parse(w v1alpha1.MaintenanceWindow) (*Window, error) {
	s, err := cron.ParseStandard(w.Schedule)
	if err != nil {
		return nil, errors.Wrapf(err, "window.schedule %q is not a cron schedule", w.Schedule)
	}
	d, err := time.ParseDuration(w.Duration)
	if err != nil {
		return nil, errors.Wrapf(err, "window.duration %q is not a duration", w.Duration)
	}
	if d < time.Minute {
		return nil, errors.Errorf("window.duration %s is shorter than a minute", d)
	}
	loc := time.UTC
	if w.TimeZone != "" {
		if loc, err = time.LoadLocation(w.TimeZone); err != nil {
			return nil, errors.Wrapf(err, "window.timeZone %q is not a known time zone", w.TimeZone)
		}
	}
	return &Window{schedule: s, duration: d, location: loc, spec: w}, nil
}

// Open reports whether the window is open at t, and when the opening that
// contains t started; when closed, start is the next opening.
func (w *Window) Open(t time.Time) (open bool, start time.Time) {
	// The latest opening that still contains t is the first one after
	// t minus the duration.
	s := w.schedule.Next(t.In(w.location).Add(-w.duration))
	if s.IsZero() {
		return false, time.Time{}
	}
	return !s.After(t), s
}

// Closes is when the opening that started at start closes.
func (w *Window) Closes(start time.Time) time.Time {
	return start.Add(w.duration)
}

// String describes the window, e.g. `"0 2 * * 6" for 4h0m0s (Europe/Berlin)`.
func (w *Window) String() string {
	return fmt.Sprintf("%q for %s (%s)", w.spec.Schedule, w.duration, w.location)
}

// Format writes a time the way window messages show it: in the window's
// time zone, to the minute.
func (w *Window) Format(t time.Time) string {
	return t.In(w.location).Format("2006-01-02 15:04 MST")
}
