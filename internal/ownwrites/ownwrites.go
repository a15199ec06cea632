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

// Package ownwrites gives a controller a client that never reads an object
// older than the client's own last write of it. controller-runtime's cache
// catches up with a write only when the API server's watch delivers it; a
// reconcile that reads before then sees its own previous state. For an
// operation that is more than a conflict to retry: the engine writes other
// objects (the cluster's lock and history) before its own status, so a
// reconcile on a stale copy of itself could record an outcome it never had
// (docs/operations-engine.md, "Reading what it wrote").
package ownwrites

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxTracked bounds how many objects a Client tracks; past it, it forgets
// the oldest half. An object leaves as soon as the cache shows its newest
// version, so only objects written and not read since are tracked.
const maxTracked = 4096

// A Client reads through the cache unless the cache has not caught up with
// the newest version of the object that the client wrote or read from the
// API server; then it reads the object from the API server.
type Client struct {
	client.Client
	api client.Reader

	mu     sync.Mutex
	newest map[types.UID]tracked
	seq    uint64
}

// tracked is the newest known resource version of one object, and when it
// was learnt (a sequence number, for forgetting the oldest).
type tracked struct {
	resourceVersion string
	seq             uint64
}

// New returns a Client that reads through c's cache and falls back to api,
// a reader of the API server.
func New(c client.Client, api client.Reader) *Client {
	return &Client{Client: c, api: api, newest: map[types.UID]tracked{}}
}

// Get reads obj through the cache, or from the API server when the cached
// copy is not the newest version this client knows of.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if c.caughtUp(obj.GetUID(), obj.GetResourceVersion()) {
		return nil
	}
	if err := c.api.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	c.learn(obj) // tracked until the cache shows this version too
	return nil
}

// Update writes obj and remembers its new version.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := c.Client.Update(ctx, obj, opts...); err != nil {
		return err
	}
	c.learn(obj)
	return nil
}

// Patch writes obj and remembers its new version.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := c.Client.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	c.learn(obj)
	return nil
}

// Status returns a writer of the status subresource that remembers the
// versions it writes.
func (c *Client) Status() client.SubResourceWriter {
	return statusWriter{SubResourceWriter: c.Client.Status(), c: c}
}

type statusWriter struct {
	client.SubResourceWriter
	c *Client
}

func (w statusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if err := w.SubResourceWriter.Update(ctx, obj, opts...); err != nil {
		return err
	}
	w.c.learn(obj)
	return nil
}

func (w statusWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	if err := w.SubResourceWriter.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	w.c.learn(obj)
	return nil
}

// learn remembers obj's resource version as the newest of obj.
func (c *Client) learn(obj client.Object) {
	if obj.GetUID() == "" || obj.GetResourceVersion() == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.newest) >= maxTracked {
		c.forgetOldest()
	}
	c.seq++
	c.newest[obj.GetUID()] = tracked{resourceVersion: obj.GetResourceVersion(), seq: c.seq}
}

// caughtUp reports whether a copy of object uid at resource version rv is
// the newest this client knows of (or it knows of none), and stops
// tracking the object when it is.
func (c *Client) caughtUp(uid types.UID, rv string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.newest[uid]
	if !ok {
		return true
	}
	if t.resourceVersion != rv {
		return false
	}
	delete(c.newest, uid)
	return true
}

// forgetOldest drops the older half of the tracked objects.
func (c *Client) forgetOldest() {
	seqs := make([]uint64, 0, len(c.newest))
	for _, t := range c.newest {
		seqs = append(seqs, t.seq)
	}
	slices.Sort(seqs)
	cut := seqs[len(seqs)/2]
	for uid, t := range c.newest {
		if t.seq < cut {
			delete(c.newest, uid)
		}
	}
}
