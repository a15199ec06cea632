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
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// Key identifies a client configuration (endpoint, credentials, TLS,
// timeout) without revealing the token: equal keys mean interchangeable
// clients that see the same backend.
func Key(cfg simplyblock.Config) string {
	h := sha256.New()
	_, _ = fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00%d", cfg.BaseURL, cfg.Token, cfg.CABundle, cfg.InsecureSkipVerify, cfg.Timeout)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// A ClientCache hands out one client per configuration, so reconciles
// reuse connections (and TLS sessions) instead of building a client each
// time. A rotated token or CA is a new configuration and gets a new client.
type ClientCache struct {
	// NewClient builds a client for a configuration not seen before.
	NewClient NewClientFn

	mu      sync.Mutex
	clients map[string]simplyblock.API
}

// Clients is the provider's one client cache, shared by every controller:
// one client, and one pool of connections, per control plane configuration.
var Clients = &ClientCache{NewClient: NewClient}

// Client returns the client for cfg; it is a NewClientFn.
func (c *ClientCache) Client(cfg simplyblock.Config) (simplyblock.API, error) {
	api, _, err := c.Get(cfg)
	return api, err
}

// maxCachedClients bounds the cache; beyond it the cache starts afresh
// (old configurations are normally rotated-away credentials).
const maxCachedClients = 256

// Get returns the client for cfg and its key.
func (c *ClientCache) Get(cfg simplyblock.Config) (simplyblock.API, string, error) {
	key := Key(cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if api, ok := c.clients[key]; ok {
		return api, key, nil
	}
	api, err := c.NewClient(cfg)
	if err != nil {
		return nil, "", err
	}
	if c.clients == nil || len(c.clients) >= maxCachedClients {
		c.clients = map[string]simplyblock.API{}
	}
	c.clients[key] = api
	return api, key, nil
}
