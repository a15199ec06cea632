/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package bench_test

import (
	"fmt"
	"testing"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

type rollingResult struct {
	Nodes int     `json:"nodes"`
	Speed float64 `json:"speed"`
	// TotalSeconds: from the create call to Succeeded seen.
	TotalSeconds float64 `json:"totalSeconds"`
	// BackendSeconds: the sum over nodes of the backend's durations:
	// shutdown call → offline, restart call → online, online → the
	// rebalancing that followed ended.
	BackendSeconds float64 `json:"backendSeconds"`
	Ratio          float64 `json:"ratio"`
	Phase          string  `json:"phase"`
	// Per node: the backend's durations, and the provider's gaps between
	// them (offline → restart call; rebalancing over → next shutdown call).
	ShutdownSeconds      percentiles `json:"shutdownSeconds"`
	RestartSeconds       percentiles `json:"restartSeconds"`
	RebalanceSeconds     percentiles `json:"rebalanceSeconds"`
	GapToRestartSeconds  percentiles `json:"gapToRestartSeconds"`
	GapToNextNodeSeconds percentiles `json:"gapToNextNodeSeconds"`

	BackendRequestsPerNode map[string]float64 `json:"backendRequestsPerNode"`
	POSTViolations         []string           `json:"postViolations"`
	OnePOSTPerAction       bool               `json:"onePostPerAction"`
	KubeRequestsPerNode    map[string]float64 `json:"kubeRequestsPerNode"`
	ProviderCPUSeconds     float64            `json:"providerCpuSeconds"`
	ProviderPeakRSSMiB     float64            `json:"providerPeakRssMiB"`
}

func runRolling(t *testing.T) {
	sz := world.sizes
	nodes := sz.RollNodes
	s := newScenario(t, "rolling", sz.RollSpeed)
	c := s.seedClusters(1, nodes, sb.ClusterActive)[0]
	p := startProvider(t, "rolling")
	s.waitClustersSynced(p, 1, 5*time.Minute)
	w := s.watchOps()

	s.sim.ResetJournal()
	k0, p0 := p.kubeRequests(t), p.stats()
	t0 := time.Now()
	name := c.Name + "-rolling-restart"
	if err := world.kube.Create(ctxBg, s.clusterOps(name, c.Name, "NodeRollingRestart", map[string]any{
		"nodeRollingRestart": map[string]any{"healthGate": true, "perNodeTimeoutSeconds": 3600},
		"timeoutSeconds":     86400,
	})); err != nil {
		t.Fatal(err)
	}
	w.created(name, time.Now())
	w.waitTerminal(t, p, 1, sz.RollTimeout)
	journal := s.sim.Journal()
	k1, p1 := p.kubeRequests(t), p.stats()

	rec := w.records()[name]
	r := &rollingResult{Nodes: nodes, Speed: sz.RollSpeed, Phase: string(rec.Phase) + "/" + rec.Reason, POSTViolations: []string{}}
	done, ok := rec.Phases["Succeeded"]
	if !ok {
		t.Fatalf("the rolling restart ended %s/%s: %s", rec.Phase, rec.Reason, rec.Message)
	}
	r.TotalSeconds = secs(done.Sub(t0))

	posts := postsByPath(journal)
	evs := s.rec.eventsOf(c.ID)
	var shut, restart, rebal, gapRestart, gapNext []float64
	backend := time.Duration(0)
	var prevEnd time.Time
	for _, nid := range c.NodeIDs {
		base := "/api/v2/clusters/" + c.ID + "/storage-nodes/" + nid
		sp, rp := posts[base+"/shutdown"], posts[base+"/restart"]
		if len(sp) != 1 || len(rp) != 1 {
			r.POSTViolations = append(r.POSTViolations, fmt.Sprintf("node %s: %d shutdown and %d restart POSTs", nid, len(sp), len(rp)))
			continue
		}
		offline, ok1 := nodeReached(evs, nid, "offline", sp[0])
		online, ok2 := nodeReached(evs, nid, "online", rp[0])
		if !ok1 || !ok2 {
			t.Errorf("node %s: offline seen %v, online seen %v in the simulator's events", nid, ok1, ok2)
			continue
		}
		end := rebalanceEnd(evs, online)
		shut = append(shut, offline.Sub(sp[0]).Seconds())
		restart = append(restart, online.Sub(rp[0]).Seconds())
		rebal = append(rebal, end.Sub(online).Seconds())
		gapRestart = append(gapRestart, rp[0].Sub(offline).Seconds())
		if !prevEnd.IsZero() {
			gapNext = append(gapNext, sp[0].Sub(prevEnd).Seconds())
		}
		prevEnd = end
		backend += offline.Sub(sp[0]) + online.Sub(rp[0]) + end.Sub(online)
	}
	for path, calls := range posts {
		if !isNodeAction(path) {
			r.POSTViolations = append(r.POSTViolations, fmt.Sprintf("unexpected: %d POSTs to %s", len(calls), path))
		}
	}
	r.OnePOSTPerAction = len(r.POSTViolations) == 0
	r.BackendSeconds = secs(backend)
	if backend > 0 {
		r.Ratio = round3(done.Sub(t0).Seconds() / backend.Seconds())
	}
	r.ShutdownSeconds, r.RestartSeconds, r.RebalanceSeconds = summarize(shut), summarize(restart), summarize(rebal)
	r.GapToRestartSeconds, r.GapToNextNodeSeconds = summarize(gapRestart), summarize(gapNext)
	byEndpoint := countEndpoints(journal)
	r.BackendRequestsPerNode = perUnit(byEndpoint, float64(nodes))
	kube := deltaCounts(k0, k1)
	r.KubeRequestsPerNode = perUnit(kube, float64(nodes))
	r.ProviderCPUSeconds = round3(p1.CPUSeconds - p0.CPUSeconds)
	r.ProviderPeakRSSMiB = mib(p1.PeakBytes)
	world.results.set(func(res *results) { res.Rolling = r })

	tb := &table{title: fmt.Sprintf("rolling restart: one cluster of %d nodes, simulator speed %g", nodes, sz.RollSpeed)}
	tb.add("METRIC", "VALUE", "")
	tb.add("phase/reason", r.Phase)
	tb.add("total (s)", r.TotalSeconds)
	tb.add("sum of backend per-node durations (s)", r.BackendSeconds)
	tb.add("total / backend", r.Ratio)
	tb.add("per node: shutdown call → offline (s)", r.ShutdownSeconds.String())
	tb.add("per node: restart call → online (s)", r.RestartSeconds.String())
	tb.add("per node: online → rebalancing over (s)", r.RebalanceSeconds.String())
	tb.add("per node: offline → restart call (s)", r.GapToRestartSeconds.String())
	tb.add("per node: rebalancing over → next shutdown call (s)", r.GapToNextNodeSeconds.String())
	tb.add("one POST per intended action", fmt.Sprintf("%v (%d violations)", r.OnePOSTPerAction, len(r.POSTViolations)))
	tb.addCounts("backend", byEndpoint, float64(nodes), "/node")
	tb.addCounts("API", kube, float64(nodes), "/node")
	tb.add("provider CPU (s)", r.ProviderCPUSeconds)
	tb.add("provider peak RSS (MiB)", r.ProviderPeakRSSMiB)
	tb.print(t)

	for _, v := range r.POSTViolations {
		t.Errorf("POST: %s", v)
	}
	checkFields(t, r, "totalSeconds", "backendSeconds", "ratio", "backendRequestsPerNode", "kubeRequestsPerNode",
		"providerCpuSeconds", "providerPeakRssMiB", "onePostPerAction")
}

// nodeReached returns when node first reached status after the call at
// from.
func nodeReached(evs []simEvent, node, status string, from time.Time) (time.Time, bool) {
	for _, e := range evs {
		if !e.Wall.Before(from) && e.Object == "StorageNode" && e.ObjectID == node && e.To == status {
			return e.Wall, true
		}
	}
	return time.Time{}, false
}

// rebalanceEnd returns when the rebalancing that started after online
// ended; online itself when none started before the next node event.
func rebalanceEnd(evs []simEvent, online time.Time) time.Time {
	started := false
	for _, e := range evs {
		if e.Wall.Before(online) {
			continue
		}
		switch {
		case e.Object == "Rebalancing" && e.To == "true":
			started = true
		case e.Object == "Rebalancing" && e.To == "false" && started:
			return e.Wall
		case e.Object == "StorageNode" && e.To == "in_shutdown" && !started:
			return online
		}
	}
	return online
}

func isNodeAction(path string) bool {
	return uuidRE.MatchString(path) && (hasSuffix(path, "/shutdown") || hasSuffix(path, "/restart")) &&
		len(uuidRE.FindAllString(path, -1)) == 2
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
