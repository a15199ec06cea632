package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/pkg/errors"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// DefaultLogLimit is the limit of the first /logs read: the backend's own
// default (cluster/__init__.py:202).
const DefaultLogLimit = 50

// Options configure Run.
type Options struct {
	// Config reaches the control plane: endpoint, token, TLS. Its Token
	// is never printed.
	Config sb.Config
	// ClusterID is the cluster the per-cluster checks read; by default the
	// cluster whose secret is the token, else the first listed.
	ClusterID string
	// LogLimit is the limit of the first /logs read; DefaultLogLimit when 0.
	LogLimit int
	// Classify is the provider's reading of a log entry; without it
	// logs-classification is skipped.
	Classify Classifier
	// Observe, when set, receives every exchange (the command validates
	// them against the vendor spec). Bodies may hold cluster secrets.
	Observe func(Exchange)
}

// Run checks the control plane of o.Config, sending only GETs, and returns
// one Result per check. The error is for a configuration that cannot make
// a client; a backend that does not answer fails checks instead.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.LogLimit <= 0 {
		o.LogLimit = DefaultLogLimit
	}
	c, err := sb.New(o.Config)
	if err != nil {
		return nil, errors.Wrap(err, "cannot create client")
	}
	invalid := o.Config
	invalid.Token = invalidToken()
	wrong, err := sb.New(invalid)
	if err != nil {
		return nil, errors.Wrap(err, "cannot create client")
	}
	r := &runner{c: c, wrong: wrong, o: o, rep: &Report{Endpoint: o.Config.BaseURL}}
	r.rep.addSecret(o.Config.Token)
	for _, check := range []func(context.Context){
		r.health, r.invalidToken, r.clusters, r.clusterDetail, r.redirects, r.notFound,
		r.nodes, r.nodeDetail, r.pools, r.tasks, r.logShape, r.logLimit, r.logClassification,
	} {
		check(ctx)
	}
	r.rep.Cluster = r.cluster
	return r.rep, nil
}

// invalidToken is a bearer token no backend accepts: sbcli's cluster
// secrets are 20 letters and digits, a service-account token is a JWT.
func invalidToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "conformance-invalid-" + hex.EncodeToString(b)
}

// runner holds what one Run learnt so far.
type runner struct {
	c, wrong sb.RawGetter
	o        Options
	rep      *Report

	listed      bool                 // the cluster list was read
	cluster     string               // the cluster the per-cluster checks read
	secretToken bool                 // the token is a listed cluster's secret
	node        string               // the node storage-node-detail reads
	logEmpty    bool                 // /logs answered the empty log's 500
	limited     []sb.ClusterLogEntry // the limit=LogLimit read
	all         []sb.ClusterLogEntry // the limit=0 read
}

func (r *runner) get(ctx context.Context, path string, q url.Values, noAuth, invalid bool) (*sb.RawResponse, error) {
	c := r.c
	if invalid {
		c = r.wrong
	}
	resp, err := c.GetRaw(ctx, path, q, noAuth)
	if r.o.Observe != nil {
		ex := Exchange{Path: path, Query: q, NoAuth: noAuth, InvalidToken: invalid, Err: err}
		if resp != nil {
			ex.StatusCode, ex.Header, ex.Body = resp.StatusCode, resp.Header, resp.Body
		}
		r.o.Observe(ex)
	}
	return resp, err
}

func (r *runner) add(id string, st Status, format string, args ...any) {
	r.rep.Add(Result{ID: id, Status: st, Detail: fmt.Sprintf(format, args...)})
}

// request renders a request for a Detail.
func request(path string, q url.Values) string {
	s := "GET /api/v2" + path
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// answer renders an answer for a Detail: its status and, for an error,
// the start of its body (the Report redacts it). A success body is never
// shown: it may hold cluster secrets not known yet (an invalid token
// accepted on GET /clusters/).
func answer(resp *sb.RawResponse) string {
	if resp.StatusCode < 300 {
		if len(bytes.TrimSpace(resp.Body)) == 0 {
			return strconv.Itoa(resp.StatusCode)
		}
		return fmt.Sprintf("%d (a %d-byte body, not shown)", resp.StatusCode, len(resp.Body))
	}
	body := strings.TrimSpace(string(resp.Body))
	if len(body) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + "…"
	}
	if body == "" {
		return strconv.Itoa(resp.StatusCode)
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// detailOf returns the string "detail" of a JSON error body.
func detailOf(body []byte) (string, bool) {
	var env struct {
		Detail *string `json:"detail"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Detail == nil {
		return "", false
	}
	return *env.Detail, true
}

// needCluster adds a SKIP for id when there is no cluster to read.
func (r *runner) needCluster(id string) bool {
	if r.cluster != "" {
		return true
	}
	why := "the cluster list could not be read; set SIMPLYBLOCK_CLUSTER"
	if r.listed {
		why = "no cluster is listed; set SIMPLYBLOCK_CLUSTER or create one"
	}
	r.add(id, Skip, "no cluster to read: %s", why)
	return false
}

func (r *runner) health(ctx context.Context) {
	const path = "/_meta/health"
	resp, err := r.get(ctx, path, nil, true, false)
	switch {
	case err != nil:
		r.add(CheckHealth, Fail, "%s: %v", request(path, nil), err)
	case resp.StatusCode != http.StatusNoContent:
		r.add(CheckHealth, Fail, "%s without a token answered %s, want 204", request(path, nil), answer(resp))
	default:
		r.add(CheckHealth, Pass, "%s without a token answered 204", request(path, nil))
	}
}

func (r *runner) invalidToken(ctx context.Context) {
	const path = "/clusters/"
	resp, err := r.get(ctx, path, nil, false, true)
	if err != nil {
		r.add(CheckAuthInvalidToken, Fail, "%s: %v", request(path, nil), err)
		return
	}
	if d, ok := detailOf(resp.Body); resp.StatusCode != http.StatusUnauthorized || !ok || d != "Invalid token" {
		r.add(CheckAuthInvalidToken, Fail, `%s with an invalid token answered %s, want 401 {"detail":"Invalid token"}`,
			request(path, nil), answer(resp))
		return
	}
	r.add(CheckAuthInvalidToken, Pass, `%s with an invalid token answered 401 {"detail":"Invalid token"}`, request(path, nil))
}

func (r *runner) clusters(ctx context.Context) {
	const path = "/clusters/"
	defer func() {
		if r.o.ClusterID != "" {
			r.cluster = r.o.ClusterID
		}
	}()
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckClusters, Fail, "%s: %v", request(path, nil), err)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckClusters, Fail, "%s answered %s, want 200 and a list of ClusterDTO", request(path, nil), answer(resp))
		return
	}
	r.listed = true
	infos, f := checkClusterDTOs(resp.Body, true)
	for _, c := range infos {
		r.rep.addSecret(c.secret)
		if c.secret != "" && subtle.ConstantTimeCompare([]byte(c.secret), []byte(r.o.Config.Token)) == 1 {
			r.secretToken = true
			if r.cluster == "" {
				r.cluster = c.id
			}
		}
	}
	if r.cluster == "" && len(infos) > 0 {
		r.cluster = infos[0].id
	}
	if fails := f.failures(true); len(fails) > 0 {
		r.add(CheckClusters, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	if len(infos) == 0 {
		r.add(CheckClusters, Pass, "%s answered 200 []: no cluster, the per-cluster checks are skipped", request(path, nil))
		return
	}
	statuses := make([]string, 0, len(infos))
	for _, c := range infos {
		statuses = append(statuses, c.status)
	}
	r.add(CheckClusters, Pass, "%s answered 200: %d ClusterDTO, every key; status %s; is_re_balancing a boolean; secret present (not shown)%s",
		request(path, nil), len(infos), strings.Join(statuses, ", "), notes(f.remarks(true)))
}

// notes renders remarks after a PASS detail.
func notes(remarks []string) string {
	if len(remarks) == 0 {
		return ""
	}
	return "; note: " + summarize(remarks, 3)
}

func (r *runner) clusterDetail(ctx context.Context) {
	if !r.needCluster(CheckClusterDetail) {
		return
	}
	path := "/clusters/" + url.PathEscape(r.cluster) + "/"
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckClusterDetail, Fail, "%s: %v", request(path, nil), err)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckClusterDetail, Fail, "%s answered %s, want 200 and a ClusterDTO", request(path, nil), answer(resp))
		return
	}
	infos, f := checkClusterDTOs(resp.Body, false)
	for _, c := range infos {
		r.rep.addSecret(c.secret)
	}
	fails := f.failures(true)
	if len(infos) == 1 && infos[0].id != r.cluster {
		fails = append(fails, fmt.Sprintf("id %q, want %q", infos[0].id, r.cluster))
	}
	if len(fails) > 0 {
		r.add(CheckClusterDetail, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	r.add(CheckClusterDetail, Pass, "%s answered 200: the ClusterDTO of that id, status %s%s", request(path, nil), infos[0].status,
		notes(f.remarks(true)))
}

// redirects: FastAPI declares collections and instances with a trailing
// slash and actions without; Starlette answers the other spelling with a
// 307 to the declared one, with an absolute Location, before any
// dependency runs. The client never follows it.
func (r *runner) redirects(ctx context.Context) {
	type probe struct{ path, want string }
	probes := []probe{{"/clusters", "/clusters/"}}
	if r.cluster != "" {
		id := url.PathEscape(r.cluster)
		probes = append(probes, probe{"/clusters/" + id, "/clusters/" + id + "/"}, probe{"/clusters/" + id + "/logs/", "/clusters/" + id + "/logs"})
	}
	var fails, seen []string
	for _, p := range probes {
		resp, err := r.get(ctx, p.path, nil, false, false)
		if err != nil {
			fails = append(fails, fmt.Sprintf("%s: %v", request(p.path, nil), err))
			continue
		}
		loc := resp.Header.Get("Location")
		u, perr := url.Parse(loc)
		switch {
		case resp.StatusCode != http.StatusTemporaryRedirect:
			fails = append(fails, fmt.Sprintf("%s answered %s, want 307", request(p.path, nil), answer(resp)))
		case perr != nil || !u.IsAbs() || u.Host == "":
			fails = append(fails, fmt.Sprintf("%s answered 307 with Location %q, want an absolute URL", request(p.path, nil), loc))
		case !strings.HasSuffix(u.Path, "/api/v2"+p.want):
			fails = append(fails, fmt.Sprintf("%s answered 307 to %q, want …/api/v2%s", request(p.path, nil), loc, p.want))
		default:
			seen = append(seen, p.path+" → "+p.want)
		}
	}
	if len(fails) > 0 {
		r.add(CheckRedirect, Fail, "%s", summarize(fails, 3))
		return
	}
	r.add(CheckRedirect, Pass, "307 with an absolute Location: %s", strings.Join(seen, ", "))
}

func (r *runner) notFound(ctx context.Context) {
	id := uuid.NewString()
	path := "/clusters/" + id + "/"
	resp, err := r.get(ctx, path, nil, false, false)
	if err != nil {
		r.add(CheckClusterNotFound, Fail, "%s: %v", request(path, nil), err)
		return
	}
	d, ok := detailOf(resp.Body)
	if r.secretToken {
		// A cluster secret is refused on another cluster's routes before
		// the lookup (_auth.py:152-156).
		if resp.StatusCode != http.StatusUnauthorized || !ok || d != "Invalid token" {
			r.add(CheckClusterNotFound, Fail, `%s (a random id) with a cluster-secret token answered %s, want 401 {"detail":"Invalid token"}`,
				request(path, nil), answer(resp))
			return
		}
		r.add(CheckClusterNotFound, Pass, `%s (a random id): 401 {"detail":"Invalid token"}, as a cluster-secret token gets before the `+
			"lookup; an admin token would get the 404", request(path, nil))
		return
	}
	want := "'Cluster " + id + " not found'"
	if resp.StatusCode != http.StatusNotFound || !ok || d != want {
		r.add(CheckClusterNotFound, Fail, "%s (a random id) answered %s, want 404 {\"detail\":%q}", request(path, nil), answer(resp), want)
		return
	}
	r.add(CheckClusterNotFound, Pass, "%s (a random id) answered 404 {\"detail\":%q}, quoted", request(path, nil), want)
}

func (r *runner) nodes(ctx context.Context) {
	if !r.needCluster(CheckNodes) {
		return
	}
	path := "/clusters/" + url.PathEscape(r.cluster) + "/storage-nodes/"
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckNodes, Fail, "%s: %v", request(path, nil), err)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckNodes, Fail, "%s answered %s, want 200 and a list of StorageNodeDTO", request(path, nil), answer(resp))
		return
	}
	infos, f := checkNodeDTOs(resp.Body, true)
	// Read an online node's detail, whose uptime is set, else the first.
	for _, n := range infos {
		if n.status == string(sb.NodeOnline) {
			r.node = n.id
			break
		}
	}
	if r.node == "" && len(infos) > 0 {
		r.node = infos[0].id
	}
	if fails := f.failures(true); len(fails) > 0 {
		r.add(CheckNodes, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	if len(infos) == 0 {
		r.add(CheckNodes, Pass, "%s answered 200 []: no node, storage-node-detail is skipped", request(path, nil))
		return
	}
	counts := map[string]int{}
	var order []string
	uptime := ""
	for _, n := range infos {
		if counts[n.status] == 0 {
			order = append(order, n.status)
		}
		counts[n.status]++
		if uptime == "" && n.uptime != nil && n.status == string(sb.NodeOnline) {
			uptime = *n.uptime
		}
	}
	parts := make([]string, 0, len(order))
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
	}
	up := "no node online to parse an uptime of"
	if uptime != "" {
		up = fmt.Sprintf("uptime of every online node parses (e.g. %q)", uptime)
	}
	r.add(CheckNodes, Pass, "%s answered 200: %d StorageNodeDTO, every key; %s; mgmt_ip IPv4; %s%s", request(path, nil), len(infos),
		strings.Join(parts, ", "), up, notes(f.remarks(true)))
}

func (r *runner) nodeDetail(ctx context.Context) {
	if !r.needCluster(CheckNodeDetail) {
		return
	}
	if r.node == "" {
		r.add(CheckNodeDetail, Skip, "no node to read: the node list is empty or could not be read")
		return
	}
	path := "/clusters/" + url.PathEscape(r.cluster) + "/storage-nodes/" + url.PathEscape(r.node) + "/"
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckNodeDetail, Fail, "%s: %v", request(path, nil), err)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckNodeDetail, Fail, "%s answered %s, want 200 and a StorageNodeDTO", request(path, nil), answer(resp))
		return
	}
	infos, f := checkNodeDTOs(resp.Body, false)
	fails := f.failures(true)
	if len(infos) == 1 && infos[0].id != r.node {
		fails = append(fails, fmt.Sprintf("id %q, want %q", infos[0].id, r.node))
	}
	if len(fails) > 0 {
		r.add(CheckNodeDetail, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	up := "uptime null"
	if infos[0].uptime != nil {
		up = fmt.Sprintf("uptime %q parses", *infos[0].uptime)
	}
	r.add(CheckNodeDetail, Pass, "%s answered 200: the StorageNodeDTO of that id, status %s, %s%s", request(path, nil),
		infos[0].status, up, notes(f.remarks(true)))
}

func (r *runner) pools(ctx context.Context) {
	if !r.needCluster(CheckPools) {
		return
	}
	path := "/clusters/" + url.PathEscape(r.cluster) + "/storage-pools/"
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckPools, Fail, "%s: %v", request(path, nil), err)
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckPools, Fail, "%s answered %s, want 200 and a list of StoragePoolDTO", request(path, nil), answer(resp))
		return
	}
	n, f := checkPoolDTOs(resp.Body)
	if fails := f.failures(true); len(fails) > 0 {
		r.add(CheckPools, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	r.add(CheckPools, Pass, "%s answered 200: %d StoragePoolDTO, every key, status active or inactive%s", request(path, nil), n,
		notes(f.remarks(true)))
}

func (r *runner) tasks(ctx context.Context) {
	if !r.needCluster(CheckTasks) {
		return
	}
	path := "/clusters/" + url.PathEscape(r.cluster) + "/tasks/"
	resp, err := r.get(ctx, path, nil, false, false)
	switch {
	case err != nil:
		r.add(CheckTasks, Fail, "%s: %v", request(path, nil), err)
		return
	case isPlain500(resp):
		r.add(CheckTasks, Pass, "%s answered the plain-text 500: a task whose function_name is outside TaskDTO's enum exists "+
			"(fdb_backup, cluster_expand, lvol_sync_op, …); the provider reads the task list as unavailable while it does",
			request(path, nil))
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckTasks, Fail, "%s answered %s, want 200 and a list of TaskDTO, or the plain-text 500", request(path, nil), answer(resp))
		return
	}
	fns, f := checkTaskDTOs(resp.Body)
	if fails := f.failures(true); len(fails) > 0 {
		r.add(CheckTasks, Fail, "%s: %s", request(path, nil), summarize(fails, 4))
		return
	}
	what := "no task"
	if len(fns) > 0 {
		what = "function_name " + strings.Join(fns, ", ")
	}
	r.add(CheckTasks, Pass, "%s answered 200: a list of TaskDTO, every key (%s)%s", request(path, nil), what, notes(f.remarks(true)))
}

func (r *runner) logsPath() string { return "/clusters/" + url.PathEscape(r.cluster) + "/logs" }

func limitQuery(n int) url.Values { return url.Values{"limit": {strconv.Itoa(n)}} }

func (r *runner) logShape(ctx context.Context) {
	if !r.needCluster(CheckLogShape) {
		return
	}
	q := limitQuery(r.o.LogLimit)
	resp, err := r.get(ctx, r.logsPath(), q, false, false)
	switch {
	case err != nil:
		r.add(CheckLogShape, Fail, "%s: %v", request(r.logsPath(), q), err)
		return
	case isPlain500(resp):
		r.logEmpty = true
		r.add(CheckLogShape, Pass, "%s answered the plain-text 500 of an empty log (cluster/__init__.py:205-206): no entry to check; "+
			"the provider reads it as an empty log", request(r.logsPath(), q))
		return
	case resp.StatusCode != http.StatusOK:
		r.add(CheckLogShape, Fail, "%s answered %s, want 200 and log entries, or the plain-text 500 of an empty log",
			request(r.logsPath(), q), answer(resp))
		return
	}
	entries, f := checkLogBody(resp.Body)
	r.limited = entries
	if fails := f.failures(true); len(fails) > 0 {
		r.add(CheckLogShape, Fail, "%s: %s", request(r.logsPath(), q), summarize(fails, 4))
		return
	}
	r.add(CheckLogShape, Pass, "%s answered 200: %d entries, each exactly the keys %s, all strings; Date %s, oldest first",
		request(r.logsPath(), q), len(entries), "Date, NodeId, Event, Level, Message, Storage_ID, VUID, Status", "YYYY-MM-DD HH:MM:SS[.mmm]")
}

func (r *runner) logLimit(ctx context.Context) {
	switch {
	case r.cluster == "":
		r.add(CheckLogLimit, Skip, "no cluster to read")
		return
	case r.logEmpty:
		r.add(CheckLogLimit, Skip, "the log is empty: no limit to compare")
		return
	case r.limited == nil:
		r.add(CheckLogLimit, Skip, "%s did not read log entries: nothing to compare", CheckLogShape)
		return
	case len(r.limited) == 0:
		r.add(CheckLogLimit, Skip, "limit=%d returned no entry: nothing to compare", r.o.LogLimit)
		return
	}
	all, ok := r.readLog(ctx, 0)
	if !ok {
		return
	}
	r.all = all
	limited, ok := r.readLog(ctx, r.o.LogLimit)
	if !ok {
		return
	}
	asked := len(all) + r.o.LogLimit
	more, ok := r.readLog(ctx, asked)
	if !ok {
		return
	}
	if fails := checkLimits(r.o.LogLimit, all, limited, more, asked); len(fails) > 0 {
		r.add(CheckLogLimit, Fail, "%s", summarize(fails, 3))
		return
	}
	r.add(CheckLogLimit, Pass, "limit=0 returned all %d entries (limit=%d returned them%s); limit=%d returned the newest %d, oldest first",
		len(all), asked, appended(len(more)-len(all)), r.o.LogLimit, len(limited))
}

func appended(n int) string {
	switch {
	case n == 1:
		return " and 1 entry written since"
	case n > 1:
		return fmt.Sprintf(" and %d entries written since", n)
	}
	return ""
}

// readLog reads the log with limit n for logs-limit, or adds its FAIL.
func (r *runner) readLog(ctx context.Context, n int) ([]sb.ClusterLogEntry, bool) {
	q := limitQuery(n)
	resp, err := r.get(ctx, r.logsPath(), q, false, false)
	switch {
	case err != nil:
		r.add(CheckLogLimit, Fail, "%s: %v", request(r.logsPath(), q), err)
		return nil, false
	case resp.StatusCode != http.StatusOK:
		r.add(CheckLogLimit, Fail, "%s answered %s, want 200 and the log's entries (limit=%d returned %d)", request(r.logsPath(), q),
			answer(resp), r.o.LogLimit, len(r.limited))
		return nil, false
	}
	entries, f := checkLogBody(resp.Body)
	switch {
	case len(f.fatal) > 0:
		r.add(CheckLogLimit, Fail, "%s: %s", request(r.logsPath(), q), summarize(f.fatal, 3))
		return nil, false
	case len(entries) == 0:
		r.add(CheckLogLimit, Fail, "%s answered 200 [] although limit=%d returned %d entries: the backend returns every entry for "+
			"limit=0 and answers an empty log with the plain-text 500", request(r.logsPath(), q), r.o.LogLimit, len(r.limited))
		return nil, false
	}
	return entries, true
}

func (r *runner) logClassification(context.Context) {
	entries := r.all
	if len(entries) == 0 {
		entries = r.limited
	}
	switch {
	case r.o.Classify == nil:
		r.add(CheckLogClassification, Skip, "no classifier given (cmd/simplyblock-conformance passes internal/ops.ParseLogEntry)")
		return
	case len(entries) == 0:
		r.add(CheckLogClassification, Skip, "no log entries to classify")
		return
	}
	n, f := classifyEntries(entries, r.o.Classify)
	if len(f.fatal) > 0 {
		r.add(CheckLogClassification, Fail, "%s", summarize(f.fatal, 3))
		return
	}
	if n.cluster+n.node == 0 {
		r.add(CheckLogClassification, Skip, "none of the %d entries is a %q or %q STATUS_CHANGE; they are read as no status change",
			len(entries), clusterChangePrefix, nodeChangePrefix)
		return
	}
	r.add(CheckLogClassification, Pass, "of %d entries, the provider reads %d %q as the cluster's status changes and %d %q as "+
		"their node's, between statuses it knows, and the %d others as no status change", len(entries), n.cluster,
		clusterChangePrefix+" from X to Y", n.node, nodeChangePrefix+" from: X to: Y", n.other)
}
