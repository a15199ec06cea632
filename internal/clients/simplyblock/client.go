package simplyblock

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"
)

const (
	// apiPrefix is appended to Config.BaseURL.
	apiPrefix = "/api/v2"
	// DefaultTimeout is the per-request timeout when Config.Timeout is 0.
	DefaultTimeout = 30 * time.Second
	// maxResponseBytes bounds how much of a response body is read.
	maxResponseBytes = 16 << 20
)

// getBackoff is the pause before each GET retry; its length+1 is the number
// of tries.
var getBackoff = []time.Duration{100 * time.Millisecond, 400 * time.Millisecond}

// Config configures a Client.
type Config struct {
	// BaseURL is the API endpoint without the API prefix, e.g.
	// https://host:5000. The client appends /api/v2.
	BaseURL string
	// Token is sent as "Authorization: Bearer <Token>". It never appears in
	// errors.
	Token string
	// CABundle holds PEM certificates trusted in addition to the system
	// pool.
	CABundle []byte
	// InsecureSkipVerify disables TLS certificate verification.
	InsecureSkipVerify bool
	// ClientCert and ClientKey are a PEM client certificate (optionally
	// followed by its intermediates) and its PEM private key, presented when
	// the server asks for a client certificate (mutual TLS, the backend's
	// SB_TLS_CLIENT_AUTH). Set both or neither. The key never appears in
	// errors.
	ClientCert []byte
	ClientKey  []byte
	// Timeout bounds each HTTP request; DefaultTimeout when 0.
	Timeout time.Duration
	// UserAgentVersion is the version in "provider-simplyblock/<version>".
	UserAgentVersion string
	// HTTPClient overrides the HTTP client (tests). CABundle,
	// InsecureSkipVerify, ClientCert and ClientKey are then ignored;
	// redirects are never followed.
	HTTPClient *http.Client
}

// Client is a typed client for the simplyblock REST API v2. It is safe for
// concurrent use. It never retries a state-changing call; GETs are retried
// briefly when nothing was received.
type Client struct {
	baseURL   string // scheme://host[:port]/prefix/api/v2, no trailing slash
	token     string
	userAgent string
	timeout   time.Duration
	hc        *http.Client
}

var _ API = &Client{}

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, errors.Wrap(err, "invalid base URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.Errorf("invalid base URL %q: scheme must be http or https", cfg.BaseURL)
	}
	if u.Host == "" {
		return nil, errors.Errorf("invalid base URL %q: no host", cfg.BaseURL)
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil

	c := &Client{
		baseURL:   strings.TrimSuffix(u.String(), "/") + apiPrefix,
		token:     cfg.Token,
		userAgent: "provider-simplyblock/" + cfg.UserAgentVersion,
		timeout:   cfg.Timeout,
	}
	if cfg.UserAgentVersion == "" {
		c.userAgent = "provider-simplyblock/unknown"
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}

	if cfg.HTTPClient != nil {
		hc := *cfg.HTTPClient
		c.hc = &hc
	} else {
		tr, err := newTransport(cfg)
		if err != nil {
			return nil, err
		}
		c.hc = &http.Client{Transport: tr}
	}
	// A 307 means a wrong trailing slash; following it would re-send the
	// request, so surface it as an error instead.
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c, nil
}

// maxIdleConns is how many idle connections to the control plane are kept
// for reuse. Operations on many clusters read it concurrently; with Go's
// default of two per host most requests paid for a new TLS handshake.
const maxIdleConns = 64

// newTransport clones the default transport with the configured TLS trust.
func newTransport(cfg Config) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = maxIdleConns, maxIdleConns
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in
	if len(cfg.CABundle) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(cfg.CABundle) {
			return nil, errors.New("CA bundle holds no PEM certificate")
		}
		tlsCfg.RootCAs = pool
	}
	if len(cfg.ClientCert) > 0 || len(cfg.ClientKey) > 0 {
		pair, err := clientCertificate(cfg.ClientCert, cfg.ClientKey)
		if err != nil {
			return nil, err
		}
		// Present the certificate whenever the server asks, whatever CA
		// names it lists (OpenSSL, behind uvicorn, lists none): it is the
		// server's decision to accept it, and its refusal is clearer than a
		// handshake without a certificate.
		tlsCfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	tr.TLSClientConfig = tlsCfg
	return tr, nil
}

// Client certificate errors. They never quote the PEM input.
const (
	errMsgClientCertPair    = "client certificate and client key must be set together"
	errMsgClientCertInvalid = "invalid client certificate or key"
)

// clientCertificate parses a PEM certificate and key pair. Its errors are
// crypto/tls's, which name PEM block types and mismatches, never the key.
func clientCertificate(certPEM, keyPEM []byte) (tls.Certificate, error) {
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return tls.Certificate{}, errors.New(errMsgClientCertPair)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	return pair, errors.Wrap(err, errMsgClientCertInvalid)
}

// call describes one API call.
type call struct {
	method string
	path   string // below /api/v2, e.g. /clusters/<id>/
	query  url.Values
	body   any   // JSON-encoded when non-nil
	ok     []int // success statuses
	out    any   // JSON decode target for a success body; nil ignores it
	noAuth bool  // /_meta probes need no token
	once   bool  // never retry, even a GET
	// anyStatus returns every answer as received, whatever its status
	// (GetRaw).
	anyStatus bool
}

// response is a received success answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do runs c, retrying GETs on transport errors where nothing was received
// and on 502/503/504.
func (c *Client) do(ctx context.Context, cl call) (*response, error) {
	var payload []byte
	if cl.body != nil {
		b, err := json.Marshal(cl.body)
		if err != nil {
			return nil, &Error{Kind: KindBadRequest, Outcome: OutcomeNotSent, Method: cl.method, Path: apiPrefix + cl.path,
				Message: errMsgEncodeBody + ": " + err.Error(), cause: err}
		}
		payload = b
	}

	tries := 1
	if cl.method == http.MethodGet && !cl.once {
		tries = len(getBackoff) + 1
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, cl, payload)
		if err == nil || attempt+1 >= tries || !retryableGET(err) || ctx.Err() != nil {
			return resp, err
		}
		t := time.NewTimer(getBackoff[attempt])
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}

// retryableGET: nothing was received, or a gateway/unavailable answer.
func retryableGET(err error) bool {
	e, ok := asError(err)
	if !ok {
		return false
	}
	if e.Kind == KindTransport {
		// A refused handshake is the server's decision, not a glitch.
		_, refused := handshakeRefused(e.cause)
		return !e.gotResponse && !refused
	}
	switch e.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// errRequestTimeout is the context cause when Config.Timeout fires.
var errRequestTimeout = errors.New(errMsgTimeout)

// attempt sends one HTTP request and classifies the result.
func (c *Client) attempt(ctx context.Context, cl call, payload []byte) (*response, error) {
	fullPath := apiPrefix + cl.path
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errRequestTimeout)
	defer cancel()

	// wrote is set once the whole request has been written to the
	// connection: before that the backend cannot have acted on it.
	var wrote, gotResponse atomic.Bool
	trace := &httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			if i.Err == nil {
				wrote.Store(true)
			}
		},
		GotFirstResponseByte: func() { gotResponse.Store(true) },
	}

	target := c.baseURL + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), cl.method, target, body)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Outcome: OutcomeNotSent, Method: cl.method, Path: fullPath,
			Message: c.redact(err.Error()), cause: err}
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if !cl.noAuth && c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, cl.method, fullPath, err, wrote.Load(), gotResponse.Load())
	}
	defer resp.Body.Close() //nolint:errcheck // read-only body

	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		e := c.transportError(ctx, cl.method, fullPath, err, true, true)
		e.StatusCode = resp.StatusCode
		e.Message = errMsgReadBody + ": " + e.Message
		return nil, e
	}
	if !cl.anyStatus && !contains(cl.ok, resp.StatusCode) {
		e := newHTTPError(cl.method, fullPath, resp.StatusCode, resp.Header, data)
		e.Message = c.redact(e.Message)
		return nil, e
	}
	if cl.out != nil {
		if err := decodeJSON(data, cl.out); err != nil {
			return nil, c.invalidResponse(cl.method, fullPath, resp.StatusCode, err)
		}
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// transportError classifies a failure below HTTP with the httptrace facts.
func (c *Client) transportError(ctx context.Context, method, path string, err error, wrote, gotResponse bool) *Error {
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	msg := cause.Error()
	if errors.Is(context.Cause(ctx), errRequestTimeout) {
		msg = fmt.Sprintf("%s after %s", errMsgTimeout, c.timeout)
	}
	e := &Error{Kind: KindTransport, Outcome: OutcomeNotSent, Method: method, Path: path, cause: err, gotResponse: gotResponse}
	alert, refused := handshakeRefused(cause)
	switch {
	case refused:
		// With TLS 1.3 the client's side of the handshake is done before
		// the server checks the client certificate, so the request was
		// written; but the server refused the session and never read it.
		// The alert alone is named: the transport may wrap it differently
		// depending on when it arrived.
		e.Message = c.redact(errMsgNotSent + ": " + errMsgHandshakeRefused + ": " + alert)
	case wrote:
		e.Outcome = OutcomeUnknown
		e.Message = c.redact(errMsgMayHaveEffect + ": " + msg)
	default:
		e.Message = c.redact(errMsgNotSent + ": " + msg)
	}
	return e
}

// handshakeAlerts are the TLS alerts (RFC 8446 §6.2, RFC 5246 §7.2) a
// server only sends while it negotiates a session, most of them about the
// client's certificate: handshake_failure, bad_certificate,
// unsupported_certificate, certificate_revoked, certificate_expired,
// certificate_unknown, unknown_ca, access_denied, decrypt_error,
// certificate_required.
var handshakeAlerts = map[uint8]bool{40: true, 42: true, 43: true, 44: true, 45: true, 46: true, 48: true, 49: true, 51: true, 116: true}

// handshakeRefused reports whether err is a handshake alert the server
// sent, and the alert's text: it refused the TLS session, so nothing sent
// on it reached HTTP.
// crypto/tls reports a received alert as a *net.OpError "remote error"
// around its unexported uint8 alert type (tls.AlertError only on QUIC).
func handshakeRefused(err error) (string, bool) {
	var ae tls.AlertError
	if errors.As(err, &ae) {
		return ae.Error(), handshakeAlerts[uint8(ae)]
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return "", false
	}
	v := reflect.ValueOf(op.Err)
	if v.Kind() != reflect.Uint8 || v.Type().PkgPath() != "crypto/tls" {
		return "", false
	}
	return op.Error(), handshakeAlerts[uint8(v.Uint())]
}

// invalidResponse reports a success status with an undecodable body.
func (c *Client) invalidResponse(method, path string, status int, err error) *Error {
	return &Error{Kind: KindInvalidResponse, Outcome: OutcomeAnswered, StatusCode: status, Method: method, Path: path,
		Message: c.redact(errMsgDecodeBody + ": " + err.Error()), cause: err, gotResponse: true}
}

// redact removes the token from a message.
func (c *Client) redact(s string) string {
	if c.token == "" {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[REDACTED]")
}

// decodeJSON decodes a success body into out.
func decodeJSON(data []byte, out any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty body")
	}
	return errors.Wrap(json.Unmarshal(data, out), "invalid JSON")
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// pathOf joins escaped path segments below /api/v2; a trailing "" yields a
// trailing slash. It refuses empty ids so that /clusters//x never goes out.
func pathOf(segments ...string) (string, error) {
	var b strings.Builder
	for i, s := range segments {
		if s == "" {
			if i == len(segments)-1 {
				b.WriteString("/")
				break
			}
			return "", errors.New(errMsgEmptyID)
		}
		b.WriteString("/")
		b.WriteString(url.PathEscape(s))
	}
	return b.String(), nil
}

// run builds the path from segments and runs the call.
func (c *Client) run(ctx context.Context, cl call, segments ...string) (*response, error) {
	p, err := pathOf(segments...)
	if err != nil {
		return nil, &Error{Kind: KindBadRequest, Outcome: OutcomeNotSent, Method: cl.method,
			Path: apiPrefix + strings.Join(segments, "/"), Message: err.Error(), cause: err}
	}
	cl.path = p
	return c.do(ctx, cl)
}
