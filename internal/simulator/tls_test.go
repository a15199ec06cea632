package simulator

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTLSClientAuth: with RequireClientCert the API refuses, at the TLS
// handshake, every client without a certificate from its client CA, as
// uvicorn does with SB_TLS_CLIENT_AUTH=required (ssl.CERT_REQUIRED).
func TestTLSClientAuth(t *testing.T) {
	s := newSim(t, func(o *Options) { o.TLS, o.RequireClientCert = true, true })
	other := newSim(t, func(o *Options) { o.TLS, o.RequireClientCert = true, true })
	issuedCert, issuedKey, err := s.IssueClientCert("another-client")
	if err != nil {
		t.Fatalf("IssueClientCert: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(s.CACertPEM()) {
		t.Fatal("CACertPEM is not a PEM certificate")
	}
	clientCAs := x509.NewCertPool()
	if !clientCAs.AppendCertsFromPEM(s.ClientCAPEM()) {
		t.Fatal("ClientCAPEM is not a PEM certificate")
	}
	pair := func(cert, key []byte) []tls.Certificate {
		c, err := tls.X509KeyPair(cert, key)
		if err != nil {
			t.Fatalf("X509KeyPair: %v", err)
		}
		return []tls.Certificate{c}
	}

	type want struct {
		status int    // of GET /_meta/health; 0 when refused
		err    string // part of the refusal
	}
	cases := map[string]struct {
		reason     string
		certs      []tls.Certificate
		maxVersion uint16
		want       want
	}{
		"NoCertificate": {
			reason: "A client without a certificate is refused (TLS 1.3 reports it after the client's side of the handshake).",
			want:   want{err: "remote error: tls: certificate required"},
		},
		"NoCertificateTLS12": {
			reason:     "Over TLS 1.2 the refusal ends the handshake itself.",
			maxVersion: tls.VersionTLS12,
			want:       want{err: "remote error: tls: handshake failure"},
		},
		"CertificateOfAnotherCA": {
			reason: "A certificate the client CA did not issue is refused.",
			certs:  pair(other.ClientCertPEM(), other.ClientKeyPEM()),
			want:   want{err: "remote error: tls: unknown certificate authority"},
		},
		"ClientCertificate": {
			reason: "The client certificate the simulator issued is accepted.",
			certs:  pair(s.ClientCertPEM(), s.ClientKeyPEM()),
			want:   want{status: http.StatusNoContent},
		},
		"IssuedCertificate": {
			reason:     "Any certificate of the client CA is accepted, also over TLS 1.2.",
			certs:      pair(issuedCert, issuedKey),
			maxVersion: tls.VersionTLS12,
			want:       want{status: http.StatusNoContent},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s.ResetJournal()
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: tc.certs, MaxVersion: tc.maxVersion}}
			t.Cleanup(tr.CloseIdleConnections)
			got := want{}
			resp, err := (&http.Client{Transport: tr}).Get(s.URL() + "/api/v2/_meta/health")
			if err != nil {
				got.err = err.Error()
			} else {
				got.status = resp.StatusCode
				_ = resp.Body.Close()
			}
			if tc.want.err != "" && strings.Contains(got.err, tc.want.err) {
				got.err = tc.want.err
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nGET /_meta/health: -want, +got:\n%s", tc.reason, diff)
			}
			if n, wantN := len(s.Journal()), min(tc.want.status, 1); n != wantN {
				t.Errorf("\n%s\nthe journal holds %d calls, want %d: a refused client never reaches HTTP", tc.reason, n, wantN)
			}
		})
	}
	if leaf, err := x509.ParseCertificate(pair(s.ClientCertPEM(), s.ClientKeyPEM())[0].Certificate[0]); err != nil {
		t.Errorf("client certificate: %v", err)
	} else if _, err := leaf.Verify(x509.VerifyOptions{Roots: clientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("ClientCertPEM is not a client certificate of ClientCAPEM: %v", err)
	}
}

// TestTLSClientAuthOptions covers the option's preconditions and what the
// accessors return without it.
func TestTLSClientAuthOptions(t *testing.T) {
	type want struct {
		startErr  error
		clientPKI bool
	}
	cases := map[string]struct {
		reason string
		opts   Options
		want   want
	}{
		"WithoutTLS": {
			reason: "Client certificates are part of TLS: the option alone is refused.",
			opts:   Options{RequireClientCert: true},
			want:   want{startErr: errClientCertWithoutTLS},
		},
		"TLSOnly": {
			reason: "Plain TLS has no client CA.",
			opts:   Options{TLS: true},
		},
		"TLSWithClientAuth": {
			reason: "With both the client CA and a client certificate exist.",
			opts:   Options{TLS: true, RequireClientCert: true},
			want:   want{clientPKI: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := New(tc.opts)
			t.Cleanup(s.Close)
			err := s.Start()
			if !errors.Is(err, tc.want.startErr) {
				t.Errorf("\n%s\nStart(): error %v, want %v", tc.reason, err, tc.want.startErr)
			}
			got := want{startErr: err, clientPKI: s.ClientCAPEM() != nil && s.ClientCertPEM() != nil && s.ClientKeyPEM() != nil}
			if diff := cmp.Diff(tc.want.clientPKI, got.clientPKI); diff != "" {
				t.Errorf("\n%s\nclient CA, certificate and key present: -want, +got:\n%s", tc.reason, diff)
			}
			if _, _, err := s.IssueClientCert("x"); (err == nil) != tc.want.clientPKI {
				t.Errorf("\n%s\nIssueClientCert: error %v, want error %t", tc.reason, err, !tc.want.clientPKI)
			}
		})
	}
}
