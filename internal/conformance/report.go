package conformance

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// A Status is the outcome of one check.
type Status string

// Statuses.
const (
	// Pass: the backend answers as the provider reads it.
	Pass Status = "PASS"
	// Fail: it does not; Detail says how.
	Fail Status = "FAIL"
	// Skip: the check could not run (nothing to check, or a check it
	// depends on failed); Detail says why.
	Skip Status = "SKIP"
)

// Check IDs; doc.go describes each.
const (
	CheckHealth            = "health"
	CheckAuthInvalidToken  = "auth-invalid-token"
	CheckClusters          = "clusters-list"
	CheckClusterDetail     = "cluster-detail"
	CheckRedirect          = "trailing-slash-307"
	CheckClusterNotFound   = "cluster-not-found"
	CheckNodes             = "storage-nodes-list"
	CheckNodeDetail        = "storage-node-detail"
	CheckPools             = "storage-pools-list"
	CheckTasks             = "tasks-list"
	CheckLogShape          = "logs-entry-shape"
	CheckLogLimit          = "logs-limit"
	CheckLogClassification = "logs-classification"
	CheckVendorSpec        = "vendor-spec"
)

// Prefixes of the sources.
const (
	sbcli           = "sbcli "
	sbcliWeb        = sbcli + "simplyblock_web/api/v2/"
	sbcliCore       = sbcli + "simplyblock_core/"
	backendContract = "backend-contract.md "
	docsEventLog    = `docs/backend.md "The event log"`
)

// Sources are where each check's expectation comes from: sbcli 754ff3e1
// file:line (simplyblock_web/api/v2/... and simplyblock_core/...), or the
// document section.
var Sources = map[string]string{
	CheckHealth:           sbcliWeb + "meta.py:11-14",
	CheckAuthInvalidToken: sbcliWeb + "_auth.py:135-156",
	CheckClusters:         sbcliWeb + "cluster/__init__.py:113-122, _dtos.py:30-39,111-164",
	CheckClusterDetail:    sbcliWeb + "cluster/__init__.py:151-157, _dtos.py:111-164",
	CheckRedirect:         backendContract + "§1.1 (Starlette redirect_slashes); " + sbcliWeb + "cluster/__init__.py:151,201",
	CheckClusterNotFound:  sbcliWeb + "_dependencies.py:27-31, _auth.py:152-156; " + sbcliCore + "db_controller.py:402-408",
	CheckNodes: sbcliWeb + "cluster/storage_node/__init__.py:22-30, _dtos.py:43-54,310-370; " +
		sbcliCore + "models/storage_node.py:956-961",
	CheckNodeDetail: sbcliWeb + "cluster/storage_node/__init__.py:106-112, _dtos.py:310-370",
	CheckPools:      sbcliWeb + "cluster/storage_pool/__init__.py:24-29, _dtos.py:41,230-261",
	CheckTasks:      sbcliWeb + "cluster/task.py:16-24, _dtos.py:56,70-88,373-402; " + backendContract + "M5",
	CheckLogShape: sbcliCore + "cluster_ops.py:2380-2413, models/events.py:33-37; " + sbcliWeb + "cluster/__init__.py:201-208; " +
		"internal/contract log-entry-shape",
	CheckLogLimit: sbcliCore + "cluster_ops.py:2383-2385, models/base_model.py:254-275; " + sbcliWeb + "cluster/__init__.py:202",
	CheckLogClassification: sbcliCore + "controllers/cluster_events.py:34-41, controllers/storage_events.py:46-56; " +
		docsEventLog + "; internal/ops/eventlog.go",
	CheckVendorSpec: "simplyblock-api-v2.openapi.json with internal/contract's deviations and extra checks",
}

// A Result is the outcome of one check.
type Result struct {
	// ID names the check (Check* constants).
	ID string
	// Status is PASS, FAIL or SKIP.
	Status Status
	// Detail says what matched, what did not, or why the check was
	// skipped. It never holds the token or a cluster secret.
	Detail string
	// Source is where the expectation comes from (Sources).
	Source string
}

// An Exchange is one GET the check sent and its answer as received. Its
// body may hold cluster secrets (GET /clusters/ returns them): never print
// it.
type Exchange struct {
	Path   string // below /api/v2, as sent
	Query  url.Values
	NoAuth bool
	// InvalidToken: sent with a deliberately invalid token.
	InvalidToken bool
	// Err is the transport error, if nothing was answered.
	Err        error
	StatusCode int
	Header     http.Header
	Body       []byte
}

// A Report is the outcome of Run: one Result per check, in order.
type Report struct {
	// Endpoint is the control plane checked.
	Endpoint string
	// Cluster is the cluster the per-cluster checks read, "" when none.
	Cluster string
	Results []Result

	secrets []string
}

// Add appends r, with the token and every cluster secret seen scrubbed
// from its Detail.
func (rep *Report) Add(r Result) {
	if r.Source == "" {
		r.Source = Sources[r.ID]
	}
	r.Detail = rep.Redact(r.Detail)
	rep.Results = append(rep.Results, r)
}

// Redact replaces the token and every cluster secret seen in s.
func (rep *Report) Redact(s string) string { return redact(rep.secrets, s) }

func (rep *Report) addSecret(s string) {
	if strings.TrimSpace(s) != "" {
		rep.secrets = append(rep.secrets, s)
	}
}

func redact(secrets []string, s string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

// Counts returns how many checks passed, failed and were skipped.
func (rep *Report) Counts() (pass, fail, skip int) {
	for _, r := range rep.Results {
		switch r.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		case Skip:
			skip++
		}
	}
	return pass, fail, skip
}

// Failed reports whether any check failed.
func (rep *Report) Failed() bool {
	_, fail, _ := rep.Counts()
	return fail > 0
}

// Result returns the result of check id.
func (rep *Report) Result(id string) (Result, bool) {
	for _, r := range rep.Results {
		if r.ID == id {
			return r, true
		}
	}
	return Result{}, false
}

// Write prints the report: a header, one line per check
// ("PASS  clusters-list         <detail>  [<source>]") and a summary.
func (rep *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "simplyblock conformance of %s", rep.Endpoint)
	if rep.Cluster != "" {
		fmt.Fprintf(&b, " (cluster %s)", rep.Cluster)
	}
	b.WriteString(": read-only, GETs only\n")
	for _, r := range rep.Results {
		fmt.Fprintf(&b, "%-4s  %-20s  %s  [%s]\n", r.Status, r.ID, r.Detail, r.Source)
	}
	pass, fail, skip := rep.Counts()
	fmt.Fprintf(&b, "%d checks: %d PASS, %d FAIL, %d SKIP\n", len(rep.Results), pass, fail, skip)
	_, err := io.WriteString(w, b.String())
	return err
}
