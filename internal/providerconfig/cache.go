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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
)

// Key identifies a client configuration (endpoint, credentials, TLS with
// the client certificate, timeout) without revealing the token or the key:
// equal keys mean interchangeable clients that see the same backend.
func Key(cfg simplyblock.Config) string {
	h := sha256.New()
	_, _ = fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00%d\x00%s\x00%s", cfg.BaseURL, cfg.Token, cfg.CABundle, cfg.InsecureSkipVerify, cfg.Timeout,
		cfg.ClientCert, cfg.ClientKey)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// A ClientCache hands out one client per configuration, so reconciles
// reuse connections (and TLS sessions) instead of building a client each
// time. A rotated token, CA or client certificate is a new configuration
// and gets a new client.
//
// With Verify, it also checks once per configuration that the control
// plane answers the way the provider reads it (conformance.Probe), and
// keeps the verdict with the client: a control plane the provider would
// decide wrongly on gets no client (NonconformantError) until a later
// check finds it conformant (docs: README "Checking a real control plane").
type ClientCache struct {
	// NewClient builds a client for a configuration not seen before.
	NewClient NewClientFn
	// Verify, when set, checks a new client's control plane. nil checks
	// nothing (tests).
	Verify VerifyFn
	// WarnOnly hands out the client of a Nonconformant control plane all
	// the same: the verdict only shows in the BackendConformant condition.
	WarnOnly bool
	// Now is the clock of the re-check schedule; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	clients map[string]*cachedClient
}

// A cachedClient is one configuration's client and the verdict on its
// control plane.
type cachedClient struct {
	api simplyblock.API

	mu       sync.Mutex
	verdict  *conformance.Verdict
	at       time.Time     // when verdict was reached
	inflight chan struct{} // closed when the running check ends
}

// Clients is the provider's one client cache, shared by every controller:
// one client, and one pool of connections, per control plane configuration.
// cmd/provider configures its check (Configure).
var Clients = &ClientCache{NewClient: NewClient, Verify: Verifier(nil)}

// A ConformanceMode is what the provider does with a Nonconformant verdict.
type ConformanceMode string

// Conformance modes (the provider's --backend-conformance).
const (
	// ConformanceEnforce refuses to act on a Nonconformant control plane.
	ConformanceEnforce ConformanceMode = "enforce"
	// ConformanceWarn only shows the verdict.
	ConformanceWarn ConformanceMode = "warn"
	// ConformanceOff does not check control planes.
	ConformanceOff ConformanceMode = "off"
)

// Configure sets how c checks control planes: mode, and the provider's
// reading of a log entry. Call it before c hands out a client.
func (c *ClientCache) Configure(mode ConformanceMode, classify conformance.Classifier) {
	c.Verify, c.WarnOnly = Verifier(classify), mode == ConformanceWarn
	if mode == ConformanceOff {
		c.Verify = nil
	}
}

// Client returns the client for cfg; it is a NewClientFn.
func (c *ClientCache) Client(cfg simplyblock.Config) (simplyblock.API, error) {
	api, _, err := c.Get(cfg)
	return api, err
}

// maxCachedClients bounds the cache; beyond it the cache starts afresh
// (old configurations are normally rotated-away credentials).
const maxCachedClients = 256

// Get returns the client for cfg and its key. With Verify, the first Get
// of a configuration checks its control plane (at most ProbeTimeout), and
// a Nonconformant verdict is a NonconformantError instead of the client.
func (c *ClientCache) Get(cfg simplyblock.Config) (simplyblock.API, string, error) {
	e, key, err := c.entry(cfg)
	if err != nil {
		return nil, "", err
	}
	if c.Verify == nil {
		return e.api, key, nil
	}
	v, _, err := c.verdict(context.Background(), e, cfg)
	if err != nil {
		return nil, "", err
	}
	if v.State == conformance.Nonconformant && !c.WarnOnly {
		return nil, key, &NonconformantError{Endpoint: cfg.BaseURL, Failures: v.Failures()}
	}
	return e.api, key, nil
}

// Verdict returns the verdict on cfg's control plane, checking it when it
// is due, and how long until the next check (0: none; a complete
// conformant verdict is kept for as long as the client). Without Verify
// the verdict is Unchecked.
func (c *ClientCache) Verdict(ctx context.Context, cfg simplyblock.Config) (conformance.Verdict, time.Duration, error) {
	e, _, err := c.entry(cfg)
	if err != nil {
		return conformance.Verdict{}, 0, err
	}
	if c.Verify == nil {
		return conformance.Verdict{State: conformance.Unchecked, Reason: "the provider does not check control planes"}, 0, nil
	}
	return c.verdict(ctx, e, cfg)
}

// entry returns cfg's cache entry, building its client when new.
func (c *ClientCache) entry(cfg simplyblock.Config) (*cachedClient, string, error) {
	key := Key(cfg)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.clients[key]; ok {
		return e, key, nil
	}
	api, err := c.NewClient(cfg)
	if err != nil {
		return nil, "", err
	}
	if c.clients == nil || len(c.clients) >= maxCachedClients {
		c.clients = map[string]*cachedClient{}
	}
	e := &cachedClient{api: api}
	c.clients[key] = e
	return e, key, nil
}

// Re-check intervals of a verdict: an Unchecked one soon (the control
// plane was not reachable, or refused the token), a Nonconformant one so
// that a fixed or upgraded control plane is used again without a restart,
// an incomplete Conformant one (no cluster, or an empty log yet) to check
// the log once there is one. A complete Conformant verdict is kept.
var (
	RecheckUnchecked     = time.Minute
	RecheckNonconformant = 5 * time.Minute
	RecheckIncomplete    = 10 * time.Minute
)

// recheckAfter returns how long v holds; 0 for ever.
func RecheckAfter(v conformance.Verdict) time.Duration {
	switch {
	case v.State == conformance.Unchecked:
		return RecheckUnchecked
	case v.State == conformance.Nonconformant:
		return RecheckNonconformant
	case !v.Complete:
		return RecheckIncomplete
	}
	return 0
}

func (c *ClientCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// verdict returns e's verdict, checking the control plane when there is
// none yet or it is due. One check runs at a time per configuration: the
// first caller runs it, callers without a verdict wait for it, callers
// with one use it meanwhile.
func (c *ClientCache) verdict(ctx context.Context, e *cachedClient, cfg simplyblock.Config) (conformance.Verdict, time.Duration, error) {
	e.mu.Lock()
	if e.verdict != nil {
		v := *e.verdict
		hold := RecheckAfter(v)
		left := hold - c.now().Sub(e.at)
		switch {
		case hold == 0:
			e.mu.Unlock()
			return v, 0, nil
		case left > 0:
			e.mu.Unlock()
			return v, left, nil
		case e.inflight != nil:
			// Due, and being checked again: the last verdict holds meanwhile.
			e.mu.Unlock()
			return v, hold, nil
		}
	}
	if wait := e.inflight; wait != nil {
		e.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return conformance.Verdict{}, 0, ctx.Err()
		}
		e.mu.Lock()
		v := *e.verdict
		e.mu.Unlock()
		return v, RecheckAfter(v), nil
	}
	done := make(chan struct{})
	e.inflight = done
	e.mu.Unlock()

	v := c.Verify(ctx, e.api, cfg)

	e.mu.Lock()
	e.verdict, e.at, e.inflight = &v, c.now(), nil
	e.mu.Unlock()
	close(done)
	return v, RecheckAfter(v), nil
}
