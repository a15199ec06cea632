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

package simplyblock_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestManagementIP(t *testing.T) {
	cases := map[string]struct {
		reason  string
		address string
		want    string
	}{
		"HostPort": {reason: "The port is stripped from host:port.", address: "10.0.0.10:5000", want: "10.0.0.10"},
		"HostOnly": {reason: "An address without a port is used as is.", address: "10.0.0.10", want: "10.0.0.10"},
		"IPv6":     {reason: "Brackets and port are stripped from an IPv6 address.", address: "[fd00::1]:5000", want: "fd00::1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, simplyblock.ManagementIP(tc.address)); diff != "" {
				t.Errorf("\n%s\nManagementIP(%q): -want, +got:\n%s\n", tc.reason, tc.address, diff)
			}
		})
	}
}
