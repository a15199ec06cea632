package simulator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// certValidity is how long the generated certificates are valid.
const certValidity = 10 * 365 * 24 * time.Hour

// clientCommonName is the subject of the client certificate the simulator
// issues when it requires client certificates.
const clientCommonName = "provider-simplyblock"

// errClientCertWithoutTLS: client certificates are part of TLS.
var errClientCertWithoutTLS = errors.New("RequireClientCert needs TLS")

// An authority is a generated CA that signs certificates.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// newAuthority generates a CA named cn.
func newAuthority(cn string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("ca cert: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue signs a new key's certificate from tmpl (subject, usages, names;
// validity is filled in) and returns its DER and key.
func (a *authority) issue(tmpl *x509.Certificate) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("serial: %w", err)
	}
	now := time.Now()
	tmpl.SerialNumber = serial.Add(serial, big.NewInt(2)) // positive, and never the CA's 1
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(certValidity)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, fmt.Errorf("cert: %w", err)
	}
	return der, key, nil
}

// selfSignedTLS generates a throw-away CA and a server certificate for
// 127.0.0.1, ::1 and localhost signed by it. It returns the server config
// and the CA certificate as PEM (for clients' root pools).
func selfSignedTLS() (*tls.Config, []byte, error) {
	ca, err := newAuthority("simplyblock-sim CA")
	if err != nil {
		return nil, nil, err
	}
	der, key, err := ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "localhost"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("server %w", err)
	}
	cfg := &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key}},
		NextProtos:   []string{"http/1.1"},
	}
	return cfg, ca.pem, nil
}

// clientPKI is what the API listener trusts for client certificates when
// Options.RequireClientCert is set: a client CA, and one client certificate
// it issued for tests and demos.
type clientPKI struct {
	ca      *authority
	certPEM []byte
	keyPEM  []byte
}

// newClientPKI generates the client CA and issues a client certificate.
func newClientPKI() (*clientPKI, error) {
	ca, err := newAuthority("simplyblock-sim client CA")
	if err != nil {
		return nil, fmt.Errorf("client %w", err)
	}
	p := &clientPKI{ca: ca}
	if p.certPEM, p.keyPEM, err = p.issue(clientCommonName); err != nil {
		return nil, err
	}
	return p, nil
}

// issue returns a client certificate for cn and its key, both PEM.
func (p *clientPKI) issue(cn string) (certPEM, keyPEM []byte, err error) {
	der, key, err := p.ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("client %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("client key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

// serverTLS builds the API listener's TLS configuration and records the
// CA (and, with Options.RequireClientCert, the client PKI) for the
// accessors. With RequireClientCert a client without a certificate issued
// by the client CA fails the handshake, as uvicorn with
// SB_TLS_CLIENT_AUTH=required (ssl.CERT_REQUIRED) refuses it.
func (s *Simulator) serverTLS() (*tls.Config, error) {
	cfg, caPEM, err := selfSignedTLS()
	if err != nil {
		return nil, err
	}
	s.caPEM = caPEM
	if !s.opts.RequireClientCert {
		return cfg, nil
	}
	p, err := newClientPKI()
	if err != nil {
		return nil, err
	}
	s.clientPKI = p
	pool := x509.NewCertPool()
	pool.AddCert(p.ca.cert)
	cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	return cfg, nil
}

// ClientCAPEM returns the PEM of the CA the API trusts for client
// certificates when Options.RequireClientCert is set, otherwise nil.
func (s *Simulator) ClientCAPEM() []byte {
	if s.clientPKI == nil {
		return nil
	}
	return s.clientPKI.ca.pem
}

// ClientCertPEM returns a client certificate (PEM) the API accepts when
// Options.RequireClientCert is set, otherwise nil. Its key is ClientKeyPEM.
func (s *Simulator) ClientCertPEM() []byte {
	if s.clientPKI == nil {
		return nil
	}
	return s.clientPKI.certPEM
}

// ClientKeyPEM returns the PKCS #8 PEM private key of ClientCertPEM when
// Options.RequireClientCert is set, otherwise nil.
func (s *Simulator) ClientKeyPEM() []byte {
	if s.clientPKI == nil {
		return nil
	}
	return s.clientPKI.keyPEM
}

// IssueClientCert issues another client certificate for commonName from
// the client CA, and returns it and its key as PEM. It fails unless
// Options.RequireClientCert is set and the simulator was started.
func (s *Simulator) IssueClientCert(commonName string) (certPEM, keyPEM []byte, err error) {
	if s.clientPKI == nil {
		return nil, nil, errors.New("no client CA: start the simulator with TLS and RequireClientCert")
	}
	return s.clientPKI.issue(commonName)
}
