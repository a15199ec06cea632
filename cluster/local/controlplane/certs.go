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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// certValidity is how long the throw-away certificates are valid.
const certValidity = 30 * 24 * time.Hour

// writeMTLSCertificates writes a CA and two certificates it signed, each as
// ca.crt, tls.crt and tls.key in a folder of its own (the layout Crossplane
// core and the function SDK read): clientDir for core, which Crossplane
// requires to talk to functions, and serverDir for the functions, valid for
// 127.0.0.1 and localhost.
func writeMTLSCertificates(dir string) (clientDir, serverDir string, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "provider-simplyblock local CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certValidity),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return "", "", err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return "", "", err
	}
	leaf := func(sub string, serial int64, usage x509.ExtKeyUsage, ips []net.IP, dns []string) (string, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return "", err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: sub},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certValidity),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: ips, DNSNames: dns,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return "", err
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			return "", err
		}
		out := filepath.Join(dir, sub)
		if err := os.MkdirAll(out, 0o700); err != nil {
			return "", err
		}
		for name, block := range map[string]*pem.Block{
			"ca.crt":  {Type: "CERTIFICATE", Bytes: caDER},
			"tls.crt": {Type: "CERTIFICATE", Bytes: der},
			"tls.key": {Type: "EC PRIVATE KEY", Bytes: keyDER},
		} {
			if err := os.WriteFile(filepath.Join(out, name), pem.EncodeToMemory(block), 0o600); err != nil {
				return "", err
			}
		}
		return out, nil
	}
	if clientDir, err = leaf("crossplane", 2, x509.ExtKeyUsageClientAuth, nil, nil); err != nil {
		return "", "", err
	}
	serverDir, err = leaf("functions", 3, x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)}, []string{"localhost"})
	return clientDir, serverDir, err
}
