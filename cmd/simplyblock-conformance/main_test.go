package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const adminToken = "cmd-admin-token"

func TestRun(t *testing.T) {
	sim := simulator.New(simulator.Options{Speed: 1000, AdminTokens: []string{adminToken}, TLS: true, Seed: 3})
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	_, secret, _ := sim.Seed(simulator.SeedCluster{Nodes: 3, Status: sb.ClusterActive})
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, sim.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(empty.Close)

	cases := map[string]struct {
		reason string
		args   []string
		env    map[string]string
		code   int
		stdout []string // substrings of stdout
		stderr string
	}{
		"Simulator": {
			reason: "The simulator on TLS passes every check, and its answers the vendor spec.",
			env:    map[string]string{"SIMPLYBLOCK_ENDPOINT": sim.URL() + "/api/v2", "SIMPLYBLOCK_TOKEN": adminToken, "SIMPLYBLOCK_CA_FILE": caFile},
			code:   exitOK,
			stdout: []string{"PASS  logs-entry-shape", " 0 FAIL", "PASS  vendor-spec"},
		},
		"ClusterSecretFlags": {
			reason: "Flags set what the environment does; a cluster secret is a token too.",
			args:   []string{"--endpoint", sim.URL(), "--ca-file", caFile, "--spec", ""},
			env:    map[string]string{"SIMPLYBLOCK_TOKEN": secret},
			code:   exitOK,
			stdout: []string{"SKIP  vendor-spec", " 0 FAIL"},
		},
		"UntrustedCertificate": {
			reason: "Without the CA the TLS handshake fails, and so does every check.",
			env:    map[string]string{"SIMPLYBLOCK_ENDPOINT": sim.URL(), "SIMPLYBLOCK_TOKEN": adminToken},
			code:   exitFailed,
			stdout: []string{"FAIL  health", "certificate"},
		},
		"WrongBackend": {
			reason: "A server that is no simplyblock control plane fails.",
			env:    map[string]string{"SIMPLYBLOCK_ENDPOINT": empty.URL, "SIMPLYBLOCK_TOKEN": adminToken},
			code:   exitFailed,
			stdout: []string{"FAIL  health", "FAIL  clusters-list"},
		},
		"NoEndpoint": {
			reason: "The endpoint is required.",
			env:    map[string]string{"SIMPLYBLOCK_TOKEN": adminToken},
			code:   exitUsage,
			stderr: "no endpoint",
		},
		"NoToken": {
			reason: "The token is required, and only read from the environment or a file.",
			env:    map[string]string{"SIMPLYBLOCK_ENDPOINT": sim.URL()},
			code:   exitUsage,
			stderr: "no token",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(name, "Simulator") {
				if _, err := os.Stat(contract.SpecPath()); err != nil {
					t.Skipf("vendor spec not found: %v", err)
				}
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("\n%s\nrun(...): exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.reason, code, tc.code, stdout.String(), stderr.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("\n%s\nrun(...): stdout does not contain %q:\n%s", tc.reason, s, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("\n%s\nrun(...): stderr does not contain %q:\n%s", tc.reason, tc.stderr, stderr.String())
			}
			for _, s := range []string{adminToken, secret} {
				if strings.Contains(stdout.String()+stderr.String(), s) {
					t.Errorf("\n%s\nrun(...): the output holds the token or a secret", tc.reason)
				}
			}
		})
	}
}
