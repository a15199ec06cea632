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

// Package argocd tests the Argo CD health checks and resource actions
// shipped in examples/argocd/: each script runs in gopher-lua, the
// interpreter Argo CD embeds, set up as Argo CD sets it up for a script
// from argocd-cm (package sandbox), against objects taken from the
// integration tests.
package argocd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/simplyblock/provider-simplyblock/test/argocd/sandbox"
)

// A health is what a health check returns: Argo CD's health status and
// its message.
type health = sandbox.Health

// group is the API group of every kind the provider ships.
const group = "simplyblock.m.crossplane.io"

// repoPath returns the path of a file in the repository; tests run in
// test/argocd.
func repoPath(elem ...string) string {
	return filepath.Join(append([]string{"..", ".."}, elem...)...)
}

// scriptPath returns the health check of kind, laid out as Argo CD's
// resource_customizations: <group>/<kind>/health.lua.
func scriptPath(kind string) string {
	return repoPath("examples", "argocd", "health", group, kind, "health.lua")
}

// actionsPath returns the actions folder of kind, laid out as Argo CD's
// resource_customizations: <group>/<kind>/actions/, which holds
// discovery.lua and <action>/action.lua.
func actionsPath(kind string) string {
	return repoPath("examples", "argocd", "actions", group, kind, "actions")
}

// loadObject reads a YAML object the way Argo CD holds live objects: as
// unstructured content decoded from JSON, where integers are int64.
func loadObject(path string) (*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path) //nolint:gosec // test fixtures from the repository.
	if err != nil {
		return nil, err
	}
	u, err := objectOf(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return u, nil
}

// objectOf decodes a YAML object as loadObject does.
func objectOf(b []byte) (*unstructured.Unstructured, error) {
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	return u, nil
}

// runHealth runs a health check script against obj as Argo CD runs a
// health check configured in argocd-cm.
func runHealth(script string, obj map[string]any) (health, error) {
	return sandbox.Sandbox{}.Health(script, obj)
}

// TestVM checks that the VM offers what Argo CD offers a script from
// argocd-cm (a health check, an action or its discovery), and no more.
func TestVM(t *testing.T) {
	obj := map[string]any{"status": map[string]any{"n": int64(2), "list": []any{"a", "b"}}}
	clock := time.Date(2026, 12, 1, 9, 8, 7, 0, time.UTC)
	type args struct {
		script string
		params map[string]string
	}
	type want struct {
		value string // what the script returned, as Lua's tostring shows it
		err   string // a part of the error's message
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"BaseAndTable": {
			reason: "The base and table libraries are open; obj is a table of the object.",
			args:   args{script: `return table.concat(obj.status.list, ",") .. " " .. tostring(obj.status.n + 1)`},
			want:   want{value: "a,b 3"},
		},
		"NoStringLibrary": {
			reason: "The string library is closed.",
			args:   args{script: `return string.upper("x")`},
			want:   want{err: "attempt to index a non-table object(nil) with key 'upper'"},
		},
		"NoStringMethods": {
			reason: "String methods need the string library: gopher-lua gives strings a metatable only when it opens it.",
			args:   args{script: `local s = "x"; return s:upper()`},
			want:   want{err: "attempt to index a non-table object(string) with key 'upper'"},
		},
		"NoFormatMethod": {
			reason: `("x"):format(...) is a string method too.`,
			args:   args{script: `return ("%d"):format(1)`},
			want:   want{err: "attempt to index a non-table object(string) with key 'format'"},
		},
		"StringOperatorsWork": {
			reason: "Concatenation, length and comparison of strings are operators of the language, not of the string library.",
			args:   args{script: `local s = "ab" .. 1; return tostring(#s) .. tostring(s < "ab2") .. tostring("ab" < s)`},
			want:   want{value: "3truetrue"},
		},
		"NoMathLibrary": {
			reason: "The math library is closed.",
			args:   args{script: `return math.floor(1.5)`},
			want:   want{err: "attempt to index a non-table object(nil) with key 'floor'"},
		},
		"NoGlobalOS": {
			reason: "Argo CD's safe os library registers itself under the table library's name, which is loaded already: there is no global os.",
			args:   args{script: `return tostring(os) .. " " .. tostring(table.date)`},
			want:   want{value: "nil nil"},
		},
		"RequireOS": {
			reason: `require("os") gives the safe os library: os.date and os.time read the clock, "!" is UTC.`,
			args:   args{script: `local os = require("os"); return os.date("!%Y%m%d-%H%M%S") .. " " .. tostring(os.time())`},
			want:   want{value: "20261201-090807 " + fmt.Sprint(clock.Unix())},
		},
		"SafeOSHasTimeAndDateOnly": {
			reason: "The safe os library has time and date, nothing else (no exit, getenv, execute).",
			args: args{script: `local os = require("os"); local names = {}
				for k in pairs(os) do table.insert(names, k) end
				table.sort(names); return table.concat(names, ",")`},
			want: want{value: "date,time"},
		},
		"NoLoadingOfOtherModules": {
			reason: "Only os is preloaded; require finds no other module.",
			args:   args{script: `return require("string")`},
			want:   want{err: "module string not found"},
		},
		"ActionParams": {
			reason: "Argo CD 3.1 and later pass an action's parameters as the table actionParams, values as strings.",
			args:   args{script: `return actionParams.approval`, params: map[string]string{"approval": "Required"}},
			want:   want{value: "Required"},
		},
		"NoActionParamsBefore31": {
			reason: "Earlier versions set no actionParams.",
			args:   args{script: `return tostring(actionParams)`},
			want:   want{value: "nil"},
		},
		"ErrorMessageOnly": {
			reason: "error(msg, 0) reaches Argo CD as msg.",
			args:   args{script: `error("cannot do it", 0)`},
			want:   want{err: "cannot do it"},
		},
		"Endless": {
			reason: "A script gets one second.",
			args:   args{script: `while true do end`},
			want:   want{err: "context deadline exceeded"},
		},
	}
	sb := sandbox.Sandbox{Now: func() time.Time { return clock }}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, err := sb.Eval(tc.args.script, obj, tc.args.params)
			if tc.want.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want.err) {
					t.Fatalf("%s\nerror = %v, want one saying %q", tc.reason, err, tc.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerror = %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.value, v.String()); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestHealthResult checks that a health check's result is read as Argo CD
// reads it.
func TestHealthResult(t *testing.T) {
	cases := map[string]struct {
		reason  string
		script  string
		want    health
		wantErr bool
	}{
		"StatusAndMessage": {
			reason: "A table of status and message.",
			script: `return {status = "Healthy", message = "fine"}`,
			want:   health{Status: "Healthy", Message: "fine"},
		},
		"InvalidStatus": {
			reason: "Argo CD turns a status it does not know into Unknown.",
			script: `return {status = "Fine"}`,
			want:   health{Status: "Unknown", Message: "Lua returned an invalid health status"},
		},
		"NotATable": {
			reason:  "A health check must return a table.",
			script:  `return "Healthy"`,
			wantErr: true,
		},
		"MessageNotAString": {
			reason:  "The message must be a string.",
			script:  `return {status = "Healthy", message = 1}`,
			wantErr: true,
		},
		"UnknownField": {
			reason:  "A misspelt field is an error here (Argo CD would ignore it).",
			script:  `return {status = "Healthy", mesage = "x"}`,
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := runHealth(tc.script, map[string]any{})
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nerror = %v, want error: %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); err == nil && diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// shippedScripts returns every Lua script under examples/argocd: health
// checks, action discoveries and actions.
func shippedScripts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range [][]string{
		{"health", "*", "*", "health.lua"},
		{"actions", "*", "*", "actions", "discovery.lua"},
		{"actions", "*", "*", "actions", "*", "action.lua"},
	} {
		files, err := filepath.Glob(repoPath(append([]string{"examples", "argocd"}, pattern...)...))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no scripts match %s", filepath.Join(pattern...))
		}
		out = append(out, files...)
	}
	return out
}

// TestScriptsUseOnlyWhatArgoCDOpens checks, on the compiled code and the
// text of every shipped script, that it uses nothing the sandbox lacks, so
// that a path the fixtures do not take cannot fail in Argo CD: no global
// but those Argo CD defines (and obj; actionParams in actions), no global
// assignment, no method call (on a string it needs the string library),
// no library Argo CD does not open (string, math, io, ...), os only from
// require("os") and only its time and date, and no loading of code.
func TestScriptsUseOnlyWhatArgoCDOpens(t *testing.T) {
	globals, err := sandbox.Sandbox{}.Globals()
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{"obj": true}
	for _, g := range globals {
		defined[g] = true
	}
	// Defined, but no script of ours needs them.
	for _, g := range []string{"require", "load", "loadstring", "loadfile", "dofile", "module", "setfenv", "getfenv",
		"setmetatable", "getmetatable", "rawset", "rawget", "rawequal", "collectgarbage", "newproxy", "print", "package", "_G"} {
		delete(defined, g)
	}
	forbidden := []*regexp.Regexp{
		regexp.MustCompile(`\b(string|math|io|debug|coroutine|utf8|channel)\s*\.`),
		regexp.MustCompile(`[\w\)\]"]\s*:\s*[A-Za-z_]\w*\s*\(`),
	}
	osUse := regexp.MustCompile(`\bos\s*\.\s*([A-Za-z_]\w*)`)
	requireOS := regexp.MustCompile(`(?m)^local os = require\("os"\)$`)
	anyRequire := regexp.MustCompile(`\brequire\s*\(`)

	for _, s := range shippedScripts(t) {
		b, err := os.ReadFile(s) //nolint:gosec // scripts from the repository.
		if err != nil {
			t.Fatal(err)
		}
		script := string(b)
		isAction := filepath.Base(s) == "action.lua"
		u, err := sandbox.Uses(script)
		if err != nil {
			t.Errorf("%s does not compile: %v", s, err)
			continue
		}
		for _, g := range u.Reads {
			if !defined[g] && !(isAction && g == "actionParams") && !(g == "require" && requireOS.MatchString(script)) {
				t.Errorf("%s reads the global %q, which Argo CD does not give scripts from argocd-cm (or they need not use)", s, g)
			}
		}
		if len(u.Writes) > 0 {
			t.Errorf("%s assigns the globals %v: use locals", s, u.Writes)
		}
		if u.MethodCalls > 0 {
			t.Errorf("%s makes %d method calls (v:name()): on a string that needs the string library, which Argo CD does not open", s, u.MethodCalls)
		}
		usesOS := false
		for i, line := range strings.Split(script, "\n") {
			code, _, _ := strings.Cut(line, "--")
			for _, re := range forbidden {
				if m := re.FindString(code); m != "" {
					t.Errorf("%s:%d uses %q, which Argo CD does not provide to scripts from argocd-cm", s, i+1, m)
				}
			}
			for _, m := range osUse.FindAllStringSubmatch(code, -1) {
				usesOS = true
				if m[1] != "time" && m[1] != "date" {
					t.Errorf("%s:%d uses os.%s: Argo CD's os has only time and date", s, i+1, m[1])
				}
			}
			if anyRequire.MatchString(code) && !requireOS.MatchString(code) {
				t.Errorf("%s:%d requires a module other than os, the only one Argo CD preloads", s, i+1)
			}
		}
		if usesOS && !requireOS.MatchString(script) {
			t.Errorf(`%s uses os without local os = require("os"): Argo CD has no global os`, s)
		}
	}
}
