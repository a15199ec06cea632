package simplyblock

import (
	"crypto/tls"
	"net"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
)

func TestHandshakeRefused(t *testing.T) {
	cases := map[string]struct {
		reason string
		err    error
		alert  string // the alert's text, when a refusal
		want   bool
	}{
		"Nil": {
			reason: "No error is no refusal.",
		},
		"CertificateRequired": {
			reason: "certificate_required (as crypto/tls's exported alert type) is a refusal.",
			err:    tls.AlertError(116),
			alert:  "tls: certificate required",
			want:   true,
		},
		"UnknownCAWrapped": {
			reason: "An unknown_ca alert deep in a url.Error chain is a refusal.",
			err:    &url.Error{Op: "Post", URL: "https://h", Err: errors.Wrap(tls.AlertError(48), "wrapped")},
			alert:  "tls: unknown certificate authority",
			want:   true,
		},
		"BadRecordMAC": {
			reason: "bad_record_mac can come after the server read the request: not a refusal.",
			err:    tls.AlertError(20),
		},
		"InternalError": {
			reason: "internal_error can come at any time: not a refusal.",
			err:    tls.AlertError(80),
		},
		"ConnectionReset": {
			reason: "A reset connection is no TLS alert.",
			err:    &net.OpError{Op: "read", Err: errors.New("connection reset by peer")},
		},
		"RemoteErrorOfAnotherPackage": {
			reason: "A \"remote error\" that crypto/tls did not produce is not a refusal.",
			err:    &net.OpError{Op: "remote error", Err: errors.New("tls: certificate required")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			alert, refused := handshakeRefused(tc.err)
			if !refused {
				alert = ""
			}
			if diff := cmp.Diff([]any{tc.alert, tc.want}, []any{alert, refused}); diff != "" {
				t.Errorf("\n%s\nhandshakeRefused(%v): -want, +got:\n%s", tc.reason, tc.err, diff)
			}
		})
	}
}
