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
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	opsv1alpha1 "github.com/crossplane/crossplane/apis/v2/ops/v1alpha1"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const (
	// scheduleName names the test's CronOperation; its Operations' names
	// start with it.
	scheduleName = "e2e-scheduled-rebalance"
	// scheduledPrefix prefixes the names of the ClusterOps it creates.
	scheduledPrefix = "scheduled-rebalance"
	// holdLead is how long the hold is in force, at least, before the first
	// Operation.
	holdLead = 5 * time.Second
	// openingLayout formats an opening, in UTC, as the ClusterOps' names do.
	openingLayout = "20060102-1504"
)

// TestScheduledOperation runs the CronOperation of examples/scheduled on an
// every-minute schedule, creating a Rebalance ClusterOps of a StorageCluster
// in each opening of an always-open window ("* * * * *" for 1m), and checks
// that one opening gives exactly one ClusterOps and one backend call, however
// often its pipeline runs: the scheduled Operation and a second one created
// by hand in the same opening are both held, so that they apply the
// ClusterOps but cannot record that they did (Crossplane retries each),
// Crossplane core is killed while both run and started again, and both then
// complete. Everything is judged by what is recorded: the Operations'
// status and events, the ClusterOps and its managed fields, and the
// simulator's journal.
func TestScheduledOperation(t *testing.T) {
	needWorld(t)
	ctx := context.Background()
	began := time.Now()
	ns := newNamespace(t, "e2e-scheduled")
	release := holdCompletion(t, scheduleName)
	held := time.Now()
	clusterID := importCluster(t, ns, "scheduled")

	co := scheduledRebalance(t, ns, "scheduled")
	// The first Operation comes at the next minute: leave the hold time to
	// take effect.
	if next := time.Now().Truncate(time.Minute).Add(time.Minute); next.Sub(held) < holdLead {
		time.Sleep(time.Until(next) + time.Second)
	}
	if err := world.kube.Create(ctx, co); err != nil {
		t.Fatalf("cannot create CronOperation %s: %v", co.GetName(), err)
	}
	t.Cleanup(func() { _ = world.kube.Delete(context.Background(), co) })

	scheduled := waitScheduledOperation(t)
	opening := openingOf(t, scheduled)
	want := scheduledPrefix + "-" + opening.UTC().Format(openingLayout)
	t.Logf("Operation %s for the opening at %s (want ClusterOps %s)", scheduled.GetName(), opening.UTC(), want)
	// No Operation for the next opening: this test is about one.
	pause(t, co)
	byHand := &opsv1alpha1.Operation{
		ObjectMeta: metav1.ObjectMeta{Name: scheduleName + "-by-hand"},
		Spec:       co.Spec.OperationTemplate.Spec,
	}
	if err := world.kube.Create(ctx, byHand); err != nil {
		t.Fatalf("cannot create Operation %s: %v", byHand.GetName(), err)
	}
	t.Cleanup(func() { _ = world.kube.Delete(context.Background(), byHand) })
	operations := []string{scheduled.GetName(), byHand.GetName()}

	// Held, both apply the ClusterOps and fail to record it; Crossplane
	// runs each pipeline again.
	runs := map[string]int{}
	for _, name := range operations {
		waitFor(t, "Operation "+name+" to run its pipeline twice", func() (bool, string) {
			runs[name] = pipelineRuns(t, name)
			return runs[name] >= 2, fmt.Sprintf("%d runs", runs[name])
		})
		if c := operation(t, name).GetCondition(opsv1alpha1.TypeSucceeded); c.Status != corev1.ConditionUnknown ||
			c.Reason != opsv1alpha1.ReasonPipelineRunning {
			t.Fatalf("Operation %s is %s (%s) while held, want Unknown (%s): the hold did not take effect",
				name, c.Status, c.Reason, opsv1alpha1.ReasonPipelineRunning)
		}
	}
	if got := names(list(t, managedAPI, "ClusterOps", ns)); !slices.Equal(got, []string{want}) {
		t.Fatalf("while the Operations are held the ClusterOps are %v, want [%s]", got, want)
	}

	// Core dies while both Operations run, the hold ends, core starts again.
	world.xp.KillCore()
	release()
	if err := world.xp.StartCore(); err != nil {
		t.Fatal(err)
	}

	// The hold ended after core died: what completes them is a run of the
	// restarted core.
	ref := opsv1alpha1.AppliedResourceRef{APIVersion: managedAPI, Kind: "ClusterOps", Namespace: ptr.To(ns), Name: want}
	uids := map[string]types.UID{}
	for _, name := range operations {
		op := waitOperationComplete(t, name)
		uids[name] = op.GetUID()
		done := op.GetCondition(opsv1alpha1.TypeSucceeded).LastTransitionTime.Time
		if end := opening.Add(time.Minute); !done.Before(end) {
			t.Fatalf("Operation %s completed at %s, after its opening ended (%s): the machine was too slow for a one-minute window",
				name, done.UTC(), end.UTC())
		}
		if !slices.EqualFunc(op.Status.AppliedResourceRefs, []opsv1alpha1.AppliedResourceRef{ref},
			func(a, b opsv1alpha1.AppliedResourceRef) bool { return a.Equals(b) }) {
			t.Errorf("Operation %s applied %s, want only ClusterOps %s/%s", name, describeRefs(op.Status.AppliedResourceRefs), ns, want)
		}
		if out := stepOutput(t, op); out["name"] != want || out["windowOpen"] != true {
			t.Errorf("Operation %s's pipeline output is %v, want the ClusterOps %s in an open window", name, out, want)
		}
		before := runs[name]
		waitFor(t, "Operation "+name+" to run its pipeline after the restart", func() (bool, string) {
			runs[name] = pipelineRuns(t, name)
			return runs[name] > before, fmt.Sprintf("%d runs", runs[name])
		})
	}
	t.Logf("pipeline runs: %v", runs)

	// One ClusterOps, applied by both Operations, carrying the window.
	got := list(t, managedAPI, "ClusterOps", ns)
	if len(got) != 1 || got[0].GetName() != want {
		t.Fatalf("the ClusterOps are %v, want [%s]", names(got), want)
	}
	cops := &got[0]
	if w, _, _ := unstructured.NestedMap(cops.Object, "spec", "forProvider", "window"); w["schedule"] != "* * * * *" || w["duration"] != "1m" {
		t.Errorf("ClusterOps %s has window %v, want * * * * * for 1m", want, w)
	}
	managers := map[string]bool{}
	for _, mf := range cops.GetManagedFields() {
		managers[mf.Manager] = true
	}
	for name, uid := range uids {
		if m := "ops.crossplane.io/operation/" + string(uid); !managers[m] {
			t.Errorf("ClusterOps %s was not applied by Operation %s (no field manager %s)", want, name, m)
		}
	}
	waitClusterOpsSucceeded(t, ns, want)

	calls := changes(clusterID, began)
	if n := counts(calls, false)["POST rebalance"]; n != 1 {
		t.Errorf("the backend saw %d rebalance calls for the opening, want 1%s", n, describe(calls))
	}
}

// importCluster seeds an active three-node cluster in the simulator and
// imports it as the StorageCluster name (examples/quickstart/00-cluster.yaml
// with its external name set), returning its id once it is Ready.
func importCluster(t *testing.T, ns, name string) string {
	t.Helper()
	backend := ns + "-" + name
	id, _, _ := world.sim.Seed(simulator.SeedCluster{Name: backend, Nodes: 3, Status: sb.ClusterActive,
		NodeAddressPrefix: "10.6.0."})
	err := createFile(context.Background(), filepath.Join(world.root, "examples", "quickstart", "00-cluster.yaml"), ns,
		func(u *unstructured.Unstructured) {
			u.SetName(name)
			_ = unstructured.SetNestedField(u.Object, backend, "spec", "forProvider", "name")
			_ = unstructured.SetNestedMap(u.Object, providerConfigRef(), "spec", "providerConfigRef")
			meta.SetExternalName(u, id)
		})
	if err != nil {
		t.Fatal(err)
	}
	waitReady(t, managedAPI, "StorageCluster", ns, name)
	return id
}

// providerConfigRef names the namespace's ProviderConfig (see newNamespace).
func providerConfigRef() map[string]any {
	return map[string]any{"name": "default", "kind": "ProviderConfig"}
}

// scheduledRebalance is the CronOperation of examples/scheduled, renamed,
// every minute, with a window that is always open ("* * * * *" for 1m) and
// the Rebalance of examples/clusterops/rebalance.yaml on the StorageCluster
// cluster as its template.
func scheduledRebalance(t *testing.T, ns, cluster string) *opsv1alpha1.CronOperation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(world.root, "examples", "scheduled", "cronoperation.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	co := &opsv1alpha1.CronOperation{}
	if err := yaml.UnmarshalStrict(b, co); err != nil {
		t.Fatal(err)
	}
	co.SetName(scheduleName)
	co.Spec.Schedule = "* * * * *"

	rebalance, err := readObjects(filepath.Join(world.root, "examples", "clusterops", "rebalance.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(rebalance[0].Object, "spec")
	_ = unstructured.SetNestedField(spec, cluster, "forProvider", "clusterIdRef", "name")
	_ = unstructured.SetNestedMap(spec, providerConfigRef(), "providerConfigRef")

	step := &co.Spec.OperationTemplate.Spec.Pipeline[0]
	var in map[string]any
	if err := json.Unmarshal(step.Input.Raw, &in); err != nil {
		t.Fatal(err)
	}
	in["window"] = map[string]any{"schedule": "* * * * *", "duration": "1m"}
	in["template"] = map[string]any{
		"apiVersion": rebalance[0].GetAPIVersion(), "kind": rebalance[0].GetKind(),
		"metadata": map[string]any{"namespace": ns, "name": scheduledPrefix},
		"spec":     spec,
	}
	if step.Input.Raw, err = json.Marshal(in); err != nil {
		t.Fatal(err)
	}
	return co
}

// holdCompletion makes the API server refuse, for the Operations whose
// names start with prefix, the status update that records their completion
// (a ValidatingAdmissionPolicy), as if core died between applying an
// Operation's resources and recording it. Core then runs their pipelines
// again. The returned function (also a cleanup) ends the hold.
func holdCompletion(t *testing.T, prefix string) func() {
	t.Helper()
	ctx := context.Background()
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "-hold"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Update},
					Rule: admissionv1.Rule{APIGroups: []string{opsv1alpha1.Group}, APIVersions: []string{"*"},
						Resources: []string{"operations/status"}},
				},
			}}},
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "held-operations", Expression: fmt.Sprintf("object.metadata.name.startsWith(%q)", prefix),
			}},
			Validations: []admissionv1.Validation{{
				Expression: "!has(object.status) || !has(object.status.conditions) || " +
					"!object.status.conditions.exists(c, c.type == 'Succeeded' && c.status == 'True')",
				Message: "held by the e2e test: the Operation may not record its completion yet",
			}},
		},
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: prefix + "-hold"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: policy.GetName(), ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		},
	}
	for _, o := range []client.Object{policy, binding} {
		if err := world.kube.Create(ctx, o); err != nil {
			t.Fatalf("cannot create %T %s: %v", o, o.GetName(), err)
		}
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			for _, o := range []client.Object{binding, policy} {
				if err := client.IgnoreNotFound(world.kube.Delete(context.Background(), o)); err != nil {
					t.Errorf("cannot delete %T %s: %v", o, o.GetName(), err)
				}
			}
		})
	}
	t.Cleanup(release)
	return release
}

// waitScheduledOperation waits for the CronOperation's Operation and
// returns it; it must be the only one.
func waitScheduledOperation(t *testing.T) *opsv1alpha1.Operation {
	t.Helper()
	l := &opsv1alpha1.OperationList{}
	waitFor(t, "CronOperation "+scheduleName+" to create an Operation", func() (bool, string) {
		if err := world.kube.List(context.Background(), l, client.MatchingLabels{opsv1alpha1.LabelCronOperationName: scheduleName}); err != nil {
			return false, err.Error()
		}
		return len(l.Items) > 0, "none yet"
	})
	if len(l.Items) != 1 {
		t.Fatalf("CronOperation %s created %d Operations, want 1", scheduleName, len(l.Items))
	}
	return &l.Items[0]
}

// openingOf returns the time a CronOperation scheduled an Operation for,
// which Crossplane writes into its name (<cronoperation>-<unix seconds>).
func openingOf(t *testing.T, op *opsv1alpha1.Operation) time.Time {
	t.Helper()
	s, ok := strings.CutPrefix(op.GetName(), scheduleName+"-")
	sec, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil {
		t.Fatalf("cannot read the scheduled time from Operation %s", op.GetName())
	}
	return time.Unix(sec, 0)
}

// pause pauses the CronOperation: it schedules no further Operation.
func pause(t *testing.T, co *opsv1alpha1.CronOperation) {
	t.Helper()
	patch := []byte(`{"metadata":{"annotations":{"` + meta.AnnotationKeyReconciliationPaused + `":"true"}}}`)
	if err := world.kube.Patch(context.Background(), co, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatalf("cannot pause CronOperation %s: %v", co.GetName(), err)
	}
}

// operation reads an Operation.
func operation(t *testing.T, name string) *opsv1alpha1.Operation {
	t.Helper()
	op := &opsv1alpha1.Operation{}
	if err := world.kube.Get(context.Background(), client.ObjectKey{Name: name}, op); err != nil {
		t.Fatalf("cannot get Operation %s: %v", name, err)
	}
	return op
}

// waitOperationComplete waits for an Operation to complete; failing is
// fatal.
func waitOperationComplete(t *testing.T, name string) *opsv1alpha1.Operation {
	t.Helper()
	var op *opsv1alpha1.Operation
	waitFor(t, "Operation "+name+" Succeeded", func() (bool, string) {
		op = operation(t, name)
		c := op.GetCondition(opsv1alpha1.TypeSucceeded)
		if c.Status == corev1.ConditionFalse {
			t.Fatalf("Operation %s failed: %s: %s", name, c.Reason, c.Message)
		}
		return c.Status == corev1.ConditionTrue, fmt.Sprintf("Succeeded=%s %s %q, failures %d", c.Status, c.Reason, c.Message,
			op.Status.Failures)
	})
	return op
}

// pipelineRuns counts the runs of an Operation's pipeline that reached the
// function's result: Crossplane records each as an event, which the event
// recorder aggregates (count).
func pipelineRuns(t *testing.T, operation string) int {
	t.Helper()
	l := &corev1.EventList{}
	if err := world.kube.List(context.Background(), l, client.MatchingFields{
		"involvedObject.kind": opsv1alpha1.OperationKind, "involvedObject.name": operation,
	}); err != nil {
		t.Fatalf("cannot list the events of Operation %s: %v", operation, err)
	}
	n := 0
	for _, e := range l.Items {
		if e.Reason != "RunPipelineStep" || !strings.Contains(e.Message, " for the opening at ") {
			continue
		}
		n += max(int(e.Count), 1)
	}
	return n
}

// stepOutput is the output the Operation's one step recorded.
func stepOutput(t *testing.T, op *opsv1alpha1.Operation) map[string]any {
	t.Helper()
	if len(op.Status.Pipeline) != 1 || op.Status.Pipeline[0].Output == nil {
		t.Fatalf("Operation %s recorded the output of %d steps, want 1", op.GetName(), len(op.Status.Pipeline))
	}
	out := map[string]any{}
	if err := json.Unmarshal(op.Status.Pipeline[0].Output.Raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// describeRefs renders applied resource references.
func describeRefs(refs []opsv1alpha1.AppliedResourceRef) string {
	out := make([]string, 0, len(refs))
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s %s/%s", r.Kind, ptr.Deref(r.Namespace, ""), r.Name))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// waitClusterOpsSucceeded waits for a ClusterOps to succeed; failing is
// fatal.
func waitClusterOpsSucceeded(t *testing.T, ns, name string) {
	t.Helper()
	waitFor(t, "ClusterOps "+name+" Succeeded", func() (bool, string) {
		op := get(t, managedAPI, "ClusterOps", ns, name)
		if op == nil {
			return false, "gone"
		}
		phase := field(op, "status", "atProvider", "phase")
		if phase == "Failed" {
			t.Fatalf("ClusterOps %s failed: %s: %s", name, field(op, "status", "atProvider", "reason"),
				field(op, "status", "atProvider", "message"))
		}
		return phase == "Succeeded", fmt.Sprintf("%s %s %q", phase, field(op, "status", "atProvider", "reason"),
			field(op, "status", "atProvider", "message"))
	})
}
