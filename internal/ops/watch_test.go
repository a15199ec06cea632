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

package ops

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

// A backendView is a cluster and its nodes whose status a test changes.
type backendView struct {
	mu      sync.Mutex
	cluster sb.ClusterDTO
	nodes   []sb.StorageNodeDTO
}

func (b *backendView) set(f func(b *backendView)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b)
}

func (b *backendView) api() *fake.MockClient {
	return &fake.MockClient{
		MockListClusters: func(context.Context) ([]sb.ClusterDTO, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return []sb.ClusterDTO{b.cluster}, nil
		},
		MockListStorageNodes: func(context.Context, string) ([]sb.StorageNodeDTO, error) {
			b.mu.Lock()
			defer b.mu.Unlock()
			return append([]sb.StorageNodeDTO(nil), b.nodes...), nil
		},
	}
}

func TestWatcherWakes(t *testing.T) {
	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	cases := map[string]struct {
		reason string
		need   Needs
		// change alters the backend after the operation decided on it.
		change func(b *backendView)
		// linger is how long the interest lasts.
		linger time.Duration
		wake   bool
	}{
		"ClusterStatusChanged": {
			reason: "A cluster status change wakes the operation that saw the old status.",
			change: func(b *backendView) { b.cluster.Status = sb.ClusterActive },
			linger: time.Minute,
			wake:   true,
		},
		"NodeStatusChangedAndNodesNeeded": {
			reason: "A node status change wakes an operation that looks at nodes.",
			need:   Needs{Nodes: true},
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			linger: time.Minute,
			wake:   true,
		},
		"NodeStatusChangedButNodesNotNeeded": {
			reason: "A node status change does not wake an operation that only looks at the cluster.",
			change: func(b *backendView) { b.nodes[0].Status = sb.NodeOffline },
			linger: time.Minute,
		},
		"NothingChanged": {
			reason: "Polls that show what the operation saw wake nobody.",
			change: func(*backendView) {},
			linger: time.Minute,
		},
		"InterestLapsed": {
			reason: "An operation that stopped asking is not woken any more.",
			change: func(b *backendView) { b.cluster.Status = sb.ClusterActive },
			linger: time.Nanosecond,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterUnready},
				nodes: []sb.StorageNodeDTO{{ID: "n1", Status: sb.NodeOnline}}}
			src := Source{Key: "k", API: b.api()}
			w := &Watcher{Observer: NewObserver(0), Interval: 10 * time.Millisecond, Linger: tc.linger,
				NewObject: func() client.Object { return &v1alpha1.ClusterOps{} }, Log: logging.NewNopLogger()}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { _ = w.Start(ctx) }()

			seen, err := w.Observer.Fresh(ctx, src, "c1", Needs{Nodes: true})
			if err != nil {
				t.Fatal(err)
			}
			w.Watch(src, "c1", tc.need, seen, op)
			b.set(tc.change)

			var got []types.NamespacedName
			timeout := time.After(500 * time.Millisecond)
		collect:
			for {
				select {
				case ev := <-w.Events():
					got = append(got, types.NamespacedName{Namespace: ev.Object.GetNamespace(), Name: ev.Object.GetName()})
				case <-timeout:
					break collect
				}
			}
			var want []types.NamespacedName
			if tc.wake {
				// One wake-up per change, however many polls see it.
				want = []types.NamespacedName{op}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("\n%s\nwake-ups: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestWatcherStopsPolling: a cluster nobody waits on is not polled.
func TestWatcherStopsPolling(t *testing.T) {
	b := &backendView{cluster: sb.ClusterDTO{ID: "c1", Status: sb.ClusterUnready}}
	var mu sync.Mutex
	calls := 0
	api := b.api()
	list := api.MockListClusters
	api.MockListClusters = func(ctx context.Context) ([]sb.ClusterDTO, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return list(ctx)
	}
	src := Source{Key: "k", API: api}
	w := &Watcher{Observer: NewObserver(0), Interval: 5 * time.Millisecond, Linger: time.Minute,
		NewObject: func() client.Object { return &v1alpha1.ClusterOps{} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = w.Start(ctx) }()

	op := types.NamespacedName{Namespace: "ns", Name: "op"}
	w.Watch(src, "c1", Needs{}, &Snapshot{Cluster: b.cluster}, op)
	time.Sleep(50 * time.Millisecond)
	w.Unwatch(src, "c1", op)
	time.Sleep(20 * time.Millisecond) // the poll in flight, if any, ends
	mu.Lock()
	before := calls
	mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	after := calls
	mu.Unlock()
	if before == 0 {
		t.Errorf("a watched cluster was never polled")
	}
	if after != before {
		t.Errorf("a cluster nobody waits on was polled %d more times", after-before)
	}
}
