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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/simulator"
)

const (
	adminToken      = "bench-admin-token"
	systemNamespace = "bench-system"
	credsSecret     = "simplyblock-credentials"
	// runLabel marks every object a scenario creates.
	runLabel = "bench.simplyblock.io/scenario"
)

// A simEvent is one backend log event, or a change of is_re_balancing
// (Object "Rebalancing", To "true"/"false"), with the wall-clock time the
// simulator logged it (its log callback runs at the moment of the change).
type simEvent struct {
	Wall     time.Time
	Cluster  string
	Object   string // Cluster, StorageNode, JobSchedule, Pool, NVMeDevice, distr or Rebalancing
	ObjectID string // the entry's NodeId ("" for "None")
	From, To string // status change; empty otherwise
	Message  string
}

// simRecorder keeps the simulator's events with wall times, and writes the
// simulator's log to a file.
type simRecorder struct {
	mu     sync.Mutex
	events map[string][]simEvent // by cluster id
	logw   *bufio.Writer
	logf   *os.File
}

// The simulator logs "event cluster=<id> <object> node=<NodeId>: <message>"
// for every log event it writes (object is sbcli's object_name: Cluster,
// StorageNode, JobSchedule, Pool, NVMeDevice or distr; NodeId is the
// entry's NodeId, "None" for cluster events); statusChange parses the
// message: "Cluster status changed from X to Y", "Storage node status
// changed from: X to: Y".
// Its monitor logs "monitor: cluster <id> is_re_balancing <bool>" when it
// changes the flag (the backend logs no event for it).
var (
	eventLine       = regexp.MustCompile(`^event cluster=(\S+) (\S+) node=(\S+): (.*)$`)
	statusChange    = regexp.MustCompile(`status changed from:? (\S+) to:? (\S+)$`)
	rebalancingLine = regexp.MustCompile(`^monitor: cluster (\S+) is_re_balancing (true|false)$`)
)

func (r *simRecorder) log(format string, args ...any) {
	now := time.Now()
	line := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logw != nil {
		_, _ = r.logw.WriteString(now.Format("15:04:05.000000 ") + line + "\n")
	}
	if m := rebalancingLine.FindStringSubmatch(line); m != nil {
		from := strconv.FormatBool(m[2] != "true")
		r.events[m[1]] = append(r.events[m[1]], simEvent{Wall: now, Cluster: m[1], Object: "Rebalancing", From: from, To: m[2]})
		return
	}
	m := eventLine.FindStringSubmatch(line)
	if m == nil {
		return
	}
	ev := simEvent{Wall: now, Cluster: m[1], Object: m[2], Message: m[4]}
	if m[3] != "None" {
		ev.ObjectID = m[3]
	}
	if sc := statusChange.FindStringSubmatch(m[4]); sc != nil {
		ev.From, ev.To = sc[1], sc[2]
	}
	r.events[ev.Cluster] = append(r.events[ev.Cluster], ev)
}

func (r *simRecorder) add(ev simEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[ev.Cluster] = append(r.events[ev.Cluster], ev)
}

// eventsOf returns a copy of a cluster's events, oldest first.
func (r *simRecorder) eventsOf(cluster string) []simEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]simEvent(nil), r.events[cluster]...)
}

func (r *simRecorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.logw != nil {
		_ = r.logw.Flush()
		_ = r.logf.Close()
		r.logw = nil
	}
}

// A scenario is one simulator and the objects of one scenario, in one
// namespace.
type scenario struct {
	t    *testing.T
	name string
	ns   string
	sim  *simulator.Simulator
	rec  *simRecorder
	// speed is the simulator's time scale.
	speed float64
}

// newScenario starts a simulator with the given speed, points the
// ClusterProviderConfig "default" at it and creates the scenario's
// namespace. At t's end (after the provider stopped) it purges the
// namespace and closes the simulator.
func newScenario(t *testing.T, name string, speed float64) *scenario {
	t.Helper()
	if testing.Short() {
		t.Skip("bench: skipped with -short (it runs the provider as a process against envtest and the simulator)")
	}
	rec := &simRecorder{events: map[string][]simEvent{}}
	f, err := os.Create(filepath.Join(world.logDir, name+".simulator.log"))
	if err != nil {
		t.Fatal(err)
	}
	rec.logf, rec.logw = f, bufio.NewWriterSize(f, 1<<20)
	sim := simulator.New(simulator.Options{Speed: speed, AdminTokens: []string{adminToken}, TLS: true, Logf: rec.log})
	if err := sim.Start(); err != nil {
		t.Fatalf("cannot start the simulator: %v", err)
	}
	s := &scenario{t: t, name: name, ns: "bench-" + name, sim: sim, rec: rec, speed: speed}
	// Registered first, so it runs after the provider has stopped.
	t.Cleanup(func() {
		start := time.Now()
		if err := purgeNamespace(s.ns); err != nil {
			t.Errorf("cannot clean up namespace %s: %v", s.ns, err)
		}
		sim.Close()
		rec.close()
		t.Logf("cleanup took %s", time.Since(start).Round(time.Millisecond))
	})
	installProviderConfig(t, sim)
	if err := world.kube.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}); err != nil {
		t.Fatalf("cannot create namespace %s: %v", s.ns, err)
	}
	return s
}

// installProviderConfig creates or updates the credentials Secret (admin
// token and the simulator's CA) and the ClusterProviderConfig "default"
// so that they point at sim.
func installProviderConfig(t *testing.T, sim *simulator.Simulator) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}}
	if err := world.kube.Create(ctx, ns); err != nil && !kerrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credsSecret, Namespace: systemNamespace},
		StringData: map[string]string{"token": adminToken, "ca.crt": string(sim.CACertPEM())}}
	spec := apisv1alpha1.ProviderConfigSpec{
		Endpoint: sim.URL(),
		Credentials: apisv1alpha1.ProviderCredentials{
			Source:    xpv2.CredentialsSourceSecret,
			SecretRef: apisv1alpha1.SecretKeySelector{Name: credsSecret, Namespace: systemNamespace, Key: "token"},
		},
		TLS: &apisv1alpha1.TLSConfig{CABundleSecretRef: &apisv1alpha1.SecretKeySelector{
			Name: credsSecret, Namespace: systemNamespace, Key: "ca.crt"}},
		RequestTimeoutSeconds: 30,
	}
	cpc := &apisv1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: spec}
	for _, o := range []client.Object{secret, cpc} {
		err := world.kube.Create(ctx, o)
		if kerrors.IsAlreadyExists(err) {
			err = upsert(ctx, o)
		}
		if err != nil {
			t.Fatalf("cannot create %T %s: %v", o, o.GetName(), err)
		}
	}
}

func upsert(ctx context.Context, o client.Object) error {
	switch want := o.(type) {
	case *corev1.Secret:
		got := &corev1.Secret{}
		if err := world.kube.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
			return err
		}
		got.Data, got.StringData = nil, want.StringData
		return world.kube.Update(ctx, got)
	case *apisv1alpha1.ClusterProviderConfig:
		got := &apisv1alpha1.ClusterProviderConfig{}
		if err := world.kube.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
			return err
		}
		got.Spec = want.Spec
		return world.kube.Update(ctx, got)
	}
	return fmt.Errorf("cannot update a %T", o)
}

// saveJournal writes the simulator's journal of a scenario (every backend
// request, with its time) to the log folder as <scenario>.journal.json,
// to see what a figure is made of.
func saveJournal(t *testing.T, scenario string, journal []simulator.JournalEntry) {
	t.Helper()
	b, err := json.Marshal(journal)
	if err == nil {
		err = os.WriteFile(filepath.Join(world.logDir, scenario+".journal.json"), b, 0o600)
	}
	if err != nil {
		t.Logf("cannot save the simulator's journal: %v", err)
	}
}
