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

// storagePool returns a StoragePool manifest with the given
// spec.forProvider (YAML).
func storagePool(forProvider string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: StoragePool\nspec:\n  forProvider:\n" + indent(4, forProvider)
}

func TestStoragePoolCreate(t *testing.T) {
	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is forProvider as read back after an accepted create.
		want *sbv1alpha1.StoragePoolParameters
	}{
		"MinimalGetsBackendDefaults": {
			reason: "A pool with only a cluster and a name is unlimited.",
			manifest: storagePool(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
name: pool1
`),
			want: &sbv1alpha1.StoragePoolParameters{ClusterID: "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11", Name: "pool1"},
		},
		"WithLimits": {
			reason: "Size and QoS limits within the backend's rules are accepted.",
			manifest: storagePool(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
name: pool1
poolMax: 1099511627776
maxRwMbytes: 500
maxRMbytes: 300
maxWMbytes: 500
dhchap: true
`),
			want: &sbv1alpha1.StoragePoolParameters{
				ClusterID: "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11", Name: "pool1",
				PoolMax: 1099511627776, MaxRWMBytes: 500, MaxRMBytes: 300, MaxWMBytes: 500, DHCHAP: true,
			},
		},
		"NegativePoolMax": {
			reason:   "Limits must not be negative.",
			manifest: storagePool("clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nname: pool1\npoolMax: -1"),
			wantErr:  "spec.forProvider.poolMax in body should be greater than or equal to 0",
		},
		"NegativeIOPS": {
			reason:   "Limits must not be negative.",
			manifest: storagePool("clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nname: pool1\nmaxRwIops: -5"),
			wantErr:  "spec.forProvider.maxRwIops in body should be greater than or equal to 0",
		},
		"ReadAboveReadWrite": {
			reason:   "The backend refuses a read limit above the read-write limit.",
			manifest: storagePool("clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11\nname: pool1\nmaxRwMbytes: 100\nmaxRMbytes: 200"),
			wantErr:  "maxRMbytes and maxWMbytes must not exceed maxRwMbytes",
		},
		"MissingName": {
			reason:   "The backend requires a pool name.",
			manifest: storagePool("clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"),
			wantErr:  "spec.forProvider.name: Required value",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &sbv1alpha1.StoragePool{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStoragePoolUpdate(t *testing.T) {
	initial := storagePool(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
name: pool1
maxRwIops: 1000
`)
	cases := map[string]struct {
		reason   string
		manifest string
		// patch is a JSON merge patch, in YAML, applied after the create.
		patch   string
		wantErr string
	}{
		"RenameAndResizeAccepted": {
			reason:   "The backend can rename a pool and change its maximum size.",
			manifest: initial,
			patch:    "spec: {forProvider: {name: pool2, poolMax: 2048}}",
		},
		"VolumeMaxSizeImmutable": {
			reason:   "The backend's pool update writes volume_max_size into the pool maximum, so it is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {volumeMaxSize: 1024}}",
			wantErr:  "volumeMaxSize is immutable",
		},
		"RaiseQoSAccepted": {
			reason:   "The backend can raise a QoS limit.",
			manifest: initial,
			patch:    "spec: {forProvider: {maxRwIops: 2000}}",
		},
		"LowerQoSRejected": {
			reason:   "The backend cannot lower a QoS limit.",
			manifest: initial,
			patch:    "spec: {forProvider: {maxRwIops: 500}}",
			wantErr:  "maxRwIops can only be raised once set",
		},
		"ClearQoSRejected": {
			reason:   "The backend ignores 0, so a QoS limit can never be cleared.",
			manifest: initial,
			patch:    "spec: {forProvider: {maxRwIops: 0}}",
			wantErr:  "maxRwIops can only be raised once set",
		},
		"DHCHAPImmutable": {
			reason:   "dhchap is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {dhchap: true}}",
			wantErr:  "dhchap is immutable",
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
