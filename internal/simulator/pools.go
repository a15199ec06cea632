package simulator

import (
	"fmt"
	"net/http"
	"strings"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Storage pools, backend-behaviour.md §5, with the PUT quirks.

func (s *Simulator) lookupPoolLocked(req *request) *poolState {
	id := req.params["pool_id"]
	p := s.m.pool(id)
	if p == nil {
		writeNotFoundQuoted(req.w, "Pool", id)
		return nil
	}
	if p.clusterID != req.params["cluster_id"] {
		writeNotFoundOtherCluster(req.w, "Pool", id)
		return nil
	}
	return p
}

// GET /storage-pools/
func (s *Simulator) listPools(req *request) {
	writeJSON(req.w, http.StatusOK, s.Pools(req.params["cluster_id"]))
}

// GET /storage-pools/{id}/
func (s *Simulator) getPool(req *request) {
	s.mu.Lock()
	p := s.lookupPoolLocked(req)
	if p == nil {
		s.mu.Unlock()
		return
	}
	dto := p.dto()
	s.mu.Unlock()
	writeJSON(req.w, http.StatusOK, dto)
}

// POST /storage-pools/: 201 (full DTO by default), 409 on a taken name, 500
// when add_pool returns False. Any cluster status is accepted.
func (s *Simulator) createPool(req *request) {
	var errs []valErr
	format := responseFormat(req.r, "full", &errs)
	var p sb.StoragePoolParams
	raw, bodyErrs := decodeBody(req.r, &p, "name")
	errs = append(errs, bodyErrs...)
	if raw != nil && len(bodyErrs) == 0 {
		for name, v := range map[string]int64{"pool_max": p.PoolMax, "volume_max_size": p.VolumeMaxSize,
			"max_rw_iops": p.MaxRWIOPS, "max_rw_mbytes": p.MaxRWMBytes, "max_r_mbytes": p.MaxRMBytes, "max_w_mbytes": p.MaxWMBytes} {
			if v < 0 {
				errs = append(errs, errGreaterEqual(name, 0, v))
			}
		}
	}
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	cid := req.params["cluster_id"]
	s.mu.Lock()
	for _, o := range s.m.clusterPools(cid) {
		if o.name == p.Name {
			s.mu.Unlock()
			writeDetail(req.w, http.StatusConflict, fmt.Sprintf("Pool %s already exists", p.Name))
			return
		}
	}
	qos := p.MaxRWIOPS > 0 || p.MaxRWMBytes > 0 || p.MaxRMBytes > 0 || p.MaxWMBytes > 0
	onlineNode := false
	for _, n := range s.m.liveNodes(cid) {
		if n.status == sb.NodeOnline {
			onlineNode = true
		}
	}
	if (p.MaxRWMBytes > 0 && (p.MaxRMBytes > p.MaxRWMBytes || p.MaxWMBytes > p.MaxRWMBytes)) || (qos && !onlineNode) {
		s.mu.Unlock()
		s.logf("add_pool %s refused: QoS parameters", p.Name)
		writeInternalError(req.w)
		return
	}
	pool := &poolState{id: newID(), clusterID: cid, name: p.Name, status: sb.PoolActive, maxSize: p.PoolMax,
		volMax: p.VolumeMaxSize, maxRWIOPS: p.MaxRWIOPS, maxRWMB: p.MaxRWMBytes, maxRMB: p.MaxRMBytes,
		maxWMB: p.MaxWMBytes, dhchap: p.DHCHAP}
	s.m.pools = append(s.m.pools, pool)
	s.poolEventLocked(pool, evObjCreated, "Pool created "+pool.name) // PC:117, PE:22-23
	dto := pool.dto()
	s.mu.Unlock()
	created(req.w, format, fmt.Sprintf("%s/clusters/%s/storage-pools/%s/", apiPrefix, cid, pool.id), pool.id, dto)
}

// PUT /storage-pools/{id}/: 204, and "Pool updated <name>" (PC:333,
// PE:30-31). Only the fields sent reach set_pool, the others take its
// defaults (SP/:104-121, PC:210-212), which gives its quirks:
//   - max_size: 0 or omitted resets the pool maximum to 0 (PC:292-293);
//   - volume_max_size: 0 or omitted resets the volume maximum to 0
//     (PC:308-309), so every PUT without it clears it; a non-zero value is
//     written to the pool's max_size and leaves the volume maximum alone
//     (PC:310-318);
//   - an explicit null for either reaches `None > 0`: a TypeError, so a
//     plain 500 with nothing written;
//   - QoS limits only rise: lower is a 500, 0 or omitted leaves the limit
//     (PC:191-202,280-290);
//   - an empty name is no rename (PC:228).
//
// The body is validated after the cluster and pool lookups: a 404 wins
// over its 422 (SP/:104-105).
func (s *Simulator) updatePool(req *request) {
	s.mu.Lock()
	found := s.lookupPoolLocked(req) != nil
	s.mu.Unlock()
	if !found {
		return
	}
	var body sb.UpdatableStoragePoolParams
	raw, errs := decodeBody(req.r, &body)
	if raw != nil && len(errs) == 0 {
		for name, v := range map[string]*int64{"max_size": body.MaxSize, "volume_max_size": body.VolumeMaxSize,
			"max_rw_iops": body.MaxRWIOPS, "max_rw_mbytes": body.MaxRWMBytes, "max_r_mbytes": body.MaxRMBytes, "max_w_mbytes": body.MaxWMBytes} {
			if v != nil && *v < 0 {
				errs = append(errs, errGreaterEqual(name, 0, *v))
			}
		}
	}
	if len(errs) > 0 {
		writeValidation(req.w, errs)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPoolLocked(req)
	if p == nil {
		return
	}
	fail := func(reason string) {
		s.logf("update pool %s refused: %s", p.id, reason)
		writeInternalError(req.w)
	}
	if p.status != sb.PoolActive {
		fail("Pool is disabled")
		return
	}
	name := p.name
	if body.Name != nil && *body.Name != "" && *body.Name != p.name {
		for _, o := range s.m.clusterPools(p.clusterID) {
			if o.id != p.id && o.name == *body.Name {
				fail("Pool found with the same name: " + *body.Name)
				return
			}
		}
		name = *body.Name
	}
	// QoS: validate everything before changing anything.
	type qos struct {
		v   *int64
		cur *int64
	}
	limits := []qos{{body.MaxRWIOPS, &p.maxRWIOPS}, {body.MaxRWMBytes, &p.maxRWMB}, {body.MaxRMBytes, &p.maxRMB}, {body.MaxWMBytes, &p.maxWMB}}
	for _, q := range limits {
		if q.v != nil && *q.v != 0 && *q.v < *q.cur {
			fail("can't be less than current value")
			return
		}
	}
	for _, k := range []string{"max_size", "volume_max_size"} {
		if v, ok := raw[k]; ok && strings.TrimSpace(string(v)) == "null" {
			fail(k + " is null: TypeError in set_pool")
			return
		}
	}
	p.name = name
	maxSize, volMax := p.maxSize, p.volMax
	if body.MaxSize == nil || *body.MaxSize == 0 {
		maxSize = 0
	} else {
		maxSize = *body.MaxSize
	}
	if body.VolumeMaxSize == nil || *body.VolumeMaxSize == 0 {
		volMax = 0
	} else {
		maxSize = *body.VolumeMaxSize
	}
	p.maxSize, p.volMax = maxSize, volMax
	for _, q := range limits {
		if q.v != nil && *q.v != 0 {
			*q.cur = *q.v
		}
	}
	s.poolEventLocked(p, evStatusChange, "Pool updated "+p.name)
	req.w.WriteHeader(http.StatusNoContent)
}

// DELETE /storage-pools/{id}/: 400 when inactive, 204 otherwise.
func (s *Simulator) deletePool(req *request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookupPoolLocked(req)
	if p == nil {
		return
	}
	if p.status == sb.PoolInactive {
		writeDetail(req.w, http.StatusBadRequest, "Pool is inactive")
		return
	}
	s.poolEventLocked(p, evObjDeleted, "Pool deleted "+p.name) // PC:357, PE:26-27
	for i, o := range s.m.pools {
		if o.id == p.id {
			s.m.pools = append(s.m.pools[:i], s.m.pools[i+1:]...)
			break
		}
	}
	req.w.WriteHeader(http.StatusNoContent)
}
