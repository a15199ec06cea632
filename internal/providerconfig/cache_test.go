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

package providerconfig

import (
	"testing"

	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

var _ NewClientFn = Clients.Client

func TestClientCache(t *testing.T) {
	cfgA := simplyblock.Config{BaseURL: "https://a.example", Token: "t1"}
	cfgB := simplyblock.Config{BaseURL: "https://a.example", Token: "t2"}
	cfgCert1 := simplyblock.Config{BaseURL: "https://a.example", Token: "t1", ClientCert: []byte("cert-1"), ClientKey: []byte("key-1")}
	cfgCert2 := simplyblock.Config{BaseURL: "https://a.example", Token: "t1", ClientCert: []byte("cert-2"), ClientKey: []byte("key-2")}
	cases := map[string]struct {
		reason string
		cfgs   []simplyblock.Config
		built  int
		err    error
	}{
		"SameConfigOneClient": {
			reason: "Every connect with one configuration gets the one client: its connections are reused.",
			cfgs:   []simplyblock.Config{cfgA, cfgA, cfgA},
			built:  1,
		},
		"RotatedTokenNewClient": {
			reason: "A rotated token is a new configuration and gets its own client.",
			cfgs:   []simplyblock.Config{cfgA, cfgB, cfgA},
			built:  2,
		},
		"RotatedClientCertificateNewClient": {
			reason: "A renewed client certificate is a new configuration: the old client would present the old one.",
			cfgs:   []simplyblock.Config{cfgA, cfgCert1, cfgCert2, cfgCert1},
			built:  3,
		},
		"BuildErrorNotCached": {
			reason: "A client that cannot be built is not cached: the next connect tries again.",
			cfgs:   []simplyblock.Config{cfgA, cfgA},
			built:  2,
			err:    errors.New("boom"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			built := 0
			c := &ClientCache{NewClient: func(simplyblock.Config) (simplyblock.API, error) {
				built++
				if tc.err != nil {
					return nil, tc.err
				}
				return &fake.MockClient{}, nil
			}}
			first := map[string]simplyblock.API{}
			for _, cfg := range tc.cfgs {
				api, err := c.Client(cfg)
				if (err != nil) != (tc.err != nil) {
					t.Fatalf("\n%s\nClient(...): error %v, want %v", tc.reason, err, tc.err)
				}
				if err != nil {
					continue
				}
				k := Key(cfg)
				if prev, ok := first[k]; ok && prev != api {
					t.Errorf("\n%s\nClient(...): a second client for one configuration", tc.reason)
				}
				first[k] = api
			}
			if built != tc.built {
				t.Errorf("\n%s\nClient(...): built %d clients, want %d", tc.reason, built, tc.built)
			}
		})
	}
}
