package simplyblock_test

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// TestTransportOutcomes checks the NotSent / MayHaveTakenEffect decision for
// failures below HTTP.
func TestTransportOutcomes(t *testing.T) {
	type want struct {
		err     *errView
		msg     string // substring of the message
		hits    int32  // requests the handler saw; -1 to skip
		errLike bool
	}
	cases := map[string]struct {
		reason  string
		handler func(hits *atomic.Int32) http.HandlerFunc
		refused bool // point the client at a closed port instead
		timeout time.Duration
		call    func(ctx context.Context, c *simplyblock.Client) error
		want    want
	}{
		"DroppedAfterPOSTBody": {
			reason: "The server read the whole POST and dropped the connection: it may have acted on it. No retry.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { hits.Add(1); hijackAndClose(w, r) }
			},
			call: func(ctx context.Context, c *simplyblock.Client) error {
				_, err := c.CreateStoragePool(ctx, clusterID, simplyblock.StoragePoolParams{Name: "p"})
				return err
			},
			want: want{
				err:  &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown, MayHaveTakenEffect: true, Helpers: []string{"IsTransport"}},
				msg:  "request sent, outcome unknown",
				hits: 1,
			},
		},
		"NeverAnswers": {
			reason: "The server never answers: after the client timeout the action may have taken effect.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(_ http.ResponseWriter, r *http.Request) { hits.Add(1); <-r.Context().Done() }
			},
			timeout: 200 * time.Millisecond,
			call:    func(ctx context.Context, c *simplyblock.Client) error { return c.ActivateCluster(ctx, clusterID) },
			want: want{
				err:  &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown, MayHaveTakenEffect: true, Helpers: []string{"IsTransport"}},
				msg:  "request sent, outcome unknown: request timed out after 200ms",
				hits: 1,
			},
		},
		"Refused": {
			reason:  "A refused connection never reached the backend.",
			refused: true,
			call:    func(ctx context.Context, c *simplyblock.Client) error { return c.StartCluster(ctx, clusterID) },
			want: want{
				err:  &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent, NotSent: true, Helpers: []string{"IsTransport"}},
				msg:  "request not sent",
				hits: -1,
			},
		},
		"CanceledBeforeSend": {
			reason: "A context canceled before sending means not sent.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) { hits.Add(1); w.WriteHeader(http.StatusAccepted) }
			},
			call: func(ctx context.Context, c *simplyblock.Client) error {
				ctx, cancel := context.WithCancel(ctx)
				cancel()
				return c.ShutdownCluster(ctx, clusterID)
			},
			want: want{
				err:  &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent, NotSent: true, Helpers: []string{"IsTransport"}},
				msg:  "context canceled",
				hits: 0,
			},
		},
		"EmptyID": {
			reason: "An empty id is refused before anything is sent.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }
			},
			call: func(ctx context.Context, c *simplyblock.Client) error { return c.DeleteCluster(ctx, "") },
			want: want{
				err:  &errView{Kind: simplyblock.KindBadRequest, Outcome: simplyblock.OutcomeNotSent, NotSent: true},
				msg:  "empty id in request path",
				hits: 0,
			},
		},
		"GETRetriedUntilSuccess": {
			reason: "A GET whose connection dropped before any answer is retried (3 tries).",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					if hits.Add(1) < 3 {
						hijackAndClose(w, r)
						return
					}
					_, _ = w.Write([]byte(`[]`))
				}
			},
			call: func(ctx context.Context, c *simplyblock.Client) error { _, err := c.ListClusters(ctx); return err },
			want: want{hits: 3},
		},
		"GETRetriesExhausted": {
			reason: "A GET is tried at most 3 times.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) { hits.Add(1); hijackAndClose(w, r) }
			},
			call: func(ctx context.Context, c *simplyblock.Client) error {
				_, err := c.GetCluster(ctx, clusterID)
				return err
			},
			want: want{
				err:  &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown, MayHaveTakenEffect: true, Helpers: []string{"IsTransport"}},
				hits: 3,
			},
		},
		"GETRetriedOn503": {
			reason: "A GET answered 503 is retried.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					if hits.Add(1) == 1 {
						w.WriteHeader(http.StatusServiceUnavailable)
						return
					}
					_, _ = w.Write([]byte(`[]`))
				}
			},
			call: func(ctx context.Context, c *simplyblock.Client) error {
				_, err := c.ListTasks(ctx, clusterID)
				return err
			},
			want: want{hits: 2},
		},
		"GETNotRetriedOn500": {
			reason: "A definite 500 answer is not retried.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					hits.Add(1)
					http.Error(w, "Internal Server Error", http.StatusInternalServerError)
				}
			},
			call: func(ctx context.Context, c *simplyblock.Client) error {
				_, err := c.GetTask(ctx, clusterID, taskID)
				return err
			},
			want: want{
				err:  &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500, Message: "Internal Server Error", Helpers: []string{"IsServerError"}},
				hits: 1,
			},
		},
		"POSTNotRetriedOn503": {
			reason: "A state-changing call is never retried.",
			handler: func(hits *atomic.Int32) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					hits.Add(1)
					w.WriteHeader(http.StatusServiceUnavailable)
				}
			},
			call: func(ctx context.Context, c *simplyblock.Client) error { return c.RebalanceCluster(ctx, clusterID) },
			want: want{
				err:  &errView{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 503, Message: "Service Unavailable", Helpers: []string{"IsServerError"}},
				hits: 1,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var hits atomic.Int32
			baseURL := refusedURL(t)
			if !tc.refused {
				srv := httptest.NewServer(tc.handler(&hits))
				t.Cleanup(srv.Close)
				baseURL = srv.URL
			}
			c, err := simplyblock.New(simplyblock.Config{BaseURL: baseURL, Token: testToken, Timeout: tc.timeout})
			if err != nil {
				t.Fatalf("New(...): %v", err)
			}
			err = tc.call(context.Background(), c)
			got := viewOf(err)
			if got != nil && tc.want.msg != "" && !strings.Contains(got.Message, tc.want.msg) {
				t.Errorf("\n%s\nmessage %q does not contain %q", tc.reason, got.Message, tc.want.msg)
			}
			if diff := cmp.Diff(tc.want.err, got, cmpopts.IgnoreFields(errView{}, "Message")); diff != "" {
				t.Errorf("\n%s\ncall(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if tc.want.hits >= 0 && hits.Load() != tc.want.hits {
				t.Errorf("\n%s\nserver saw %d requests, want %d", tc.reason, hits.Load(), tc.want.hits)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("\n%s\nerror %q contains the token", tc.reason, err.Error())
			}
		})
	}
}

// refusedURL returns the URL of a port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	cases := map[string]struct {
		reason string
		cfg    simplyblock.Config
		want   *errView
	}{
		"CustomCA": {
			reason: "The caller's CA bundle is trusted.",
			cfg:    simplyblock.Config{BaseURL: srv.URL, CABundle: caPEM},
		},
		"UnknownCA": {
			reason: "Without the CA the handshake fails and nothing was sent.",
			cfg:    simplyblock.Config{BaseURL: srv.URL},
			want:   &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent, NotSent: true, Helpers: []string{"IsTransport"}},
		},
		"InsecureSkipVerify": {
			reason: "InsecureSkipVerify skips verification.",
			cfg:    simplyblock.Config{BaseURL: srv.URL, InsecureSkipVerify: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := simplyblock.New(tc.cfg)
			if err != nil {
				t.Fatalf("New(...): %v", err)
			}
			got := viewOf(c.Health(context.Background()))
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(errView{}, "Message")); diff != "" {
				t.Errorf("\n%s\nHealth(...): -want error, +got error:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestNewConfig(t *testing.T) {
	cases := map[string]struct {
		reason  string
		cfg     simplyblock.Config
		wantErr bool
	}{
		"Valid":        {reason: "An https URL is accepted.", cfg: simplyblock.Config{BaseURL: "https://sb.example:5000"}},
		"NoScheme":     {reason: "A URL without scheme is refused.", cfg: simplyblock.Config{BaseURL: "sb.example:5000"}, wantErr: true},
		"NoHost":       {reason: "A URL without host is refused.", cfg: simplyblock.Config{BaseURL: "https://"}, wantErr: true},
		"BadCABundle":  {reason: "A CA bundle without certificates is refused.", cfg: simplyblock.Config{BaseURL: "https://h", CABundle: []byte("nope")}, wantErr: true},
		"TrailingPath": {reason: "A trailing slash on the base URL is fine.", cfg: simplyblock.Config{BaseURL: "http://h:5000/"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := simplyblock.New(tc.cfg)
			if (err != nil) != tc.wantErr {
				t.Errorf("\n%s\nNew(...): want error %t, got %v", tc.reason, tc.wantErr, err)
			}
		})
	}
}
