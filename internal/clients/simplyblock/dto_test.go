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

func TestAddressHost(t *testing.T) {
	cases := map[string]struct {
		reason  string
		address string
		want    string
	}{
		"HostPort": {reason: "The port is stripped from host:port.", address: "10.0.0.10:5000", want: "10.0.0.10"},
		"HostOnly": {reason: "An address without a port is used as is.", address: "10.0.0.10", want: "10.0.0.10"},
		"IPv6":     {reason: "Brackets and port are stripped from an IPv6 address.", address: "[fd00::1]:5000", want: "fd00::1"},
		"Name":     {reason: "A DNS name keeps its name.", address: "worker-1.example.com:5000", want: "worker-1.example.com"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, simplyblock.AddressHost(tc.address)); diff != "" {
				t.Errorf("\n%s\nAddressHost(%q): -want, +got:\n%s\n", tc.reason, tc.address, diff)
			}
		})
	}
}

// M8 (backend-contract.md): mgmt_ip is the IP of the add's interface_name
// (storage_node_ops.py:2964-2969, 3209), hostname is the agent's host name
// plus "_<rpc_port>" (:3184), bare after a move (:4635).
func TestStorageNodeIsAt(t *testing.T) {
	cases := map[string]struct {
		reason  string
		node    simplyblock.StorageNodeDTO
		address string
		ips     []string
		want    bool
	}{
		"MgmtIP": {
			reason: "The address's IP is the management interface's.",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.10", Hostname: "worker-1_8080", RPCPort: 8080}, address: "10.0.0.10:5000", ips: []string{"10.0.0.10"}, want: true,
		},
		"OtherNIC": {
			reason: "An address on another interface is not the record's mgmt_ip, and an IP names no host.",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.10", Hostname: "worker-1_8080", RPCPort: 8080}, address: "192.168.1.10:5000", ips: []string{"192.168.1.10"}, want: false,
		},
		"ResolvedName": {
			reason: "A DNS name that resolves to the mgmt_ip.",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.10", Hostname: "w1_8080", RPCPort: 8080}, address: "storage-1.example.com:5000", ips: []string{"10.0.0.10"}, want: true,
		},
		"HostnameFQDN": {
			reason: "A DNS name whose first label is the agent's host name (storage_node_ops.py:3184), unresolved here.",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.10", Hostname: "Worker-1_8080", RPCPort: 8080}, address: "worker-1.example.com:5000", want: true,
		},
		"HostnameAfterMove": {
			reason: "After a move the hostname is bare (storage_node_ops.py:4635).",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.20", Hostname: "worker-2", RPCPort: 8080}, address: "worker-2:5000", want: true,
		},
		"OtherHost": {
			reason: "Another host's record.",
			node:   simplyblock.StorageNodeDTO{MgmtIP: "10.0.0.11", Hostname: "worker-2_8080", RPCPort: 8080}, address: "worker-1:5000", ips: []string{"10.0.0.10"}, want: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.node.IsAt(tc.address, tc.ips); got != tc.want {
				t.Errorf("\n%s\nIsAt(%q, %v) = %t, want %t", tc.reason, tc.address, tc.ips, got, tc.want)
			}
		})
	}
}
