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

package crash_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/controller/clusterops"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenodeops"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// The matrix's calls and policies come from the operation types' own
// tables (clusterops.Plan, storagenodeops.Plan), for the spec of each
// type's example: a policy changed there changes what the matrix expects.

// plan returns the steps ct's example runs on a cluster of ct.nodes nodes.
func (ct crashType) plan(t *testing.T) []ops.Step {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "examples", ct.dir(), ct.file)
	data, err := os.ReadFile(file) //nolint:gosec // an example of the repository.
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&obj); err != nil {
		t.Fatalf("cannot decode %s: %v", file, err)
	}
	spec, _ := obj["spec"].(map[string]any)
	forProvider, _ := spec["forProvider"].(map[string]any)
	targets := make([]string, 0, ct.nodes)
	for i := range ct.nodes {
		targets = append(targets, fmt.Sprintf("node-%d", i+1))
	}
	if ct.kindName() == "StorageNodeOps" {
		p := v1alpha1.StorageNodeOpsParameters{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(forProvider, &p); err != nil {
			t.Fatalf("cannot read %s: %v", file, err)
		}
		return storagenodeops.Plan(p, "cluster", targets[0])
	}
	p := v1alpha1.ClusterOpsParameters{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(forProvider, &p); err != nil {
		t.Fatalf("cannot read %s: %v", file, err)
	}
	return clusterops.Plan(p, "cluster", targets)
}

// callSteps returns the indexes of ct's steps that send a backend call.
func (ct crashType) callSteps(t *testing.T) []int64 {
	var out []int64
	for i, s := range ct.plan(t) {
		if s.Call != nil {
			out = append(out, int64(i))
		}
	}
	return out
}

// mayResend reports whether step of ct may send its call again when its
// answer was lost without evidence (re-sent, or confirmed by the user).
func (ct crashType) mayResend(t *testing.T, step int64) bool {
	return ct.plan(t)[step].OnLostAnswer != ops.LostAnswerFails
}

// TestCrashMatrixCoversEveryType: every operation type of both kinds is in
// the matrix, with at least one step that sends a call.
func TestCrashMatrixCoversEveryType(t *testing.T) {
	var want, got []string
	for _, typ := range clusterops.Types() {
		want = append(want, "ClusterOps/"+string(typ))
	}
	for _, typ := range storagenodeops.Types() {
		want = append(want, "StorageNodeOps/"+string(typ))
	}
	for _, ct := range append(slices.Clone(crashTypes), nodeCrashTypes...) {
		got = append(got, ct.kindName()+"/"+ct.name)
		if len(ct.callSteps(t)) == 0 {
			t.Errorf("%s/%s: its example's plan sends no call; the matrix would crash nowhere", ct.kindName(), ct.name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("crash matrix types = %v, want every type of the operation tables: %v", got, want)
	}
}
