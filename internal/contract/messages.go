package contract

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// messages flattens an error of openapi3filter.ValidateRequest or
// ValidateResponse into one short line per problem, e.g.
//
//	request body at /blk_size: value is not one of the allowed values [512,4096]
//
// kin-openapi's own Error() strings dump whole schemas, which makes test
// failures unreadable.
func messages(err error) []string {
	if err == nil {
		return nil
	}
	if errors.Is(err, errMissingBearer) {
		return []string{errMissingBearer.Error()}
	}
	switch e := err.(type) {
	case openapi3.MultiError:
		var out []string
		for _, sub := range e {
			out = append(out, messages(sub)...)
		}
		return out
	case *openapi3filter.SecurityRequirementsError:
		var out []string
		for _, sub := range e.Errors {
			out = append(out, messages(sub)...)
		}
		return out
	case *openapi3filter.RequestError:
		return requestMessages(e)
	case *openapi3filter.ResponseError:
		if strings.HasPrefix(e.Reason, "response body doesn't match schema") {
			return schemaMessages("response body", e.Err)
		}
		return []string{e.Error()}
	}
	return []string{err.Error()}
}

func requestMessages(e *openapi3filter.RequestError) []string {
	where := "request"
	switch {
	case e.Parameter != nil:
		where = e.Parameter.In + " parameter " + e.Parameter.Name
	case e.RequestBody != nil:
		where = "request body"
	}
	var schemaErr *openapi3.SchemaError
	var multi openapi3.MultiError
	switch {
	case errors.Is(e.Err, openapi3filter.ErrInvalidRequired) && e.Parameter != nil:
		return []string{fmt.Sprintf("required %s parameter %q is missing", e.Parameter.In, e.Parameter.Name)}
	case errors.Is(e.Err, openapi3filter.ErrInvalidRequired):
		return []string{"required request body is missing"}
	case e.Parameter == nil && e.RequestBody == nil:
		if e.Reason == "" && e.Err != nil && strings.Contains(e.Err.Error(), "request body not allowed") {
			return []string{"request body sent to an operation that declares none"}
		}
		return []string{e.Error()}
	case errors.As(e.Err, &schemaErr), errors.As(e.Err, &multi):
		return schemaMessages(where, e.Err)
	}
	msg := e.Reason
	if e.Err != nil {
		msg = strings.TrimPrefix(msg+": "+e.Err.Error(), ": ")
	}
	return []string{where + ": " + msg}
}

// schemaMessages renders the leaves of a schema validation error: one
// line per failing value, with its JSON pointer.
func schemaMessages(where string, err error) []string {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		var out []string
		for _, e := range multi {
			out = append(out, schemaMessages(where, e)...)
		}
		return out
	}
	var se *openapi3.SchemaError
	if !errors.As(err, &se) {
		return []string{where + ": " + err.Error()}
	}
	if se.Origin != nil {
		var sub *openapi3.SchemaError
		if errors.As(se.Origin, &multi) || errors.As(se.Origin, &sub) {
			return schemaMessages(where, se.Origin)
		}
	}
	at := where
	if ptr := se.JSONPointer(); len(ptr) > 0 {
		at += " at /" + strings.Join(ptr, "/")
	}
	return []string{at + ": " + cleanReason(se.Reason)}
}

// locationPrefix matches the location the JSON Schema 2020-12 validator
// puts in front of its reasons; the pointer is rendered separately.
var locationPrefix = regexp.MustCompile(`^(error at "[^"]*": |at '[^']*': )+`)

func cleanReason(reason string) string {
	reason, _, _ = strings.Cut(reason, "\n")
	return locationPrefix.ReplaceAllString(reason, "")
}
