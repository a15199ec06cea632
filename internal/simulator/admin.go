package simulator

import (
	"encoding/json"
	"net/http"
	"strings"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// State is the whole model as the admin endpoint shows it (secrets
// included), including tasks the API hides.
type State struct {
	Clusters []ClusterState `json:"clusters"`
}

// ClusterState is one cluster with everything that belongs to it.
type ClusterState struct {
	Cluster sb.ClusterDTO       `json:"cluster"`
	Nodes   []sb.StorageNodeDTO `json:"nodes"`
	Tasks   []sb.TaskDTO        `json:"tasks"`
	Pools   []sb.StoragePoolDTO `json:"pools"`
	// ActivatedNodeIDs is the hidden activated_node_ids (null = never
	// activated).
	ActivatedNodeIDs []string `json:"activated_node_ids"`
	Events           []string `json:"events"`
}

// State returns a snapshot of every cluster.
func (s *Simulator) State() State {
	s.mu.Lock()
	ids := make([]string, 0, len(s.m.clusters))
	activated := map[string][]string{}
	for _, c := range s.m.clusters {
		ids = append(ids, c.id)
		if c.activatedNodeIDs != nil {
			activated[c.id] = append([]string{}, c.activatedNodeIDs...)
		}
	}
	s.mu.Unlock()
	st := State{Clusters: []ClusterState{}}
	for _, id := range ids {
		c, ok := s.Cluster(id)
		if !ok {
			continue
		}
		st.Clusters = append(st.Clusters, ClusterState{Cluster: c, Nodes: s.Nodes(id), Tasks: s.Tasks(id),
			Pools: s.Pools(id), ActivatedNodeIDs: activated[id], Events: s.Events(id)})
	}
	return st
}

// adminHandler serves the admin endpoint (never journaled, no auth; bind
// it to localhost):
//
//	GET    /journal       -> [JournalEntry]
//	DELETE /journal       -> 204
//	GET    /faults        -> [Fault]
//	POST   /faults        Fault -> 201 Fault (with id; secret for rotate_secret)
//	DELETE /faults        -> 204 (all)
//	DELETE /faults/{id}   -> 204 or 404
//	GET    /state         -> State
//	POST   /seed          SeedCluster -> 201 SeedResult
func (s *Simulator) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /journal", func(w http.ResponseWriter, _ *http.Request) {
		j := s.Journal()
		if j == nil {
			j = []JournalEntry{}
		}
		writeJSON(w, http.StatusOK, j)
	})
	mux.HandleFunc("DELETE /journal", func(w http.ResponseWriter, _ *http.Request) {
		s.ResetJournal()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.faults.List())
	})
	mux.HandleFunc("POST /faults", func(w http.ResponseWriter, r *http.Request) {
		var f Fault
		if err := json.NewDecoder(r.Body).Decode(&f); err != nil {
			writeDetail(w, http.StatusBadRequest, "invalid fault JSON: "+err.Error())
			return
		}
		out, err := s.faults.Add(f)
		if err != nil {
			writeDetail(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, http.StatusCreated, out)
	})
	mux.HandleFunc("DELETE /faults", func(w http.ResponseWriter, _ *http.Request) {
		s.faults.Clear()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /faults/{id}", func(w http.ResponseWriter, r *http.Request) {
		if !s.faults.Remove(r.PathValue("id")) {
			writeDetail(w, http.StatusNotFound, "no such fault")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.State())
	})
	mux.HandleFunc("POST /seed", func(w http.ResponseWriter, r *http.Request) {
		var sc SeedCluster
		if err := json.NewDecoder(r.Body).Decode(&sc); err != nil && !strings.Contains(err.Error(), "EOF") {
			writeDetail(w, http.StatusBadRequest, "invalid seed JSON: "+err.Error())
			return
		}
		switch sc.Status {
		case "", sb.ClusterUnready, sb.ClusterActive:
		default:
			writeDetail(w, http.StatusBadRequest, "status must be unready or active")
			return
		}
		writeJSON(w, http.StatusCreated, s.seed(sc))
	})
	return mux
}

// AdminHandler returns the admin endpoint's handler (for httptest use).
func (s *Simulator) AdminHandler() http.Handler { return s.adminHandler() }
