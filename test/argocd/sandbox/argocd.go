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
	"bytes"
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// A Health is what a health check returns: Argo CD's health status and its
// message.
type Health struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// The health statuses Argo CD accepts from a Lua health check.
var validStatus = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true, "Missing": true, "Unknown": true,
}

// Health runs a health check against obj and decodes the table it returned
// as Argo CD does, a status Argo CD does not know becoming Unknown. It is
// stricter than Argo CD in one way: a field other than status and message
// is an error (Argo CD ignores it).
func (s Sandbox) Health(script string, obj map[string]any) (Health, error) {
	v, err := s.Eval(script, obj, map[string]string{})
	if err != nil {
		return Health{}, err
	}
	if v.Type() != lua.LTTable {
		return Health{}, fmt.Errorf("expect table output from Lua script, not %s", v.Type())
	}
	b, err := Encode(v)
	if err != nil {
		return Health{}, err
	}
	h := Health{}
	if err := strictUnmarshal(b, &h); err != nil {
		return Health{}, err
	}
	if !validStatus[h.Status] {
		return Health{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return h, nil
}

// An Action is one entry of what an action discovery script returns, as
// Argo CD decodes it (its ResourceAction).
type Action struct {
	Name        string        `json:"name,omitempty"`
	Params      []ActionParam `json:"params,omitempty"`
	Disabled    bool          `json:"disabled,omitempty"`
	IconClass   string        `json:"iconClass,omitempty"`
	DisplayName string        `json:"displayName,omitempty"`
}

// An ActionParam is a parameter an action declares (Argo CD's
// ResourceActionParam): Argo CD 3.1 and later ask for it in the UI, with
// Default filled in.
type ActionParam struct {
	Name    string `json:"name,omitempty"`
	Value   string `json:"value,omitempty"`
	Type    string `json:"type,omitempty"`
	Default string `json:"default,omitempty"`
}

// Discover runs an action discovery script against obj and returns the
// actions it offers, by name, decoded as Argo CD decodes them: an action
// whose table is empty or a list is enabled and has no properties. It is
// stricter than Argo CD in one way: an unknown property of an action is an
// error (Argo CD ignores it, so a misspelt "disabled" would leave the
// action enabled).
func (s Sandbox) Discover(script string, obj map[string]any) (map[string]Action, error) {
	v, err := s.Eval(script, obj, map[string]string{})
	if err != nil {
		return nil, err
	}
	if v.Type() != lua.LTTable {
		return nil, fmt.Errorf("expect table output from Lua script, not %s", v.Type())
	}
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	out := map[string]Action{}
	if string(b) == "[]" {
		return out, nil
	}
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	for name, r := range raw {
		a := Action{Name: name}
		if bytes.HasPrefix(r, []byte("[")) {
			out[name] = a
			continue
		}
		if err := strictUnmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("action %s: %w", name, err)
		}
		out[name] = a
	}
	return out, nil
}

// The operations an action may ask Argo CD for.
const (
	OperationCreate = "create"
	OperationPatch  = "patch"
)

// An ImpactedResource is a resource an action returned and what Argo CD
// does with it: create it, or patch the live object with it.
type ImpactedResource struct {
	Operation string
	Resource  *unstructured.Unstructured
}

// RunAction runs an action script against obj with params (see Eval) and
// returns what Argo CD would do, as Argo CD decodes it: a list of
// {operation = "create" or "patch", resource = ...}, or the object itself
// (the old form), which is a patch. A patched object is cleaned as Argo CD
// cleans it: an empty table where the live object has an object (Lua
// cannot tell an empty object from an empty list) becomes that object
// again.
func (s Sandbox) RunAction(script string, obj map[string]any, params map[string]string) ([]ImpactedResource, error) {
	v, err := s.Eval(script, obj, params)
	if err != nil {
		return nil, err
	}
	if v.Type() != lua.LTTable {
		return nil, fmt.Errorf("expect table output from Lua script, not %s", v.Type())
	}
	b, err := Encode(v)
	if err != nil {
		return nil, err
	}
	var out []ImpactedResource
	if b[0] == '[' && b[len(b)-1] == ']' {
		var list []struct {
			Resource  *unstructured.Unstructured `json:"resource"`
			Operation string                     `json:"operation"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, err
		}
		for _, r := range list {
			if r.Operation != OperationCreate && r.Operation != OperationPatch {
				return nil, fmt.Errorf("unsupported operation: %q", r.Operation)
			}
			if r.Resource == nil {
				return nil, fmt.Errorf("a %s without a resource", r.Operation)
			}
			out = append(out, ImpactedResource{Operation: r.Operation, Resource: r.Resource})
		}
	} else {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(b); err != nil {
			return nil, err
		}
		out = append(out, ImpactedResource{Operation: OperationPatch, Resource: u})
	}
	for _, r := range out {
		if r.Operation == OperationPatch {
			r.Resource.Object = cleanReturned(r.Resource.Object, obj)
		}
	}
	return out, nil
}

// cleanReturned is Argo CD's cleanReturnedObj: where the live object has
// an object and the returned one an empty list, it keeps the live object's.
func cleanReturned(returned, live map[string]any) map[string]any {
	for k, lv := range live {
		rv, ok := returned[k]
		if !ok {
			continue
		}
		switch rv := rv.(type) {
		case map[string]any:
			if lm, ok := lv.(map[string]any); ok {
				returned[k] = cleanReturned(rv, lm)
			}
		case []any:
			switch lv := lv.(type) {
			case map[string]any:
				if len(rv) == 0 {
					returned[k] = runtime.DeepCopyJSONValue(lv)
				}
			case []any:
				returned[k] = cleanReturnedList(rv, lv)
			}
		}
	}
	return returned
}

func cleanReturnedList(returned, live []any) []any {
	for i := range returned {
		if i >= len(live) {
			break
		}
		switch rv := returned[i].(type) {
		case map[string]any:
			if lm, ok := live[i].(map[string]any); ok {
				returned[i] = cleanReturned(rv, lm)
			}
		case []any:
			if ll, ok := live[i].([]any); ok {
				returned[i] = cleanReturnedList(rv, ll)
			}
		}
	}
	return returned
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}
