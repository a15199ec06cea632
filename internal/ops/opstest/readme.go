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

package opstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// READMETypeRows returns the rows of the first Markdown table after the
// line heading in the repository's README.md, by the text of their first
// column; each row's cells are trimmed.
func READMETypeRows(t *testing.T, heading string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md")) //nolint:gosec // the repository's README.
	if err != nil {
		t.Fatal(err)
	}
	_, after, found := strings.Cut(string(data), "\n"+heading+"\n")
	if !found {
		t.Fatalf("README.md has no line %q", heading)
	}
	rows := map[string][]string{}
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "Type" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows[cells[0]] = cells
	}
	return rows
}

// LostAnswerWords are the words a README row uses for each lost-answer
// policy of a type's call steps.
var LostAnswerWords = map[ops.LostAnswerPolicy]string{
	ops.LostAnswerFails:   "OutcomeUnknown",
	ops.LostAnswerResends: "re-sent",
	ops.LostAnswerAsks:    "confirmResend",
}

// CheckREADMERow checks that a README row's last column (what a lost
// answer leads to) names the policy of every call step of plan.
func CheckREADMERow(t *testing.T, typ string, row []string, plan []ops.Step) {
	t.Helper()
	lost := row[len(row)-1]
	for _, s := range plan {
		if s.Call == nil {
			continue
		}
		if w := LostAnswerWords[s.OnLostAnswer]; !strings.Contains(lost, w) {
			t.Errorf("README: the %s row's lost-answer column %q does not say %q (step %q)", typ, lost, w, s.Name)
		}
	}
}

// CRDTypeEnum returns the sorted enum of spec.forProvider.type in the CRD
// file of package/crds.
func CRDTypeEnum(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "package", "crds", file)) //nolint:gosec // a CRD of the repository.
	if err != nil {
		t.Fatal(err)
	}
	crd := &extv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatalf("cannot read %s: %v", file, err)
	}
	var out []string
	for _, v := range crd.Spec.Versions {
		typ := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["forProvider"].Properties["type"]
		for _, e := range typ.Enum {
			var s string
			if err := json.Unmarshal(e.Raw, &s); err != nil {
				t.Fatalf("%s: enum value %s: %v", file, e.Raw, err)
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}
