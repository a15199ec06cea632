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

// Package scheduling is the operation function behind scheduled operations
// (examples/scheduled): run by a Crossplane CronOperation at each opening of
// a maintenance window, it returns one ClusterOps or StorageNodeOps, made
// from a template, for Crossplane to apply.
//
// The function is deterministic within an opening: the operation is named
// after the opening that contains the time it runs (the latest one, when
// openings overlap; the next one, when the window is closed),
// "<prefix>-<opening in UTC, yyyymmdd-hhmm>", and carries the window in
// spec.forProvider.window. A retried Operation, a second Operation for the
// same opening and a late run therefore apply the same object, which the
// provider runs once, instead of creating a second operation; a run after
// the window closed names the next opening, as that opening's own run will.
package scheduling
