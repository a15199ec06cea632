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
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// storageClusterPoll is the endpoint of a StorageCluster's drift check;
// every other backend request at rest is attributed to operations.
const storageClusterPoll = "GET /api/v2/clusters/{id}/"

type restResult struct {
	Clusters      int     `json:"clusters"`
	Operations    int     `json:"operations"`
	WindowSeconds float64 `json:"windowSeconds"`
	// SetupSeconds: from starting the provider until every StorageCluster
	// was Synced and every (already finished) operation was reconciled once.
	SetupSeconds  float64        `json:"setupSeconds"`
	SettleSeconds float64        `json:"settleSeconds"`
	Phases        map[string]int `json:"phases"`

	BackendRequestsPerMinute      float64            `json:"backendRequestsPerMinute"`
	StorageClusterRequestsPerMin  float64            `json:"storageClusterRequestsPerMinute"`
	OperationRequestsPerMinute    float64            `json:"operationRequestsPerMinute"`
	BackendRequestsPerMinByTarget map[string]float64 `json:"backendRequestsPerMinuteByEndpoint"`
	KubeRequestsPerMinute         float64            `json:"kubeRequestsPerMinute"`
	KubeRequestsPerMinByVerb      map[string]float64 `json:"kubeRequestsPerMinuteByVerb"`
	// KubeRequestsPerMinByKind: by "VERB resource[/sub]" (LIST and WATCH
	// apart from GET).
	KubeRequestsPerMinByKind map[string]float64 `json:"kubeRequestsPerMinuteByKind"`

	ProviderCPUSeconds   float64 `json:"providerCpuSeconds"`
	ProviderCPUPercent   float64 `json:"providerCpuPercent"`
	ProviderRSSMiB       float64 `json:"providerRssMiB"`
	ProviderWindowMaxMiB float64 `json:"providerWindowMaxRssMiB"`
	ProviderPeakRSSMiB   float64 `json:"providerPeakRssMiB"`
	// ProviderRSSAnonMiB and ProviderRSSFileMiB split the RSS at the end:
	// the process's own memory and mapped files (the binary).
	ProviderRSSAnonMiB float64 `json:"providerRssAnonMiB"`
	ProviderRSSFileMiB float64 `json:"providerRssFileMiB"`
	// GoHeapInuseMiB and GoHeapGoalMiB are the Go runtime's at the end:
	// the heap's spans in use, and the size at which it collects next.
	GoHeapInuseMiB float64  `json:"goHeapInuseMiB"`
	GoHeapGoalMiB  float64  `json:"goHeapGoalMiB"`
	Profiles       []string `json:"profiles,omitempty"`
}

func runRest(t *testing.T) {
	sz := world.sizes
	m, k := sz.RestClusters, sz.RestOps
	s := newScenario(t, "rest", 100)
	clusters := s.seedClusters(m, 3, sb.ClusterActive)
	w := s.watchOps()
	// Operations that finished before the provider started, as the
	// provider finds them after a restart: created with its finalizer and a
	// finished status. (Running 10,000 operations through their lifecycle
	// first is bound by the API server: about six writes each, over a
	// quarter of an hour on two cores, and it is what the burst measures.)
	finished := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	parallel(t, k, 32, func(i int) error {
		c := clusters[i%m]
		name := fmt.Sprintf("%s-a%05d", c.Name, i/m)
		u := s.clusterOps(name, c.Name, "Activate", nil)
		u.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
		if err := world.kube.Create(ctxBg, u); err != nil {
			return err
		}
		u.Object["status"] = map[string]any{"atProvider": map[string]any{
			"phase": "Succeeded", "reason": "NothingToDo", "message": "the cluster is already active",
			"startedAt": finished.UTC().Format(time.RFC3339), "completedAt": finished.UTC().Format(time.RFC3339),
			"progress": map[string]any{"done": int64(1), "total": int64(1)},
		}}
		if err := world.kube.Status().Update(ctxBg, u); err != nil {
			return err
		}
		w.created(name, time.Now())
		return nil
	})
	setupStart := time.Now()
	p := startProvider(t, "rest")
	s.waitClustersSynced(p, m, sz.RestSetupTimeout)
	w.waitTerminal(t, p, k, sz.RestSetupTimeout-time.Since(setupStart))
	p.waitIdle(t, clusterOpsController, k, sz.RestSetupTimeout-time.Since(setupStart))
	p.waitQuiet(t, clusterOpsController, 10*time.Second, sz.RestSetupTimeout-time.Since(setupStart))
	setup := time.Since(setupStart)
	r := &restResult{Clusters: m, Operations: k, SetupSeconds: secs(setup), Phases: map[string]int{}}
	for _, rec := range w.records() {
		r.Phases[string(rec.Phase)+"/"+rec.Reason]++
		if rec.Phase != "Succeeded" {
			t.Errorf("operation %s ended %s/%s: %s", rec.Name, rec.Phase, rec.Reason, rec.Message)
		}
	}
	// Let the last status writes (lock releases, history) settle.
	settle := min(max(sz.RestWindow/10, 2*time.Second), 30*time.Second)
	time.Sleep(settle)
	r.SettleSeconds = secs(settle)

	s.sim.ResetJournal()
	k0, w0, p0 := p.kubeRequests(t), p.kubeRequestsByKind(t), p.stats()
	start := time.Now()
	var profiles []string
	var profWG sync.WaitGroup
	if sz.Pprof {
		profWG.Add(1)
		go func() {
			defer profWG.Done()
			profiles = p.profile(t, "rest", int(min(sz.RestWindow, 60*time.Second).Seconds()))
		}()
	}
	var windowMax int64
	for time.Since(start) < sz.RestWindow {
		time.Sleep(min(time.Second, sz.RestWindow-time.Since(start)))
		p.alive(t)
		windowMax = max(windowMax, p.stats().RSSBytes)
	}
	window := time.Since(start)
	journal := s.sim.Journal()
	k1, w1, p1 := p.kubeRequests(t), p.kubeRequestsByKind(t), p.stats()
	profWG.Wait()
	r.Profiles = profiles

	minutes := window.Minutes()
	r.WindowSeconds = secs(window)
	byEndpoint := countEndpoints(journal)
	r.BackendRequestsPerMinByTarget = perUnit(byEndpoint, minutes)
	r.BackendRequestsPerMinute = round3(sum(byEndpoint) / minutes)
	r.StorageClusterRequestsPerMin = round3(byEndpoint[storageClusterPoll] / minutes)
	r.OperationRequestsPerMinute = round3((sum(byEndpoint) - byEndpoint[storageClusterPoll]) / minutes)
	kube := deltaCounts(k0, k1)
	r.KubeRequestsPerMinByVerb = perUnit(kube, minutes)
	r.KubeRequestsPerMinute = round3(sum(kube) / minutes)
	byKind := deltaCounts(w0, w1)
	r.KubeRequestsPerMinByKind = perUnit(byKind, minutes)
	r.ProviderCPUSeconds = round3(p1.CPUSeconds - p0.CPUSeconds)
	r.ProviderCPUPercent = round3(100 * (p1.CPUSeconds - p0.CPUSeconds) / window.Seconds())
	r.ProviderRSSMiB = mib(p1.RSSBytes)
	r.ProviderWindowMaxMiB = mib(max(windowMax, p1.RSSBytes))
	r.ProviderPeakRSSMiB = mib(p1.PeakBytes)
	r.ProviderRSSAnonMiB, r.ProviderRSSFileMiB = mib(p1.RSSAnonBytes), mib(p1.RSSFileBytes)
	if m, err := p.metrics(); err == nil {
		r.GoHeapInuseMiB = mib(int64(m.sumBy("go_memstats_heap_inuse_bytes", "")[""]))
		r.GoHeapGoalMiB = mib(int64(m.sumBy("go_gc_heap_goal_bytes", "")[""]))
	}
	world.results.set(func(res *results) { res.Rest = r })

	tb := &table{title: fmt.Sprintf("rest: %d StorageClusters + %d finished operations, window %s", m, k, window.Round(time.Second))}
	tb.add("METRIC", "VALUE", "")
	tb.add("setup: provider start to all Synced and reconciled (s)", r.SetupSeconds)
	for _, key := range sortedKeys(r.Phases) {
		tb.add("phase/reason "+key, r.Phases[key])
	}
	tb.add("backend requests/min", r.BackendRequestsPerMinute)
	tb.add("  StorageCluster polling/min ("+storageClusterPoll+")", r.StorageClusterRequestsPerMin)
	tb.add("  attributable to operations/min", r.OperationRequestsPerMinute)
	tb.addCounts("backend", byEndpoint, minutes, "/min")
	tb.add("API requests/min", r.KubeRequestsPerMinute)
	tb.addCounts("API", kube, minutes, "/min")
	tb.addCounts("API", byKind, minutes, "/min")
	tb.add("provider CPU in window (s, %)", r.ProviderCPUSeconds, fmt.Sprintf("%.1f%%", r.ProviderCPUPercent))
	tb.add("provider RSS at end / max in window (MiB)", r.ProviderRSSMiB, r.ProviderWindowMaxMiB)
	tb.add("provider peak RSS incl. setup (MiB)", r.ProviderPeakRSSMiB)
	tb.add("  RSS at end: own / mapped files (MiB)", r.ProviderRSSAnonMiB, r.ProviderRSSFileMiB)
	tb.add("  Go heap in use / next GC goal (MiB)", r.GoHeapInuseMiB, r.GoHeapGoalMiB)
	tb.print(t)

	checkFields(t, r, "backendRequestsPerMinute", "storageClusterRequestsPerMinute", "operationRequestsPerMinute",
		"backendRequestsPerMinuteByEndpoint", "kubeRequestsPerMinute", "kubeRequestsPerMinuteByVerb", "kubeRequestsPerMinuteByKind",
		"providerCpuSeconds", "providerRssMiB", "providerPeakRssMiB")
	if n := len(w.records()); n != k {
		t.Errorf("watched %d operations, created %d", n, k)
	}
}
