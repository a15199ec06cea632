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

package e2e

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
)

// clustersPath is where the simulator's cluster routes live.
const clustersPath = "/api/v2/clusters/"

// uuidSegment matches an id in a path.
var uuidSegment = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// A backendCall is one state-changing call of the simulator's journal.
type backendCall struct {
	Key    string // e.g. "POST storage-nodes/", "DELETE storage-nodes/{id}/", "POST clusters/"
	Path   string
	Status int
	Time   time.Time
}

// changes returns the state-changing calls (every method but GET) the
// simulator saw since t0 for the cluster clusterID, plus every cluster
// create (POST /clusters/, which names no cluster) since t0. Keys name the
// route below the cluster, with ids as {id}.
func changes(clusterID string, since time.Time) []backendCall {
	var out []backendCall
	for _, e := range world.sim.Journal() {
		if e.Method == "GET" || e.Time.Before(since) {
			continue
		}
		var key string
		switch {
		case e.Path == clustersPath:
			key = e.Method + " clusters/"
		case clusterID != "" && strings.HasPrefix(e.Path, clustersPath+clusterID+"/"):
			rest := strings.TrimPrefix(e.Path, clustersPath+clusterID+"/")
			if rest == "" {
				rest = "cluster"
			}
			key = e.Method + " " + uuidSegment.ReplaceAllString(rest, "{id}")
		default:
			continue
		}
		out = append(out, backendCall{Key: key, Path: e.Path, Status: e.Status, Time: e.Time})
	}
	return out
}

// counts counts calls by key; with accepted, only those the backend
// accepted (2xx).
func counts(calls []backendCall, accepted bool) map[string]int {
	out := map[string]int{}
	for _, c := range calls {
		if accepted && (c.Status < 200 || c.Status > 299) {
			continue
		}
		out[c.Key]++
	}
	return out
}

// describe renders calls one per line, for failure messages.
func describe(calls []backendCall) string {
	var b strings.Builder
	for _, c := range calls {
		fmt.Fprintf(&b, "\n  %s %s %s → %d", c.Time.Format("15:04:05.000"), c.Key, c.Path, c.Status)
	}
	return b.String()
}

// sameCounts reports whether two count maps are equal, and renders got.
func sameCounts(want, got map[string]int) (bool, string) {
	return maps.Equal(want, got), render(got)
}

// render renders counts as "KEY=N, ...", sorted by key.
func render(counts map[string]int) string {
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}
