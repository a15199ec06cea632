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
	"testing"

	"github.com/google/go-cmp/cmp"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// storageCluster returns a StorageCluster manifest with the given
// spec.forProvider (YAML).
func storageCluster(forProvider string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: StorageCluster\nspec:\n  forProvider:\n" + indent(4, forProvider)
}

// clusterDefaults is the forProvider of a StorageCluster that set only the
// required fields, as the API server stores it: the backend's defaults.
func clusterDefaults(name string, maxSubsys, spdkVcpuCount int64) sbv1alpha1.StorageClusterParameters {
	return sbv1alpha1.StorageClusterParameters{
		Name:                name,
		BlkSize:             512,
		PageSizeInBlocks:    2097152,
		DistrNdcs:           1,
		DistrNpcs:           1,
		DistrBs:             4096,
		DistrChunkBs:        4096,
		HAType:              "ha",
		QpairCount:          256,
		MaxQueueSize:        128,
		InflightIOThreshold: 4,
		Fabric:              "tcp",
		NvmfBasePort:        4420,
		RPCBasePort:         8080,
		SnodeAPIPort:        50001,
		MaxSubsys:           maxSubsys,
		SpdkVcpuCount:       spdkVcpuCount,
	}
}

func TestStorageClusterCreate(t *testing.T) {
	withEC := func(ndcs, npcs int64) sbv1alpha1.StorageClusterParameters {
		p := clusterDefaults("sb1", 0, 4)
		p.DistrNdcs, p.DistrNpcs = ndcs, npcs
		return p
	}
	withFabric := clusterDefaults("sb1", 10, 4)
	withFabric.Fabric = "tcp,rdma"
	withFabric.HugepagesMem = "4Gi"

	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is forProvider as read back after an accepted create.
		want *sbv1alpha1.StorageClusterParameters
	}{
		"MinimalGetsBackendDefaults": {
			reason: "A cluster with only the required fields must be accepted and read back with the backend's defaults.",
			manifest: storageCluster(`
name: sb1
maxSubsys: 10
spdkVcpuCount: 4
`),
			want: new(clusterDefaults("sb1", 10, 4)),
		},
		"ErasureCoding4Plus2": {
			reason: "4+2 is a supported erasure-coding scheme.",
			manifest: storageCluster(`
name: sb1
distrNdcs: 4
distrNpcs: 2
maxSubsys: 0
spdkVcpuCount: 4
`),
			want: new(withEC(4, 2)),
		},
		"ErasureCoding1Plus0": {
			reason: "1+0 is a supported erasure-coding scheme; distrNpcs 0 must not be replaced by its default.",
			manifest: storageCluster(`
name: sb1
distrNpcs: 0
maxSubsys: 0
spdkVcpuCount: 4
`),
			want: new(withEC(1, 0)),
		},
		"FabricBothAndHugepages": {
			reason: "fabric accepts tcp,rdma and hugepagesMem accepts a size like 4Gi.",
			manifest: storageCluster(`
name: sb1
fabric: tcp,rdma
hugepagesMem: 4Gi
maxSubsys: 10
spdkVcpuCount: 4
`),
			want: &withFabric,
		},
		"UnsupportedErasureCoding": {
			reason: "3+1 is not among the schemes the backend supports.",
			manifest: storageCluster(`
name: sb1
distrNdcs: 3
distrNpcs: 1
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "distrNdcs/distrNpcs must be a supported erasure-coding scheme",
		},
		"UnsupportedParityOnly": {
			reason: "2+0 is not a supported scheme although both counts are valid on their own.",
			manifest: storageCluster(`
name: sb1
distrNdcs: 2
distrNpcs: 0
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "distrNdcs/distrNpcs must be a supported erasure-coding scheme",
		},
		"BlockSize1000": {
			reason: "blkSize must be 512 or 4096.",
			manifest: storageCluster(`
name: sb1
blkSize: 1000
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: `spec.forProvider.blkSize: Unsupported value: 1000`,
		},
		"CapCritAbove100": {
			reason: "capCrit is a percentage.",
			manifest: storageCluster(`
name: sb1
capCrit: 101
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.capCrit: Invalid value: 101: spec.forProvider.capCrit in body should be less than or equal to 100",
		},
		"NegativeProvCapWarn": {
			reason: "provCapWarn must not be negative.",
			manifest: storageCluster(`
name: sb1
provCapWarn: -1
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.provCapWarn in body should be greater than or equal to 0",
		},
		"MissingMaxSubsys": {
			reason: "The backend requires max_subsys although its spec does not list it.",
			manifest: storageCluster(`
name: sb1
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.maxSubsys: Required value",
		},
		"MissingSpdkVcpuCount": {
			reason: "The backend requires spdk_vcpu_count although its spec does not list it.",
			manifest: storageCluster(`
name: sb1
maxSubsys: 10
`),
			wantErr: "spec.forProvider.spdkVcpuCount: Required value",
		},
		"MaxSubsysAbove75": {
			reason: "The backend refuses max_subsys above 75.",
			manifest: storageCluster(`
name: sb1
maxSubsys: 76
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.maxSubsys in body should be less than or equal to 75",
		},
		"EmptyName": {
			reason: "An empty name skips the backend's duplicate check, so a repeated create would make a second cluster.",
			manifest: storageCluster(`
name: ""
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.name in body should be at least 1 chars long",
		},
		"UnknownHAType": {
			reason: "haType is single or ha.",
			manifest: storageCluster(`
name: sb1
haType: triple
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: `spec.forProvider.haType: Unsupported value: "triple"`,
		},
		"BadHugepagesMem": {
			reason: "hugepagesMem is a size such as 4Gi.",
			manifest: storageCluster(`
name: sb1
hugepagesMem: lots
maxSubsys: 10
spdkVcpuCount: 4
`),
			wantErr: "spec.forProvider.hugepagesMem in body should match",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &sbv1alpha1.StorageCluster{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStorageClusterUpdate(t *testing.T) {
	const initial = `
name: sb1
maxSubsys: 10
spdkVcpuCount: 4
`
	cases := map[string]struct {
		reason   string
		manifest string
		// patch is a JSON merge patch, in YAML, applied after the create.
		patch   string
		wantErr string
	}{
		"RenameAccepted": {
			reason:   "The backend can rename a cluster, so name is mutable.",
			manifest: storageCluster(initial),
			patch:    "spec: {forProvider: {name: sb2}}",
		},
		"DistrNdcsImmutable": {
			reason:   "The erasure-coding scheme is fixed at creation, even when the new pair is itself valid.",
			manifest: storageCluster(initial),
			patch:    "spec: {forProvider: {distrNdcs: 2}}",
			wantErr:  "distrNdcs is immutable",
		},
		"MaxSubsysImmutable": {
			reason:   "Creation parameters cannot change.",
			manifest: storageCluster(initial),
			patch:    "spec: {forProvider: {maxSubsys: 20}}",
			wantErr:  "maxSubsys is immutable",
		},
		"DroppedFieldDoesNotRevertToDefault": {
			reason: "Removing an explicitly set field would let the API server put the default back, which changes a creation parameter.",
			manifest: storageCluster(`
name: sb1
blkSize: 4096
maxSubsys: 10
spdkVcpuCount: 4
`),
			patch:   "spec: {forProvider: {blkSize: null}}",
			wantErr: "blkSize is immutable",
		},
		"HugepagesMemImmutable": {
			reason:   "Setting an optional creation parameter later is a change too.",
			manifest: storageCluster(initial),
			patch:    "spec: {forProvider: {hugepagesMem: 8Gi}}",
			wantErr:  "hugepagesMem is immutable",
		},
		"AnnotationChangeAccepted": {
			reason:   "Immutability rules must not get in the way of metadata changes such as the external-name annotation.",
			manifest: storageCluster(initial),
			patch:    "metadata: {annotations: {crossplane.io/external-name: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
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
