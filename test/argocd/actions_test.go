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

package argocd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/test/argocd/sandbox"
)

// actionClock is when the tests run actions: the names they give are
// dated 20261201-090807.
var actionClock = time.Date(2026, 12, 1, 9, 8, 7, 0, time.UTC)

// sb runs scripts as Argo CD does, at actionClock.
var sb = sandbox.Sandbox{Now: func() time.Time { return actionClock }}

// The kinds that have actions, and their actions.
var kindActions = map[string][]string{
	"StorageCluster": {"rebalance", "restart", "rolling-restart"},
	"ClusterOps":     {"approve", "cancel"},
	"StorageNodeOps": {"approve", "cancel"},
}

// discoveryScript and actionScript read a kind's scripts.
func discoveryScript(t *testing.T, kind string) string {
	t.Helper()
	return readFile(t, filepath.Join(actionsPath(kind), "discovery.lua"))
}

func actionScript(t *testing.T, kind, action string) string {
	t.Helper()
	return readFile(t, filepath.Join(actionsPath(kind), action, "action.lua"))
}

// fixtureObject reads a fixture of testdata/ and applies mutate.
func fixtureObject(t *testing.T, fixture string, mutate func(t *testing.T, u *unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	u, err := loadObject(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(t, u)
	}
	return u
}

// clusterOpFor is the ClusterOps an action of the StorageCluster in
// storagecluster-ready.yaml creates at actionClock, with approval when set.
func clusterOpFor(action, opType, approval string) string {
	a := ""
	if approval != "" {
		a = "\n    approval: " + approval
	}
	return fmt.Sprintf(`apiVersion: simplyblock.m.crossplane.io/v1alpha1
kind: ClusterOps
metadata:
  name: demo-%[1]s-20261201-090807
  namespace: testargocdfixtures-outagepauseandreferences-1352
  labels:
    simplyblock.m.crossplane.io/argocd-action: %[1]s
    simplyblock.m.crossplane.io/cluster: demo
    simplyblock.m.crossplane.io/cluster-uid: cfa771bd-7457-4a93-a12f-828560b65dd1
  ownerReferences:
  - apiVersion: simplyblock.m.crossplane.io/v1alpha1
    kind: StorageCluster
    name: demo
    uid: cfa771bd-7457-4a93-a12f-828560b65dd1
    controller: false
    blockOwnerDeletion: false
spec:
  forProvider:
    type: %[2]s
    clusterIdRef:
      name: demo
    ttlSecondsAfterFinished: 86400%[3]s
  providerConfigRef:
    kind: ProviderConfig
    name: sim
`, action, opType, a)
}

// setName renames a cluster fixture.
func setName(name string) func(t *testing.T, u *unstructured.Unstructured) {
	return func(_ *testing.T, u *unstructured.Unstructured) { u.SetName(name) }
}

// TestStorageClusterActions runs each action of StorageCluster on the real
// StorageCluster fixtures and checks the ClusterOps it creates, field for
// field, or that it refuses.
func TestStorageClusterActions(t *testing.T) {
	long := func(n int, tail string) string { return strings.Repeat("a", n) + tail }
	type args struct {
		fixture string
		mutate  func(t *testing.T, u *unstructured.Unstructured)
		action  string
		params  map[string]string // nil: Argo CD before 3.1, which sets no actionParams
	}
	type want struct {
		op  string // the YAML of the one ClusterOps the action creates
		err string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Rebalance": {
			reason: "rebalance on a Ready cluster creates a dated Rebalance ClusterOps owned by the cluster (Argo CD before 3.1: no actionParams).",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance"},
			want:   want{op: clusterOpFor("rebalance", "Rebalance", "")},
		},
		"Restart": {
			reason: "restart creates a Restart ClusterOps (Argo CD 3.1 or later, run without parameters: actionParams is empty).",
			args:   args{fixture: "storagecluster-ready.yaml", action: "restart", params: map[string]string{}},
			want:   want{op: clusterOpFor("restart", "Restart", "")},
		},
		"RollingRestart": {
			reason: "rolling-restart creates a NodeRollingRestart ClusterOps.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rolling-restart", params: map[string]string{}},
			want:   want{op: clusterOpFor("rolling-restart", "NodeRollingRestart", "")},
		},
		"ApprovalRequired": {
			reason: "The parameter approval Required makes an operation that shows its plan and waits for approval.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "restart", params: map[string]string{"approval": "Required"}},
			want:   want{op: clusterOpFor("restart", "Restart", "Required")},
		},
		"ApprovalAutomatic": {
			reason: "approval Automatic is the default: the field is left out.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", params: map[string]string{"approval": "Automatic"}},
			want:   want{op: clusterOpFor("rebalance", "Rebalance", "")},
		},
		"ApprovalEmpty": {
			reason: "An empty approval is the default.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", params: map[string]string{"approval": ""}},
			want:   want{op: clusterOpFor("rebalance", "Rebalance", "")},
		},
		"ApprovalInvalid": {
			reason: "Another approval is refused before anything is created.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", params: map[string]string{"approval": "required"}},
			want: want{err: `the action rebalance cannot run on StorageCluster demo: ` +
				`the parameter approval is "required", want Automatic or Required`},
		},
		"OtherParametersIgnored": {
			reason: "Parameters the action does not know of change nothing.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", params: map[string]string{"replicas": "3"}},
			want:   want{op: clusterOpFor("rebalance", "Rebalance", "")},
		},
		"ArgoCDTrackingIsNotCopied": {
			reason: "The cluster's Argo CD tracking label and annotation are not copied: the operation is the cluster's child, not part of the Application (which would prune it).",
			args: args{fixture: "storagecluster-ready.yaml", action: "rebalance", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				u.SetLabels(map[string]string{"app.kubernetes.io/instance": "storage"})
				u.SetAnnotations(map[string]string{"argocd.argoproj.io/tracking-id": "storage:simplyblock.m.crossplane.io/StorageCluster:x/demo"})
			}},
			want: want{op: clusterOpFor("rebalance", "Rebalance", "")},
		},
		"NoProviderConfigRef": {
			reason: "Without a providerConfigRef on the cluster the operation gets none (the CRD's default applies).",
			args: args{fixture: "storagecluster-ready.yaml", action: "rebalance", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "spec", "providerConfigRef")
			}},
			want: want{op: strings.TrimSuffix(clusterOpFor("rebalance", "Rebalance", ""), "  providerConfigRef:\n    kind: ProviderConfig\n    name: sim\n")},
		},
		"LongNameCutAtHyphen": {
			reason: "A cluster name too long for the suffix is cut to fit 253 characters, without the hyphen the cut ends on; the name label is left out (over 63 characters).",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", mutate: setName(long(226, "-"+strings.Repeat("b", 26)))},
			want: want{op: strings.NewReplacer(
				"name: demo-rebalance-", "name: "+long(226, "")+"-rebalance-",
				"    simplyblock.m.crossplane.io/cluster: demo\n", "",
				"    name: demo\n", "    name: "+long(226, "-"+strings.Repeat("b", 26))+"\n",
				"      name: demo\n", "      name: "+long(226, "-"+strings.Repeat("b", 26))+"\n",
			).Replace(clusterOpFor("rebalance", "Rebalance", ""))},
		},
		"LongNameCutAtDot": {
			reason: "A cut that ends on a dot drops it: a dot may not precede a hyphen.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rolling-restart", mutate: setName(long(220, ".b.c"+strings.Repeat("d", 29)))},
			want: want{op: strings.NewReplacer(
				"name: demo-rolling-restart-", "name: "+long(220, "")+"-rolling-restart-",
				"    simplyblock.m.crossplane.io/cluster: demo\n", "",
				"    name: demo\n", "    name: "+long(220, ".b.c"+strings.Repeat("d", 29))+"\n",
				"      name: demo\n", "      name: "+long(220, ".b.c"+strings.Repeat("d", 29))+"\n",
			).Replace(clusterOpFor("rolling-restart", "NodeRollingRestart", ""))},
		},
		"NameThatFitsIsKept": {
			reason: "A name of 63 characters is kept whole and is still a label value.",
			args:   args{fixture: "storagecluster-ready.yaml", action: "rebalance", mutate: setName(long(63, ""))},
			want:   want{op: strings.ReplaceAll(clusterOpFor("rebalance", "Rebalance", ""), "demo", long(63, ""))},
		},
		"NotReady": {
			reason: "On a cluster that is not Ready the action refuses and says why.",
			args:   args{fixture: "storagecluster-unavailable-degraded.yaml", action: "rolling-restart"},
			want:   want{err: "the action rolling-restart cannot run on StorageCluster demo: it is not Ready (Unavailable: cluster status is degraded)"},
		},
		"NotReadyWhileCreating": {
			reason: "A cluster that is still being created is not Ready either.",
			args:   args{fixture: "storagecluster-reconcile-error.yaml", action: "restart"},
			want:   want{err: "the action restart cannot run on StorageCluster demo: it is not Ready (Creating)"},
		},
		"NoStatus": {
			reason: "A cluster without status (not observed yet) is not Ready.",
			args: args{fixture: "storagecluster-ready.yaml", action: "rebalance", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status")
			}},
			want: want{err: "the action rebalance cannot run on StorageCluster demo: it is not Ready"},
		},
		"BeingDeleted": {
			reason: "A cluster being deleted gets no new operation.",
			args: args{fixture: "storagecluster-ready.yaml", action: "restart", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				must(t, unstructured.SetNestedField(u.Object, "2026-12-01T09:00:00Z", "metadata", "deletionTimestamp"))
			}},
			want: want{err: "the action restart cannot run on StorageCluster demo: it is being deleted"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := fixtureObject(t, tc.args.fixture, tc.args.mutate)
			got, err := sb.RunAction(actionScript(t, "StorageCluster", tc.args.action), u.Object, tc.args.params)
			if tc.want.err != "" {
				if err == nil || err.Error() != tc.want.err {
					t.Fatalf("%s\nerror = %v, want %q", tc.reason, err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			if len(got) != 1 || got[0].Operation != sandbox.OperationCreate {
				t.Fatalf("%s\nthe action returned %d resources (%+v), want one to create", tc.reason, len(got), got)
			}
			want, err := objectOf([]byte(tc.want.op))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Object, got[0].Resource.Object); diff != "" {
				t.Errorf("%s\nthe ClusterOps: -want, +got:\n%s", tc.reason, diff)
			}
			for _, problem := range validOperation(t, got[0].Resource) {
				t.Errorf("%s\n%s", tc.reason, problem)
			}
		})
	}
}

// validOperation checks what the API server will check of a ClusterOps an
// action creates: a valid name, namespace and labels, and a body the CRD's
// schema in package/crds accepts (field names, types, enums, required
// fields).
func validOperation(t *testing.T, u *unstructured.Unstructured) []string {
	t.Helper()
	var problems []string
	for _, m := range validation.IsDNS1123Subdomain(u.GetName()) {
		problems = append(problems, fmt.Sprintf("name %q: %s", u.GetName(), m))
	}
	for _, m := range validation.IsDNS1123Label(u.GetNamespace()) {
		problems = append(problems, fmt.Sprintf("namespace %q: %s", u.GetNamespace(), m))
	}
	for k, v := range u.GetLabels() {
		for _, m := range append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...) {
			problems = append(problems, fmt.Sprintf("label %s=%s: %s", k, v, m))
		}
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	b, err := os.ReadFile(repoPath("package", "crds", group+"_"+strings.ToLower(u.GetKind())+".yaml")) //nolint:gosec // CRDs from the repository.
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if group+"/"+v.Name == u.GetAPIVersion() {
			return append(problems, schemaProblems("", u.Object, v.Schema.OpenAPIV3Schema)...)
		}
	}
	return append(problems, "the CRD has no version "+u.GetAPIVersion())
}

// schemaProblems checks value against an OpenAPI v3 schema of a CRD, as
// far as the operations need: types, enums, known and required fields.
func schemaProblems(path string, value any, schema map[string]any) []string {
	var problems []string
	typ, _ := schema["type"].(string)
	ok := true
	switch typ {
	case "object":
		_, ok = value.(map[string]any)
	case "array":
		_, ok = value.([]any)
	case "string":
		_, ok = value.(string)
	case "integer":
		_, ok = value.(int64)
	case "boolean":
		_, ok = value.(bool)
	}
	if !ok {
		return []string{fmt.Sprintf("%s: %v is not of type %s", path, value, typ)}
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == value
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s: %v is none of %v", path, value, enum))
		}
	}
	switch v := value.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if len(props) == 0 {
			return problems
		}
		for k, e := range v {
			ps, known := props[k].(map[string]any)
			if !known {
				problems = append(problems, fmt.Sprintf("%s.%s: unknown field", path, k))
				continue
			}
			problems = append(problems, schemaProblems(path+"."+k, e, ps)...)
		}
		req, _ := schema["required"].([]any)
		for _, r := range req {
			if _, ok := v[r.(string)]; !ok {
				problems = append(problems, fmt.Sprintf("%s.%s: required", path, r))
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range v {
				problems = append(problems, schemaProblems(fmt.Sprintf("%s[%d]", path, i), e, items)...)
			}
		}
	}
	return problems
}

// TestOperationActions runs approve and cancel on the real ClusterOps and
// StorageNodeOps fixtures and checks the merge patch Argo CD sends, or
// that the action refuses.
func TestOperationActions(t *testing.T) {
	awaiting := func(t *testing.T, u *unstructured.Unstructured) {
		awaitApproval(t, u, "awaiting approval: holds the lock")
	}
	withSpec := func(field string, then func(t *testing.T, u *unstructured.Unstructured)) func(t *testing.T, u *unstructured.Unstructured) {
		return func(t *testing.T, u *unstructured.Unstructured) {
			if then != nil {
				then(t, u)
			}
			must(t, unstructured.SetNestedField(u.Object, true, "spec", "forProvider", field))
		}
	}
	type args struct {
		fixture string
		mutate  func(t *testing.T, u *unstructured.Unstructured)
		action  string
	}
	type want struct {
		patch string
		err   string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"ApproveAwaitingApproval": {
			reason: "approve on an operation awaiting approval sets approved, and nothing else.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: awaiting, action: "approve"},
			want:   want{patch: `{"spec":{"forProvider":{"approved":true}}}`},
		},
		"ApproveQueued": {
			reason: "approve refuses on an operation that shows no plan yet.",
			args:   args{fixture: "clusterops-pending-queued.yaml", action: "approve"},
			want:   want{err: "cannot approve ClusterOps demo-rebalance: it does not await approval (it is Pending, Queued)"},
		},
		"ApproveRunning": {
			reason: "approve refuses on a running operation.",
			args:   args{fixture: "clusterops-running-restart.yaml", action: "approve"},
			want:   want{err: "cannot approve ClusterOps demo-restart: it does not await approval (it is Running, Triggered)"},
		},
		"ApproveApprovedAlready": {
			reason: "approve refuses when the operation was approved already.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: withSpec("approved", awaiting), action: "approve"},
			want:   want{err: "cannot approve ClusterOps demo-rebalance: it is approved already"},
		},
		"ApproveCancelled": {
			reason: "approve refuses on a cancelled operation.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: withSpec("cancel", awaiting), action: "approve"},
			want:   want{err: "cannot approve ClusterOps demo-rebalance: it was cancelled"},
		},
		"ApproveNotPickedUp": {
			reason: "approve refuses on an operation the provider has not picked up.",
			args: args{fixture: "clusterops-pending-queued.yaml", action: "approve", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status")
			}},
			want: want{err: "cannot approve ClusterOps demo-rebalance: it does not await approval"},
		},
		"CancelQueued": {
			reason: "cancel on a queued operation sets cancel, and nothing else.",
			args:   args{fixture: "clusterops-pending-queued.yaml", action: "cancel"},
			want:   want{patch: `{"spec":{"forProvider":{"cancel":true}}}`},
		},
		"CancelAwaitingApproval": {
			reason: "An operation awaiting approval can be cancelled instead.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: awaiting, action: "cancel"},
			want:   want{patch: `{"spec":{"forProvider":{"cancel":true}}}`},
		},
		"CancelRunning": {
			reason: "A running operation can be asked to cancel (what stops depends on its type).",
			args:   args{fixture: "clusterops-running-node-rolling-restart.yaml", action: "cancel"},
			want:   want{patch: `{"spec":{"forProvider":{"cancel":true}}}`},
		},
		"CancelSucceeded": {
			reason: "cancel refuses once the operation finished (admission would refuse it too).",
			args:   args{fixture: "clusterops-succeeded.yaml", action: "cancel"},
			want:   want{err: "cannot cancel ClusterOps demo-rebalance: it has finished (Succeeded, Completed)"},
		},
		"CancelFailed": {
			reason: "cancel refuses on a failed operation.",
			args:   args{fixture: "clusterops-failed-backend-rejected.yaml", action: "cancel"},
			want:   want{err: "cannot cancel ClusterOps demo-shutdown: it has finished (Failed, BackendRejected)"},
		},
		"CancelCancelledAlready": {
			reason: "cancel refuses when it was asked for already.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: withSpec("cancel", nil), action: "cancel"},
			want:   want{err: "cannot cancel ClusterOps demo-rebalance: it was cancelled already"},
		},
		"NodeOpsApprove": {
			reason: "approve on a StorageNodeOps awaiting approval sets approved; its empty restart parameters are left alone.",
			args:   args{fixture: "storagenodeops-pending-queued.yaml", mutate: awaiting, action: "approve"},
			want:   want{patch: `{"spec":{"forProvider":{"approved":true}}}`},
		},
		"NodeOpsApproveQueued": {
			reason: "approve refuses on a queued StorageNodeOps.",
			args:   args{fixture: "storagenodeops-pending-queued.yaml", action: "approve"},
			want:   want{err: "cannot approve StorageNodeOps demo-node-1-restart: it does not await approval (it is Pending, Queued)"},
		},
		"NodeOpsCancelAwaitingConfirmation": {
			reason: "A node operation waiting for a decision about a lost answer can be cancelled.",
			args:   args{fixture: "storagenodeops-running-awaiting-confirmation.yaml", action: "cancel"},
			want:   want{patch: `{"spec":{"forProvider":{"cancel":true}}}`},
		},
		"NodeOpsCancelSucceeded": {
			reason: "cancel refuses on a finished StorageNodeOps.",
			args:   args{fixture: "storagenodeops-succeeded.yaml", action: "cancel"},
			want:   want{err: "cannot cancel StorageNodeOps demo-node-1-restart: it has finished (Succeeded, Completed)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := fixtureObject(t, tc.args.fixture, tc.args.mutate)
			live := u.DeepCopy().Object
			got, err := sb.RunAction(actionScript(t, u.GetKind(), tc.args.action), u.Object, map[string]string{})
			if tc.want.err != "" {
				if err == nil || err.Error() != tc.want.err {
					t.Fatalf("%s\nerror = %v, want %q", tc.reason, err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			if len(got) != 1 || got[0].Operation != sandbox.OperationPatch {
				t.Fatalf("%s\nthe action returned %d resources (%+v), want the object to patch", tc.reason, len(got), got)
			}
			patch, err := sandbox.MergePatch(live, got[0].Resource.Object)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.patch, string(patch)); diff != "" {
				t.Errorf("%s\nthe merge patch Argo CD sends: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// storageClusterActions are the actions discovery offers on a
// StorageCluster, all enabled or all disabled.
func storageClusterActions(disabled bool) map[string]sandbox.Action {
	params := []sandbox.ActionParam{{Name: "approval", Type: "string", Default: "Automatic"}}
	return map[string]sandbox.Action{
		"restart": {Name: "restart", DisplayName: "Restart the cluster (ClusterOps)", IconClass: "fa fa-fw fa-redo",
			Disabled: disabled, Params: params},
		"rolling-restart": {Name: "rolling-restart", DisplayName: "Restart the nodes one by one (ClusterOps)", IconClass: "fa fa-fw fa-sync-alt",
			Disabled: disabled, Params: params},
		"rebalance": {Name: "rebalance", DisplayName: "Rebalance the data (ClusterOps)", IconClass: "fa fa-fw fa-balance-scale",
			Disabled: disabled, Params: params},
	}
}

// operationActions are the actions discovery offers on an operation.
func operationActions(approveDisabled, cancelDisabled bool) map[string]sandbox.Action {
	return map[string]sandbox.Action{
		"approve": {Name: "approve", DisplayName: "Approve the plan", IconClass: "fa fa-fw fa-check", Disabled: approveDisabled},
		"cancel":  {Name: "cancel", DisplayName: "Cancel the operation", IconClass: "fa fa-fw fa-ban", Disabled: cancelDisabled},
	}
}

// TestDiscovery runs each kind's discovery.lua on the real fixtures and
// checks which actions it enables.
func TestDiscovery(t *testing.T) {
	awaiting := func(t *testing.T, u *unstructured.Unstructured) {
		awaitApproval(t, u, "awaiting approval: holds the lock")
	}
	type args struct {
		fixture string
		mutate  func(t *testing.T, u *unstructured.Unstructured)
	}
	cases := map[string]struct {
		reason string
		args   args
		want   map[string]sandbox.Action
	}{
		"StorageClusterReady": {
			reason: "A Ready cluster offers its three actions, each asking for approval (Automatic by default).",
			args:   args{fixture: "storagecluster-ready.yaml"},
			want:   storageClusterActions(false),
		},
		"StorageClusterDegraded": {
			reason: "A cluster that is not Ready offers them disabled.",
			args:   args{fixture: "storagecluster-unavailable-degraded.yaml"},
			want:   storageClusterActions(true),
		},
		"StorageClusterSuspended": {
			reason: "A shut-down cluster is not Ready: disabled (a Start is an operation to write, not an action here).",
			args:   args{fixture: "storagecluster-unavailable-suspended.yaml"},
			want:   storageClusterActions(true),
		},
		"StorageClusterDuringOperation": {
			reason: "A cluster unavailable during an operation is not Ready: disabled.",
			args:   args{fixture: "storagecluster-unavailable-during-operation.yaml"},
			want:   storageClusterActions(true),
		},
		"StorageClusterCreating": {
			reason: "A cluster being created is not Ready: disabled.",
			args:   args{fixture: "storagecluster-reconcile-error.yaml"},
			want:   storageClusterActions(true),
		},
		"StorageClusterBeingDeleted": {
			reason: "A Ready cluster being deleted offers them disabled.",
			args: args{fixture: "storagecluster-ready.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				must(t, unstructured.SetNestedField(u.Object, "2026-12-01T09:00:00Z", "metadata", "deletionTimestamp"))
			}},
			want: storageClusterActions(true),
		},
		"StorageClusterNoStatus": {
			reason: "A cluster without status offers them disabled.",
			args: args{fixture: "storagecluster-ready.yaml", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status")
			}},
			want: storageClusterActions(true),
		},
		"ClusterOpsQueued": {
			reason: "A queued operation can be cancelled, not approved.",
			args:   args{fixture: "clusterops-pending-queued.yaml"},
			want:   operationActions(true, false),
		},
		"ClusterOpsAwaitingApproval": {
			reason: "An operation awaiting approval can be approved or cancelled.",
			args:   args{fixture: "clusterops-pending-queued.yaml", mutate: awaiting},
			want:   operationActions(false, false),
		},
		"ClusterOpsAwaitingApprovalApproved": {
			reason: "Once approved (before the provider moved on), approve is disabled.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaiting(t, u)
				must(t, unstructured.SetNestedField(u.Object, true, "spec", "forProvider", "approved"))
			}},
			want: operationActions(true, false),
		},
		"ClusterOpsAwaitingApprovalCancelled": {
			reason: "Once cancelled (before the provider moved on), both are disabled.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(t *testing.T, u *unstructured.Unstructured) {
				awaiting(t, u)
				must(t, unstructured.SetNestedField(u.Object, true, "spec", "forProvider", "cancel"))
			}},
			want: operationActions(true, true),
		},
		"ClusterOpsWaitingForPrecondition": {
			reason: "An operation waiting for its precondition can be cancelled.",
			args:   args{fixture: "clusterops-pending-waiting-for-precondition.yaml"},
			want:   operationActions(true, false),
		},
		"ClusterOpsNotPickedUp": {
			reason: "An operation without status can be cancelled.",
			args: args{fixture: "clusterops-pending-queued.yaml", mutate: func(_ *testing.T, u *unstructured.Unstructured) {
				unstructured.RemoveNestedField(u.Object, "status")
			}},
			want: operationActions(true, false),
		},
		"ClusterOpsRunning": {
			reason: "A running operation can be cancelled.",
			args:   args{fixture: "clusterops-running-restart.yaml"},
			want:   operationActions(true, false),
		},
		"ClusterOpsSucceeded": {
			reason: "A finished operation offers neither.",
			args:   args{fixture: "clusterops-succeeded.yaml"},
			want:   operationActions(true, true),
		},
		"ClusterOpsFailedCancelled": {
			reason: "A cancelled operation offers neither.",
			args:   args{fixture: "clusterops-failed-cancelled.yaml"},
			want:   operationActions(true, true),
		},
		"StorageNodeOpsAwaitingApproval": {
			reason: "A node operation awaiting approval can be approved or cancelled.",
			args:   args{fixture: "storagenodeops-pending-queued.yaml", mutate: awaiting},
			want:   operationActions(false, false),
		},
		"StorageNodeOpsAwaitingConfirmation": {
			reason: "A node operation awaiting a confirmation (not an approval) can be cancelled only.",
			args:   args{fixture: "storagenodeops-running-awaiting-confirmation.yaml"},
			want:   operationActions(true, false),
		},
		"StorageNodeOpsFailed": {
			reason: "A failed node operation offers neither.",
			args:   args{fixture: "storagenodeops-failed-backend-rejected.yaml"},
			want:   operationActions(true, true),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := fixtureObject(t, tc.args.fixture, tc.args.mutate)
			got, err := sb.Discover(discoveryScript(t, u.GetKind()), u.Object)
			if err != nil {
				t.Fatalf("%s\ndiscovery of %s failed: %v", tc.reason, u.GetKind(), err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nactions: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestActionsRefuseExactlyWhenDisabled runs every action on every fixture
// of its kind, as is and in the states the mutations above make, with and
// without actionParams: an action runs when its discovery enables it and
// refuses when it disables it (Argo CD's server does not ask the
// discovery, so the CLI could run a disabled action).
func TestActionsRefuseExactlyWhenDisabled(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mutations := map[string]func(t *testing.T, u *unstructured.Unstructured){
		"AsIs":     nil,
		"NoStatus": func(_ *testing.T, u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, "status") },
		"AwaitingApproval": func(t *testing.T, u *unstructured.Unstructured) {
			if _, ok, _ := unstructured.NestedString(u.Object, "status", "atProvider", "phase"); ok {
				awaitApproval(t, u, "awaiting approval")
			}
		},
		"BeingDeleted": func(t *testing.T, u *unstructured.Unstructured) {
			must(t, unstructured.SetNestedField(u.Object, "2026-12-01T09:00:00Z", "metadata", "deletionTimestamp"))
		},
	}
	ran := map[string]bool{}
	for _, f := range files {
		for mname, mutate := range mutations {
			u := fixtureObject(t, filepath.Base(f), mutate)
			actions, ok := kindActions[u.GetKind()]
			if !ok {
				continue
			}
			offered, err := sb.Discover(discoveryScript(t, u.GetKind()), u.Object)
			if err != nil {
				t.Fatalf("discovery on %s (%s): %v", f, mname, err)
			}
			for _, a := range actions {
				for _, params := range []map[string]string{nil, {}} {
					_, err := sb.RunAction(actionScript(t, u.GetKind(), a), u.DeepCopy().Object, params)
					if disabled := offered[a].Disabled; (err != nil) != disabled {
						t.Errorf("%s on %s (%s, actionParams %v): disabled = %t, but the action returned error %v", a, f, mname, params, disabled, err)
					}
					ran[u.GetKind()+"/"+a+"/"+fmt.Sprint(err == nil)] = true
				}
			}
		}
	}
	for kind, actions := range kindActions {
		for _, a := range actions {
			for _, ok := range []bool{true, false} {
				if !ran[kind+"/"+a+"/"+fmt.Sprint(ok)] {
					t.Errorf("no fixture made %s %s succeed=%t: the check above proves nothing for it", kind, a, ok)
				}
			}
		}
	}
}

// TestActionsLayout checks the folders of the actions: each kind's
// discovery offers exactly the actions that have an action.lua, the
// actions of StorageCluster share everything after their two constants,
// and ClusterOps and StorageNodeOps have the same scripts.
func TestActionsLayout(t *testing.T) {
	kinds, err := filepath.Glob(filepath.Join(filepath.Dir(actionsPath("x")), "..", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var gotKinds []string
	for _, k := range kinds {
		gotKinds = append(gotKinds, filepath.Base(k))
	}
	var wantKinds []string
	for k := range kindActions {
		wantKinds = append(wantKinds, k)
	}
	sort.Strings(wantKinds)
	if diff := cmp.Diff(wantKinds, gotKinds); diff != "" {
		t.Errorf("kinds with actions under examples/argocd/actions/%s: -want, +got:\n%s", group, diff)
	}
	for kind, want := range kindActions {
		dirs, err := filepath.Glob(filepath.Join(actionsPath(kind), "*", "action.lua"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range dirs {
			got = append(got, filepath.Base(filepath.Dir(d)))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: actions with an action.lua: -want, +got:\n%s", kind, diff)
		}
		obj := map[string]any{"kind": kind, "metadata": map[string]any{"name": "x"}}
		offered, err := sb.Discover(discoveryScript(t, kind), obj)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for n := range offered {
			names = append(names, n)
		}
		sort.Strings(names)
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("%s: actions its discovery.lua offers: -want, +got:\n%s", kind, diff)
		}
	}

	const marker = "-- The rest is the same in every action of StorageCluster.\n"
	var first, firstName string
	for _, a := range kindActions["StorageCluster"] {
		_, rest, ok := strings.Cut(actionScript(t, "StorageCluster", a), marker)
		switch {
		case !ok:
			t.Errorf("StorageCluster %s/action.lua has no line %q", a, strings.TrimSpace(marker))
		case first == "":
			first, firstName = rest, a
		case rest != first:
			t.Errorf("StorageCluster %s/action.lua and %s/action.lua differ after %q", a, firstName, strings.TrimSpace(marker))
		}
	}

	for _, a := range append([]string{".."}, kindActions["ClusterOps"]...) {
		file := filepath.Join(a, "action.lua")
		if a == ".." {
			file = "discovery.lua"
		}
		c := readFile(t, filepath.Join(actionsPath("ClusterOps"), file))
		if n := readFile(t, filepath.Join(actionsPath("StorageNodeOps"), file)); n != c {
			t.Errorf("ClusterOps and StorageNodeOps have different %s: keep them the same", file)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
