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

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestXRGrowsThroughCrashes creates an XR and grows it while Crossplane
// core and the provider are SIGKILLed at random moments, and checks that the
// backend saw each call once: the same journal as without crashes. The
// seed is logged; E2E_SEED=<seed> replays the kill schedule.
func TestXRGrowsThroughCrashes(t *testing.T) {
	needWorld(t)
	seed := time.Now().UnixNano()
	if s := os.Getenv("E2E_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatalf("E2E_SEED: %v", err)
		}
	}
	t.Logf("seed %d (E2E_SEED=%d replays the kill schedule)", seed, seed)
	ns := newNamespace(t, "e2e-crash")
	c, u := newComposite(t, "xr.yaml", ns, "crash", "10.3.0.")
	since := time.Now()

	chaos := startChaos(rand.New(rand.NewPCG(uint64(seed), 0))) //nolint:gosec // a replayable schedule, not a secret
	t.Cleanup(func() { _, _ = chaos.stop() })                   // a failed wait must not leave it killing
	c.create(u)
	c.waitOperation(c.composedName("activate"))
	c.waitReady()
	id := c.clusterID()
	c.setNodes(c.nodesOf("xr-expanded.yaml"))
	expand := waitExpand(c)
	c.waitOperation(expand)
	kills, err := chaos.stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kills: %s", strings.Join(kills, ", "))
	if !slices.ContainsFunc(kills, func(k string) bool { return strings.Contains(k, "core") }) ||
		!slices.ContainsFunc(kills, func(k string) bool { return strings.Contains(k, "provider") }) {
		t.Errorf("the schedule killed %v: want core and the provider killed at least once", kills)
	}

	xr := c.waitReady()
	if got := field(xr, "status", "nodes", "ready"); got != "5" {
		t.Errorf("status.nodes.ready = %q, want 5", got)
	}
	time.Sleep(quietPeriod)
	calls := changes(id, since)
	want := map[string]int{"POST clusters/": 1, "POST storage-nodes/": 5, "POST storage-pools/": 1, "POST activate": 1}
	ok, got := sameCounts(want, counts(calls, false))
	t.Logf("through %d kills the backend saw %s", len(kills), got)
	if !ok {
		t.Errorf("through %d kills the backend saw %s; want %v%s", len(kills), got, want, describe(calls))
	}
	if ops := c.operations(); !slices.Equal(ops, []string{c.composedName("activate"), expand}) {
		t.Errorf("composed ClusterOps %v, want the Activate and %s", ops, expand)
	}
}

// A chaos kills Crossplane core, the provider or both at random moments
// and restarts them, until stopped.
type chaos struct {
	done  chan struct{}
	ended chan struct{}
	once  sync.Once

	mu    sync.Mutex
	kills []string
	err   error
}

// Bounds of the kill schedule.
const (
	minUptime, maxUptime = 500 * time.Millisecond, 4 * time.Second
	maxDowntime          = 1500 * time.Millisecond
)

func startChaos(rng *rand.Rand) *chaos {
	ch := &chaos{done: make(chan struct{}), ended: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(ch.ended)
		for round := 0; ; round++ {
			uptime := minUptime + time.Duration(rng.Int64N(int64(maxUptime-minUptime)))
			select {
			case <-ch.done:
				return
			case <-time.After(uptime):
			}
			// The first two rounds kill each once; then either or both.
			victim := round
			if round > 1 {
				victim = rng.IntN(3)
			}
			core, provider := victim != 1, victim != 0
			if core {
				world.xp.KillCore()
			}
			if provider {
				killProvider()
			}
			ch.mu.Lock()
			ch.kills = append(ch.kills, fmt.Sprintf("%s at %.1fs", map[int]string{0: "core", 1: "provider", 2: "core+provider"}[victim],
				time.Since(start).Seconds()))
			ch.mu.Unlock()
			time.Sleep(time.Duration(rng.Int64N(int64(maxDowntime))))
			if err := ch.restart(core, provider); err != nil {
				ch.mu.Lock()
				ch.err = err
				ch.mu.Unlock()
				return
			}
		}
	}()
	return ch
}

func (ch *chaos) restart(core, provider bool) error {
	if core {
		if err := world.xp.StartCore(); err != nil {
			return fmt.Errorf("cannot restart core: %w", err)
		}
	}
	if provider {
		if err := startProvider(); err != nil {
			return fmt.Errorf("cannot restart the provider: %w", err)
		}
	}
	return nil
}

// stop ends the schedule, with core and the provider running, and returns
// the kills it made.
func (ch *chaos) stop() ([]string, error) {
	ch.once.Do(func() { close(ch.done) })
	<-ch.ended
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return slices.Clone(ch.kills), ch.err
}
