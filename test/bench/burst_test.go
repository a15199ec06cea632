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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

// burstTypes are the operations each burst cluster gets, in creation
// (and so queue) order.
var burstTypes = []string{"Activate", "Expand", "Rebalance", "Shutdown", "Start"}

type burstResult struct {
	Clusters   int     `json:"clusters"`
	Operations int     `json:"operations"`
	Speed      float64 `json:"speed"`
	// ImportSeconds is how long the provider took to import the
	// StorageClusters; CreateSeconds how long creating the operations took.
	ImportSeconds float64 `json:"importSeconds"`
	CreateSeconds float64 `json:"createSeconds"`

	// MakespanSeconds: from the first create call to the last Succeeded
	// seen. IdealMakespanSeconds: per cluster the sum of the backend's
	// durations of its operations, the maximum over clusters.
	MakespanSeconds      float64 `json:"makespanSeconds"`
	IdealMakespanSeconds float64 `json:"idealMakespanSeconds"`
	MakespanRatio        float64 `json:"makespanRatio"`

	// LagSeconds: completion-detection lag, from the moment the backend
	// reached the state the operation waits for to the moment its phase
	// Succeeded was seen on a watch.
	LagSeconds       percentiles            `json:"lagSeconds"`
	LagSecondsByType map[string]percentiles `json:"lagSecondsByType"`
	// DispatchSeconds: from the moment an operation could start (created
	// and the previous one of its cluster Succeeded) to its backend call.
	DispatchSeconds percentiles `json:"dispatchSeconds"`
	// BackendSecondsByType: from the call to the final state.
	BackendSecondsByType map[string]percentiles `json:"backendSecondsByType"`
	Phases               map[string]int         `json:"phases"`

	BackendRequests      float64            `json:"backendRequests"`
	BackendRequestsPerOp map[string]float64 `json:"backendRequestsPerOp"`
	BackendPOSTs         map[string]float64 `json:"backendPosts"`
	IntendedActions      int                `json:"intendedActions"`
	POSTViolations       []string           `json:"postViolations"`
	OnePOSTPerAction     bool               `json:"onePostPerAction"`

	// BackendGETsPerClusterSecond: per cluster, the backend GETs naming
	// it while it had an unfinished operation, divided by that time; the
	// shared cluster list (one per control plane) is ClusterListGETsPerSecond.
	BackendGETsPerClusterSecond percentiles `json:"backendGetsPerClusterSecond"`
	ClusterListGETsPerSecond    float64     `json:"clusterListGetsPerSecond"`

	KubeRequests      float64            `json:"kubeRequests"`
	KubeRequestsPerOp map[string]float64 `json:"kubeRequestsPerOp"`
	// KubeRequestsPerOpByKind: by verb (LIST and WATCH apart from GET) and
	// resource.
	KubeRequestsPerOpByKind map[string]float64 `json:"kubeRequestsPerOpByKind"`
	// KubeWritesPerOp: the provider's API writes (POST, PUT, PATCH,
	// DELETE) per operation, in total and by verb and resource.
	KubeWritesPerOp       float64            `json:"kubeWritesPerOp"`
	KubeWritesPerOpByKind map[string]float64 `json:"kubeWritesPerOpByKind"`
	// OperationWritesPerOp: the ClusterOps status writes per operation by
	// what they record (queued, intent, progress, finished) and its events
	// by reason.
	OperationWritesPerOp map[string]float64 `json:"operationWritesPerOp"`

	// ReconcilesPerOp: reconciles of the ClusterOps controller per
	// operation; QueueWaitSecondsMean: how long, on average, a reconcile
	// request waited in its work queue for a worker.
	ReconcilesPerOp      float64 `json:"reconcilesPerOp"`
	QueueWaitSecondsMean float64 `json:"queueWaitSecondsMean"`
	// WorkersBusyMean: how many of the ClusterOps controller's workers
	// were reconciling, on average over the makespan.
	WorkersBusyMean float64 `json:"workersBusyMean"`

	ProviderCPUSeconds float64 `json:"providerCpuSeconds"`
	ProviderPeakRSSMiB float64 `json:"providerPeakRssMiB"`
	// ControlPlaneCPUSeconds: the CPU seconds the envtest kube-apiserver
	// and etcd used over the burst (the machine has as many seconds per
	// second as cores; MakespanSeconds is the wall time).
	ControlPlaneCPUSeconds map[string]float64 `json:"controlPlaneCpuSeconds"`
	// ValidationMicros: the API server's CPU time, in microseconds, for
	// the CEL validation of each status write that finishes an operation
	// (celMicros), measured on the last operation of the first cluster.
	ValidationMicros map[string]float64 `json:"validationMicros"`
	Profiles         []string           `json:"profiles,omitempty"`
}

func runBurst(t *testing.T) {
	sz := world.sizes
	n := sz.BurstClusters
	s := newScenario(t, "burst", sz.BurstSpeed)
	clusters := s.seedClusters(n, 3, sb.ClusterUnready)
	p := startProvider(t, "burst")
	imported := s.waitClustersSynced(p, n, 10*time.Minute)
	w := s.watchOps()

	s.sim.ResetJournal()
	k0, w0, p0, cp0 := p.kubeRequests(t), p.kubeRequestsByKind(t), p.stats(), neighbourCPU()
	o0 := p.operationWrites(t)
	l0 := p.controllerLoad(t, clusterOpsController)
	var profiles, apiServerProfile, benchProfile []string
	var profWG sync.WaitGroup
	if sz.Pprof {
		profWG.Add(3)
		go func() { defer profWG.Done(); apiServerProfile = profileAPIServer(t, "burst", 30) }()
		go func() { defer profWG.Done(); benchProfile = profileBench(t, "burst", 30) }()
		go func() { defer profWG.Done(); profiles = p.profile(t, "burst", 30) }()
	}

	t0 := time.Now()
	parallel(t, n, 32, func(i int) error {
		for k, typ := range burstTypes {
			name := opName(clusters[i].Name, k, typ)
			if err := world.kube.Create(ctxBg, s.clusterOps(name, clusters[i].Name, typ, nil)); err != nil {
				return err
			}
			w.created(name, time.Now())
		}
		return nil
	})
	createdIn := time.Since(t0)
	w.waitTerminal(t, p, n*len(burstTypes), sz.BurstTimeout)
	journal := s.sim.Journal()
	saveJournal(t, "burst", journal)
	k1, w1, p1, cp1 := p.kubeRequests(t), p.kubeRequestsByKind(t), p.stats(), neighbourCPU()
	o1 := p.operationWrites(t)
	l1 := p.controllerLoad(t, clusterOpsController)
	profWG.Wait()
	profiles = append(append(profiles, apiServerProfile...), benchProfile...)

	recs := w.records()
	r := &burstResult{Clusters: n, Operations: n * len(burstTypes), Speed: sz.BurstSpeed,
		ImportSeconds: secs(imported), CreateSeconds: secs(createdIn),
		LagSecondsByType: map[string]percentiles{}, BackendSecondsByType: map[string]percentiles{},
		Phases: map[string]int{}, POSTViolations: []string{}, Profiles: profiles}
	ops := float64(r.Operations)

	var lags, dispatch, getRates []float64
	lagBy, durBy := map[string][]float64{}, map[string][]float64{}
	var last time.Time
	ideal := time.Duration(0)
	posts := postsByPath(journal)
	for _, c := range clusters {
		evs := s.rec.eventsOf(c.ID)
		clusterIdeal := time.Duration(0)
		var prevDone time.Time
		for k, typ := range burstTypes {
			rec := recs[opName(c.Name, k, typ)]
			r.Phases[string(rec.Phase)+"/"+rec.Reason]++
			done, ok := rec.Phases["Succeeded"]
			if !ok {
				t.Errorf("operation %s ended %s/%s: %s", rec.Name, rec.Phase, rec.Reason, rec.Message)
				continue
			}
			if rec.Reason != "Completed" {
				// Each operation of the burst has its work to do: one that
				// skipped it decided on a view from before its predecessor.
				t.Errorf("operation %s ended %s/%s: %s", rec.Name, rec.Phase, rec.Reason, rec.Message)
			}
			if done.After(last) {
				last = done
			}
			path := "/api/v2/clusters/" + c.ID + "/" + strings.ToLower(typ)
			calls := posts[path]
			r.IntendedActions++
			if len(calls) != 1 {
				r.POSTViolations = append(r.POSTViolations, fmt.Sprintf("%s: %d POSTs to %s", rec.Name, len(calls), path))
				continue
			}
			post := calls[0]
			final, ok := finalState(evs, typ, post, len(c.NodeIDs))
			if !ok {
				t.Errorf("operation %s: no final state of %s in the simulator's events after its call at %s",
					rec.Name, typ, post.Format(time.RFC3339Nano))
				continue
			}
			d := final.Sub(post)
			clusterIdeal += d
			durBy[typ] = append(durBy[typ], d.Seconds())
			lag := done.Sub(final).Seconds()
			lags = append(lags, lag)
			lagBy[typ] = append(lagBy[typ], lag)
			ready := rec.Created
			if prevDone.After(ready) {
				ready = prevDone
			}
			dispatch = append(dispatch, post.Sub(ready).Seconds())
			prevDone = done
		}
		ideal = max(ideal, clusterIdeal)
		if busy := prevDone.Sub(t0).Seconds(); busy > 0 {
			getRates = append(getRates, float64(getsNaming(journal, c.ID, t0, prevDone))/busy)
		}
	}
	// Every POST must be one of the intended ones.
	for path, calls := range posts {
		if !intendedPOST(path) {
			r.POSTViolations = append(r.POSTViolations, fmt.Sprintf("unexpected: %d POSTs to %s", len(calls), path))
		}
	}
	sort.Strings(r.POSTViolations)
	r.OnePOSTPerAction = len(r.POSTViolations) == 0

	r.MakespanSeconds = secs(last.Sub(t0))
	r.IdealMakespanSeconds = secs(ideal)
	if ideal > 0 {
		r.MakespanRatio = round3(last.Sub(t0).Seconds() / ideal.Seconds())
	}
	r.LagSeconds, r.DispatchSeconds = summarize(lags), summarize(dispatch)
	r.BackendGETsPerClusterSecond = summarize(getRates)
	if span := last.Sub(t0).Seconds(); span > 0 {
		r.ClusterListGETsPerSecond = round3(float64(getsNaming(journal, "", t0, last)) / span)
	}
	for _, typ := range burstTypes {
		r.LagSecondsByType[typ] = summarize(lagBy[typ])
		r.BackendSecondsByType[typ] = summarize(durBy[typ])
	}
	byEndpoint := countEndpoints(journal)
	r.BackendRequests = sum(byEndpoint)
	r.BackendRequestsPerOp = perUnit(byEndpoint, ops)
	r.BackendPOSTs = map[string]float64{}
	for k, v := range byEndpoint {
		if strings.HasPrefix(k, "POST ") {
			r.BackendPOSTs[k] = v
		}
	}
	kube := deltaCounts(k0, k1)
	r.KubeRequests = sum(kube)
	r.KubeRequestsPerOp = perUnit(kube, ops)
	byKind := deltaCounts(w0, w1)
	r.KubeRequestsPerOpByKind = perUnit(byKind, ops)
	writes := writesOf(byKind)
	r.KubeWritesPerOp = round3(sum(writes) / ops)
	r.KubeWritesPerOpByKind = perUnit(writes, ops)
	opWrites := deltaCounts(o0, o1)
	r.OperationWritesPerOp = perUnit(opWrites, ops)
	r.ReconcilesPerOp = round3((l1.reconciles - l0.reconciles) / ops)
	if waits := l1.waits - l0.waits; waits > 0 {
		r.QueueWaitSecondsMean = round3((l1.waitSeconds - l0.waitSeconds) / waits)
	}
	if span := last.Sub(t0).Seconds(); span > 0 {
		r.WorkersBusyMean = round3((l1.reconcileSeconds - l0.reconcileSeconds) / span)
	}
	r.ProviderCPUSeconds = round3(p1.CPUSeconds - p0.CPUSeconds)
	r.ControlPlaneCPUSeconds = map[string]float64{}
	for name, cpu := range cp1 {
		r.ControlPlaneCPUSeconds[name] = round3(cpu - cp0[name])
	}
	r.ProviderPeakRSSMiB = mib(p1.PeakBytes)
	r.ValidationMicros = map[string]float64{}
	for write, u := range finishWrites(s.read(t, "ClusterOps", opName(clusters[0].Name, len(burstTypes)-1, burstTypes[len(burstTypes)-1])),
		s.read(t, "StorageCluster", clusters[0].Name)) {
		r.ValidationMicros[write] = celMicros(t, u)
	}
	world.results.set(func(res *results) { res.Burst = r })

	tb := &table{title: fmt.Sprintf("burst: %d clusters × %d operations, simulator speed %g", n, len(burstTypes), sz.BurstSpeed)}
	tb.add("METRIC", "VALUE", "")
	tb.add("StorageClusters imported (Synced) in (s)", r.ImportSeconds)
	tb.add("operations created in (s)", r.CreateSeconds)
	tb.add("makespan (s)", r.MakespanSeconds)
	tb.add("ideal makespan (s)", r.IdealMakespanSeconds)
	tb.add("makespan / ideal", r.MakespanRatio)
	tb.add("detection lag (s)", r.LagSeconds.String())
	for _, typ := range burstTypes {
		tb.add("  lag "+typ+" (s)", r.LagSecondsByType[typ].String())
	}
	tb.add("dispatch delay (s)", r.DispatchSeconds.String())
	for _, typ := range burstTypes {
		tb.add("  backend duration "+typ+" (s)", r.BackendSecondsByType[typ].String())
	}
	for _, k := range sortedKeys(r.Phases) {
		tb.add("phase/reason "+k, r.Phases[k])
	}
	tb.add("one POST per intended action", fmt.Sprintf("%v (%d actions, %d violations)", r.OnePOSTPerAction, r.IntendedActions, len(r.POSTViolations)))
	tb.add("backend requests (total, per op)", fmt.Sprintf("%.0f", r.BackendRequests), fmt.Sprintf("%.3f", r.BackendRequests/ops))
	tb.addCounts("backend", byEndpoint, ops, "/op")
	tb.add("backend GETs per cluster-second while it has an operation", r.BackendGETsPerClusterSecond.String())
	tb.add("backend cluster-list GETs per second (shared)", r.ClusterListGETsPerSecond)
	tb.add("API requests (total, per op)", fmt.Sprintf("%.0f", r.KubeRequests), fmt.Sprintf("%.3f", r.KubeRequests/ops))
	tb.addCounts("API", kube, ops, "/op")
	tb.addCounts("API", byKind, ops, "/op")
	tb.add("API writes per op", r.KubeWritesPerOp)
	tb.addCounts("  ClusterOps", opWrites, ops, "/op")
	tb.add("ClusterOps reconciles per op", r.ReconcilesPerOp)
	tb.add("ClusterOps work-queue wait, mean (s)", r.QueueWaitSecondsMean)
	tb.add("ClusterOps workers busy, mean", r.WorkersBusyMean)
	tb.add("provider CPU (s)", r.ProviderCPUSeconds)
	for _, name := range sortedKeys(r.ControlPlaneCPUSeconds) {
		tb.add(name+" CPU (s)", r.ControlPlaneCPUSeconds[name])
	}
	tb.add("provider peak RSS (MiB)", r.ProviderPeakRSSMiB)
	for _, write := range sortedKeys(r.ValidationMicros) {
		tb.add("API server CEL validation per write (µs)  "+write, r.ValidationMicros[write])
	}
	tb.print(t)

	for _, v := range r.POSTViolations {
		t.Errorf("POST: %s", v)
	}
	checkFields(t, r, "makespanSeconds", "idealMakespanSeconds", "makespanRatio", "lagSeconds", "lagSecondsByType",
		"backendRequestsPerOp", "backendGetsPerClusterSecond", "kubeRequestsPerOp", "kubeWritesPerOpByKind", "providerCpuSeconds", "providerPeakRssMiB", "onePostPerAction", "validationMicros")
	if r.LagSeconds.N != r.Operations {
		t.Errorf("lag measured for %d of %d operations", r.LagSeconds.N, r.Operations)
	}
}

// clusterOpsController is the ClusterOps controller's name in its metrics.
const clusterOpsController = "managed/clusterops.simplyblock.m.crossplane.io"

func opName(cluster string, k int, typ string) string {
	return fmt.Sprintf("%s-%d-%s", cluster, k+1, strings.ToLower(typ))
}

// postsByPath returns the start times of the POSTs, by path.
func postsByPath(j []simulator.JournalEntry) map[string][]time.Time {
	out := map[string][]time.Time{}
	for _, e := range j {
		if e.Method == "POST" {
			out[e.Path] = append(out[e.Path], e.Time)
		}
	}
	return out
}

// getsNaming counts the GETs in the journal between from and to whose path
// names cluster id, or, for id "", the GETs of the cluster list.
func getsNaming(j []simulator.JournalEntry, id string, from, to time.Time) int {
	n := 0
	for _, e := range j {
		if e.Method != "GET" || e.Time.Before(from) || e.Time.After(to) {
			continue
		}
		list := strings.TrimSuffix(e.Path, "/") == "/api/v2/clusters"
		if (id == "" && list) || (id != "" && strings.Contains(e.Path, "/clusters/"+id)) {
			n++
		}
	}
	return n
}

func intendedPOST(path string) bool {
	for _, typ := range burstTypes {
		if strings.HasSuffix(path, "/"+strings.ToLower(typ)) {
			return true
		}
	}
	return false
}

// finalState replays a cluster's events and returns the wall time the
// backend first reached, after the call at post, the state the operation
// of type typ waits for: Activate: cluster active; Expand: in_expansion →
// active; Rebalance: is_re_balancing true and then false; Shutdown: every
// node offline; Start: every node online and the cluster active.
func finalState(evs []simEvent, typ string, post time.Time, nodes int) (time.Time, bool) {
	cluster := ""
	count := map[string]int{"online": nodes}
	rebalancing, sawRebalance := false, false
	apply := func(e simEvent) {
		switch {
		case e.Object == "Cluster" && e.To != "":
			cluster = e.To
		case e.Object == "StorageNode" && e.To != "":
			count[e.From]--
			count[e.To]++
		case e.Object == "Rebalancing":
			rebalancing = e.To == "true"
		}
	}
	for _, e := range evs {
		apply(e)
		if e.Wall.Before(post) {
			continue
		}
		switch typ {
		case "Activate":
			if cluster == string(sb.ClusterActive) {
				return e.Wall, true
			}
		case "Expand":
			if e.Object == "Cluster" && e.From == string(sb.ClusterInExpansion) && e.To == string(sb.ClusterActive) {
				return e.Wall, true
			}
		case "Rebalance":
			if rebalancing {
				sawRebalance = true
			} else if sawRebalance {
				return e.Wall, true
			}
		case "Shutdown":
			if count["offline"] == nodes {
				return e.Wall, true
			}
		case "Start":
			if count["online"] == nodes && cluster == string(sb.ClusterActive) {
				return e.Wall, true
			}
		}
	}
	return time.Time{}, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
