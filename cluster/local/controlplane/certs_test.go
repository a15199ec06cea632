/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteMTLSCertificates(t *testing.T) {
	clientDir, serverDir, err := writeMTLSCertificates(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	load := func(dir string) (*x509.Certificate, *x509.CertPool) {
		pair, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		ca, err := os.ReadFile(filepath.Join(dir, "ca.crt")) //nolint:gosec // a test's own file
		if err != nil {
			t.Fatal(err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			t.Fatalf("%s: no CA certificate in ca.crt", dir)
		}
		return pair.Leaf, pool
	}
	cases := map[string]struct {
		reason string
		dir    string
		opts   func(pool *x509.CertPool) x509.VerifyOptions
	}{
		"ClientCertificateForCore": {
			reason: "Core's certificate must verify as a client certificate against the CA the functions trust.",
			dir:    clientDir,
			opts: func(pool *x509.CertPool) x509.VerifyOptions {
				return x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
			},
		},
		"ServerCertificateFor127001": {
			reason: "The functions' certificate must verify for 127.0.0.1, the address core dials.",
			dir:    serverDir,
			opts: func(pool *x509.CertPool) x509.VerifyOptions {
				return x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			leaf, pool := load(tc.dir)
			if _, err := leaf.Verify(tc.opts(pool)); err != nil {
				t.Errorf("%s\nVerify: %v", tc.reason, err)
			}
		})
	}
}
