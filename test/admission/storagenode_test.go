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

package admission_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// storageNode returns a StorageNode manifest with the given
// spec.forProvider (YAML).
func storageNode(forProvider string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: StorageNode\nspec:\n  forProvider:\n" + indent(4, forProvider)
}

func TestStorageNodeCreate(t *testing.T) {
	defaults := sbv1alpha1.StorageNodeParameters{
		ClusterID:     "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11",
		NodeAddress:   "10.0.0.10:5000",
		InterfaceName: "eth0",
		MaxSnapshots:  500,
		HAJm:          true,
		Namespace:     "default",
		JmPercent:     3,
		Partitions:    1,
	}
	explicitZeros := defaults
	explicitZeros.HAJm = false
	explicitZeros.JmPercent = 0
	explicitZeros.MaxSnapshots = 0
	explicitZeros.DataNics = []string{"eth1", "eth2"}
	explicitZeros.FailureDomain = new(int64(0))

	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is forProvider as read back after an accepted create.
		want *sbv1alpha1.StorageNodeParameters
	}{
		"MinimalGetsBackendDefaults": {
			reason: "A node with only the required fields must be accepted and read back with the backend's defaults.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`),
			want: &defaults,
		},
		"ExplicitZerosKept": {
			reason: "An explicit false or 0 must not be replaced by a non-zero default.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
haJm: false
jmPercent: 0
maxSnapshots: 0
dataNics: [eth1, eth2]
failureDomain: 0
`),
			want: &explicitZeros,
		},
		"ClusterByReference": {
			reason: "clusterIdRef may stand in for clusterId, which the resolver fills in later.",
			manifest: storageNode(`
clusterIdRef: {name: sb1}
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`),
		},
		"JmPercent200": {
			reason: "jmPercent is a percentage.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
jmPercent: 200
`),
			wantErr: "spec.forProvider.jmPercent in body should be less than or equal to 100",
		},
		"MissingNodeAddress": {
			reason: "The backend requires node_address.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
interfaceName: eth0
`),
			wantErr: "spec.forProvider.nodeAddress: Required value",
		},
		"MissingInterfaceName": {
			reason: "The backend requires interface_name.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
`),
			wantErr: "spec.forProvider.interfaceName: Required value",
		},
		"InterfaceNameOver15Characters": {
			reason: "Linux interface names have at most 15 characters.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0123456789abc
`),
			wantErr: "spec.forProvider.interfaceName: Too long: may not be more than 15",
		},
		"NodeAddressOver259Characters": {
			reason: "A node address is a DNS name and a port: at most 259 characters.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: ` + strings.Repeat("a", 255) + `:5000
interfaceName: eth0
`),
			wantErr: "spec.forProvider.nodeAddress: Too long: may not be more than 259",
		},
		"SeventeenDataNics": {
			reason: "A host has at most 16 data interfaces.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
dataNics: [d1, d2, d3, d4, d5, d6, d7, d8, d9, d10, d11, d12, d13, d14, d15, d16, d17]
`),
			wantErr: "spec.forProvider.dataNics: Too many: 17: must have at most 16 items",
		},
		"MissingCluster": {
			reason: "A node must name its cluster one way or another.",
			manifest: storageNode(`
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`),
			wantErr: "one of clusterId, clusterIdRef or clusterIdSelector is required",
		},
		"CrossNamespaceReference": {
			reason: "References resolve only within the node's own namespace.",
			manifest: storageNode(`
clusterIdRef: {name: sb1, namespace: other}
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`),
			wantErr: "clusterIdRef and clusterIdSelector resolve in the StorageNode's own namespace",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &sbv1alpha1.StorageNode{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStorageNodeUpdate(t *testing.T) {
	initial := storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`)
	cases := map[string]struct {
		reason   string
		manifest string
		// patch is a JSON merge patch, in YAML, applied after the create.
		patch   string
		wantErr string
	}{
		"ForceRemoveAccepted": {
			reason:   "forceRemove only matters at deletion and may change at any time.",
			manifest: initial,
			patch:    "spec: {forProvider: {forceRemove: true, forceMigrate: true}}",
		},
		"NodeAddressImmutable": {
			reason:   "A node cannot move to another address.",
			manifest: initial,
			patch:    "spec: {forProvider: {nodeAddress: '10.0.0.11:5000'}}",
			wantErr:  "nodeAddress is immutable",
		},
		"ClusterIDImmutable": {
			reason:   "A node cannot move to another cluster.",
			manifest: initial,
			patch:    "spec: {forProvider: {clusterId: 9d3e0c57-4d1b-4f0e-8a2b-7c1f5e6d4a20}}",
			wantErr:  "clusterId is immutable",
		},
		"ExpandImmutable": {
			reason:   "expand is a creation parameter.",
			manifest: initial,
			patch:    "spec: {forProvider: {expand: true}}",
			wantErr:  "expand is immutable",
		},
		"FailureDomainCannotBeAdded": {
			reason:   "Setting an optional creation parameter later is a change too.",
			manifest: initial,
			patch:    "spec: {forProvider: {failureDomain: 2}}",
			wantErr:  "failureDomain is immutable",
		},
		"DataNicsImmutable": {
			reason:   "dataNics is a creation parameter.",
			manifest: initial,
			patch:    "spec: {forProvider: {dataNics: [eth1]}}",
			wantErr:  "dataNics is immutable",
		},
		"ClusterIDFilledInByResolver": {
			reason: "The reference resolver sets clusterId after creation; that first write is not a change.",
			manifest: storageNode(`
clusterIdRef: {name: sb1}
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
`),
			patch: "spec: {forProvider: {clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := create(t, tc.manifest)
			if err != nil {
				t.Fatalf("cannot create the initial object: %v", err)
			}
			checkErr(t, tc.reason, tc.wantErr, mergePatch(t, u, tc.patch))
		})
	}
}
