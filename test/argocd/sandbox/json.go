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
	"encoding/json"
	"errors"

	lua "github.com/yuin/gopher-lua"
)

// The errors of gopher-json's encoder.
var (
	errNested      = errors.New("cannot encode recursively nested tables to JSON")
	errSparseArray = errors.New("cannot encode sparse array")
	errInvalidKeys = errors.New("cannot encode mixed or invalid key types")
)

// Encode returns the JSON encoding of v by the rules of gopher-json, the
// encoder Argo CD decodes a script's result with (the version Argo CD pins,
// v0.0.0-20201124131017-552bb3c4c3bf):
//
//   - an empty table is an empty array, [];
//   - a table whose first key is a number is an array: its keys must be
//     1, 2, 3, ... in order;
//   - a table whose first key is a string is an object: all its keys must
//     be strings;
//   - a table may appear only once in the whole value: the encoder never
//     forgets a table it has seen, so the same table twice, even side by
//     side, fails as if it were nested in itself;
//   - functions and other values that are not data fail.
func Encode(v lua.LValue) ([]byte, error) {
	return encode(v, map[*lua.LTable]bool{})
}

func encode(v lua.LValue, seen map[*lua.LTable]bool) ([]byte, error) {
	switch v := v.(type) {
	case lua.LBool:
		return json.Marshal(bool(v))
	case lua.LNumber:
		return json.Marshal(float64(v))
	case *lua.LNilType:
		return []byte("null"), nil
	case lua.LString:
		return json.Marshal(string(v))
	case *lua.LTable:
		if seen[v] {
			return nil, errNested
		}
		seen[v] = true
		key, value := v.Next(lua.LNil)
		switch key.Type() {
		case lua.LTNil:
			return []byte("[]"), nil
		case lua.LTNumber:
			var arr []json.RawMessage
			for want := lua.LNumber(1); key != lua.LNil; want++ {
				if key.Type() != lua.LTNumber {
					return nil, errInvalidKeys
				}
				if key != want {
					return nil, errSparseArray
				}
				b, err := encode(value, seen)
				if err != nil {
					return nil, err
				}
				arr = append(arr, b)
				key, value = v.Next(key)
			}
			return json.Marshal(arr)
		case lua.LTString:
			obj := map[string]json.RawMessage{}
			for key != lua.LNil {
				if key.Type() != lua.LTString {
					return nil, errInvalidKeys
				}
				b, err := encode(value, seen)
				if err != nil {
					return nil, err
				}
				obj[key.String()] = b
				key, value = v.Next(key)
			}
			return json.Marshal(obj)
		default:
			return nil, errInvalidKeys
		}
	default:
		return nil, errors.New("cannot encode " + v.Type().String() + " to JSON")
	}
}
