package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// parseUUID validates a path parameter the way pydantic does and returns the
// canonical (lower-case, hyphenated) form. The error text follows the Rust
// uuid crate that pydantic-core uses.
func parseUUID(s string) (string, string) {
	in := s
	if strings.HasPrefix(strings.ToLower(in), "urn:uuid:") {
		in = in[len("urn:uuid:"):]
	} else if strings.HasPrefix(in, "{") && strings.HasSuffix(in, "}") && len(in) == 38 {
		in = in[1 : len(in)-1]
	}
	for i, c := range in {
		if !isHex(c) && c != '-' {
			return "", fmt.Sprintf("invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `%c` at %d", c, i+1)
		}
	}
	if !strings.Contains(in, "-") {
		if len(in) != 32 {
			return "", fmt.Sprintf("invalid length: expected length 32 for simple format, found %d", len(in))
		}
		in = in[0:8] + "-" + in[8:12] + "-" + in[12:16] + "-" + in[16:20] + "-" + in[20:]
	}
	groups := strings.Split(in, "-")
	if len(groups) != 5 {
		return "", fmt.Sprintf("invalid group count: expected 5, found %d", len(groups))
	}
	want := []int{8, 4, 4, 4, 12}
	for i, g := range groups {
		if len(g) != want[i] {
			return "", fmt.Sprintf("invalid group length in group %d: expected %d, found %d", i, want[i], len(g))
		}
	}
	return strings.ToLower(in), ""
}

func isHex(c rune) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// errUUID is the 422 entry for a malformed UUID path parameter.
func errUUID(param, input, msg string) valErr {
	return valErr{Type: "uuid_parsing", Loc: []any{"path", param},
		Msg: "Input should be a valid UUID, " + msg, Input: input, Ctx: map[string]any{"error": msg}}
}

// queryBool parses an optional boolean query parameter the way pydantic
// does. It appends a 422 entry to errs when the value is not a boolean.
func queryBool(r *http.Request, name string, errs *[]valErr) bool {
	v, ok := r.URL.Query()[name]
	if !ok || len(v) == 0 {
		return false
	}
	switch strings.ToLower(v[len(v)-1]) {
	case "1", "true", "t", "yes", "y", "on":
		return true
	case "0", "false", "f", "no", "n", "off":
		return false
	}
	*errs = append(*errs, errBoolParsing(name, v[len(v)-1]))
	return false
}

// responseFormat reads the response-format query parameter (full,
// identifier or empty) with the endpoint's default.
func responseFormat(r *http.Request, def string, errs *[]valErr) string {
	v, ok := r.URL.Query()["response-format"]
	if !ok || len(v) == 0 {
		return def
	}
	switch f := v[len(v)-1]; f {
	case "full", "identifier", "empty":
		return f
	default:
		*errs = append(*errs, errLiteral([]any{"query", "response-format"}, "'full', 'identifier' or 'empty'", f))
		return def
	}
}

// decodeBody reads a JSON object body into dst, which the caller pre-fills
// with the defaults. It returns the raw object (to tell "omitted" from
// "zero") and the 422 entries for a missing body, invalid JSON, a non-object,
// missing required keys or a wrongly typed field.
func decodeBody(r *http.Request, dst any, required ...string) (map[string]json.RawMessage, []valErr) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return nil, []valErr{errMissingBody()}
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return nil, []valErr{{Type: "json_invalid", Loc: []any{"body", 0}, Msg: "JSON decode error",
			Input: map[string]any{}, Ctx: map[string]any{"error": "Expecting value"}}}
	}
	obj, ok := generic.(map[string]any)
	if !ok {
		return nil, []valErr{{Type: "model_attributes_type", Loc: []any{"body"},
			Msg: "Input should be a valid dictionary or object to extract fields from", Input: generic}}
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(data, &raw)
	var errs []valErr
	for _, k := range required {
		if _, ok := raw[k]; !ok {
			errs = append(errs, errMissingField("body", k, obj))
		}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			errs = append(errs, typeError(te, obj))
		} else {
			errs = append(errs, valErr{Type: "value_error", Loc: []any{"body"}, Msg: "Value error, " + err.Error(), Input: obj})
		}
	}
	return raw, errs
}

// typeError turns a json type mismatch into the pydantic entry for it.
func typeError(te *json.UnmarshalTypeError, obj map[string]any) valErr {
	field := te.Field
	if i := strings.LastIndex(field, "."); i >= 0 {
		field = field[i+1:]
	}
	input := obj[field]
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return valErr{Type: "int_type", Loc: []any{"body", field}, Msg: "Input should be a valid integer", Input: input}
	case reflect.Bool:
		return valErr{Type: "bool_type", Loc: []any{"body", field}, Msg: "Input should be a valid boolean", Input: input}
	case reflect.String:
		return valErr{Type: "string_type", Loc: []any{"body", field}, Msg: "Input should be a valid string", Input: input}
	case reflect.Slice:
		return valErr{Type: "list_type", Loc: []any{"body", field}, Msg: "Input should be a valid list", Input: input}
	default:
		return valErr{Type: "model_type", Loc: []any{"body", field}, Msg: "Input should be a valid dictionary", Input: input}
	}
}

// present reports whether key was sent with a non-null value.
func present(raw map[string]json.RawMessage, key string) bool {
	v, ok := raw[key]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

// rawObject decodes a raw body object for use as a 422 "input".
func rawObject(raw map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, v := range raw {
		var x any
		_ = json.Unmarshal(v, &x)
		out[k] = x
	}
	return out
}
