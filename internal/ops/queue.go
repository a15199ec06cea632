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

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// Every operation on a cluster, ClusterOps and StorageNodeOps alike, waits
// in that cluster's one queue and takes its one lock: at most one
// imperative action runs per cluster at a time. This keeps a node
// operation from running while a cluster operation touches its node (and
// the reverse) without a second lock that could deadlock with the first.

// Field indexes the queue lists by.
const (
	// IndexClusterOpsCluster indexes ClusterOps by "ref:<StorageCluster
	// name>" and "id:<cluster UUID>".
	IndexClusterOpsCluster = "simplyblock.clusterops.cluster"
	// IndexNodeOpsNode indexes StorageNodeOps by "ref:<StorageNode name>"
	// and "id:<node UUID>".
	IndexNodeOpsNode = "simplyblock.storagenodeops.node"
)

const (
	errListQueueOps = "cannot list operations"
	errListNodeObjs = "cannot list StorageNodes"
)

// RefKey and IDKey are the index values of a reference by object name and
// by backend id.
func RefKey(name string) string { return "ref:" + name }

// IDKey is the index value of a reference by backend id.
func IDKey(id string) string { return "id:" + id }

func refKeys(refName, id string) []string {
	var keys []string
	if refName != "" {
		keys = append(keys, RefKey(refName))
	}
	if id != "" {
		keys = append(keys, IDKey(id))
	}
	return keys
}

// ClusterOpsKeys is the index function of IndexClusterOpsCluster.
func ClusterOpsKeys(o client.Object) []string {
	cr, ok := o.(*v1alpha1.ClusterOps)
	if !ok {
		return nil
	}
	name := ""
	if r := cr.Spec.ForProvider.ClusterIDRef; r != nil {
		name = r.Name
	}
	return refKeys(name, cr.Spec.ForProvider.ClusterID)
}

// NodeOpsKeys is the index function of IndexNodeOpsNode.
func NodeOpsKeys(o client.Object) []string {
	cr, ok := o.(*v1alpha1.StorageNodeOps)
	if !ok {
		return nil
	}
	name := ""
	if r := cr.Spec.ForProvider.NodeIDRef; r != nil {
		name = r.Name
	}
	return refKeys(name, cr.Spec.ForProvider.NodeID)
}

var indexed sync.Map // client.FieldIndexer -> struct{}

// RegisterIndexes registers both operation kinds' indexes with a manager's
// field indexer, once per indexer, whichever controller asks first.
func RegisterIndexes(ctx context.Context, fi client.FieldIndexer) error {
	if _, done := indexed.LoadOrStore(fi, struct{}{}); done {
		return nil
	}
	if err := fi.IndexField(ctx, &v1alpha1.ClusterOps{}, IndexClusterOpsCluster, ClusterOpsKeys); err != nil {
		indexed.Delete(fi)
		return err
	}
	if err := fi.IndexField(ctx, &v1alpha1.StorageNodeOps{}, IndexNodeOpsNode, NodeOpsKeys); err != nil {
		indexed.Delete(fi)
		return err
	}
	return nil
}

// ClusterQueue lists the operations of both kinds that compete for the
// lock of the StorageCluster cluster (whose backend id is clusterID), in no
// particular order. A StorageNodeOps competes when its node belongs to the
// cluster.
func ClusterQueue(ctx context.Context, kube client.Reader, cluster types.NamespacedName, clusterID string) ([]Object, error) {
	seen := map[types.UID]bool{}
	var out []Object
	add := func(o Object) {
		if !seen[o.GetUID()] {
			seen[o.GetUID()] = true
			out = append(out, o)
		}
	}
	in := client.InNamespace(cluster.Namespace)
	for _, key := range refKeys(cluster.Name, clusterID) {
		l := &v1alpha1.ClusterOpsList{}
		if err := kube.List(ctx, l, in, client.MatchingFields{IndexClusterOpsCluster: key}); err != nil {
			return nil, errors.Wrap(err, errListQueueOps)
		}
		for i := range l.Items {
			add(&l.Items[i])
		}
	}
	nodes := &v1alpha1.StorageNodeList{}
	if err := kube.List(ctx, nodes, in); err != nil {
		return nil, errors.Wrap(err, errListNodeObjs)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		p := n.Spec.ForProvider
		if p.ClusterID != clusterID && (p.ClusterIDRef == nil || p.ClusterIDRef.Name != cluster.Name) {
			continue
		}
		for _, key := range refKeys(n.Name, meta.GetExternalName(n)) {
			l := &v1alpha1.StorageNodeOpsList{}
			if err := kube.List(ctx, l, in, client.MatchingFields{IndexNodeOpsNode: key}); err != nil {
				return nil, errors.Wrap(err, errListQueueOps)
			}
			for j := range l.Items {
				add(&l.Items[j])
			}
		}
	}
	return out, nil
}

// A Queue is the operations waiting for one target's lock, in the order
// they take it: first come, first served, by creation time, then name
// (creation times have one-second resolution). The engine reads its
// position in it and the wake-ups wake its first; the rule is this one.
type Queue []Object

// QueueOf returns the queue among objs (the operations that compete for a
// target) of a target whose lock is held by holder (nil when free).
// Finished, deleted and started operations wait no more (one that started
// and no longer holds the lock has just released it, and its terminal status
// may not have reached the cache yet), nor do those waiting for their
// maintenance window to start; except self, which asks for its own position
// (nil when nobody asks).
func QueueOf(objs []Object, holder *v1alpha1.OperationReference, self Object) Queue {
	q := make(Queue, 0, len(objs))
	for _, o := range objs {
		if IsTerminal(o) || o.GetDeletionTimestamp() != nil || (holder != nil && o.GetUID() == holder.UID) {
			continue
		}
		st := o.GetOperationStatus()
		notWaiting := st.StartedAt != nil || st.Reason == ReasonWaitingForWindow
		if notWaiting && (self == nil || o.GetUID() != self.GetUID()) {
			continue
		}
		q = append(q, o)
	}
	QueueOrder(q)
	return q
}

// Position returns o's place in the queue, from 1, or one past the end when
// o is not in it.
func (q Queue) Position(o Object) int64 {
	for i, w := range q {
		if w.GetUID() == o.GetUID() {
			return int64(i + 1)
		}
	}
	return int64(len(q) + 1)
}

// Next returns the operation first in line, or nil when none waits. When
// the lock is released to nobody, it is the only one woken: it is the only
// one that can take the lock (WokenByLockChange).
func (q Queue) Next() Object {
	if len(q) == 0 {
		return nil
	}
	return q[0]
}

// NextWaiting returns the operation first in line among objs for a target
// whose lock is held by holder (nil when free), or nil when none waits.
func NextWaiting(objs []Object, holder *v1alpha1.OperationReference) Object {
	return QueueOf(objs, holder, nil).Next()
}

// WokenByLockChange returns the operations among objs that a change of
// their target's lock, now held by holder (nil when free), wakes: the one
// handed the lock (NotStartedHolder), and the next in line only when the
// lock is free, as only then can it take it. The others, the next in line
// behind a holder included, update their queue position on their next poll.
func WokenByLockChange(objs []Object, holder *v1alpha1.OperationReference) []Object {
	var out []Object
	if h := NotStartedHolder(objs, holder); h != nil {
		out = append(out, h)
	}
	if holder == nil {
		if n := NextWaiting(objs, nil); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// NotStartedHolder returns the operation among objs that holds a lock
// (holder) but has not started: it was handed the lock by the operation
// before it (Lock.FinishIn) and must be woken to start, or, finished, to
// pass the lock on. Nil when there is none among objs.
func NotStartedHolder(objs []Object, holder *v1alpha1.OperationReference) Object {
	if holder == nil {
		return nil
	}
	for _, o := range objs {
		if o.GetUID() == holder.UID && o.GetOperationStatus().StartedAt == nil {
			return o
		}
	}
	return nil
}

// SameTarget lists the operations of o's kind that name the same target as
// o (by reference name or id), from the cache's index; o is among them.
func SameTarget(ctx context.Context, kube client.Reader, o Object) ([]Object, error) {
	var out []Object
	seen := map[types.UID]bool{}
	add := func(q Object) {
		if !seen[q.GetUID()] {
			seen[q.GetUID()] = true
			out = append(out, q)
		}
	}
	in := client.InNamespace(o.GetNamespace())
	switch o.(type) {
	case *v1alpha1.ClusterOps:
		for _, key := range ClusterOpsKeys(o) {
			l := &v1alpha1.ClusterOpsList{}
			if err := kube.List(ctx, l, in, client.MatchingFields{IndexClusterOpsCluster: key}); err != nil {
				return nil, errors.Wrap(err, errListQueueOps)
			}
			for i := range l.Items {
				add(&l.Items[i])
			}
		}
	case *v1alpha1.StorageNodeOps:
		for _, key := range NodeOpsKeys(o) {
			l := &v1alpha1.StorageNodeOpsList{}
			if err := kube.List(ctx, l, in, client.MatchingFields{IndexNodeOpsNode: key}); err != nil {
				return nil, errors.Wrap(err, errListQueueOps)
			}
			for i := range l.Items {
				add(&l.Items[i])
			}
		}
	}
	return out, nil
}
