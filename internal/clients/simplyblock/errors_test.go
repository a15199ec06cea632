package simplyblock_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// errView is the part of an error the tests compare.
type errView struct {
	Kind               simplyblock.Kind
	Outcome            simplyblock.Outcome
	StatusCode         int
	Message            string
	Details            []simplyblock.ValidationErrorDetail
	NotSent            bool
	MayHaveTakenEffect bool
	Helpers            []string
}

func viewOf(err error) *errView {
	if err == nil {
		return nil
	}
	e := &simplyblock.Error{}
	if !errors.As(err, &e) {
		return &errView{Message: "not a *simplyblock.Error: " + err.Error()}
	}
	v := &errView{Kind: e.Kind, Outcome: e.Outcome, StatusCode: e.StatusCode, Message: e.Message, Details: e.Details,
		NotSent: simplyblock.NotSent(err), MayHaveTakenEffect: simplyblock.MayHaveTakenEffect(err)}
	for name, is := range map[string]func(error) bool{
		"IsNotFound": simplyblock.IsNotFound, "IsConflict": simplyblock.IsConflict, "IsUnauthorized": simplyblock.IsUnauthorized,
		"IsValidation": simplyblock.IsValidation, "IsServerError": simplyblock.IsServerError, "IsTransport": simplyblock.IsTransport,
	} {
		if is(err) {
			v.Helpers = append(v.Helpers, name)
		}
	}
	return v
}

func TestHTTPErrors(t *testing.T) {
	type want struct {
		err    *errView
		errStr string // substring of err.Error(), if set
	}
	cases := map[string]struct {
		reason string
		status int
		body   string
		header http.Header
		call   func(c *simplyblock.Client) error
		want   want
	}{
		"NotFoundQuoted": {
			reason: "A 404 built from str(KeyError) arrives single-quoted; the quotes are stripped.",
			status: http.StatusNotFound,
			body:   `{"detail":"'StorageNode ` + nodeID + ` not found'"}`,
			call: func(c *simplyblock.Client) error {
				_, err := c.GetStorageNode(context.Background(), clusterID, nodeID)
				return err
			},
			want: want{
				err: &errView{Kind: simplyblock.KindNotFound, Outcome: simplyblock.OutcomeAnswered, StatusCode: 404,
					Message: "StorageNode " + nodeID + " not found", Helpers: []string{"IsNotFound"}},
				errStr: "GET /api/v2/clusters/" + clusterID + "/storage-nodes/" + nodeID + "/: not found (HTTP 404): StorageNode " + nodeID + " not found",
			},
		},
		"NotFoundUnquoted": {
			reason: "A node of another cluster answers 404 without quotes.",
			status: http.StatusNotFound,
			body:   `{"detail":"Pool ` + poolID + ` not found"}`,
			call: func(c *simplyblock.Client) error {
				_, err := c.GetStoragePool(context.Background(), clusterID, poolID)
				return err
			},
			want: want{err: &errView{Kind: simplyblock.KindNotFound, Outcome: simplyblock.OutcomeAnswered, StatusCode: 404,
				Message: "Pool " + poolID + " not found", Helpers: []string{"IsNotFound"}}},
		},
		"Conflict": {
			reason: "A 409 is a Conflict; inner quotes are kept.",
			status: http.StatusConflict,
			body:   `{"detail":"A cluster with the name 'x' already exists"}`,
			call: func(c *simplyblock.Client) error {
				_, err := c.CreateCluster(context.Background(), simplyblock.DefaultClusterParams())
				return err
			},
			want: want{err: &errView{Kind: simplyblock.KindConflict, Outcome: simplyblock.OutcomeAnswered, StatusCode: 409,
				Message: "A cluster with the name 'x' already exists", Helpers: []string{"IsConflict"}}},
		},
		"Validation": {
			reason: "A 422 carries the detail list and renders it readably.",
			status: http.StatusUnprocessableEntity,
			body:   `{"detail":[{"type":"value_error","loc":["body","distr_ndcs"],"msg":"Value error, Invalid erasure coding scheme selected","input":3}]}`,
			call: func(c *simplyblock.Client) error {
				_, err := c.CreateCluster(context.Background(), simplyblock.DefaultClusterParams())
				return err
			},
			want: want{
				err: &errView{Kind: simplyblock.KindValidation, Outcome: simplyblock.OutcomeAnswered, StatusCode: 422,
					Message: "body.distr_ndcs: Value error, Invalid erasure coding scheme selected",
					Details: []simplyblock.ValidationErrorDetail{{Type: "value_error", Loc: []any{"body", "distr_ndcs"},
						Msg: "Value error, Invalid erasure coding scheme selected", Input: float64(3)}},
					Helpers: []string{"IsValidation"}},
				errStr: "validation failed (HTTP 422): body.distr_ndcs: Value error",
			},
		},
		"ValidationSeveral": {
			reason: "Several 422 entries are joined with '; '.",
			status: http.StatusUnprocessableEntity,
			body:   `{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null},{"type":"uuid_parsing","loc":["path","cluster_id"],"msg":"Input should be a valid UUID"}]}`,
			call:   func(c *simplyblock.Client) error { return c.ActivateCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindValidation, Outcome: simplyblock.OutcomeAnswered, StatusCode: 422,
				Message: "body: Field required; path.cluster_id: Input should be a valid UUID",
				Details: []simplyblock.ValidationErrorDetail{{Type: "missing", Loc: []any{"body"}, Msg: "Field required"},
					{Type: "uuid_parsing", Loc: []any{"path", "cluster_id"}, Msg: "Input should be a valid UUID"}},
				Helpers: []string{"IsValidation"}}},
		},
		"UnauthorizedInvalidToken": {
			reason: "401 Invalid token is Unauthorized.",
			status: http.StatusUnauthorized,
			body:   `{"detail":"Invalid token"}`,
			call:   func(c *simplyblock.Client) error { _, err := c.ListClusters(context.Background()); return err },
			want: want{err: &errView{Kind: simplyblock.KindUnauthorized, Outcome: simplyblock.OutcomeAnswered, StatusCode: 401,
				Message: "Invalid token", Helpers: []string{"IsUnauthorized"}}},
		},
		"ForbiddenOldFastAPI": {
			reason: "FastAPI before 0.122 answers 403 for a missing header; also Unauthorized.",
			status: http.StatusForbidden,
			body:   `{"detail":"Not authenticated"}`,
			call:   func(c *simplyblock.Client) error { return c.DeleteCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindUnauthorized, Outcome: simplyblock.OutcomeAnswered, StatusCode: 403,
				Message: "Not authenticated", Helpers: []string{"IsUnauthorized"}}},
		},
		"BadRequest": {
			reason: "400 Pool is inactive is a BadRequest.",
			status: http.StatusBadRequest,
			body:   `{"detail":"Pool is inactive"}`,
			call:   func(c *simplyblock.Client) error { return c.DeleteStoragePool(context.Background(), clusterID, poolID) },
			want: want{err: &errView{Kind: simplyblock.KindBadRequest, Outcome: simplyblock.OutcomeAnswered, StatusCode: 400,
				Message: "Pool is inactive"}},
		},
		"PreconditionError": {
			reason: "The PreconditionError shape joins error and detail.",
			status: http.StatusBadRequest,
			body:   `{"error":"Preconditions are not met","detail":"no backup target"}`,
			call:   func(c *simplyblock.Client) error { return c.RebalanceCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindBadRequest, Outcome: simplyblock.OutcomeAnswered, StatusCode: 400,
				Message: "Preconditions are not met: no backup target"}},
		},
		"Redirect": {
			reason: "A 307 (wrong trailing slash) is not followed; it is a BadRequest naming the Location.",
			status: http.StatusTemporaryRedirect,
			header: http.Header{"Location": {"/api/v2/clusters/" + clusterID + "/activate"}},
			call:   func(c *simplyblock.Client) error { return c.ActivateCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindBadRequest, Outcome: simplyblock.OutcomeAnswered, StatusCode: 307,
				Message: "redirected to /api/v2/clusters/" + clusterID + "/activate (trailing slash?): Temporary Redirect"}},
		},
		"PlainText500": {
			reason: "Many refusals are plain-text 500s; the text is the message.",
			status: http.StatusInternalServerError,
			header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
			body:   "Internal Server Error",
			call: func(c *simplyblock.Client) error {
				return c.SuspendStorageNode(context.Background(), clusterID, nodeID, false)
			},
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
				Message: "Internal Server Error", Helpers: []string{"IsServerError"}}},
		},
		"RuntimeError500": {
			reason: "The RuntimeError shape {status, detail} is rendered with both parts.",
			status: http.StatusInternalServerError,
			body:   `{"status":"An error occured while processing the request","detail":"rpc failed"}`,
			call:   func(c *simplyblock.Client) error { return c.ResumeStorageNode(context.Background(), clusterID, nodeID) },
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
				Message: "An error occured while processing the request: rpc failed", Helpers: []string{"IsServerError"}}},
		},
		"BadGateway": {
			reason: "A 502 comes from a proxy that may have forwarded the call: it may have taken effect.",
			status: http.StatusBadGateway,
			body:   "<html>bad gateway</html>",
			call:   func(c *simplyblock.Client) error { return c.StartCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeUnknown, StatusCode: 502,
				Message: "<html>bad gateway</html>", MayHaveTakenEffect: true, Helpers: []string{"IsServerError"}}},
		},
		"GatewayTimeout": {
			reason: "A 504 may have taken effect.",
			status: http.StatusGatewayTimeout,
			call: func(c *simplyblock.Client) error {
				return c.UpdateCluster(context.Background(), clusterID, simplyblock.UpdateParams{})
			},
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeUnknown, StatusCode: 504,
				Message: "Gateway Timeout", MayHaveTakenEffect: true, Helpers: []string{"IsServerError"}}},
		},
		"NotReady": {
			reason: "Ready answers 503 text 'FDB not ready'.",
			status: http.StatusServiceUnavailable,
			body:   "FDB not ready",
			call:   func(c *simplyblock.Client) error { return c.Ready(context.Background()) },
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 503,
				Message: "FDB not ready", Helpers: []string{"IsServerError"}}},
		},
		"InvalidSuccessBody": {
			reason: "A 201 whose body cannot be decoded took effect anyway.",
			status: http.StatusCreated,
			body:   "{not json",
			call: func(c *simplyblock.Client) error {
				_, err := c.CreateStoragePool(context.Background(), clusterID, simplyblock.StoragePoolParams{Name: "p"})
				return err
			},
			want: want{err: &errView{Kind: simplyblock.KindInvalidResponse, Outcome: simplyblock.OutcomeAnswered, StatusCode: 201,
				Message: "cannot decode response body: invalid JSON: invalid character 'n' looking for beginning of object key string", MayHaveTakenEffect: true}},
		},
		"TokenEchoed": {
			reason: "A backend message echoing the token is redacted.",
			status: http.StatusInternalServerError,
			body:   `{"detail":"bad token ` + testToken + `"}`,
			call:   func(c *simplyblock.Client) error { return c.ExpandCluster(context.Background(), clusterID) },
			want: want{err: &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
				Message: "bad token [REDACTED]", Helpers: []string{"IsServerError"}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newClient(t, &recorder{status: tc.status, body: tc.body, header: tc.header}, 0)
			err := tc.call(c)
			if diff := cmp.Diff(tc.want.err, viewOf(err)); diff != "" {
				t.Errorf("\n%s\ncall(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil && tc.want.errStr != "" && !strings.Contains(err.Error(), tc.want.errStr) {
				t.Errorf("\n%s\nerr.Error() = %q, want it to contain %q", tc.reason, err.Error(), tc.want.errStr)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("\n%s\nerr.Error() = %q contains the token", tc.reason, err.Error())
			}
		})
	}
}

func TestHelpersOnForeignErrors(t *testing.T) {
	cases := map[string]struct {
		reason  string
		err     error
		notSent bool
		mayHave bool
	}{
		"Nil": {
			reason: "nil is neither not-sent nor effective.",
		},
		"Foreign": {
			reason:  "An error the client did not produce is conservatively 'may have taken effect'.",
			err:     errors.New("boom"),
			mayHave: true,
		},
		"Wrapped": {
			reason:  "Helpers see through pkg/errors wrapping.",
			err:     errors.Wrap(&simplyblock.Error{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent}, "activate"),
			notSent: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := simplyblock.NotSent(tc.err); got != tc.notSent {
				t.Errorf("\n%s\nNotSent(...): want %t, got %t", tc.reason, tc.notSent, got)
			}
			if got := simplyblock.MayHaveTakenEffect(tc.err); got != tc.mayHave {
				t.Errorf("\n%s\nMayHaveTakenEffect(...): want %t, got %t", tc.reason, tc.mayHave, got)
			}
		})
	}
}
