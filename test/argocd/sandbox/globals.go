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
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// A Usage is what a script's compiled code uses from outside itself, in
// the main chunk and every function it defines, whether or not a test
// takes the path that uses it.
type Usage struct {
	// Reads and Writes are the global names it reads and assigns.
	Reads, Writes []string
	// MethodCalls counts the method calls (v:name(...)): on a string one
	// needs the string library, which Argo CD does not open.
	MethodCalls int
}

// The fields of a gopher-lua instruction (Lua 5.1's layout): the opcode
// in the top 6 bits, Bx in the low 18.
const (
	opcodeShift = 26
	bxMask      = 1<<18 - 1
)

// Uses compiles script with gopher-lua and reads the globals and method
// calls off its instructions: OP_GETGLOBAL and OP_SETGLOBAL name a global
// by a constant, OP_SELF is a method call.
func Uses(script string) (Usage, error) {
	chunk, err := parse.Parse(strings.NewReader(script), "<script>")
	if err != nil {
		return Usage{}, err
	}
	proto, err := lua.Compile(chunk, "<script>")
	if err != nil {
		return Usage{}, err
	}
	reads, writes := map[string]bool{}, map[string]bool{}
	u := Usage{}
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, inst := range p.Code {
			switch int(inst >> opcodeShift) {
			case lua.OP_GETGLOBAL:
				reads[p.Constants[inst&bxMask].String()] = true
			case lua.OP_SETGLOBAL:
				writes[p.Constants[inst&bxMask].String()] = true
			case lua.OP_SELF:
				u.MethodCalls++
			}
		}
		for _, f := range p.FunctionPrototypes {
			walk(f)
		}
	}
	walk(proto)
	u.Reads, u.Writes = sorted(reads), sorted(writes)
	return u, nil
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
