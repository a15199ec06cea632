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
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Timeout is how long Argo CD lets a script run.
const Timeout = time.Second

// A Sandbox runs scripts in a Lua state set up as Argo CD sets one up. The
// zero value reads the real clock.
type Sandbox struct {
	// Now is the clock os.time and os.date read; time.Now when nil.
	Now func() time.Time
}

func (s Sandbox) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Eval runs script against obj, a live object as decoded from JSON, and
// returns the value the script returned. params are an action's
// parameters, the global actionParams: Argo CD 3.1 and later set it for
// every script (empty when there are none); nil leaves it unset, as
// earlier versions do. A script error is returned with Lua's message only,
// as Argo CD shows it.
func (s Sandbox) Eval(script string, obj map[string]any, params map[string]string) (lua.LValue, error) {
	l, err := s.newState()
	if err != nil {
		return nil, err
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	l.SetContext(ctx)
	if params != nil {
		t := l.CreateTable(0, len(params))
		for k, v := range params {
			t.RawSetString(k, lua.LString(v))
		}
		l.SetGlobal("actionParams", t)
	}
	l.SetGlobal("obj", ToLua(l, obj))
	if err := l.DoString(script); err != nil {
		var apiErr *lua.ApiError
		if errors.As(err, &apiErr) && apiErr.Object != nil {
			return nil, errors.New(apiErr.Object.String())
		}
		return nil, err
	}
	return l.Get(-1), nil
}

// Globals returns the names of the globals a script starts with, besides
// obj and actionParams.
func (s Sandbox) Globals() ([]string, error) {
	l, err := s.newState()
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var names []string
	l.G.Global.ForEach(func(k, _ lua.LValue) {
		names = append(names, k.String())
	})
	return names, nil
}

// newState returns a Lua state with the libraries Argo CD opens for a
// script from argocd-cm.
func (s Sandbox) newState() (*lua.LState, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.OsLibName, s.openSafeOS},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			l.Close()
			return nil, fmt.Errorf("cannot open Lua library %q: %w", lib.name, err)
		}
	}
	// require("os") loads the safe os library.
	l.PreloadModule(lua.OsLibName, s.loadSafeOS)
	return l, nil
}

// openSafeOS is Argo CD's OpenSafeOs: it registers the safe os functions
// under the name of the table library. That module is loaded already, so
// RegisterModule returns it unchanged: no global os, and no table.date.
func (s Sandbox) openSafeOS(l *lua.LState) int {
	l.Push(l.RegisterModule(lua.TabLibName, s.safeOS()))
	return 1
}

// loadSafeOS is Argo CD's SafeOsLoader, the module require("os") returns.
func (s Sandbox) loadSafeOS(l *lua.LState) int {
	l.Push(l.SetFuncs(l.NewTable(), s.safeOS()))
	return 1
}

// safeOS is Argo CD's safe os library: os.time and os.date, which Argo CD
// copied from gopher-lua. They are gopher-lua's own here, taken from its
// full os library, reading the sandbox's clock.
func (s Sandbox) safeOS() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"time": func(l *lua.LState) int {
			if l.GetTop() == 0 {
				l.Push(lua.LNumber(s.now().Unix()))
				return 1
			}
			return gopherOS.time(l)
		},
		"date": func(l *lua.LState) int {
			switch l.GetTop() {
			case 0:
				l.Push(lua.LString("%c"))
				l.Push(lua.LNumber(s.now().Unix()))
			case 1:
				// The current time: in UTC when the format starts with "!".
				l.Push(lua.LNumber(s.now().Unix()))
			default:
				// Argo CD's copy applies "!" to the current time only: a
				// time given is formatted in local time.
				if f := l.CheckString(1); strings.HasPrefix(f, "!") {
					l.Replace(1, lua.LString(strings.TrimLeft(f, "!")))
				}
			}
			return gopherOS.date(l)
		},
	}
}

// gopherOS holds os.time and os.date of gopher-lua's full os library.
var gopherOS = func() struct{ time, date lua.LGFunction } {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	l.Push(l.NewFunction(lua.OpenOs))
	l.Push(lua.LString(lua.OsLibName))
	l.Call(1, 1)
	lib := l.Get(-1).(*lua.LTable)
	fn := func(name string) lua.LGFunction {
		return lib.RawGetString(name).(*lua.LFunction).GFunction
	}
	return struct{ time, date lua.LGFunction }{time: fn("time"), date: fn("date")}
}()

// ToLua converts decoded JSON into Lua values as Argo CD does: objects and
// arrays become tables, numbers (int64 in a live object) Lua numbers.
func ToLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case int64:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(ToLua(l, e))
		}
		return t
	case map[string]any:
		t := l.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetH(lua.LString(k), ToLua(l, e))
		}
		return t
	default:
		return lua.LNil
	}
}
