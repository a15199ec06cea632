package simulator

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// validECPairs are the (ndcs, npcs) pairs ClusterParams accepts.
var validECPairs = map[[2]int64]bool{
	{1, 0}: true, {1, 1}: true, {2, 1}: true, {4, 1}: true, {1, 2}: true, {2, 2}: true, {4, 2}: true,
}

// clusterCreateDuration is how long a create takes inside the request
// (the backend patches Prometheus/Grafana config).
const clusterCreateDuration = 2 * time.Second

// GET /clusters/: every cluster, with secrets, whoever asks. One cluster in
// in_shrink (not in the DTO enum) makes the whole list a 500.
func (s *Simulator) listClusters(req *request) {
	s.mu.Lock()
	out := []sb.ClusterDTO{}
	fail := false
	for _, c := range s.m.clusters {
		if c.status == sb.ClusterInShrink || s.faults.enum500(c.id, "cluster") {
			fail = true
		}
		out = append(out, c.dto())
	}
	s.mu.Unlock()
	if fail {
		writeInternalError(req.w)
		return
	}
	writeJSON(req.w, http.StatusOK, out)
}

// POST /clusters/: validation (422), add_cluster's conflicts (409), then a
// new unready cluster.
func (s *Simulator) createCluster(req *request) {
	var errs []valErr
	format := responseFormat(req.r, "full", &errs)
	p := sb.DefaultClusterParams()
	raw, bodyErrs := decodeBody(req.r, &p, "max_subsys", "spdk_vcpu_count")
	errs = append(errs, bodyErrs...)
	if raw != nil && len(bodyErrs) == 0 {
		errs = append(errs, validateClusterParams(p, rawObject(raw))...)
	}
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	if msg := clusterParamConflict(p); msg != "" {
		writeDetail(req.w, http.StatusConflict, msg)
		return
	}
	id := newID()
	s.mu.Lock()
	if p.Name != "" {
		for _, c := range s.m.clusters {
			if c.name == p.Name {
				s.mu.Unlock()
				writeDetail(req.w, http.StatusConflict, fmt.Sprintf("A cluster with the name '%s' already exists", p.Name))
				return
			}
		}
		if holder, ok := s.m.creating[p.Name]; ok {
			s.mu.Unlock()
			writeDetail(req.w, http.StatusConflict, fmt.Sprintf("A cluster with the name '%s' already exists or is currently being created (held by %s)", p.Name, holder))
			return
		}
		s.m.creating[p.Name] = id
	}
	s.mu.Unlock()

	ok := s.sleep(clusterCreateDuration)

	s.mu.Lock()
	delete(s.m.creating, p.Name)
	if !ok {
		s.mu.Unlock()
		writeInternalError(req.w)
		return
	}
	if p.CapWarn == 0 {
		p.CapWarn = 80
	}
	if p.CapCrit == 0 {
		p.CapCrit = 90
	}
	if p.ProvCapWarn == 0 {
		p.ProvCapWarn = 180
	}
	if p.ProvCapCrit == 0 {
		p.ProvCapCrit = 190
	}
	c := &clusterState{id: id, name: p.Name, status: sb.ClusterUnready, params: p, secret: randomSecret(), created: s.clk.now(), mode: ModeKubernetes}
	s.m.clusters = append(s.m.clusters, c)
	s.clusterCreatedEventLocked(c)
	dto := c.dto()
	s.mu.Unlock()
	created(req.w, format, apiPrefix+"/clusters/"+id+"/", id, dto)
}

// validateClusterParams applies ClusterParams' field constraints and its
// model validator.
func validateClusterParams(p sb.ClusterParams, raw map[string]any) []valErr {
	var errs []valErr
	if p.BlkSize != 512 && p.BlkSize != 4096 {
		errs = append(errs, errLiteral([]any{"body", "blk_size"}, "512 or 4096", p.BlkSize))
	}
	if p.PageSizeInBlocks <= 0 {
		errs = append(errs, errGreaterThan("page_size_in_blocks", 0, p.PageSizeInBlocks))
	}
	for name, v := range map[string]int64{"cap_warn": p.CapWarn, "cap_crit": p.CapCrit} {
		if v < 0 {
			errs = append(errs, errGreaterEqual(name, 0, v))
		} else if v > 100 {
			errs = append(errs, errLessEqual(name, 100, v))
		}
	}
	for name, v := range map[string]int64{"prov_cap_warn": p.ProvCapWarn, "prov_cap_crit": p.ProvCapCrit,
		"max_subsys": p.MaxSubsys, "spdk_vcpu_count": p.SpdkVcpuCount} {
		if v < 0 {
			errs = append(errs, errGreaterEqual(name, 0, v))
		}
	}
	if p.HAType != "single" && p.HAType != "ha" {
		errs = append(errs, errLiteral([]any{"body", "ha_type"}, "'single' or 'ha'", p.HAType))
	}
	if len(errs) == 0 && !validECPairs[[2]int64{p.DistrNdcs, p.DistrNpcs}] {
		errs = append(errs, errValue("Invalid erasure coding scheme selected", raw))
	}
	return errs
}

// clusterParamConflict returns add_cluster's 409 message for parameters it
// refuses, or "".
func clusterParamConflict(p sb.ClusterParams) string {
	if p.MaxSubsys > 75 {
		return fmt.Sprintf("max_subsys %d exceeds the maximum of 75", p.MaxSubsys)
	}
	for _, f := range strings.Split(p.Fabric, ",") {
		if f != "tcp" && f != "rdma" {
			return fmt.Sprintf("Invalid fabric: %s", p.Fabric)
		}
	}
	if p.DistrNpcs > 1 && p.HAType != "ha" {
		return "max_fault_tolerance > 1 requires ha_type 'ha'"
	}
	if p.HashicorpVaultSettings != nil {
		return "HashiCorp Vault settings require mTLS to be enabled"
	}
	return ""
}

// GET /clusters/{id}/: 500 while in_shrink (not in the DTO enum).
func (s *Simulator) getCluster(req *request) {
	s.mu.Lock()
	c := s.m.cluster(req.params["cluster_id"])
	if c == nil {
		s.mu.Unlock()
		writeNotFoundQuoted(req.w, "Cluster", req.params["cluster_id"])
		return
	}
	fail := c.status == sb.ClusterInShrink || s.faults.enum500(c.id, "cluster")
	dto := c.dto()
	s.mu.Unlock()
	if fail {
		writeInternalError(req.w)
		return
	}
	writeJSON(req.w, http.StatusOK, dto)
}

// PUT /clusters/{id}/ {"name"?}: 204; omitted/null name changes nothing; a
// name held by another cluster is a 500.
func (s *Simulator) updateClusterName(req *request) {
	var body sb.UpdateClusterParams
	if _, errs := decodeBody(req.r, &body); len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m.cluster(req.params["cluster_id"])
	if c == nil {
		writeNotFoundQuoted(req.w, "Cluster", req.params["cluster_id"])
		return
	}
	if body.Name != nil {
		for _, o := range s.m.clusters {
			if o.id != c.id && o.name == *body.Name && *body.Name != "" {
				writeInternalError(req.w)
				return
			}
		}
		old := c.name
		c.name = *body.Name
		s.clusterRenamedEventLocked(c, old, c.name)
	}
	req.w.WriteHeader(http.StatusNoContent)
}

// DELETE /clusters/{id}/: 409 while any node record (even removed) or pool
// exists; the status is not checked.
func (s *Simulator) deleteCluster(req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cid := req.params["cluster_id"]
	if s.m.cluster(cid) == nil {
		writeNotFoundQuoted(req.w, "Cluster", cid)
		return
	}
	if len(s.m.clusterNodes(cid)) > 0 {
		writeDetail(req.w, http.StatusConflict, "Can only remove Empty cluster, Storage nodes found")
		return
	}
	if len(s.m.clusterPools(cid)) > 0 {
		writeDetail(req.w, http.StatusConflict, "Can only remove Empty cluster, Pools found")
		return
	}
	for i, c := range s.m.clusters {
		if c.id == cid {
			s.m.clusters = append(s.m.clusters[:i], s.m.clusters[i+1:]...)
			break
		}
	}
	kept := s.m.tasks[:0]
	for _, t := range s.m.tasks {
		if t.clusterID != cid {
			kept = append(kept, t)
		}
	}
	s.m.tasks = kept
	req.w.WriteHeader(http.StatusNoContent)
}

// GET /clusters/{id}/capacity: one record (all zero until stats exist).
func (s *Simulator) clusterCapacity(req *request) {
	s.mu.Lock()
	c := s.m.cluster(req.params["cluster_id"])
	var out []sb.CapacityStatDTO
	if c != nil {
		out = []sb.CapacityStatDTO{{Date: s.clk.now().Unix(), SizeUtil: c.sizeUtil}}
	}
	s.mu.Unlock()
	writeJSON(req.w, http.StatusOK, out)
}

// GET /clusters/{id}/logs?limit=N (C/:201-208, OPS:2380-2413): the newest
// N events, oldest first; limit defaults to 50 and 0 returns every event. A
// negative limit also returns every event here (sbcli passes it to the key
// range read unchecked, backend-contract.md m7). limit is an int query
// parameter: anything else, the empty string included, is a 422. An empty
// result makes the handler raise ValueError('Failed to access logs'): a
// plain-text 500 (C/:205-206).
func (s *Simulator) clusterLogs(req *request) {
	limit, errs := logLimit(req.r)
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	c := s.m.cluster(req.params["cluster_id"])
	out := []sb.ClusterLogEntry{}
	if c != nil {
		evs := c.events
		if limit > 0 && len(evs) > limit {
			evs = evs[len(evs)-limit:]
		}
		for _, e := range evs {
			out = append(out, e.entry())
		}
	}
	s.mu.Unlock()
	if len(out) == 0 {
		writeInternalError(req.w)
		return
	}
	writeJSON(req.w, http.StatusOK, out)
}

// logLimit reads GET /logs' "limit: int = 50" (C/:202). Starlette's
// QueryParams keeps the last value of a repeated key; "limit=" (empty) is
// not an integer and is a 422 like any other non-integer.
func logLimit(r *http.Request) (int, []valErr) {
	vs, ok := r.URL.Query()["limit"]
	if !ok || len(vs) == 0 {
		return 50, nil
	}
	v := vs[len(vs)-1]
	n, err := strconv.Atoi(v)
	if err != nil {
		return 50, []valErr{{Type: "int_parsing", Loc: []any{"query", "limit"},
			Msg: "Input should be a valid integer, unable to parse string as an integer", Input: v}}
	}
	return n, nil
}
