package simulator

import (
	"crypto/subtle"
	"net/http"
	"sort"
	"strings"
)

// apiPrefix is where every v2 route lives.
const apiPrefix = "/api/v2"

// route is one endpoint. Patterns use {name} for a path parameter and keep
// the backend's trailing-slash spelling exactly: the other spelling gets a
// 307 (see serveAPI).
type route struct {
	method  string
	pattern string
	segs    []string
	auth    bool
	handle  func(*request)
	// query validates the endpoint's own query parameters. FastAPI checks
	// them after every dependency (auth, the cluster/node/pool/task
	// lookups and their 404s), and merges their errors into the 422 of
	// a malformed path parameter (backend-contract.md m1).
	query func(*http.Request) []valErr
}

// request carries what the routing and auth layers resolved for a handler.
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	params map[string]string // canonical UUIDs of the path parameters
	c      *clusterState     // set for routes with {cluster_id}; read it under s.mu only
}

func (s *Simulator) routes() []route {
	rs := []route{
		{method: "GET", pattern: "/_meta/health", handle: s.health},
		{method: "GET", pattern: "/_meta/ready", handle: s.ready},

		{method: "GET", pattern: "/clusters/", auth: true, handle: s.listClusters},
		{method: "POST", pattern: "/clusters/", auth: true, handle: s.createCluster, query: formatQuery("full")},
		{method: "GET", pattern: "/clusters/{cluster_id}/", auth: true, handle: s.getCluster},
		{method: "PUT", pattern: "/clusters/{cluster_id}/", auth: true, handle: s.updateClusterName},
		{method: "DELETE", pattern: "/clusters/{cluster_id}/", auth: true, handle: s.deleteCluster},
		{method: "GET", pattern: "/clusters/{cluster_id}/capacity", auth: true, handle: s.clusterCapacity},
		{method: "GET", pattern: "/clusters/{cluster_id}/logs", auth: true, handle: s.clusterLogs, query: limitQuery},
		{method: "POST", pattern: "/clusters/{cluster_id}/activate", auth: true, handle: s.postActivate},
		{method: "POST", pattern: "/clusters/{cluster_id}/expand", auth: true, handle: s.postExpand},
		{method: "POST", pattern: "/clusters/{cluster_id}/shutdown", auth: true, handle: s.postShutdown},
		{method: "POST", pattern: "/clusters/{cluster_id}/start", auth: true, handle: s.postStart},
		{method: "POST", pattern: "/clusters/{cluster_id}/update", auth: true, handle: s.postUpdate},
		{method: "POST", pattern: "/clusters/{cluster_id}/rebalance", auth: true, handle: s.postRebalance},
		{method: "POST", pattern: "/clusters/{cluster_id}/addreplication", auth: true, handle: s.postAddReplication},

		{method: "GET", pattern: "/clusters/{cluster_id}/storage-nodes/", auth: true, handle: s.listNodes},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/", auth: true, handle: s.createNode, query: formatQuery("identifier")},
		{method: "GET", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/", auth: true, handle: s.getNode},
		{method: "DELETE", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/", auth: true, handle: s.deleteNode,
			query: boolQuery("force_remove", "force_migrate", "force_delete")},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/suspend", auth: true, handle: s.suspendNode, query: boolQuery("force")},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/resume", auth: true, handle: s.resumeNode},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/shutdown", auth: true, handle: s.shutdownNode, query: boolQuery("force")},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/restart", auth: true, handle: s.restartNodeHandler},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/start", auth: true, handle: s.restartNodeHandler},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-nodes/{storage_node_id}/promote", auth: true, handle: s.promoteNode},

		{method: "GET", pattern: "/clusters/{cluster_id}/storage-pools/", auth: true, handle: s.listPools},
		{method: "POST", pattern: "/clusters/{cluster_id}/storage-pools/", auth: true, handle: s.createPool, query: formatQuery("full")},
		{method: "GET", pattern: "/clusters/{cluster_id}/storage-pools/{pool_id}/", auth: true, handle: s.getPool},
		{method: "PUT", pattern: "/clusters/{cluster_id}/storage-pools/{pool_id}/", auth: true, handle: s.updatePool},
		{method: "DELETE", pattern: "/clusters/{cluster_id}/storage-pools/{pool_id}/", auth: true, handle: s.deletePool},

		{method: "GET", pattern: "/clusters/{cluster_id}/tasks/", auth: true, handle: s.listTasks},
		{method: "GET", pattern: "/clusters/{cluster_id}/tasks/{task_id}/", auth: true, handle: s.getTask},
	}
	for i := range rs {
		rs[i].segs = strings.Split(rs[i].pattern, "/")
	}
	return rs
}

// match returns the raw path parameters when path fits the pattern.
func (rt route) match(path string) (map[string]string, bool) {
	segs := strings.Split(path, "/")
	if len(segs) != len(rt.segs) {
		return nil, false
	}
	params := map[string]string{}
	for i, p := range rt.segs {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = segs[i]
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// serveAPI routes like Starlette: a full match runs the endpoint; a path
// match with the wrong method is 405; otherwise the other trailing-slash
// spelling is tried and answered with a 307 (before any auth); else 404.
func (s *Simulator) serveAPI(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if !strings.HasPrefix(path, apiPrefix+"/") {
		writeDetail(w, http.StatusNotFound, "Not Found")
		return
	}
	rel := strings.TrimPrefix(path, apiPrefix)
	routes := s.routeTable()
	var allowed []string
	for _, rt := range routes {
		params, ok := rt.match(rel)
		if !ok {
			continue
		}
		if rt.method != r.Method {
			allowed = append(allowed, rt.method)
			continue
		}
		s.dispatch(rt, params, w, r)
		return
	}
	if len(allowed) > 0 {
		sort.Strings(allowed)
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	other := rel + "/"
	if strings.HasSuffix(rel, "/") {
		other = strings.TrimSuffix(rel, "/")
	}
	for _, rt := range routes {
		if _, ok := rt.match(other); ok {
			s.redirect(w, r, apiPrefix+other)
			return
		}
	}
	writeDetail(w, http.StatusNotFound, "Not Found")
}

func (s *Simulator) routeTable() []route {
	s.routesOnce.Do(func() { s.routeList = s.routes() })
	return s.routeList
}

// redirect answers 307 with an absolute Location keeping the query string,
// as Starlette's redirect_slashes does.
func (s *Simulator) redirect(w http.ResponseWriter, r *http.Request, path string) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	loc := scheme + "://" + r.Host + path
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", loc)
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusTemporaryRedirect)
}

// dispatch applies, in the backend's order: the bearer header check, the
// cluster_id validation (422 before 401), the token check, the other path
// parameters, and the cluster lookup (404). Handlers do the rest.
func (s *Simulator) dispatch(rt route, raw map[string]string, w http.ResponseWriter, r *http.Request) {
	req := &request{w: w, r: r, params: map[string]string{}}
	if !rt.auth {
		rt.handle(req)
		return
	}
	token, ok := bearer(r)
	if !ok {
		s.writeMissingAuth(w, r)
		return
	}
	var errs []valErr
	cid, hasCluster := raw["cluster_id"]
	if hasCluster {
		canon, msg := parseUUID(cid)
		if msg != "" {
			// Declared by verify_api_token, by the endpoint's Cluster
			// dependency and, on node, pool and task routes, once more by
			// the Cluster sub-dependency of StorageNode/StoragePool/Task
			// (DEP:27-56,103-107): FastAPI reports it once per
			// declaration, then the other path parameters and the
			// endpoint's query parameters.
			e := errUUID("cluster_id", cid, msg)
			errs = append(errs, e, e)
			if nestedLookup(raw) {
				errs = append(errs, e)
			}
			errs = append(errs, s.otherParamErrors(raw)...)
			if rt.query != nil {
				errs = append(errs, rt.query(r)...)
			}
			writeValidation(w, errs)
			return
		}
		req.params["cluster_id"] = canon
	}
	if !s.authorized(token, req.params["cluster_id"], hasCluster) {
		writeDetail(w, http.StatusUnauthorized, "Invalid token")
		return
	}
	errs = s.otherParamErrors(raw)
	for k, v := range raw {
		if k != "cluster_id" {
			if canon, msg := parseUUID(v); msg == "" {
				req.params[k] = canon
			}
		}
	}
	if hasCluster {
		s.mu.Lock()
		c := s.m.cluster(req.params["cluster_id"])
		s.mu.Unlock()
		if c == nil {
			writeNotFoundQuoted(w, "Cluster", req.params["cluster_id"])
			return
		}
		req.c = c
	}
	if len(errs) > 0 {
		if rt.query != nil {
			errs = append(errs, rt.query(r)...)
		}
		writeValidation(w, errs)
		return
	}
	rt.handle(req)
}

// nestedLookup reports whether the route resolves a node, pool or task,
// whose dependency declares the Cluster dependency again.
func nestedLookup(raw map[string]string) bool {
	for _, k := range []string{"storage_node_id", "pool_id", "task_id"} {
		if _, ok := raw[k]; ok {
			return true
		}
	}
	return false
}

// boolQuery validates optional boolean query parameters.
func boolQuery(names ...string) func(*http.Request) []valErr {
	return func(r *http.Request) []valErr {
		var errs []valErr
		for _, n := range names {
			_ = queryBool(r, n, &errs)
		}
		return errs
	}
}

// formatQuery validates response-format.
func formatQuery(def string) func(*http.Request) []valErr {
	return func(r *http.Request) []valErr {
		var errs []valErr
		_ = responseFormat(r, def, &errs)
		return errs
	}
}

// limitQuery validates GET /logs' limit: int.
func limitQuery(r *http.Request) []valErr {
	_, errs := logLimit(r)
	return errs
}

// otherParamErrors validates every UUID path parameter but cluster_id.
func (s *Simulator) otherParamErrors(raw map[string]string) []valErr {
	var errs []valErr
	for _, k := range []string{"storage_node_id", "pool_id", "task_id"} {
		if v, ok := raw[k]; ok {
			if _, msg := parseUUID(v); msg != "" {
				errs = append(errs, errUUID(k, v, msg))
			}
		}
	}
	return errs
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, found := strings.Cut(h, " ")
	if h == "" || !found || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// writeMissingAuth answers a missing or non-Bearer header: 401 with
// WWW-Authenticate (FastAPI >= 0.122) or 403 for older builds.
func (s *Simulator) writeMissingAuth(w http.ResponseWriter, r *http.Request) {
	if s.opts.MissingAuthStatus == http.StatusForbidden {
		if r.Header.Get("Authorization") == "" {
			writeDetail(w, http.StatusForbidden, "Not authenticated")
		} else {
			writeDetail(w, http.StatusForbidden, "Invalid authentication credentials")
		}
		return
	}
	w.Header().Set("WWW-Authenticate", "Bearer")
	writeDetail(w, http.StatusUnauthorized, "Not authenticated")
}

// authorized implements AUTH:135-156: admin tokens may do anything; a
// cluster secret may use routes without {cluster_id} and its own cluster's
// routes only.
func (s *Simulator) authorized(token, clusterID string, hasCluster bool) bool {
	for _, t := range s.opts.AdminTokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			return true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	matched := ""
	for _, c := range s.m.clusters {
		if subtle.ConstantTimeCompare([]byte(c.secret), []byte(token)) == 1 {
			matched = c.id
		}
	}
	if matched == "" {
		return false
	}
	return !hasCluster || matched == clusterID
}

func (s *Simulator) health(req *request) { req.w.WriteHeader(http.StatusNoContent) }

func (s *Simulator) ready(req *request) {
	if s.faults.notReady() {
		writePlain(req.w, http.StatusServiceUnavailable, "FDB not ready")
		return
	}
	req.w.WriteHeader(http.StatusNoContent)
}

// created answers a creation with response-format full|identifier|empty:
// always 201 with an absolute-path Location.
func created(w http.ResponseWriter, format, location, id string, full any) {
	w.Header().Set("Location", location)
	switch format {
	case "identifier":
		writeJSON(w, http.StatusCreated, id)
	case "empty":
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusCreated)
	default:
		writeJSON(w, http.StatusCreated, full)
	}
}
