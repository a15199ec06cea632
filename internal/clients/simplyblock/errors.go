package simplyblock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/pkg/errors"
)

// Kind classifies an Error.
type Kind string

// Error kinds.
const (
	// KindNotFound is a 404: the cluster, node, pool or task does not exist.
	KindNotFound Kind = "NotFound"
	// KindConflict is a 409, e.g. a cluster name already in use or a
	// non-empty cluster on delete.
	KindConflict Kind = "Conflict"
	// KindValidation is a 422; Error.Details holds the backend's list.
	KindValidation Kind = "Validation"
	// KindUnauthorized is a 401 or 403: the token is missing, unknown or
	// belongs to another cluster.
	KindUnauthorized Kind = "Unauthorized"
	// KindBadRequest is any other 3xx or 4xx answer, and a request the
	// client refused to build (e.g. an empty id).
	KindBadRequest Kind = "BadRequest"
	// KindServerError is a 5xx answer. Many of the backend's "expected"
	// refusals are plain-text 500s, so read Error.Message.
	KindServerError Kind = "ServerError"
	// KindTransport is a failure below HTTP: DNS, connection refused, TLS,
	// timeout, connection lost. Check Error.Outcome.
	KindTransport Kind = "Transport"
	// KindInvalidResponse is a success status whose body could not be
	// decoded. The call itself succeeded on the backend.
	KindInvalidResponse Kind = "InvalidResponse"
)

// Outcome says whether a failed call can have changed state on the backend.
type Outcome string

// Outcomes.
const (
	// OutcomeNotSent means the request definitely did not reach the backend
	// (connection refused, DNS, TLS handshake, dial timeout, request not
	// fully written). A server refusing the client certificate counts too,
	// even where TLS 1.3 lets the request be written before the refusal
	// arrives. Retrying is safe.
	OutcomeNotSent Outcome = "NotSent"
	// OutcomeUnknown means the request was sent but no definite answer came
	// back (timeout or connection loss after writing, or a 502/504 from a
	// proxy). The call may have taken effect.
	OutcomeUnknown Outcome = "Unknown"
	// OutcomeAnswered means the backend answered with a definite status.
	OutcomeAnswered Outcome = "Answered"
)

// Error messages used for errors the client produces itself.
const (
	errMsgNotSent        = "request not sent"
	errMsgMayHaveEffect  = "request sent, outcome unknown"
	errMsgTimeout        = "request timed out"
	errMsgReadBody       = "cannot read response body"
	errMsgDecodeBody     = "cannot decode response body"
	errMsgEncodeBody     = "cannot encode request body"
	errMsgEmptyID        = "empty id in request path"
	errMsgUnexpectedBody = "unexpected response body"
	// errMsgHandshakeRefused follows errMsgNotSent when the server refused
	// the TLS handshake, typically over the client certificate.
	errMsgHandshakeRefused = "the server refused the TLS handshake"
)

// maxMessageBytes bounds how much of a backend body ends up in a message.
const maxMessageBytes = 1024

// Error is the single error type returned by every Client method.
type Error struct {
	// Kind classifies the error.
	Kind Kind
	// Outcome says whether the call may have changed backend state.
	Outcome Outcome
	// StatusCode is the HTTP status, 0 when none was received.
	StatusCode int
	// Method and Path identify the call, e.g. POST /api/v2/clusters/.
	Method string
	Path   string
	// Message is the backend's message (its "detail", or the plain-text
	// body), or a description of the transport failure. It never holds the
	// API token.
	Message string
	// Details is the 422 detail list; nil for other kinds.
	Details []ValidationErrorDetail

	cause       error // underlying transport or decoding error
	gotResponse bool  // any response bytes were received
}

// Error renders e.g.
// "GET /api/v2/clusters/x/: not found (HTTP 404): Cluster x not found".
func (e *Error) Error() string {
	if e.StatusCode == 0 {
		return fmt.Sprintf("%s %s: %s", e.Method, e.Path, e.Message)
	}
	return fmt.Sprintf("%s %s: %s (HTTP %d): %s", e.Method, e.Path, e.Kind.describe(), e.StatusCode, e.Message)
}

// Unwrap returns the underlying transport or decoding error, if any.
func (e *Error) Unwrap() error { return e.cause }

func (k Kind) describe() string {
	switch k {
	case KindNotFound:
		return "not found"
	case KindConflict:
		return "conflict"
	case KindValidation:
		return "validation failed"
	case KindUnauthorized:
		return "unauthorized"
	case KindBadRequest:
		return "bad request"
	case KindServerError:
		return "server error"
	case KindTransport:
		return "transport error"
	case KindInvalidResponse:
		return "invalid response"
	}
	return string(k)
}

// asError finds the *Error in err's chain.
func asError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

func hasKind(err error, k Kind) bool {
	e, ok := asError(err)
	return ok && e.Kind == k
}

// IsNotFound reports whether err is a 404.
func IsNotFound(err error) bool { return hasKind(err, KindNotFound) }

// IsConflict reports whether err is a 409.
func IsConflict(err error) bool { return hasKind(err, KindConflict) }

// IsUnauthorized reports whether err is a 401 or 403.
func IsUnauthorized(err error) bool { return hasKind(err, KindUnauthorized) }

// IsValidation reports whether err is a 422.
func IsValidation(err error) bool { return hasKind(err, KindValidation) }

// IsServerError reports whether err is a 5xx answer.
func IsServerError(err error) bool { return hasKind(err, KindServerError) }

// IsTransport reports whether err is a failure below HTTP.
func IsTransport(err error) bool { return hasKind(err, KindTransport) }

// NotSent reports whether the request definitely did not reach the backend,
// so repeating a state-changing call is safe. False for nil and for errors
// this package did not produce.
func NotSent(err error) bool {
	e, ok := asError(err)
	return ok && e.Outcome == OutcomeNotSent
}

// MayHaveTakenEffect reports whether a failed call may nevertheless have
// changed backend state: its outcome is unknown, or the backend answered 2xx
// but the body could not be read. An error this package did not produce
// counts as "may have taken effect"; nil does not.
func MayHaveTakenEffect(err error) bool {
	if err == nil {
		return false
	}
	e, ok := asError(err)
	if !ok {
		return true
	}
	if e.Outcome == OutcomeUnknown {
		return true
	}
	return e.Outcome == OutcomeAnswered && e.StatusCode >= 200 && e.StatusCode < 300
}

// kindForStatus maps a non-success HTTP status to a Kind.
func kindForStatus(status int) Kind {
	switch {
	case status == http.StatusNotFound:
		return KindNotFound
	case status == http.StatusConflict:
		return KindConflict
	case status == http.StatusUnprocessableEntity:
		return KindValidation
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return KindUnauthorized
	case status >= 500:
		return KindServerError
	default:
		return KindBadRequest
	}
}

// outcomeForStatus: a 502 or 504 comes from a proxy that may have forwarded
// the request; every other status is the backend's definite answer.
func outcomeForStatus(status int) Outcome {
	if status == http.StatusBadGateway || status == http.StatusGatewayTimeout {
		return OutcomeUnknown
	}
	return OutcomeAnswered
}

// newHTTPError builds the Error for a non-success answer.
func newHTTPError(method, path string, status int, header http.Header, body []byte) *Error {
	msg, details := decodeError(status, body)
	if status >= 300 && status < 400 {
		if loc := header.Get("Location"); loc != "" {
			msg = fmt.Sprintf("redirected to %s (trailing slash?): %s", loc, msg)
		}
	}
	return &Error{
		Kind:        kindForStatus(status),
		Outcome:     outcomeForStatus(status),
		StatusCode:  status,
		Method:      method,
		Path:        path,
		Message:     msg,
		Details:     details,
		gotResponse: true,
	}
}

// errorEnvelope covers the backend's JSON error shapes:
// {"detail": "..."}, {"detail": [...]} (422),
// {"error": "...", "detail": "..."} (PreconditionError) and
// {"status": "...", "detail": "..."} (RuntimeError 500).
type errorEnvelope struct {
	Detail json.RawMessage `json:"detail"`
	Error  string          `json:"error"`
	Status string          `json:"status"`
}

// decodeError extracts a readable message (and the 422 details) from an
// error body. It accepts any bytes.
func decodeError(status int, body []byte) (string, []ValidationErrorDetail) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		if text := http.StatusText(status); text != "" {
			return text, nil
		}
		return fmt.Sprintf("HTTP %d", status), nil
	}
	if trimmed[0] == '{' {
		var env errorEnvelope
		if err := json.Unmarshal(trimmed, &env); err == nil {
			msg, details := decodeDetail(env.Detail)
			parts := make([]string, 0, 2)
			for _, p := range []string{env.Error, env.Status, msg} {
				if p = strings.TrimSpace(p); p != "" {
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				return truncate(strings.Join(parts, ": ")), details
			}
		}
	}
	if trimmed[0] == '"' {
		var s string
		if err := json.Unmarshal(trimmed, &s); err == nil {
			return truncate(stripQuotes(s)), nil
		}
	}
	return truncate(string(trimmed)), nil
}

// decodeDetail renders a "detail" value: a string (quirk-quoted or not), a
// 422 list, or anything else as compact JSON.
func decodeDetail(raw json.RawMessage) (string, []ValidationErrorDetail) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return stripQuotes(s), nil
	}
	var details []ValidationErrorDetail
	if err := json.Unmarshal(raw, &details); err == nil {
		return RenderValidationDetails(details), details
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err == nil {
		return buf.String(), nil
	}
	return string(raw), nil
}

// stripQuotes removes the single quotes the backend leaves around messages
// built from str(KeyError), e.g. "'StorageNode x not found'".
func stripQuotes(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1]
	}
	return s
}

// RenderValidationDetails renders a 422 detail list readably, e.g.
// "body.distr_ndcs: Value error, Invalid erasure coding scheme selected".
func RenderValidationDetails(details []ValidationErrorDetail) string {
	out := make([]string, 0, len(details))
	for _, d := range details {
		loc := make([]string, 0, len(d.Loc))
		for _, l := range d.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		msg := d.Msg
		if msg == "" {
			msg = d.Type
		}
		if len(loc) > 0 {
			msg = strings.Join(loc, ".") + ": " + msg
		}
		out = append(out, msg)
	}
	return strings.Join(out, "; ")
}

// truncate makes s valid UTF-8 and at most maxMessageBytes long.
func truncate(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxMessageBytes {
		return s
	}
	cut := maxMessageBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
