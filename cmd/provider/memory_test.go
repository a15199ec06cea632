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

package main

import "testing"

func TestGCPercent(t *testing.T) {
	cases := map[string]struct {
		reason  string
		gogc    string
		isSet   bool
		want    int
		wantSet bool
	}{
		"Unset": {reason: "Without GOGC the provider collects at half its live heap's growth.", want: defaultGCPercent, wantSet: true},
		"Empty": {reason: "An empty GOGC is no setting.", isSet: true, want: defaultGCPercent, wantSet: true},
		"Set":   {reason: "A GOGC the user set is left to the Go runtime.", gogc: "200", isSet: true},
		"Off":   {reason: "GOGC=off is the user's too.", gogc: "off", isSet: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, set := gcPercent(tc.gogc, tc.isSet)
			if got != tc.want || set != tc.wantSet {
				t.Errorf("\n%s\ngcPercent(%q, %t) = %d, %t; want %d, %t", tc.reason, tc.gogc, tc.isSet, got, set, tc.want, tc.wantSet)
			}
		})
	}
}
