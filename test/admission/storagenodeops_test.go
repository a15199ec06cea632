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
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	sbv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// storageNodeOpsExamples is the folder of the StorageNodeOps examples,
// relative to the repository's examples folder.
const storageNodeOpsExamples = "storagenodeops"

// storageNodeOps returns a StorageNodeOps manifest with the given
// spec.forProvider (YAML).
func storageNodeOps(forProvider string) string {
	return "apiVersion: simplyblock.m.crossplane.io/v1alpha1\nkind: StorageNodeOps\nspec:\n  forProvider:\n" + indent(4, forProvider)
}

// nodeOpsDefaults is the forProvider of a StorageNodeOps that set only its
// type and node, as the API server stores it: the policy defaults.
func nodeOpsDefaults(typ sbv1alpha1.StorageNodeOperationType) sbv1alpha1.StorageNodeOpsParameters {
	return sbv1alpha1.StorageNodeOpsParameters{
		Type: typ,
		OperationPolicy: sbv1alpha1.OperationPolicy{
			TimeoutSeconds:             new(int64(3600)),
			PreconditionTimeoutSeconds: new(int64(600)),
		},
	}
}

// exampleNodeOps is nodeOpsDefaults with the examples' reference to the
// quickstart's first StorageNode.
func exampleNodeOps(typ sbv1alpha1.StorageNodeOperationType) sbv1alpha1.StorageNodeOpsParameters {
	p := nodeOpsDefaults(typ)
	p.NodeIDRef = &xpv2.NamespacedReference{Name: "demo-node-1"}
	return p
}

// nodeByID is nodeOpsDefaults targeting a node by its UUID.
func nodeByID(typ sbv1alpha1.StorageNodeOperationType) sbv1alpha1.StorageNodeOpsParameters {
	p := nodeOpsDefaults(typ)
	p.NodeID = "7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"
	return p
}

func TestStorageNodeOpsExamples(t *testing.T) {
	suspend := exampleNodeOps(sbv1alpha1.NodeSuspend)
	resume := exampleNodeOps(sbv1alpha1.NodeResume)

	shutdown := exampleNodeOps(sbv1alpha1.NodeShutdown)
	shutdown.Shutdown = &sbv1alpha1.NodeShutdownParameters{}

	restart := exampleNodeOps(sbv1alpha1.NodeRestart)
	restart.Restart = &sbv1alpha1.NodeRestartParameters{Force: false}

	start := exampleNodeOps(sbv1alpha1.NodeStart)

	remove := exampleNodeOps(sbv1alpha1.NodeRemove)
	remove.Remove = &sbv1alpha1.NodeRemoveParameters{}
	remove.TimeoutSeconds = new(int64(86400))

	migrate := exampleNodeOps(sbv1alpha1.NodeMigrate)
	migrate.Migrate = &sbv1alpha1.NodeMigrateParameters{NodeAddress: "10.0.0.21:5000"}

	cases := map[string]struct {
		reason string
		file   string
		// want is forProvider as read back after the create.
		want sbv1alpha1.StorageNodeOpsParameters
	}{
		"Suspend": {
			reason: "The Suspend example targets the quickstart's first node and gets the policy defaults.",
			file:   "suspend.yaml",
			want:   suspend,
		},
		"Resume": {
			reason: "The Resume example has no parameters and gets the policy defaults.",
			file:   "resume.yaml",
			want:   resume,
		},
		"Shutdown": {
			reason: "The Shutdown example asks for a graceful shutdown.",
			file:   "shutdown.yaml",
			want:   shutdown,
		},
		"Restart": {
			reason: "The Restart example is a graceful restart (force false, so the fault-tolerance gate applies).",
			file:   "restart.yaml",
			want:   restart,
		},
		"Start": {
			reason: "The Start example has no parameters and gets the policy defaults.",
			file:   "start.yaml",
			want:   start,
		},
		"Remove": {
			reason: "The Remove example forces nothing and allows a day for the removal.",
			file:   "remove.yaml",
			want:   remove,
		},
		"Migrate": {
			reason: "The Migrate example moves the first node to 10.0.0.21:5000 without force.",
			file:   "migrate.yaml",
			want:   migrate,
		},
	}

	t.Run("EveryExampleAndTypeCovered", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join(repoRoot, "examples", storageNodeOpsExamples, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var got, want, types []string
		for _, f := range files {
			got = append(got, filepath.Base(f))
		}
		for _, tc := range cases {
			want = append(want, tc.file)
			types = append(types, string(tc.want.Type))
		}
		sort.Strings(want)
		sort.Strings(types)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("\nEvery file in examples/storagenodeops must have a case here.\nfiles: -want, +got:\n%s", diff)
		}
		allTypes := []string{"Migrate", "Remove", "Restart", "Resume", "Shutdown", "Start", "Suspend"}
		if diff := cmp.Diff(allTypes, types); diff != "" {
			t.Errorf("\nEvery operation type must have an example.\ntypes: -want, +got:\n%s", diff)
		}
	})

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, example(t, filepath.Join(storageNodeOpsExamples, tc.file)))
			checkErr(t, tc.reason, "", err)
			got := &sbv1alpha1.StorageNodeOps{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStorageNodeOpsCreate(t *testing.T) {
	shutdownDefaults := nodeByID(sbv1alpha1.NodeShutdown)
	shutdownDefaults.Shutdown = &sbv1alpha1.NodeShutdownParameters{}

	shutdownForced := nodeByID(sbv1alpha1.NodeShutdown)
	shutdownForced.Shutdown = &sbv1alpha1.NodeShutdownParameters{Force: true}

	restartDefaults := nodeByID(sbv1alpha1.NodeRestart)
	restartDefaults.Restart = &sbv1alpha1.NodeRestartParameters{}

	restartAll := nodeByID(sbv1alpha1.NodeRestart)
	restartAll.Restart = &sbv1alpha1.NodeRestartParameters{
		Force:          true,
		ReattachVolume: true,
		NodeAddress:    new("10.0.0.12:5000"),
		NewSsdPcie:     []string{"0000:00:04.0", "0000:00:05.0"},
	}

	startWithParams := nodeByID(sbv1alpha1.NodeStart)
	startWithParams.Restart = &sbv1alpha1.NodeRestartParameters{NodeAddress: new("10.0.0.12:5000")}

	removeDefaults := nodeByID(sbv1alpha1.NodeRemove)
	removeDefaults.Remove = &sbv1alpha1.NodeRemoveParameters{}

	removeForced := nodeByID(sbv1alpha1.NodeRemove)
	removeForced.Remove = &sbv1alpha1.NodeRemoveParameters{ForceRemove: true, ForceMigrate: true}

	bySelector := nodeOpsDefaults(sbv1alpha1.NodeResume)
	bySelector.NodeIDSelector = &xpv2.NamespacedSelector{MatchLabels: map[string]string{"node": "demo-node-1"}}

	cases := map[string]struct {
		reason   string
		manifest string
		// wantErr is a part of the API server's rejection; "" means accepted.
		wantErr string
		// want is forProvider as read back after an accepted create.
		want *sbv1alpha1.StorageNodeOpsParameters
	}{
		"MinimalGetsPolicyDefaults": {
			reason:   "An operation with only a type and a node gets a one-hour deadline and a ten-minute precondition wait.",
			manifest: storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			want:     new(nodeByID(sbv1alpha1.NodeSuspend)),
		},
		"EmptyShutdownGetsDefaults": {
			reason:   "Empty shutdown parameters ask for a graceful shutdown; force is stored as false.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {}"),
			want:     &shutdownDefaults,
		},
		"ShutdownForced": {
			reason:   "A forced shutdown is kept as written.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {force: true}"),
			want:     &shutdownForced,
		},
		"ShutdownWithoutParameters": {
			reason:   "shutdown parameters are optional.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			want:     new(nodeByID(sbv1alpha1.NodeShutdown)),
		},
		"EmptyRestartGetsDefaults": {
			reason:   "Empty restart parameters are the backend's {} body; force and reattachVolume are stored as false.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {}"),
			want:     &restartDefaults,
		},
		"RestartAllParameters": {
			reason: "Every restart parameter is kept as written, the device list in its order.",
			manifest: storageNodeOps(`
type: Restart
nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33
restart:
  force: true
  reattachVolume: true
  nodeAddress: "10.0.0.12:5000"
  newSsdPcie: ["0000:00:04.0", "0000:00:05.0"]
`),
			want: &restartAll,
		},
		"RestartParametersOnStart": {
			reason:   "The backend's start takes the same body as its restart, so restart parameters are allowed on Start.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {nodeAddress: '10.0.0.12:5000'}"),
			want:     &startWithParams,
		},
		"EmptyRemoveGetsDefaults": {
			reason:   "Empty remove parameters force nothing; the three flags are stored as false.",
			manifest: storageNodeOps("type: Remove\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nremove: {}"),
			want:     &removeDefaults,
		},
		"RemoveForced": {
			reason:   "Forced removal flags are kept as written, the unset one defaults to false.",
			manifest: storageNodeOps("type: Remove\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nremove: {forceRemove: true, forceMigrate: true}"),
			want:     &removeForced,
		},
		"NodeBySelector": {
			reason:   "nodeIdSelector may stand in for nodeId, which the resolver fills in later.",
			manifest: storageNodeOps("type: Resume\nnodeIdSelector: {matchLabels: {node: demo-node-1}}"),
			want:     &bySelector,
		},
		"UnknownType": {
			reason:   "type must be one of the six node operations.",
			manifest: storageNodeOps("type: Reboot\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			wantErr:  `spec.forProvider.type: Unsupported value: "Reboot": supported values: "Suspend", "Resume", "Shutdown", "Restart", "Start", "Remove"`,
		},
		"ClusterTypeRejected": {
			reason:   "Cluster operations are not node operations.",
			manifest: storageNodeOps("type: NodeRollingRestart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			wantErr:  `spec.forProvider.type: Unsupported value: "NodeRollingRestart"`,
		},
		"MissingType": {
			reason:   "An operation must say what to run.",
			manifest: storageNodeOps("nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			wantErr:  "spec.forProvider.type: Required value",
		},
		"ShutdownParametersOnSuspend": {
			reason:   "Parameters of another type are a mistake, not something to ignore.",
			manifest: storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {force: true}"),
			wantErr:  "shutdown parameters are only allowed when type is Shutdown",
		},
		"RemoveParametersOnRestart": {
			reason:   "Parameters of another type are a mistake, not something to ignore.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nremove: {forceRemove: true}"),
			wantErr:  "remove parameters are only allowed when type is Remove",
		},
		"RestartParametersOnShutdown": {
			reason:   "A shutdown takes no restart body; its force lives in shutdown parameters.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {force: true}"),
			wantErr:  "restart parameters are only allowed when type is Restart or Start",
		},
		"EmptyRestartParametersOnResume": {
			reason:   "Even empty parameters of another type are rejected: Resume takes none.",
			manifest: storageNodeOps("type: Resume\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {}"),
			wantErr:  "restart parameters are only allowed when type is Restart or Start",
		},
		"ShutdownParametersOnRemove": {
			reason:   "Parameters of another type are a mistake, not something to ignore.",
			manifest: storageNodeOps("type: Remove\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {}"),
			wantErr:  "shutdown parameters are only allowed when type is Shutdown",
		},
		"EmptyNewSsdPcie": {
			reason:   "An empty device list says nothing; leave newSsdPcie out instead.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {newSsdPcie: []}"),
			wantErr:  "spec.forProvider.restart.newSsdPcie in body should have at least 1 items",
		},
		"EmptyNodeAddress": {
			reason:   "An empty address would be sent as a new node address; leave nodeAddress out instead.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {nodeAddress: ''}"),
			wantErr:  "spec.forProvider.restart.nodeAddress in body should be at least 1 chars long",
		},
		"EmptyNodeID": {
			reason:   "An empty nodeId names no node.",
			manifest: storageNodeOps("type: Suspend\nnodeId: ''\nnodeIdRef: {name: demo-node-1}"),
			wantErr:  "spec.forProvider.nodeId in body should be at least 1 chars long",
		},
		"MissingNode": {
			reason:   "An operation must name its node one way or another.",
			manifest: storageNodeOps("type: Suspend"),
			wantErr:  "one of nodeId, nodeIdRef or nodeIdSelector is required",
		},
		"CrossNamespaceReference": {
			reason:   "References resolve only within the operation's own namespace.",
			manifest: storageNodeOps("type: Suspend\nnodeIdRef: {name: demo-node-1, namespace: other}"),
			wantErr:  "nodeIdRef and nodeIdSelector resolve in the StorageNodeOps' own namespace: leave their namespace unset",
		},
		"CrossNamespaceSelector": {
			reason:   "Selectors resolve only within the operation's own namespace.",
			manifest: storageNodeOps("type: Suspend\nnodeIdSelector: {matchLabels: {node: demo-node-1}, namespace: other}"),
			wantErr:  "nodeIdRef and nodeIdSelector resolve in the StorageNodeOps' own namespace: leave their namespace unset",
		},
		"ZeroTimeout": {
			reason:   "The shared operation policy is validated here too: an operation needs at least one second to run.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\ntimeoutSeconds: 0"),
			wantErr:  "spec.forProvider.timeoutSeconds in body should be greater than or equal to 1",
		},
		"NegativeTTL": {
			reason:   "An object cannot be deleted before it finished.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nttlSecondsAfterFinished: -1"),
			wantErr:  "spec.forProvider.ttlSecondsAfterFinished in body should be greater than or equal to 0",
		},
		"ZeroMaxAttempts": {
			reason:   "A call is sent at least once.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nretry: {maxAttempts: 0}"),
			wantErr:  "spec.forProvider.retry.maxAttempts in body should be greater than or equal to 1",
		},
		"TimeoutInt64Max": {
			reason:   "The shared policy's bounds hold here too: int64's maximum is refused, naming the bound.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\ntimeoutSeconds: 9223372036854775807"),
			wantErr:  "spec.forProvider.timeoutSeconds in body should be less than or equal to",
		},
		"TTLAboveAYear": {
			reason:   "A TTL is at most a year.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nttlSecondsAfterFinished: 31536001"),
			wantErr:  "spec.forProvider.ttlSecondsAfterFinished in body should be less than or equal to 31536000",
		},
		"NodeIDTooLong": {
			reason:   "A node id is a UUID: 36 characters.",
			manifest: storageNodeOps("type: Start\nnodeId: " + strings.Repeat("n", 37)),
			wantErr:  "spec.forProvider.nodeId: Too long: may not be more than 36 bytes",
		},
		"MigrateWithoutParameters": {
			reason:   "A Migrate needs the new host's address.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			wantErr:  "a Migrate needs migrate parameters (migrate.nodeAddress), and only a Migrate has them",
		},
		"MigrateParametersOnRestart": {
			reason:   "Migrate parameters on another type would be ignored: refused.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {nodeAddress: '10.0.0.21:5000'}"),
			wantErr:  "a Migrate needs migrate parameters (migrate.nodeAddress), and only a Migrate has them",
		},
		"MigrateWithoutAddress": {
			reason:   "migrate.nodeAddress is required.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {force: true}"),
			wantErr:  "spec.forProvider.migrate.nodeAddress: Required value",
		},
		"MigrateAddressWithoutPort": {
			reason:   "The agent's address is host:port; a bare host is refused.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {nodeAddress: '10.0.0.21'}"),
			wantErr:  "spec.forProvider.migrate.nodeAddress in body should match",
		},
		"MigrateAddressIPv6": {
			reason:   "An IPv6 agent address in brackets, with a port, is accepted.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {nodeAddress: '[fd00::21]:5000'}"),
		},
		"MigrateAddressTooLong": {
			reason:   "A new host's address is a DNS name and a port: at most 259 characters.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {nodeAddress: '" + strings.Repeat("h", 255) + ":5000'}"),
			wantErr:  "spec.forProvider.migrate.nodeAddress: Too long: may not be more than 259",
		},
		"RestartAddressTooLong": {
			reason:   "A new node address is a DNS name and a port: at most 259 characters.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {nodeAddress: " + strings.Repeat("h", 260) + "}"),
			wantErr:  "spec.forProvider.restart.nodeAddress: Too long: may not be more than 259 bytes",
		},
		"TooManyNewSSDs": {
			reason:   "At most 64 new devices per restart.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {newSsdPcie: [" + strings.TrimSuffix(strings.Repeat("\"0000:00:04.0\", ", 65), ", ") + "]}"),
			wantErr:  "spec.forProvider.restart.newSsdPcie: Too many: 65: must have at most 64 items",
		},
		"IDAndReferenceTogether": {
			reason:   "An id and a reference on create may name two different nodes: refused (the reference resolver fills the id in).",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nnodeIdRef: {name: other}"),
			wantErr:  "set nodeId or nodeIdRef/nodeIdSelector, not both: a reference fills nodeId in",
		},
		"ConfirmResendToken": {
			reason:   "A well-formed confirmResend token is accepted.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nconfirmResend: \"0/1\""),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := create(t, tc.manifest)
			checkErr(t, tc.reason, tc.wantErr, err)
			if tc.want == nil {
				return
			}
			got := &sbv1alpha1.StorageNodeOps{}
			readBack(t, testNamespace, got)
			if diff := cmp.Diff(*tc.want, got.Spec.ForProvider); diff != "" {
				t.Errorf("\n%s\nforProvider as read back: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestStorageNodeOpsUpdate(t *testing.T) {
	initial := storageNodeOps(`
type: Suspend
nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33
retry: {maxAttempts: 5}
`)
	byRef := storageNodeOps("type: Suspend\nnodeIdRef: {name: demo-node-1}")
	cancelled := storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\ncancel: true")
	cases := map[string]updateCase{
		"CancelAccepted": {
			reason:   "cancel is the one field that may change after creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {cancel: true}}",
		},
		"CancelCannotBeUndone": {
			reason:   "A cancelled operation stays cancelled: it may already have failed with reason Cancelled.",
			manifest: cancelled,
			patch:    "spec: {forProvider: {cancel: false}}",
			wantErr:  "cancel cannot be undone",
		},
		"CancelCannotBeDropped": {
			reason:   "Removing cancel is undoing it too.",
			manifest: cancelled,
			patch:    "spec: {forProvider: {cancel: null}}",
			wantErr:  "cancel cannot be undone",
		},
		"AnnotationChangeAccepted": {
			reason:   "Immutability rules must not get in the way of metadata changes such as the external-name annotation.",
			manifest: initial,
			patch:    "metadata: {annotations: {crossplane.io/external-name: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
		},
		"TypeImmutable": {
			reason:   "An operation runs once, as it was written.",
			manifest: initial,
			patch:    "spec: {forProvider: {type: Resume}}",
			wantErr:  "type is immutable: create a new operation instead",
		},
		"NodeIDImmutable": {
			reason:   "An operation cannot move to another node.",
			manifest: initial,
			patch:    "spec: {forProvider: {nodeId: 0c1f8b2e-5a7d-4e39-b6c4-9d2a3f4e5b61}}",
			wantErr:  "nodeId is immutable once set",
		},
		"NodeIDCannotBeRemoved": {
			reason:   "Removing nodeId is a change too.",
			manifest: storageNodeOps("type: Suspend\nnodeIdRef: {name: demo-node-1}"),
			resolved: "spec: {forProvider: {nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
			patch:    "spec: {forProvider: {nodeId: null}}",
			wantErr:  "nodeId is immutable once set",
		},
		"NodeIDFilledInByResolver": {
			reason:   "The reference resolver sets nodeId after creation; that first write is not a change.",
			manifest: byRef,
			patch:    "spec: {forProvider: {nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
		},
		"NodeIDFilledInBySelector": {
			reason:   "The selector resolver sets nodeIdRef and nodeId after creation; that first write is not a change.",
			manifest: storageNodeOps("type: Suspend\nnodeIdSelector: {matchLabels: {node: demo-node-1}}"),
			patch:    "spec: {forProvider: {nodeIdRef: {name: demo-node-1}, nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
		},
		"NodeIDRefImmutable": {
			reason:   "An operation cannot move to another StorageNode.",
			manifest: byRef,
			patch:    "spec: {forProvider: {nodeIdRef: {name: demo-node-2}}}",
			wantErr:  "nodeIdRef is immutable once set",
		},
		"NodeIDRefCannotBeRemoved": {
			reason:   "Removing nodeIdRef is a change too.",
			manifest: storageNodeOps("type: Suspend\nnodeIdRef: {name: demo-node-1}"),
			resolved: "spec: {forProvider: {nodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33}}",
			patch:    "spec: {forProvider: {nodeIdRef: null}}",
			wantErr:  "nodeIdRef is immutable once set",
		},
		"ShutdownImmutable": {
			reason:   "A graceful shutdown cannot turn into a forced one.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {force: false}"),
			patch:    "spec: {forProvider: {shutdown: {force: true}}}",
			wantErr:  "shutdown is immutable: create a new operation instead",
		},
		"ShutdownCannotBeAdded": {
			reason:   "Setting optional parameters later is a change too.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			patch:    "spec: {forProvider: {shutdown: {force: true}}}",
			wantErr:  "shutdown is immutable: create a new operation instead",
		},
		"ShutdownCannotBeRemoved": {
			reason:   "Removing parameters is a change too.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {force: true}"),
			patch:    "spec: {forProvider: {shutdown: null}}",
			wantErr:  "shutdown is immutable: create a new operation instead",
		},
		"DroppedFalseForceIsNoChange": {
			reason:   "A client that omits force: false (Go's omitempty) gets the default false back, so nothing changed.",
			manifest: storageNodeOps("type: Shutdown\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nshutdown: {force: false}"),
			patch:    "spec: {forProvider: {shutdown: {force: null}}}",
		},
		"RestartImmutable": {
			reason:   "The restart body cannot change once the operation exists.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {nodeAddress: '10.0.0.12:5000'}"),
			patch:    "spec: {forProvider: {restart: {nodeAddress: '10.0.0.13:5000'}}}",
			wantErr:  "restart is immutable: create a new operation instead",
		},
		"RestartDevicesImmutable": {
			reason:   "The new device list cannot change once the operation exists.",
			manifest: storageNodeOps("type: Restart\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nrestart: {newSsdPcie: ['0000:00:04.0']}"),
			patch:    "spec: {forProvider: {restart: {newSsdPcie: ['0000:00:04.0', '0000:00:05.0']}}}",
			wantErr:  "restart is immutable: create a new operation instead",
		},
		"RestartCannotBeAddedOnStart": {
			reason:   "Setting restart parameters on a Start later is a change too.",
			manifest: storageNodeOps("type: Start\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			patch:    "spec: {forProvider: {restart: {force: true}}}",
			wantErr:  "restart is immutable: create a new operation instead",
		},
		"RemoveImmutable": {
			reason:   "The removal flags cannot change once the operation exists.",
			manifest: storageNodeOps("type: Remove\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nremove: {}"),
			patch:    "spec: {forProvider: {remove: {forceRemove: true}}}",
			wantErr:  "remove is immutable: create a new operation instead",
		},
		"MigrateImmutable": {
			reason:   "A Migrate cannot be pointed at another host once it exists.",
			manifest: storageNodeOps("type: Migrate\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nmigrate: {nodeAddress: '10.0.0.21:5000'}"),
			patch:    "spec: {forProvider: {migrate: {nodeAddress: '10.0.0.22:5000'}}}",
			wantErr:  "migrate is immutable: create a new operation instead",
		},
		"TimeoutSecondsImmutable": {
			reason:   "The deadline is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {timeoutSeconds: 7200}}",
			wantErr:  "timeoutSeconds is immutable: create a new operation instead",
		},
		"DroppedTimeoutDoesNotRevertToDefault": {
			reason:   "Removing an explicitly set deadline would let the API server put the default back, which changes it.",
			manifest: storageNodeOps("type: Remove\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\ntimeoutSeconds: 86400"),
			patch:    "spec: {forProvider: {timeoutSeconds: null}}",
			wantErr:  "timeoutSeconds is immutable: create a new operation instead",
		},
		"PreconditionTimeoutSecondsImmutable": {
			reason:   "The precondition wait is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {preconditionTimeoutSeconds: 60}}",
			wantErr:  "preconditionTimeoutSeconds is immutable: create a new operation instead",
		},
		"RetryImmutable": {
			reason:   "The retry policy is fixed at creation.",
			manifest: initial,
			patch:    "spec: {forProvider: {retry: {maxAttempts: 10}}}",
			wantErr:  "retry is immutable: create a new operation instead",
		},
		"RetryCannotBeAdded": {
			reason:   "Setting a retry policy later is a change too.",
			manifest: storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33"),
			patch:    "spec: {forProvider: {retry: {maxAttempts: 10}}}",
			wantErr:  "retry is immutable: create a new operation instead",
		},
		"TTLImmutable": {
			reason:   "ttlSecondsAfterFinished is fixed at creation.",
			manifest: storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\nttlSecondsAfterFinished: 3600"),
			patch:    "spec: {forProvider: {ttlSecondsAfterFinished: 60}}",
			wantErr:  "ttlSecondsAfterFinished is immutable: create a new operation instead",
		},
		"TTLCannotBeAdded": {
			reason:   "Setting ttlSecondsAfterFinished later is a change too.",
			manifest: initial,
			patch:    "spec: {forProvider: {ttlSecondsAfterFinished: 60}}",
			wantErr:  "ttlSecondsAfterFinished is immutable: create a new operation instead",
		},
		"ApprovalTimeoutImmutable": {
			reason:   "approvalTimeoutSeconds is fixed at creation: the bound shown with the plan holds.",
			manifest: storageNodeOps("type: Suspend\nnodeId: 7e2d9a40-1c3b-4f6e-9a8d-2b5c4e1f0a33\napproval: Required\napprovalTimeoutSeconds: 3600"),
			patch:    "spec: {forProvider: {approvalTimeoutSeconds: 7200}}",
			wantErr:  "approvalTimeoutSeconds is immutable: create a new operation instead",
		},
	}
	maps.Copy(cases, finishedOperationCases(initial))
	runUpdateCases(t, cases)
}
