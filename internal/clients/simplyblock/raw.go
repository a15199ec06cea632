package simplyblock

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/pkg/errors"
)

// RawResponse is an answer exactly as it was received.
type RawResponse struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// A RawGetter sends a GET and returns the answer as received, whatever its
// status. *Client implements it; the conformance check of a control plane
// (internal/conformance) uses it to see the backend's bytes, redirects and
// error bodies that the typed calls decode or turn into errors.
type RawGetter interface {
	GetRaw(ctx context.Context, path string, query url.Values, noAuth bool) (*RawResponse, error)
}

var _ RawGetter = &Client{}

// GetRaw sends one GET of path below /api/v2 (e.g. "/clusters/", sent
// exactly as given: the trailing slash is the caller's) and returns the
// answer, whatever its status. It changes nothing on the backend: it only
// ever sends a GET, never retries it and never follows a redirect. The
// token is sent unless noAuth. The error is an *Error of KindTransport
// (nothing was answered) or KindBadRequest (path not below /api/v2);
// neither holds the token.
func (c *Client) GetRaw(ctx context.Context, path string, query url.Values, noAuth bool) (*RawResponse, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, &Error{Kind: KindBadRequest, Outcome: OutcomeNotSent, Method: http.MethodGet, Path: apiPrefix + path,
			Message: "path must start with /", cause: errors.New("relative path")}
	}
	cl := call{method: http.MethodGet, path: path, query: query, noAuth: noAuth, once: true, anyStatus: true}
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	return &RawResponse{StatusCode: resp.status, Header: resp.header, Body: resp.body}, nil
}
