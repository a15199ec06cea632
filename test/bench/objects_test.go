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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

var (
	gvStorage = schema.GroupVersion{Group: "simplyblock.m.crossplane.io", Version: "v1alpha1"}
	ctxBg     = context.Background()
)

// A seeded cluster: the backend cluster and the StorageCluster importing it.
type seeded struct {
	Name    string // StorageCluster name and backend name
	ID      string
	NodeIDs []string
}

// seedClusters seeds n backend clusters (nodes each, in status) and
// creates StorageClusters importing them (the quickstart parameters, which
// match the seeded defaults), 32 at a time.
func (s *scenario) seedClusters(n, nodes int, status sb.ClusterStatus) []seeded {
	s.t.Helper()
	out := make([]seeded, n)
	for i := range out {
		name := fmt.Sprintf("%s-c%04d", s.name, i+1)
		id, _, nodeIDs := s.sim.Seed(simulator.SeedCluster{Name: name, Nodes: nodes, Status: status})
		out[i] = seeded{Name: name, ID: id, NodeIDs: nodeIDs}
	}
	parallel(s.t, n, 32, func(i int) error {
		u := s.object("StorageCluster", out[i].Name, map[string]any{
			"name": out[i].Name, "maxSubsys": 0, "spdkVcpuCount": 0, "distrNdcs": 1, "distrNpcs": 1,
		})
		u.SetAnnotations(map[string]string{"crossplane.io/external-name": out[i].ID})
		return world.kube.Create(ctxBg, u)
	})
	return out
}

// object returns an unstructured managed resource of the scenario with the
// given spec.forProvider (not created).
func (s *scenario) object(kind, name string, forProvider map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvStorage.WithKind(kind))
	u.SetNamespace(s.ns)
	u.SetName(name)
	u.SetLabels(map[string]string{runLabel: s.name})
	raw, err := json.Marshal(forProvider)
	if err != nil {
		panic(err)
	}
	fp := map[string]any{}
	if err := json.Unmarshal(raw, &fp); err != nil {
		panic(err)
	}
	u.Object["spec"] = map[string]any{"forProvider": fp}
	return u
}

// read returns the object of kind named name, from the API server.
func (s *scenario) read(t *testing.T, kind, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvStorage.WithKind(kind))
	if err := world.kube.Get(ctxBg, types.NamespacedName{Namespace: s.ns, Name: name}, u); err != nil {
		t.Fatalf("read %s %s: %v", kind, name, err)
	}
	return u
}

// clusterOps returns a ClusterOps on the StorageCluster named cluster.
func (s *scenario) clusterOps(name, cluster, typ string, extra map[string]any) *unstructured.Unstructured {
	fp := map[string]any{
		"type": typ, "clusterIdRef": map[string]any{"name": cluster},
		// Generous bounds: a bench must not fail on a policy deadline.
		"timeoutSeconds": 7200, "preconditionTimeoutSeconds": 3600,
	}
	for k, v := range extra {
		fp[k] = v
	}
	return s.object("ClusterOps", name, fp)
}

// parallel runs fn(0..n-1) on workers goroutines, failing t on the first
// error.
func parallel(t *testing.T, n, workers int, fn func(i int) error) {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// waitClustersSynced waits until the provider has imported every
// StorageCluster of the scenario (Synced=True). Ready is not waited for:
// an imported StorageCluster turns Ready only at its second reconcile, one
// poll interval (--poll, 1m) after the first.
func (s *scenario) waitClustersSynced(p *provider, n int, timeout time.Duration) time.Duration {
	s.t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		l := &v1alpha1.StorageClusterList{}
		if err := world.kube.List(ctxBg, l, client.InNamespace(s.ns)); err != nil {
			s.t.Fatal(err)
		}
		ready, last := 0, ""
		for i := range l.Items {
			c := &l.Items[i]
			r, sy := c.GetCondition("Ready"), c.GetCondition("Synced")
			if sy.Status == corev1.ConditionTrue {
				ready++
			} else {
				last = fmt.Sprintf("%s: Ready=%s %s Synced=%s %s", c.Name, r.Status, r.Message, sy.Status, sy.Message)
			}
		}
		if ready >= n {
			return time.Since(start)
		}
		p.alive(s.t)
		if time.Now().After(deadline) {
			s.t.Fatalf("%d of %d StorageClusters synced after %s; e.g. %s", ready, n, timeout, last)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// ---- watching operations ------------------------------------------------

// An opRecord is what the watcher saw of one ClusterOps: the wall time each
// phase was first seen (the watch delivers the write within milliseconds).
type opRecord struct {
	Name     string
	Created  time.Time // the create call returned
	Phases   map[v1alpha1.OperationPhase]time.Time
	Phase    v1alpha1.OperationPhase
	Reason   string
	Message  string
	Attempts int64
}

// An opWatcher watches the scenario's ClusterOps through an informer.
type opWatcher struct {
	mu       sync.Mutex
	ops      map[string]*opRecord
	terminal int
	changed  chan struct{}
	stop     context.CancelFunc
}

func (s *scenario) watchOps() *opWatcher {
	s.t.Helper()
	ctx, cancel := context.WithCancel(ctxBg)
	w := &opWatcher{ops: map[string]*opRecord{}, changed: make(chan struct{}, 1), stop: cancel}
	c, err := cache.New(world.restConfig, cache.Options{Scheme: world.scheme,
		DefaultNamespaces: map[string]cache.Config{s.ns: {}}})
	if err != nil {
		s.t.Fatal(err)
	}
	inf, err := c.GetInformer(ctx, &v1alpha1.ClusterOps{})
	if err != nil {
		s.t.Fatal(err)
	}
	handle := func(obj any) {
		o, ok := obj.(*v1alpha1.ClusterOps)
		if ok {
			w.observe(o, time.Now())
		}
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: handle, UpdateFunc: func(_, n any) { handle(n) },
	}); err != nil {
		s.t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		s.t.Fatal("the ClusterOps informer did not sync")
	}
	s.t.Cleanup(cancel)
	return w
}

func (w *opWatcher) observe(o *v1alpha1.ClusterOps, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.recordLocked(o.Name)
	st := o.Status.AtProvider
	if st.Phase != "" {
		if _, seen := r.Phases[st.Phase]; !seen {
			r.Phases[st.Phase] = now
			if isTerminal(st.Phase) {
				w.terminal++
			}
		}
	}
	r.Phase, r.Reason, r.Message, r.Attempts = st.Phase, st.Reason, st.Message, st.Attempts
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

func (w *opWatcher) recordLocked(name string) *opRecord {
	r := w.ops[name]
	if r == nil {
		r = &opRecord{Name: name, Phases: map[v1alpha1.OperationPhase]time.Time{}}
		w.ops[name] = r
	}
	return r
}

// created notes when the create call for name returned.
func (w *opWatcher) created(name string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recordLocked(name).Created = at
}

func isTerminal(p v1alpha1.OperationPhase) bool {
	return p == v1alpha1.OperationSucceeded || p == v1alpha1.OperationFailed
}

// waitTerminal waits until n operations finished.
func (w *opWatcher) waitTerminal(t *testing.T, p *provider, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastReport := time.Now()
	for {
		w.mu.Lock()
		done := w.terminal
		w.mu.Unlock()
		if done >= n {
			return
		}
		select {
		case <-w.changed:
		case <-tick.C:
			p.alive(t)
			if time.Since(lastReport) >= 30*time.Second {
				lastReport = time.Now()
				fmt.Printf("bench: %s: %d of %d operations finished\n", t.Name(), done, n)
			}
		case <-deadline.C:
			t.Fatalf("%d of %d operations finished within %s; unfinished: %s", done, n, timeout, w.unfinished(5))
		}
	}
}

func (w *opWatcher) unfinished(show int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, r := range w.ops {
		if !isTerminal(r.Phase) {
			out = append(out, fmt.Sprintf("%s %s/%s %q", r.Name, r.Phase, r.Reason, r.Message))
		}
	}
	sort.Strings(out)
	n := len(out)
	if n > show {
		out = out[:show]
	}
	return fmt.Sprintf("%d: %v", n, out)
}

// records returns a copy of every record.
func (w *opWatcher) records() map[string]opRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]opRecord, len(w.ops))
	for k, v := range w.ops {
		c := *v
		c.Phases = make(map[v1alpha1.OperationPhase]time.Time, len(v.Phases))
		for p, at := range v.Phases {
			c.Phases[p] = at
		}
		out[k] = c
	}
	return out
}

// ---- the simulator's journal and log -------------------------------------

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// endpoint names a journal entry with ids normalised, e.g.
// "GET /api/v2/clusters/{id}/storage-nodes/".
func endpoint(e simulator.JournalEntry) string {
	return e.Method + " " + uuidRE.ReplaceAllString(e.Path, "{id}")
}

// countEndpoints counts journal entries by endpoint.
func countEndpoints(j []simulator.JournalEntry) map[string]float64 {
	out := map[string]float64{}
	for _, e := range j {
		out[endpoint(e)]++
	}
	return out
}

// ---- cleanup --------------------------------------------------------------

// purgeNamespace deletes every object of the scenario's kinds in ns with
// its finalizers stripped (no provider runs any more), then ns.
func purgeNamespace(ns string) error {
	var errs []error
	for _, kind := range []string{"ClusterOps", "StorageNodeOps", "StorageNode", "StoragePool", "StorageCluster"} {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvStorage.WithKind(kind + "List"))
		if err := world.kube.List(ctxBg, l, client.InNamespace(ns)); err != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", kind, err))
			continue
		}
		var mu sync.Mutex
		work := make(chan *metav1.PartialObjectMetadata)
		var wg sync.WaitGroup
		for w := 0; w < 32; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for o := range work {
					if len(o.GetFinalizers()) == 0 {
						continue
					}
					patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
					if err := world.kube.Patch(ctxBg, o, patch); err != nil && !kerrors.IsNotFound(err) {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				}
			}()
		}
		for i := range l.Items {
			item := &l.Items[i]
			item.SetGroupVersionKind(gvStorage.WithKind(kind))
			work <- item
		}
		close(work)
		wg.Wait()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvStorage.WithKind(kind))
		// Deleting 10,000 objects in one call can outlast the API server's
		// request timeout while it goes on deleting: ask again.
		for attempt := 1; ; attempt++ {
			err := world.kube.DeleteAllOf(ctxBg, u, client.InNamespace(ns))
			if err == nil || kerrors.IsNotFound(err) {
				break
			}
			if (kerrors.IsServerTimeout(err) || kerrors.IsTimeout(err)) && attempt < 10 {
				continue
			}
			errs = append(errs, fmt.Errorf("delete %s: %w", kind, err))
			break
		}
	}
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := world.kube.Delete(ctxBg, nsObj); err != nil && !kerrors.IsNotFound(err) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
