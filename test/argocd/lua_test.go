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

// Package argocd tests the Argo CD health checks shipped in
// examples/argocd/: each health.lua runs in gopher-lua, the interpreter
// Argo CD embeds, set up as Argo CD sets it up for a health check from
// argocd-cm, against objects taken from the integration tests.
package argocd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// A health is what a health check returns: Argo CD's health status and
// its message.
type health struct {
	Status  string
	Message string
}

// The health statuses Argo CD accepts from a Lua health check; any other
// becomes Unknown.
var validStatus = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true, "Missing": true, "Unknown": true,
}

const (
	// group is the API group of every kind the provider ships.
	group = "simplyblock.m.crossplane.io"
	// scriptTimeout is how long Argo CD lets a health check run.
	scriptTimeout = time.Second
)

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

// loadObject reads a YAML object the way Argo CD holds live objects: as
// unstructured content decoded from JSON, where integers are int64.
func loadObject(path string) (*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path) //nolint:gosec // test fixtures from the repository.
	if err != nil {
		return nil, err
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return u, nil
}

// runHealth runs a health check script against obj in a Lua VM set up as
// Argo CD sets one up for a health check configured in argocd-cm (where the
// standard libraries are off unless resource.customizations.useOpenLibs is
// set): only the package, base and table libraries and a restricted os
// library are open, the script gets one second, the object is the global
// obj, and the script's return value must be a table of status and message.
func runHealth(script string, obj map[string]any) (health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, openRestrictedOS},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return health{}, fmt.Errorf("cannot open Lua library %q: %w", lib.name, err)
		}
	}
	l.PreloadModule(lua.OsLibName, loadRestrictedOS)

	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return health{}, err
	}
	return healthOf(l.Get(-1))
}

// healthOf reads the table a health check returned, as strictly as Argo CD
// decodes it: status and message must be strings; an unknown status turns
// into Unknown with Argo CD's message.
func healthOf(v lua.LValue) (health, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return health{}, fmt.Errorf("the script returned %s, want a table", v.Type())
	}
	var h health
	var err error
	t.ForEach(func(k, v lua.LValue) {
		s, ok := v.(lua.LString)
		switch {
		case k.String() != "status" && k.String() != "message":
			err = fmt.Errorf("the script returned the unexpected field %q", k.String())
		case !ok:
			err = fmt.Errorf("the script returned a %s %s, want a string", v.Type(), k.String())
		case k.String() == "status":
			h.Status = string(s)
		default:
			h.Message = string(s)
		}
	})
	if err != nil {
		return health{}, err
	}
	if !validStatus[h.Status] {
		return health{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return h, nil
}

// toLua converts decoded JSON into Lua values as Argo CD does: objects and
// arrays become tables, numbers Lua numbers.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	case map[string]any:
		t := l.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	default:
		return lua.LNil
	}
}

// restrictedOS is the part of the os library Argo CD exposes to scripts
// (os.time and os.date there); the health checks use neither, so only
// os.time is provided here.
var restrictedOS = map[string]lua.LGFunction{
	"time": func(l *lua.LState) int {
		l.Push(lua.LNumber(time.Now().Unix()))
		return 1
	},
}

func openRestrictedOS(l *lua.LState) int {
	l.Push(l.RegisterModule(lua.OsLibName, restrictedOS))
	return 1
}

func loadRestrictedOS(l *lua.LState) int {
	l.Push(l.SetFuncs(l.NewTable(), restrictedOS))
	return 1
}

// TestVM checks that the VM offers what Argo CD offers a health check from
// argocd-cm, and no more.
func TestVM(t *testing.T) {
	obj := map[string]any{"status": map[string]any{"n": int64(2), "list": []any{"a", "b"}}}
	cases := map[string]struct {
		reason  string
		script  string
		want    health
		wantErr bool
	}{
		"BaseAndTable": {
			reason: "The base and table libraries are open; obj is a table of the object.",
			script: `return {status = "Healthy", message = table.concat(obj.status.list, ",") .. " " .. tostring(obj.status.n + 1)}`,
			want:   health{Status: "Healthy", Message: "a,b 3"},
		},
		"NoStringLibrary": {
			reason:  "The string library is closed.",
			script:  `return {status = "Healthy", message = string.upper("x")}`,
			wantErr: true,
		},
		"NoStringMethods": {
			reason:  "String methods need the string library.",
			script:  `local s = "x"; return {status = "Healthy", message = s:upper()}`,
			wantErr: true,
		},
		"RestrictedOS": {
			reason: "Only a safe part of the os library is open.",
			script: `return {status = "Healthy", message = tostring(os.exit)}`,
			want:   health{Status: "Healthy", Message: "nil"},
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
		"Endless": {
			reason:  "A script gets one second.",
			script:  `while true do end`,
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := runHealth(tc.script, obj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("%s\nerror = %v, want error: %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); err == nil && diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
