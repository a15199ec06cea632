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
	"reflect"
)

// MergePatch returns the JSON merge patch (RFC 7386) that turns live into
// patched, as Argo CD computes the patch of an action that returned the
// object (jsonpatch.CreateMergePatch of both as JSON): fields that differ
// are set, fields patched lacks are null, lists are replaced whole. Argo
// CD sends it as a merge patch, the part under status to the status
// subresource; "{}" means there is nothing to send.
func MergePatch(live, patched map[string]any) ([]byte, error) {
	var l, p map[string]any
	if err := roundTrip(live, &l); err != nil {
		return nil, err
	}
	if err := roundTrip(patched, &p); err != nil {
		return nil, err
	}
	return json.Marshal(diff(l, p))
}

// roundTrip decodes v's JSON encoding into out, so that numbers compare as
// JSON numbers (an int64 and a float64 of the same value are equal).
func roundTrip(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func diff(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, bv := range b {
		av, ok := a[k]
		if !ok {
			out[k] = bv
			continue
		}
		am, aIsMap := av.(map[string]any)
		bm, bIsMap := bv.(map[string]any)
		switch {
		case aIsMap && bIsMap:
			if d := diff(am, bm); len(d) > 0 {
				out[k] = d
			}
		case !reflect.DeepEqual(av, bv):
			out[k] = bv
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out[k] = nil
		}
	}
	return out
}
