package conformance

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// ProbeLogLimit is how many log entries Probe reads.
const ProbeLogLimit = 20

// A State is Probe's verdict on a control plane.
type State string

// States.
const (
	// Conformant: what the probe read, the provider reads correctly.
	Conformant State = "Conformant"
	// Nonconformant: the provider would decide wrongly on what it read.
	Nonconformant State = "Nonconformant"
	// Unchecked: the probe could not read the cluster list (transport
	// error, refused token, 5xx): no verdict.
	Unchecked State = "Unchecked"
)

// A Verdict is what Probe found.
type Verdict struct {
	State State
	// Complete is set when every check of the probe ran on real content:
	// the cluster list failed, or a cluster's log was read with entries.
	// An incomplete verdict is worth repeating later.
	Complete bool
	// Cluster is the cluster whose log was read.
	Cluster string
	// Results holds one Result per check that ran or was skipped.
	Results []Result
	// Reason says why the verdict is Unchecked or incomplete.
	Reason string
}

// Failures returns "<check>: <detail>" of every FAIL.
func (v Verdict) Failures() []string {
	var out []string
	for _, r := range v.Results {
		if r.Status == Fail {
			out = append(out, r.ID+": "+r.Detail)
		}
	}
	return out
}

// Probe is the provider's check of a control plane when it connects
// through a ProviderConfig: the subset of Run it needs to decide, in two
// GETs. GET /clusters/ must decode as ClusterDTO with the fields the
// provider decides on; GET /clusters/{id}/logs?limit=ProbeLogLimit of one
// cluster (the token's own, when the token is a cluster secret) must be
// log entries the provider can place and classify, or the empty log's
// plain-text 500; with classify, its status changes must read as the
// provider's. Differences in what the provider does not read are noted in
// a PASS, not failed. token is only compared with the cluster secrets, to
// pick the cluster, and scrubbed from every Detail.
func Probe(ctx context.Context, api sb.RawGetter, token string, classify Classifier) Verdict {
	rep := &Report{}
	rep.addSecret(token)
	v := probe(ctx, api, token, classify, rep)
	v.Results = rep.Results
	v.Reason = rep.Redact(v.Reason)
	switch {
	case v.State == Unchecked:
	case len(v.Failures()) > 0:
		v.State, v.Complete = Nonconformant, true
	default:
		v.State = Conformant
	}
	return v
}

func probe(ctx context.Context, api sb.RawGetter, token string, classify Classifier, rep *Report) Verdict {
	const clustersPath = "/clusters/"
	resp, err := api.GetRaw(ctx, clustersPath, nil, false)
	if err != nil {
		return Verdict{State: Unchecked, Reason: err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		return Verdict{State: Unchecked, Reason: fmt.Sprintf("%s answered %s", request(clustersPath, nil), answer(resp))}
	}
	infos, f := checkClusterDTOs(resp.Body, true)
	cluster := ""
	for _, c := range infos {
		rep.addSecret(c.secret)
		if cluster == "" && c.secret != "" && subtle.ConstantTimeCompare([]byte(c.secret), []byte(token)) == 1 {
			cluster = c.id
		}
	}
	if fails := f.failures(false); len(fails) > 0 {
		rep.Add(Result{ID: CheckClusters, Status: Fail, Detail: request(clustersPath, nil) + ": " + summarize(fails, 4)})
		return Verdict{}
	}
	rep.Add(Result{ID: CheckClusters, Status: Pass,
		Detail: fmt.Sprintf("%s: %d ClusterDTO the provider reads%s", request(clustersPath, nil), len(infos), notes(f.remarks(false)))})
	if cluster == "" && len(infos) > 0 {
		cluster = infos[0].id
	}
	if cluster == "" {
		const why = "no cluster yet: the event log is checked once there is one"
		rep.Add(Result{ID: CheckLogShape, Status: Skip, Detail: why})
		return Verdict{Reason: why}
	}

	v := Verdict{Cluster: cluster}
	path, q := "/clusters/"+url.PathEscape(cluster)+"/logs", limitQuery(ProbeLogLimit)
	resp, err = api.GetRaw(ctx, path, q, false)
	switch {
	case err != nil:
		v.Reason = fmt.Sprintf("the event log of cluster %s was not read: %v", cluster, err)
	case isPlain500(resp):
		v.Reason = fmt.Sprintf("the event log of cluster %s is empty (its plain-text 500): its entries are checked once it has some", cluster)
		rep.Add(Result{ID: CheckLogShape, Status: Pass, Detail: request(path, q) + " answered the plain-text 500 of an empty log"})
	case resp.StatusCode != http.StatusOK:
		v.Reason = fmt.Sprintf("the event log of cluster %s was not read: %s answered %s", cluster, request(path, q), answer(resp))
	}
	if v.Reason != "" {
		return v
	}
	entries, f := checkLogBody(resp.Body)
	if fails := f.failures(false); len(fails) > 0 {
		rep.Add(Result{ID: CheckLogShape, Status: Fail, Detail: request(path, q) + ": " + summarize(fails, 4)})
		return Verdict{Cluster: cluster}
	}
	rep.Add(Result{ID: CheckLogShape, Status: Pass,
		Detail: fmt.Sprintf("%s: %d entries the provider can place and classify%s", request(path, q), len(entries), notes(f.remarks(false)))})
	v.Complete = len(entries) > 0
	if !v.Complete {
		v.Reason = fmt.Sprintf("the event log of cluster %s is empty: its entries are checked once it has some", cluster)
	}
	if classify == nil || len(entries) == 0 {
		return v
	}
	n, cf := classifyEntries(entries, classify)
	switch {
	case len(cf.fatal) > 0:
		rep.Add(Result{ID: CheckLogClassification, Status: Fail, Detail: summarize(cf.fatal, 3)})
	case n.cluster+n.node == 0:
		rep.Add(Result{ID: CheckLogClassification, Status: Skip, Detail: "no cluster or node status change among the entries read"})
	default:
		rep.Add(Result{ID: CheckLogClassification, Status: Pass,
			Detail: fmt.Sprintf("%d cluster and %d node status changes read as such, %d other entries as none", n.cluster, n.node, n.other)})
	}
	return v
}
