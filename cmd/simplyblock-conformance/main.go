// Command simplyblock-conformance checks, read-only, that a live simplyblock
// control plane answers the way provider-simplyblock reads it: every
// response shape and behaviour the provider decides on, as sbcli 754ff3e1
// has them (internal/conformance). It prints one line per check, PASS, FAIL
// or SKIP, with the reason and the sbcli file:line or document section the
// expectation comes from, and exits 1 when a check failed.
//
//	make conformance SIMPLYBLOCK_ENDPOINT=https://sb-api:5000 SIMPLYBLOCK_TOKEN=... [SIMPLYBLOCK_CA_FILE=ca.pem] [SIMPLYBLOCK_CLUSTER=<uuid>]
//
// It only sends GETs (never retried, never redirected) and never prints the
// token or a cluster secret. The token is read from SIMPLYBLOCK_TOKEN or
// --token-file, never from a flag, so that it stays out of the process
// list. Every other setting is a flag whose default is its environment
// variable:
//
//	--endpoint      SIMPLYBLOCK_ENDPOINT       the API base URL, e.g. https://sb-api:5000 (a trailing /api/v2 is dropped)
//	--ca-file       SIMPLYBLOCK_CA_FILE        PEM CA certificates to trust besides the system pool
//	--cluster       SIMPLYBLOCK_CLUSTER        the cluster the per-cluster checks read (default: the token's, else the first)
//	--client-cert-file, --client-key-file      SIMPLYBLOCK_CLIENT_CERT_FILE, SIMPLYBLOCK_CLIENT_KEY_FILE: mutual TLS
//	--insecure-skip-verify                     SIMPLYBLOCK_INSECURE_SKIP_VERIFY=true: no certificate verification (tests only)
//
// When the vendor OpenAPI spec is found (--spec, default
// ../shared/reference/simplyblock-api-v2.openapi.json beside the
// repository), every answer is also validated against it with the
// documented deviations (internal/contract): check vendor-spec.
//
// Exit status: 0 when no check failed, 1 when one did, 2 for a usage error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/conformance/opsclassify"
	"github.com/simplyblock/provider-simplyblock/internal/contract"
	"github.com/simplyblock/provider-simplyblock/internal/version"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("simplyblock-conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	insecureDefault, _ := strconv.ParseBool(getenv("SIMPLYBLOCK_INSECURE_SKIP_VERIFY"))
	var (
		endpoint  = fs.String("endpoint", getenv("SIMPLYBLOCK_ENDPOINT"), "API base URL, e.g. https://sb-api:5000 (env SIMPLYBLOCK_ENDPOINT)")
		tokenFile = fs.String("token-file", "", "file holding the bearer token, instead of the environment variable SIMPLYBLOCK_TOKEN")
		caFile    = fs.String("ca-file", getenv("SIMPLYBLOCK_CA_FILE"), "PEM CA certificates to trust (env SIMPLYBLOCK_CA_FILE)")
		cluster   = fs.String("cluster", getenv("SIMPLYBLOCK_CLUSTER"), "cluster the per-cluster checks read (env SIMPLYBLOCK_CLUSTER)")
		certFile  = fs.String("client-cert-file", getenv("SIMPLYBLOCK_CLIENT_CERT_FILE"), "PEM client certificate for mutual TLS")
		keyFile   = fs.String("client-key-file", getenv("SIMPLYBLOCK_CLIENT_KEY_FILE"), "PEM client key for mutual TLS")
		insecure  = fs.Bool("insecure-skip-verify", insecureDefault, "do not verify the server certificate (tests only)")
		limit     = fs.Int("log-limit", conformance.DefaultLogLimit, "limit of the first event-log read")
		timeout   = fs.Duration("timeout", 30*time.Second, "timeout of each request")
		specPath  = fs.String("spec", contract.SpecPath(), "vendor OpenAPI spec to validate every answer against; empty skips it")
	)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "simplyblock-conformance: "+format+"\n", a...)
		return exitUsage
	}
	if *endpoint == "" {
		return usage("no endpoint: set SIMPLYBLOCK_ENDPOINT (or --endpoint), e.g. https://sb-api:5000")
	}
	token := getenv("SIMPLYBLOCK_TOKEN")
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return usage("cannot read the token file: %v", err)
		}
		token = string(b)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return usage("no token: set SIMPLYBLOCK_TOKEN (or --token-file) to an admin service-account token or a cluster secret")
	}
	cfg := sb.Config{
		BaseURL:            strings.TrimSuffix(strings.TrimSuffix(*endpoint, "/"), "/api/v2"),
		Token:              token,
		InsecureSkipVerify: *insecure,
		Timeout:            *timeout,
		UserAgentVersion:   version.Version + " conformance",
	}
	for _, f := range []struct {
		path, what string
		into       *[]byte
	}{{*caFile, "CA file", &cfg.CABundle}, {*certFile, "client certificate", &cfg.ClientCert}, {*keyFile, "client key", &cfg.ClientKey}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return usage("cannot read the %s: %v", f.what, err)
		}
		*f.into = b
	}

	var exchanges []conformance.Exchange
	rep, err := conformance.Run(ctx, conformance.Options{
		Config: cfg, ClusterID: *cluster, LogLimit: *limit, Classify: opsclassify.Classify,
		Observe: func(ex conformance.Exchange) { exchanges = append(exchanges, ex) },
	})
	if err != nil {
		return usage("%v", err)
	}
	vendorSpec(rep, *specPath, exchanges)
	if err := rep.Write(stdout); err != nil {
		return exitFailed
	}
	if rep.Failed() {
		return exitFailed
	}
	return exitOK
}

// vendorSpec validates every answer against the vendor spec with the
// documented deviations (internal/contract), as the tests validate the
// simulator's, and adds the result.
func vendorSpec(rep *conformance.Report, path string, exchanges []conformance.Exchange) {
	if path == "" {
		rep.Add(conformance.Result{ID: conformance.CheckVendorSpec, Status: conformance.Skip, Detail: "no spec given (--spec)"})
		return
	}
	if _, err := os.Stat(path); err != nil {
		rep.Add(conformance.Result{ID: conformance.CheckVendorSpec, Status: conformance.Skip,
			Detail: fmt.Sprintf("the vendor spec is not at %s (--spec)", path)})
		return
	}
	spec, err := contract.LoadSpec(path)
	if err != nil {
		rep.Add(conformance.Result{ID: conformance.CheckVendorSpec, Status: conformance.Skip, Detail: fmt.Sprintf("cannot load %s: %v", path, err)})
		return
	}
	var problems []string
	checked := 0
	for _, x := range exchanges {
		if x.Err != nil {
			continue
		}
		header := http.Header{"Accept": {"application/json"}}
		if !x.NoAuth {
			// The spec only asks for a bearer token; the real one stays out.
			header.Set("Authorization", "Bearer checked")
		}
		ex := contract.Exchange{Method: http.MethodGet, Path: "/api/v2" + x.Path, Query: x.Query, RequestHeader: header,
			Status: x.StatusCode, ResponseHeader: x.Header, ResponseBody: x.Body}
		got := spec.CheckResponse(ex)
		if x.StatusCode != http.StatusTemporaryRedirect {
			// A request the backend redirects is the other spelling of a
			// declared path, sent on purpose.
			got = append(spec.CheckRequest(ex), got...)
		}
		for _, p := range got {
			problems = append(problems, fmt.Sprintf("GET %s (HTTP %d): %s", ex.Path, x.StatusCode, p))
		}
		checked++
	}
	if len(problems) > 0 {
		more := ""
		if len(problems) > 4 {
			more = fmt.Sprintf("; and %d more", len(problems)-4)
			problems = problems[:4]
		}
		rep.Add(conformance.Result{ID: conformance.CheckVendorSpec, Status: conformance.Fail, Detail: strings.Join(problems, "; ") + more})
		return
	}
	rep.Add(conformance.Result{ID: conformance.CheckVendorSpec, Status: conformance.Pass,
		Detail: fmt.Sprintf("all %d answers are valid against the spec with the documented deviations and extra checks", checked)})
}
