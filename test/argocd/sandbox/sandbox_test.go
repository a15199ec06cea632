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

package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// eval runs script and encodes its result as Argo CD does.
func eval(t *testing.T, s Sandbox, script string) (string, error) {
	t.Helper()
	v, err := s.Eval(script, map[string]any{}, nil)
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	b, err := Encode(v)
	return string(b), err
}

func TestEncode(t *testing.T) {
	cases := map[string]struct {
		reason string
		script string
		want   string
		err    string
	}{
		"Scalars": {
			reason: "Booleans, numbers (as JSON numbers), strings and nil.",
			script: `return {b = true, n = 86400, f = 1.5, s = "x"}`,
			want:   `{"b":true,"f":1.5,"n":86400,"s":"x"}`,
		},
		"EmptyTableIsAList": {
			reason: "An empty table is an empty list: Lua cannot tell it from an empty object.",
			script: `return {a = {}}`,
			want:   `{"a":[]}`,
		},
		"List": {
			reason: "A table with keys 1..n is a list.",
			script: `return {{x = 1}, {x = 2}}`,
			want:   `[{"x":1},{"x":2}]`,
		},
		"SparseList": {
			reason: "A list with a hole cannot be encoded.",
			script: `local t = {}; t[1] = 1; t[3] = 3; return t`,
			err:    "cannot encode sparse array",
		},
		"MixedKeys": {
			reason: "A table of numeric and string keys cannot be encoded.",
			script: `return {1, a = 2}`,
			err:    "cannot encode mixed or invalid key types",
		},
		"SharedTable": {
			reason: "The same table twice fails, even side by side: gopher-json never forgets a table it has seen.",
			script: `local ref = {name = "x"}; return {a = ref, b = ref}`,
			err:    "cannot encode recursively nested tables to JSON",
		},
		"Function": {
			reason: "A function is not data.",
			script: `return {f = print}`,
			err:    "cannot encode function to JSON",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := eval(t, Sandbox{}, tc.script)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("%s\nerror = %v, want %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSafeOS(t *testing.T) {
	clock := time.Date(2026, 12, 1, 9, 8, 7, 0, time.UTC)
	local := clock.Add(-time.Hour).Local().Format("20060102-150405")
	cases := map[string]struct {
		reason string
		script string
		want   string
	}{
		"DateUTC": {
			reason: `os.date("!...") formats the clock's time in UTC.`,
			script: `local os = require("os"); return os.date("!%Y%m%d-%H%M%S")`,
			want:   "20261201-090807",
		},
		"DateLocal": {
			reason: "Without ! it is local time.",
			script: `local os = require("os"); return os.date("%Y%m%d-%H%M%S")`,
			want:   clock.Local().Format("20060102-150405"),
		},
		"DateOfAGivenTimeIgnoresUTC": {
			reason: `Argo CD's copy of os.date applies "!" to the current time only: a time given is formatted in local time.`,
			script: `local os = require("os"); return os.date("!%Y%m%d-%H%M%S", os.time() - 3600)`,
			want:   local,
		},
		"DateTable": {
			reason: `os.date("!*t") is a table of the fields.`,
			script: `local os = require("os"); local d = os.date("!*t"); return tostring(d.year) .. "-" .. tostring(d.month) .. "-" .. tostring(d.day) .. " " .. tostring(d.hour)`,
			want:   "2026-12-1 9",
		},
		"Time": {
			reason: "os.time() is the clock's Unix time.",
			script: `local os = require("os"); return tostring(os.time())`,
			want:   fmt.Sprint(clock.Unix()),
		},
		"TimeOfATable": {
			reason: "os.time(t) is gopher-lua's, as Argo CD's copy: the fields are local time.",
			script: `local os = require("os"); return tostring(os.time({year = 2026, month = 12, day = 1, hour = 9, min = 8, sec = 7}))`,
			want:   fmt.Sprint(time.Date(2026, 12, 1, 9, 8, 7, 0, time.Local).Unix()),
		},
	}
	s := Sandbox{Now: func() time.Time { return clock }}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := s.Eval(tc.script, map[string]any{}, nil)
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, v.String()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestRunAction(t *testing.T) {
	live := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cm", "annotations": map[string]any{}},
		"data":     map[string]any{"a": "1"},
	}
	cases := map[string]struct {
		reason string
		script string
		want   []string // operation and the resource as JSON, per impacted resource
		patch  string   // the merge patch of the first, a patch
		err    string
	}{
		"OldFormIsAPatch": {
			reason: "An action that returns the object asks for a patch; empty objects that came back as empty lists are objects again.",
			script: `obj.data.a = "2"; return obj`,
			want:   []string{`patch {"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm"}}`},
			patch:  `{"data":{"a":"2"}}`,
		},
		"RemovedField": {
			reason: "A field the action removes is null in the merge patch.",
			script: `obj.data.a = nil; obj.data.b = "x"; return obj`,
			want:   []string{`patch {"apiVersion":"v1","data":{"b":"x"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm"}}`},
			patch:  `{"data":{"a":null,"b":"x"}}`,
		},
		"NewForm": {
			reason: "The new form lists resources to create and the object to patch.",
			script: `obj.data.a = "3"
				return {{operation = "create", resource = {apiVersion = "v1", kind = "ConfigMap", metadata = {name = "new"}}},
				        {operation = "patch", resource = obj}}`,
			want: []string{`create {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`,
				`patch {"apiVersion":"v1","data":{"a":"3"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm"}}`},
			patch: `{"metadata":{"name":"new"}}`,
		},
		"UnsupportedOperation": {
			reason: "Only create and patch exist.",
			script: `return {{operation = "delete", resource = obj}}`,
			err:    `unsupported operation: "delete"`,
		},
		"ResourceWithoutKind": {
			reason: "A resource must have a kind.",
			script: `return {{operation = "create", resource = {metadata = {name = "x"}}}}`,
			err:    "Object 'Kind' is missing",
		},
		"NotATable": {
			reason: "An action must return a table.",
			script: `return "x"`,
			err:    "expect table output from Lua script, not string",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Sandbox{}.RunAction(tc.script, copyJSON(live), map[string]string{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s\nerror = %v, want one saying %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			var gotS []string
			for _, r := range got {
				b, err := r.Resource.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				gotS = append(gotS, r.Operation+" "+strings.TrimSpace(string(b)))
			}
			if diff := cmp.Diff(tc.want, gotS); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			p, err := MergePatch(live, got[0].Resource.Object)
			if err != nil {
				t.Fatal(err)
			}
			if tc.patch != "" && got[0].Operation == OperationPatch {
				if diff := cmp.Diff(tc.patch, string(p)); diff != "" {
					t.Errorf("%s\nmerge patch: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}

func copyJSON(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if mm, ok := v.(map[string]any); ok {
			v = copyJSON(mm)
		}
		out[k] = v
	}
	return out
}

func TestDiscover(t *testing.T) {
	cases := map[string]struct {
		reason string
		script string
		want   map[string]Action
		err    bool
	}{
		"EmptyTables": {
			reason: "An action with an empty table (or a list) is enabled and has no properties.",
			script: `return {a = {}, b = {true}}`,
			want:   map[string]Action{"a": {Name: "a"}, "b": {Name: "b"}},
		},
		"Properties": {
			reason: "disabled, iconClass, displayName and params are read.",
			script: `return {a = {disabled = true, iconClass = "fa", displayName = "A", params = {{name = "p", default = "d"}}}}`,
			want:   map[string]Action{"a": {Name: "a", Disabled: true, IconClass: "fa", DisplayName: "A", Params: []ActionParam{{Name: "p", Default: "d"}}}},
		},
		"NoActions": {
			reason: "An empty table offers no action.",
			script: `return {}`,
			want:   map[string]Action{},
		},
		"MisspeltProperty": {
			reason: "An unknown property is an error here (Argo CD would ignore it and leave the action enabled).",
			script: `return {a = {disable = true}}`,
			err:    true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Sandbox{}.Discover(tc.script, map[string]any{})
			if (err != nil) != tc.err {
				t.Fatalf("%s\nerror = %v, want error %t", tc.reason, err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); err == nil && diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestUses(t *testing.T) {
	script := `local os = require("os")
local function f(x) return tostring(x) .. g end
h = 1
local s = ("x"):upper()
return f(os.date("!%Y"))`
	got, err := Uses(script)
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{Reads: []string{"g", "require", "tostring"}, Writes: []string{"h"}, MethodCalls: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the globals and method calls of the main chunk and its functions: -want, +got:\n%s", diff)
	}
}

func TestGlobals(t *testing.T) {
	got, err := Sandbox{}.Globals()
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, g := range got {
		has[g] = true
	}
	for _, g := range []string{"ipairs", "pairs", "tostring", "error", "table", "require", "package"} {
		if !has[g] {
			t.Errorf("the global %s is missing", g)
		}
	}
	for _, g := range []string{"os", "string", "math", "io", "debug", "coroutine", "channel"} {
		if has[g] {
			t.Errorf("the global %s is there, but Argo CD does not define it", g)
		}
	}
}
