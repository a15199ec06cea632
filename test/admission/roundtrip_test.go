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
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// TestTypedRoundTrip reads each managed resource into its Go type and writes
// it back unchanged but for an annotation, as crossplane-runtime's reconciler
// does when it records the external name. Explicit zeros that differ from a
// default must survive, and no immutability rule may fire.
func TestTypedRoundTrip(t *testing.T) {
	cases := map[string]struct {
		reason   string
		manifest string
		// resolved, when set, is the reference resolver's write (a merge
		// patch in YAML) applied after the create.
		resolved string
		obj      client.Object
		// spec extracts the part of the object that must not change.
		spec func(client.Object) any
	}{
		"StorageCluster": {
			reason: "distrNpcs 0 (the 1+0 scheme) must not come back as the default 1.",
			manifest: storageCluster(`
name: sb1
distrNpcs: 0
blkSize: 4096
maxSubsys: 0
spdkVcpuCount: 0
`),
			obj:  &sbv1alpha1.StorageCluster{},
			spec: func(o client.Object) any { return o.(*sbv1alpha1.StorageCluster).Spec.ForProvider },
		},
		"StorageNode": {
			reason: "haJm false, jmPercent 0, maxSnapshots 0 and partitions 0 must not come back as their defaults.",
			manifest: storageNode(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
nodeAddress: 10.0.0.10:5000
interfaceName: eth0
haJm: false
jmPercent: 0
maxSnapshots: 0
partitions: 0
failureDomain: 0
`),
			obj:  &sbv1alpha1.StorageNode{},
			spec: func(o client.Object) any { return o.(*sbv1alpha1.StorageNode).Spec.ForProvider },
		},
		"StoragePool": {
			reason: "A pool with QoS limits must round-trip unchanged.",
			manifest: storagePool(`
clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11
name: pool1
maxRwIops: 1000
dhchap: true
`),
			obj:  &sbv1alpha1.StoragePool{},
			spec: func(o client.Object) any { return o.(*sbv1alpha1.StoragePool).Spec.ForProvider },
		},
		"ClusterOps": {
			reason: "healthGate false, ttlSecondsAfterFinished 0 and the resolved clusterId next to its reference must round-trip without tripping an immutability rule.",
			manifest: clusterOps(`
type: NodeRollingRestart
clusterIdRef: {name: demo}
nodeRollingRestart:
  healthGate: false
  order: [node-b, node-a]
retry: {}
ttlSecondsAfterFinished: 0
cancel: true
`),
			resolved: "spec: {forProvider: {clusterId: 4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11}}",
			obj:      &sbv1alpha1.ClusterOps{},
			spec:     func(o client.Object) any { return o.(*sbv1alpha1.ClusterOps).Spec.ForProvider },
		},
		"StorageNodeOpsRestart": {
			reason: "force and reattachVolume false (dropped by omitempty, put back by their defaults), the device list and the resolved nodeId next to its reference must round-trip without tripping an immutability rule.",
			manifest: storageNodeOps(`
type: Restart
nodeIdRef: {name: demo-node-1}
restart:
  force: false
  reattachVolume: false
  nodeAddress: "10.0.0.12:5000"
  newSsdPcie: ["0000:00:04.0"]
retry: {}
ttlSecondsAfterFinished: 0
cancel: true
`),
			resolved: "spec: {forProvider: {nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
			obj:      &sbv1alpha1.StorageNodeOps{},
			spec:     func(o client.Object) any { return o.(*sbv1alpha1.StorageNodeOps).Spec.ForProvider },
		},
		"StorageNodeOpsShutdown": {
			reason: "shutdown force false (an object with no field set in Go) must round-trip without tripping an immutability rule.",
			manifest: storageNodeOps(`
type: Shutdown
nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33
shutdown: {force: false}
`),
			obj:  &sbv1alpha1.StorageNodeOps{},
			spec: func(o client.Object) any { return o.(*sbv1alpha1.StorageNodeOps).Spec.ForProvider },
		},
		"StorageNodeOpsRemove": {
			reason: "forceRemove, forceMigrate and forceDelete false must round-trip without tripping an immutability rule.",
			manifest: storageNodeOps(`
type: Remove
nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33
remove: {forceRemove: false, forceMigrate: false, forceDelete: false}
`),
			obj:  &sbv1alpha1.StorageNodeOps{},
			spec: func(o client.Object) any { return o.(*sbv1alpha1.StorageNodeOps).Spec.ForProvider },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u, err := create(t, tc.manifest)
			if err != nil {
				t.Fatalf("cannot create the initial object: %v", err)
			}
			if tc.resolved != "" {
				if err := mergePatch(t, u, tc.resolved); err != nil {
					t.Fatalf("cannot write the resolved reference: %v", err)
				}
			}
			readBack(t, testNamespace, tc.obj)
			before := tc.spec(tc.obj)

			tc.obj.SetAnnotations(map[string]string{"crossplane.io/external-name": "4b0c3c1e-8f4a-4d1b-9d0e-0f6f2b1a9c11"})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := kube.Update(ctx, tc.obj); err != nil {
				t.Fatalf("\n%s\nUpdate of the unchanged typed object: %v", tc.reason, err)
			}

			readBack(t, testNamespace, tc.obj)
			if diff := cmp.Diff(before, tc.spec(tc.obj)); diff != "" {
				t.Errorf("\n%s\nforProvider after the round trip: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
