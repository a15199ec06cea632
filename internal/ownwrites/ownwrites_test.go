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

package ownwrites

import (
	"context"
	"fmt"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// A step is one call through the Client: a status write that the API
// server answers with resource version wrote (or fails with writeErr), or a
// Get that the cache answers at cached and the API server at api.
type step struct {
	wrote    string
	writeErr error
	cached   string
	api      string
	apiErr   error
}

// A result is what a Get returned: the resource version read, whether the
// API server was asked, and the error.
type result struct {
	rv     string
	asked  bool
	errStr string
}

func TestClient(t *testing.T) {
	errBoom := errors.New("boom")
	cases := map[string]struct {
		reason string
		steps  []step
		want   []result
	}{
		"NothingWritten": {
			reason: "An object this client never wrote is read from the cache.",
			steps:  []step{{cached: "1"}},
			want:   []result{{rv: "1"}},
		},
		"CacheCaughtUp": {
			reason: "A cache that shows the client's last write is enough.",
			steps:  []step{{wrote: "2"}, {cached: "2"}},
			want:   []result{{}, {rv: "2"}},
		},
		"CacheBehindOwnWrite": {
			reason: "A cache older than the client's last write is not read from: the API server is.",
			steps:  []step{{wrote: "2"}, {cached: "1", api: "2"}},
			want:   []result{{}, {rv: "2", asked: true}},
		},
		"StillBehindAfterReadingTheAPIServer": {
			reason: "Reading the API server once does not make a cache that is still behind good enough.",
			steps:  []step{{wrote: "2"}, {cached: "1", api: "2"}, {cached: "1", api: "2"}, {cached: "2"}},
			want:   []result{{}, {rv: "2", asked: true}, {rv: "2", asked: true}, {rv: "2"}},
		},
		"NewerWriteByOthers": {
			reason: "A cache showing another version than the client's last write (someone wrote since) is checked once, then trusted once it shows what the API server showed.",
			steps:  []step{{wrote: "2"}, {cached: "3", api: "3"}, {cached: "3"}},
			want:   []result{{}, {rv: "3", asked: true}, {rv: "3"}},
		},
		"ForgottenOnceCaughtUp": {
			reason: "Once the cache caught up the object is no longer tracked: later reads are the cache's.",
			steps:  []step{{wrote: "2"}, {cached: "2"}, {cached: "5"}},
			want:   []result{{}, {rv: "2"}, {rv: "5"}},
		},
		"FailedWriteLearnsNothing": {
			reason: "A write the API server refused changes nothing the client knows.",
			steps:  []step{{wrote: "2", writeErr: errBoom}, {cached: "1"}},
			want:   []result{{errStr: "boom"}, {rv: "1"}},
		},
		"APIServerReadFails": {
			reason: "A failed read of the API server is returned, not the stale cached copy.",
			steps:  []step{{wrote: "2"}, {cached: "1", apiErr: errBoom}},
			want:   []result{{}, {asked: true, errStr: "boom"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var cur step
			asked := false
			set := func(obj client.Object, rv string) {
				obj.SetUID("uid-1")
				obj.SetResourceVersion(rv)
			}
			cache := &test.MockClient{
				MockGet: func(_ context.Context, _ client.ObjectKey, obj client.Object) error {
					set(obj, cur.cached)
					return nil
				},
				MockStatusUpdate: func(_ context.Context, obj client.Object, _ ...client.SubResourceUpdateOption) error {
					if cur.writeErr != nil {
						return cur.writeErr
					}
					set(obj, cur.wrote)
					return nil
				},
			}
			api := &test.MockClient{MockGet: func(_ context.Context, _ client.ObjectKey, obj client.Object) error {
				asked = true
				if cur.apiErr != nil {
					return cur.apiErr
				}
				set(obj, cur.api)
				return nil
			}}
			c := New(cache, api)
			got := make([]result, 0, len(tc.steps))
			for _, s := range tc.steps {
				cur, asked = s, false
				obj := &v1alpha1.ClusterOps{}
				obj.SetUID("uid-1")
				var err error
				r := result{}
				if s.wrote != "" {
					err = c.Status().Update(context.Background(), obj)
				} else {
					err = c.Get(context.Background(), client.ObjectKey{Name: "op"}, obj)
					r.rv, r.asked = obj.GetResourceVersion(), asked
					if err != nil {
						r.rv = ""
					}
				}
				if err != nil {
					r.errStr = err.Error()
				}
				got = append(got, r)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("\n%s\nreads: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestForgetOldest(t *testing.T) {
	c := New(test.NewMockClient(), test.NewMockClient())
	for i := 0; i < maxTracked+1; i++ {
		o := &v1alpha1.ClusterOps{}
		o.SetUID(uid(i))
		o.SetResourceVersion("1")
		c.learn(o)
	}
	if got, max := len(c.newest), maxTracked/2+2; got > max {
		t.Errorf("tracked %d objects after passing the bound, want at most %d", got, max)
	}
	if _, ok := c.newest[uid(maxTracked)]; !ok {
		t.Errorf("the newest object was forgotten")
	}
	if _, ok := c.newest[uid(0)]; ok {
		t.Errorf("the oldest object is still tracked")
	}
}

func uid(i int) k8stypes.UID { return k8stypes.UID(fmt.Sprintf("uid-%d", i)) }
