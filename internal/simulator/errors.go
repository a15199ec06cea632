package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// This file renders the backend's error bodies (backend-behaviour.md §2).
// FastAPI renders JSON compactly; so does encoding/json.

// valErr is one entry of a 422 detail list, in the pydantic v2 shape. It is
// not simplyblock.ValidationErrorDetail because that type drops a null
// "input" (omitempty), and the backend sends "input":null for a missing body.
type valErr struct {
	Type  string         `json:"type"`
	Loc   []any          `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// writeJSON writes v as compact JSON without HTML escaping.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	body := bytes.TrimRight(buf.Bytes(), "\n")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeDetail writes {"detail": msg}: 404s, 409s, 400s, 401s.
func writeDetail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"detail": msg})
}

// writeNotFoundQuoted writes the 404 produced from str(KeyError), which keeps
// the single quotes: {"detail":"'Cluster <id> not found'"}.
func writeNotFoundQuoted(w http.ResponseWriter, kind, id string) {
	writeDetail(w, http.StatusNotFound, fmt.Sprintf("'%s %s not found'", kind, id))
}

// writeNotFoundOtherCluster writes the 404 for an object that exists but
// belongs to another cluster; this message has no quotes.
func writeNotFoundOtherCluster(w http.ResponseWriter, kind, id string) {
	writeDetail(w, http.StatusNotFound, fmt.Sprintf("%s %s not found", kind, id))
}

// writeInternalError writes the plain-text 500 that Starlette produces for
// any unhandled exception. Most backend "refusals" end up here.
func writeInternalError(w http.ResponseWriter) {
	writePlain(w, http.StatusInternalServerError, "Internal Server Error")
}

// writePlain writes a text/plain body.
func writePlain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(text)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// writeValidation writes a 422 with a pydantic detail list.
func writeValidation(w http.ResponseWriter, errs []valErr) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": errs})
}

// writeRuntimeError writes the body of the backend's RuntimeError handler.
// The typo "occured" is the backend's.
func writeRuntimeError(w http.ResponseWriter, detail string) {
	writeJSON(w, http.StatusInternalServerError, map[string]any{
		"status": "An error occured while processing the request",
		"detail": detail,
	})
}

// writeFaultBody writes the backend's (or its proxy's) body shape for an
// injected failure status, unless the fault carries its own body.
func writeFaultBody(w http.ResponseWriter, status int, body, contentType string) {
	if body != "" {
		if contentType == "" {
			contentType = "application/json"
			if !json.Valid([]byte(body)) {
				contentType = "text/plain; charset=utf-8"
			}
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
		return
	}
	switch status {
	case http.StatusInternalServerError:
		writeInternalError(w)
	case http.StatusBadGateway:
		writePlain(w, status, "Bad Gateway")
	case http.StatusServiceUnavailable:
		writePlain(w, status, "Service Unavailable")
	case http.StatusGatewayTimeout:
		writePlain(w, status, "Gateway Timeout")
	case http.StatusUnauthorized:
		writeDetail(w, status, "Invalid token")
	case http.StatusNotFound:
		writeDetail(w, status, "Not Found")
	case http.StatusBadRequest:
		writeJSON(w, status, map[string]any{"error": "Preconditions are not met", "detail": "injected fault"})
	case http.StatusUnprocessableEntity:
		writeValidation(w, []valErr{{Type: "value_error", Loc: []any{"body"}, Msg: "Value error, injected fault", Input: nil, Ctx: map[string]any{"error": map[string]any{}}}})
	default:
		writeDetail(w, status, http.StatusText(status))
	}
}

// Helpers building individual 422 entries.

func errMissingBody() valErr {
	return valErr{Type: "missing", Loc: []any{"body"}, Msg: "Field required", Input: nil}
}

func errMissingField(loc string, name string, input any) valErr {
	return valErr{Type: "missing", Loc: []any{loc, name}, Msg: "Field required", Input: input}
}

func errGreaterEqual(name string, limit int64, input any) valErr {
	return valErr{Type: "greater_than_equal", Loc: []any{"body", name},
		Msg: fmt.Sprintf("Input should be greater than or equal to %d", limit), Input: input, Ctx: map[string]any{"ge": limit}}
}

func errLessEqual(name string, limit int64, input any) valErr {
	return valErr{Type: "less_than_equal", Loc: []any{"body", name},
		Msg: fmt.Sprintf("Input should be less than or equal to %d", limit), Input: input, Ctx: map[string]any{"le": limit}}
}

func errGreaterThan(name string, limit int64, input any) valErr {
	return valErr{Type: "greater_than", Loc: []any{"body", name},
		Msg: fmt.Sprintf("Input should be greater than %d", limit), Input: input, Ctx: map[string]any{"gt": limit}}
}

func errLiteral(loc []any, expected string, input any) valErr {
	return valErr{Type: "literal_error", Loc: loc, Msg: "Input should be " + expected, Input: input, Ctx: map[string]any{"expected": expected}}
}

func errValue(msg string, input any) valErr {
	return valErr{Type: "value_error", Loc: []any{"body"}, Msg: "Value error, " + msg, Input: input, Ctx: map[string]any{"error": map[string]any{}}}
}

func errBoolParsing(name, input string) valErr {
	return valErr{Type: "bool_parsing", Loc: []any{"query", name}, Msg: "Input should be a valid boolean, unable to interpret input", Input: input}
}
