package simplyblock_test

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// mtlsSim starts a simulator that requires client certificates.
func mtlsSim(t *testing.T) *simulator.Simulator {
	t.Helper()
	s := simulator.New(simulator.Options{Speed: 1000, AdminTokens: []string{testToken}, TLS: true, RequireClientCert: true})
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestClientCertificate runs the client against a backend that requires
// client certificates (SB_TLS_CLIENT_AUTH=required).
func TestClientCertificate(t *testing.T) {
	sim := mtlsSim(t)
	// A simulator's client certificate is valid only for itself: this one
	// is from a CA sim does not trust.
	other := mtlsSim(t)
	// A second certificate from sim's client CA, for a key that does not
	// match the first.
	otherCert, otherKey, err := sim.IssueClientCert("someone-else")
	if err != nil {
		t.Fatalf("IssueClientCert: %v", err)
	}

	refused := &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent, NotSent: true, Helpers: []string{"IsTransport"}}
	type args struct {
		cert, key []byte
		call      func(ctx context.Context, c *simplyblock.Client) error
	}
	type want struct {
		newErr bool     // New refuses the configuration
		err    *errView // the call's error
		msg    string   // substring of the call's error message
		calls  int      // requests the simulator answered
	}
	activate := func(ctx context.Context, c *simplyblock.Client) error { return c.ActivateCluster(ctx, clusterID) }
	list := func(ctx context.Context, c *simplyblock.Client) error { _, err := c.ListClusters(ctx); return err }

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"NoCertStateChangingCall": {
			reason: "Without a client certificate the backend refuses the handshake. TLS 1.3 lets the client write the request first, yet it never reached HTTP: definitely not sent.",
			args:   args{call: activate},
			want:   want{err: refused, msg: "request not sent: the server refused the TLS handshake: remote error: tls: certificate required"},
		},
		"NoCertGET": {
			reason: "A GET refused at the handshake is not sent either, and gets no answer.",
			args:   args{call: list},
			want:   want{err: refused, msg: "request not sent: the server refused the TLS handshake"},
		},
		"CertFromUnknownCA": {
			reason: "A certificate from a CA the backend does not trust is refused at the handshake: not sent.",
			args:   args{cert: other.ClientCertPEM(), key: other.ClientKeyPEM(), call: activate},
			want:   want{err: refused, msg: "request not sent: the server refused the TLS handshake: remote error: tls: unknown certificate authority"},
		},
		"CertAccepted": {
			reason: "With the certificate the backend's client CA issued, calls go through.",
			args:   args{cert: sim.ClientCertPEM(), key: sim.ClientKeyPEM(), call: list},
			want:   want{calls: 1},
		},
		"AnotherCertOfTheCA": {
			reason: "Any certificate of the backend's client CA is accepted.",
			args:   args{cert: otherCert, key: otherKey, call: func(ctx context.Context, c *simplyblock.Client) error { return c.Health(ctx) }},
			want:   want{calls: 1},
		},
		"MismatchedKey": {
			reason: "A key that does not belong to the certificate is refused by New, before anything is sent.",
			args:   args{cert: sim.ClientCertPEM(), key: otherKey},
			want:   want{newErr: true},
		},
		"CertWithoutKey": {
			reason: "A certificate without its key is refused by New.",
			args:   args{cert: sim.ClientCertPEM()},
			want:   want{newErr: true},
		},
		"KeyWithoutCert": {
			reason: "A key without its certificate is refused by New, which does not quote it.",
			args:   args{key: sim.ClientKeyPEM()},
			want:   want{newErr: true},
		},
		"NotPEM": {
			reason: "A certificate that is not PEM is refused by New.",
			args:   args{cert: []byte("MIIB-not-pem"), key: sim.ClientKeyPEM()},
			want:   want{newErr: true},
		},
		"SwappedCertAndKey": {
			reason: "Certificate and key given the wrong way round are refused by New, which quotes neither.",
			args:   args{cert: sim.ClientKeyPEM(), key: sim.ClientCertPEM()},
			want:   want{newErr: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sim.ResetJournal()
			c, err := simplyblock.New(simplyblock.Config{BaseURL: sim.URL(), Token: testToken, CABundle: sim.CACertPEM(),
				ClientCert: tc.args.cert, ClientKey: tc.args.key})
			if (err != nil) != tc.want.newErr {
				t.Fatalf("\n%s\nNew(...): error %v, want error %t", tc.reason, err, tc.want.newErr)
			}
			if err != nil {
				if leaks(err.Error(), sim.ClientKeyPEM()) || leaks(err.Error(), otherKey) {
					t.Errorf("\n%s\nNew(...): error %q contains the key", tc.reason, err)
				}
				return
			}
			err = tc.args.call(context.Background(), c)
			got := viewOf(err)
			if got != nil && !strings.Contains(got.Message, tc.want.msg) {
				t.Errorf("\n%s\nmessage %q does not contain %q", tc.reason, got.Message, tc.want.msg)
			}
			if diff := cmp.Diff(tc.want.err, got, cmpopts.IgnoreFields(errView{}, "Message")); diff != "" {
				t.Errorf("\n%s\ncall(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if n := len(sim.Journal()); n != tc.want.calls {
				t.Errorf("\n%s\nthe simulator answered %d requests, want %d", tc.reason, n, tc.want.calls)
			}
		})
	}
}

// TestHandshakeRefusedNotRetried: a GET is retried when nothing was
// received, but a refused handshake is the server's decision, not a glitch.
// With TLS 1.2 the refusal ends the client's handshake; with TLS 1.3 it
// arrives after the request was written.
func TestHandshakeRefusedNotRetried(t *testing.T) {
	cases := map[string]struct {
		reason  string
		version uint16
		msg     string
	}{
		"TLS12": {
			reason:  "A TLS 1.2 server refuses before the client's handshake ends: not sent, not retried.",
			version: tls.VersionTLS12,
			msg:     "request not sent: the server refused the TLS handshake: remote error: tls: handshake failure",
		},
		"TLS13": {
			reason:  "A TLS 1.3 server refuses after the request was written: still not sent, not retried.",
			version: tls.VersionTLS13,
			msg:     "request not sent: the server refused the TLS handshake: remote error: tls: certificate required",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var conns, hits atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				_, _ = w.Write([]byte(`[]`))
			}))
			srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, MinVersion: tc.version, MaxVersion: tc.version}
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.StartTLS()
			t.Cleanup(srv.Close)

			c, err := simplyblock.New(simplyblock.Config{BaseURL: srv.URL, InsecureSkipVerify: true})
			if err != nil {
				t.Fatalf("New(...): %v", err)
			}
			_, err = c.ListClusters(context.Background())
			got := viewOf(err)
			want := &errView{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent, NotSent: true, Helpers: []string{"IsTransport"}}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(errView{}, "Message")); diff != "" {
				t.Errorf("\n%s\nListClusters(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if got != nil && !strings.Contains(got.Message, tc.msg) {
				t.Errorf("\n%s\nmessage %q does not contain %q", tc.reason, got.Message, tc.msg)
			}
			if n, h := conns.Load(), hits.Load(); n != 1 || h != 0 {
				t.Errorf("\n%s\nListClusters(...): %d connections and %d requests, want 1 and 0 (no retry)", tc.reason, n, h)
			}
		})
	}
}

// leaks reports whether msg quotes any line of the base64 body of the PEM
// key.
func leaks(msg string, key []byte) bool {
	for _, line := range strings.Split(string(key), "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") && strings.Contains(msg, line) {
			return true
		}
	}
	return false
}
