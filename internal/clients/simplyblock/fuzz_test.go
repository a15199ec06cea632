package simplyblock

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeError checks that any error body yields a bounded, valid UTF-8
// message and a non-empty error string, without panicking.
func FuzzDecodeError(f *testing.F) {
	seeds := []struct {
		status int
		body   string
	}{
		{404, `{"detail":"'StorageNode x not found'"}`},
		{404, `{"detail":"Not Found"}`},
		{409, `{"detail":"A cluster with the name 'x' already exists"}`},
		{422, `{"detail":[{"type":"value_error","loc":["body","distr_ndcs"],"msg":"Value error, Invalid erasure coding scheme selected","input":3,"ctx":{"error":{}}}]}`},
		{422, `{"detail":[{"loc":[],"msg":""},{"loc":["body",0,null],"type":"x"}]}`},
		{401, `{"detail":"Invalid token"}`},
		{400, `{"error":"Preconditions are not met","detail":"x"}`},
		{500, `Internal Server Error`},
		{500, `{"status":"An error occured while processing the request","detail":"boom"}`},
		{503, "FDB not ready"},
		{500, `{"detail":{"nested":[1,2,3]}}`},
		{500, `"'quoted'"`},
		{502, ""},
		{599, "\xff\xfe invalid utf8"},
		{500, `{"detail":"` + strings.Repeat("é", 2000) + `"}`},
		{500, `{`},
		{500, `{"detail":[{"loc":"notalist"}]}`},
	}
	for _, s := range seeds {
		f.Add(s.status, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		msg, _ := decodeError(status, body)
		if !utf8.ValidString(msg) {
			t.Fatalf("decodeError(%d, %q): message is not valid UTF-8: %q", status, body, msg)
		}
		if len(msg) > maxMessageBytes+len("…") {
			t.Fatalf("decodeError(%d, %q): message is %d bytes, want <= %d", status, body, len(msg), maxMessageBytes)
		}
		e := newHTTPError(http.MethodPost, "/api/v2/clusters/", status, http.Header{"Location": {"/x"}}, body)
		if e.Error() == "" || e.Kind == "" || e.Outcome == "" {
			t.Fatalf("newHTTPError(%d, %q): incomplete error %#v", status, body, e)
		}
	})
}

// FuzzDecodeResponse checks that decoding any success body into the DTOs
// returns an error or a value, never a panic.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"id":"x","name":null,"status":"active","capacity":{"date":1}}`,
		`[{"id":"x","status":"online","uptime":"PT1H","health_check":null}]`,
		`{"id":"t","function_params":{"a":[1,{"b":null}]},"max_retry":null}`,
		`"12345678-9abc-4def-8123-456789abcdef"`,
		`null`, ``, `[`, `{"capacity":null}`, `{"status":5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		targets := []any{&ClusterDTO{}, &[]ClusterDTO{}, &StorageNodeDTO{}, &[]StorageNodeDTO{}, &StoragePoolDTO{},
			&[]StoragePoolDTO{}, &TaskDTO{}, &[]TaskDTO{}, &[]ClusterLogEntry{}, new(string)}
		for _, out := range targets {
			_ = decodeJSON(body, out)
		}
	})
}
