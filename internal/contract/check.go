package contract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/pkg/errors"
)

// Exchange is one HTTP request and its response, as seen by a client or a
// server.
type Exchange struct {
	Method         string
	Path           string // decoded URL path, e.g. /api/v2/clusters/<id>/
	Query          url.Values
	RequestHeader  http.Header
	RequestBody    []byte
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}

// inScope reports whether the exchange is validated at all: only paths
// below /api/v2/ are (a simulator's own control endpoints are not).
func (ex Exchange) inScope() bool { return strings.HasPrefix(ex.Path, apiPrefix) }

// requestOptions drive openapi3filter.ValidateRequest. The JSON Schema
// 2020-12 validator is switched on by openapi3filter itself for a 3.1
// document.
var requestOptions = &openapi3filter.Options{
	MultiError:                        true,
	RejectWhenRequestBodyNotSpecified: true,
	SkipSettingDefaults:               true,
	AuthenticationFunc:                bearerAuth,
	SchemaValidationOptions:           schemaOptions,
}

// responseOptions drive openapi3filter.ValidateResponse.
var responseOptions = &openapi3filter.Options{
	MultiError:              true,
	IncludeResponseStatus:   true,
	SchemaValidationOptions: schemaOptions,
}

// errMissingBearer is the failure of the HTTPBearer security scheme.
var errMissingBearer = errors.New("missing Authorization: Bearer header")

// bearerAuth implements the spec's only security scheme, HTTP bearer: the
// request must carry a non-empty bearer token.
func bearerAuth(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	sch := in.SecurityScheme
	if sch == nil || sch.Type != "http" || !strings.EqualFold(sch.Scheme, "bearer") {
		return errors.Errorf("unsupported security scheme %q", in.SecuritySchemeName)
	}
	token, ok := strings.CutPrefix(in.RequestValidationInput.Request.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return errMissingBearer
	}
	return nil
}

// CheckRequest returns one message per way the request breaks the spec.
// Beyond kin-openapi's checks it also rejects undeclared query parameters.
func (s *Spec) CheckRequest(ex Exchange) []string {
	if !ex.inScope() {
		return nil
	}
	route, params, pathKnown := s.findRoute(ex.Method, ex.Path)
	if route == nil {
		if pathKnown {
			return []string{fmt.Sprintf("method %s is not declared for %s", ex.Method, s.template(ex.Path))}
		}
		return []string{"no path in the spec matches " + ex.Path + s.slashHint(ex.Path)}
	}
	out := undeclaredQuery(route.Operation, ex.Query)
	in := &openapi3filter.RequestValidationInput{
		Request:    newRequest(ex.Method, ex.Path, ex.Query, ex.RequestHeader, ex.RequestBody),
		PathParams: params,
		Route:      route,
		Options:    requestOptions,
	}
	return append(out, messages(openapi3filter.ValidateRequest(context.Background(), in))...)
}

// CheckResponse returns one message per way the response breaks the spec,
// after the tolerated Deviations, or one of the ExtraChecks.
func (s *Spec) CheckResponse(ex Exchange) []string {
	if !ex.inScope() {
		return nil
	}
	if ex.Status == http.StatusTemporaryRedirect {
		return checkRedirect(ex)
	}
	route, _, pathKnown := s.findRoute(ex.Method, ex.Path)
	if route == nil {
		return s.checkUnroutedResponse(pathKnown, ex)
	}
	op := route.Operation
	if variants := s.creates[op]; variants != nil && ex.Status == http.StatusCreated {
		format := responseFormat(op, ex.Query)
		if op = variants[format]; op == nil {
			return []string{fmt.Sprintf("201 to an invalid response-format %q (%s)", format, DevCreateBodies)}
		}
	}
	if op.Responses.Status(ex.Status) != nil {
		return append(s.validateResponse(route, op, ex), extraChecks(route.Path, ex)...)
	}
	out := []string{fmt.Sprintf("status %d is neither declared for %s nor a documented deviation",
		ex.Status, operationKey(ex.Method, route.Path))}
	if ex.Status == http.StatusUnprocessableEntity {
		// Still say what is wrong with the body, as if it were declared.
		ref := s.doc.Components.Schemas["HTTPValidationError"]
		r := openapi3.NewResponse().WithDescription("Validation Error").WithJSONSchemaRef(ref)
		out = append(out, s.validateResponse(route, singleResponse(ex.Status, r), ex)...)
	}
	return out
}

// checkUnroutedResponse: a request outside the spec may only be refused the
// way FastAPI does (307 for a wrong slash, 404, 405), with a
// {"detail": string} body.
func (s *Spec) checkUnroutedResponse(pathKnown bool, ex Exchange) []string {
	if ex.Status == http.StatusNotFound || (pathKnown && ex.Status == http.StatusMethodNotAllowed) {
		r := openapi3.NewResponse().WithDescription(http.StatusText(ex.Status)).WithJSONSchema(detailSchema())
		return s.validateResponse(&routers.Route{Spec: s.doc, Method: ex.Method}, singleResponse(ex.Status, r), ex)
	}
	return []string{fmt.Sprintf("answered %d to %s %s, which is not in the spec", ex.Status, ex.Method, ex.Path)}
}

// checkRedirect: FastAPI answers a wrong trailing slash with 307 and a
// Location (DevUndeclaredErrors). kin-openapi does not validate redirects.
func checkRedirect(ex Exchange) []string {
	if ex.ResponseHeader.Get("Location") == "" {
		return []string{"307 without a Location header (" + DevUndeclaredErrors + ")"}
	}
	return nil
}

// validateResponse checks ex against the response op declares for its
// status, with openapi3filter.ValidateResponse. A response that declares no
// content must have no body, which kin-openapi does not check. Problems
// with a response added by a deviation patch name the deviation.
func (s *Spec) validateResponse(route *routers.Route, op *openapi3.Operation, ex Exchange) []string {
	r := *route
	r.Operation = op
	header := ex.ResponseHeader
	if header == nil {
		header = http.Header{}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: newRequest(ex.Method, ex.Path, ex.Query, ex.RequestHeader, nil),
			Route:   &r,
			Options: responseOptions,
		},
		Status:  ex.Status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(ex.ResponseBody)),
		Options: responseOptions,
	}
	out := messages(openapi3filter.ValidateResponse(context.Background(), in))
	declared := op.Responses.Status(ex.Status).Value
	if len(declared.Content) == 0 && len(bytes.TrimSpace(ex.ResponseBody)) > 0 {
		out = append(out, fmt.Sprintf("status %d declares no content, but the response has a %d-byte body", ex.Status, len(ex.ResponseBody)))
	}
	return tag(deviationOf(declared), out)
}

// responseFormat is the response-format a create was asked for, or the
// parameter's default.
func responseFormat(op *openapi3.Operation, query url.Values) string {
	if query.Has("response-format") {
		return query.Get("response-format")
	}
	p := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, "response-format")
	format, _ := p.Schema.Value.Default.(string)
	return format
}

// singleResponse is an operation whose only response is r for status.
func singleResponse(status int, r *openapi3.Response) *openapi3.Operation {
	return &openapi3.Operation{Responses: openapi3.NewResponses(openapi3.WithStatus(status, &openapi3.ResponseRef{Value: r}))}
}

// newRequest builds the request kin-openapi routes and validates. A
// whitespace-only body counts as none.
func newRequest(method, path string, query url.Values, header http.Header, body []byte) *http.Request {
	if len(bytes.TrimSpace(body)) == 0 {
		body = nil
	}
	req := &http.Request{
		Method:        method,
		URL:           &url.URL{Path: path, RawQuery: query.Encode()},
		Header:        header.Clone(),
		Host:          "contract.invalid",
		Body:          http.NoBody,
		ContentLength: int64(len(body)),
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req.WithContext(context.Background())
}
