// Command simplyblock-sim runs the simplyblock control-plane API simulator
// (internal/simulator) as a standalone server, for demos and dry runs.
//
//	simplyblock-sim --token admin-token --seed-clusters 1 --seed-nodes 3 --seed-status active --speed 20
//
// It prints the API URL, the admin URL and the seeded clusters' ids (their
// secrets only with --print-secrets), then logs one line per API call.
//
// With --tls --require-client-cert it refuses clients without a certificate
// from its generated client CA, as the backend does with
// SB_TLS_CLIENT_AUTH=required; --client-cert-file and --client-key-file
// write a certificate it accepts:
//
//	simplyblock-sim --token admin-token --tls --ca-file ca.crt --require-client-cert --client-cert-file tls.crt --client-key-file tls.key
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "simplyblock-sim:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		tokens       stringList
		addr         = flag.String("addr", "127.0.0.1:5000", "API listen address")
		adminAddr    = flag.String("admin-addr", "127.0.0.1:5001", "admin (faults, journal, state, seed) listen address")
		useTLS       = flag.Bool("tls", false, "serve HTTPS with a generated self-signed CA (written to --ca-file)")
		caFile       = flag.String("ca-file", "", "with --tls: write the CA certificate PEM to this file")
		requireCert  = flag.Bool("require-client-cert", false, "with --tls: refuse clients without a certificate from a generated client CA (SB_TLS_CLIENT_AUTH=required)")
		clientCAFile = flag.String("client-ca-file", "", "with --require-client-cert: write the client CA certificate PEM to this file")
		clientCert   = flag.String("client-cert-file", "", "with --require-client-cert: write a client certificate PEM the API accepts to this file")
		clientKey    = flag.String("client-key-file", "", "with --require-client-cert: write that client certificate's private key PEM to this file")
		speed        = flag.Float64("speed", 1, "time scale: backend durations run this many times faster")
		seed         = flag.Int64("seed", 0, "randomness seed for durations")
		seedClusters = flag.Int("seed-clusters", 0, "number of clusters to seed")
		seedNodes    = flag.Int("seed-nodes", 3, "nodes per seeded cluster")
		seedStatus   = flag.String("seed-status", "unready", "status of seeded clusters: unready or active")
		missingAuth  = flag.Int("missing-auth-status", 401, "status for a missing Authorization header: 401 or 403")
		printSecrets = flag.Bool("print-secrets", false, "print the seeded clusters' secrets (they are bearer tokens)")
		quiet        = flag.Bool("quiet", false, "do not log calls")
	)
	flag.Var(&tokens, "token", "admin bearer token (repeatable)")
	flag.Parse()

	if *seedStatus != string(sb.ClusterUnready) && *seedStatus != string(sb.ClusterActive) {
		return fmt.Errorf("--seed-status must be unready or active")
	}
	if *missingAuth != 401 && *missingAuth != 403 {
		return fmt.Errorf("--missing-auth-status must be 401 or 403")
	}
	if *requireCert && !*useTLS {
		return fmt.Errorf("--require-client-cert needs --tls")
	}
	if !*requireCert && (*clientCAFile != "" || *clientCert != "" || *clientKey != "") {
		return fmt.Errorf("--client-ca-file, --client-cert-file and --client-key-file need --require-client-cert")
	}
	logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	opts := simulator.Options{
		Speed: *speed, AdminTokens: tokens, TLS: *useTLS, RequireClientCert: *requireCert, Addr: *addr, AdminAddr: *adminAddr,
		Seed: *seed, MissingAuthStatus: *missingAuth,
	}
	if !*quiet {
		opts.Logf = logger.Printf
	}
	sim := simulator.New(opts)
	if err := sim.Start(); err != nil {
		sim.Close()
		return err
	}
	defer sim.Close()

	fmt.Printf("API URL:   %s/api/v2\n", sim.URL())
	fmt.Printf("Admin URL: %s\n", sim.AdminURL())
	if *useTLS && *caFile != "" {
		if err := os.WriteFile(*caFile, sim.CACertPEM(), 0o600); err != nil {
			return fmt.Errorf("write CA: %w", err)
		}
		fmt.Printf("CA cert:   %s\n", *caFile)
	}
	for _, f := range []struct {
		what, path string
		pem        []byte
	}{
		{"Client CA", *clientCAFile, sim.ClientCAPEM()},
		{"Client cert", *clientCert, sim.ClientCertPEM()},
		{"Client key", *clientKey, sim.ClientKeyPEM()},
	} {
		if f.path == "" {
			continue
		}
		if err := os.WriteFile(f.path, f.pem, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", strings.ToLower(f.what), err)
		}
		fmt.Printf("%-12s %s\n", f.what+":", f.path)
	}
	if len(tokens) == 0 {
		fmt.Println("warning: no --token given; POST /clusters/ needs an admin token while no cluster exists")
	}
	for i := 0; i < *seedClusters; i++ {
		id, secret, nodes := sim.Seed(simulator.SeedCluster{
			Nodes: *seedNodes, Status: sb.ClusterStatus(*seedStatus),
			NodeAddressPrefix: fmt.Sprintf("10.0.%d.", i),
		})
		fmt.Printf("cluster %s (%s, %d nodes)\n", id, *seedStatus, len(nodes))
		if *printSecrets {
			fmt.Printf("  secret %s\n", secret)
		}
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	s := <-sig
	logger.Printf("received %s, shutting down", s)
	return nil
}
