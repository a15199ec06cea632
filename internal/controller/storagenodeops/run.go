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

package storagenodeops

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

const (
	errGetNode      = "cannot get the target StorageNode"
	errListNodes    = "cannot list StorageNodes"
	errListClusters = "cannot list StorageClusters"
)

// specHash identifies what the operation does: its type, parameters,
// target and policy, but not cancel, confirmResend or how the target was
// selected.
func specHash(cr *v1alpha1.StorageNodeOps) string {
	p := cr.Spec.ForProvider.DeepCopy()
	p.Cancel, p.ConfirmResend, p.Approved = false, "", false
	p.NodeIDRef, p.NodeIDSelector = nil, nil
	return ops.SpecHash(p)
}

// runFor builds the engine's view of a StorageNodeOps for one reconcile.
func runFor(ctx context.Context, kube client.Client, src ops.Source, cr *v1alpha1.StorageNodeOps) (ops.Run, error) {
	t, err := resolve(ctx, kube, cr)
	if err != nil {
		return ops.Run{}, err
	}
	desc := "the StorageCluster of StorageNode " + t.node.Name
	switch p := cr.Spec.ForProvider; {
	case t.node.Name != "":
	case p.NodeIDRef != nil:
		desc = "StorageNode " + p.NodeIDRef.Name + " (with a backend id)"
	case p.NodeID != "":
		desc = "the StorageCluster of node " + p.NodeID
	default:
		desc = "a StorageNode matching nodeIdSelector (with a backend id)"
	}
	cr.Status.AtProvider.NodeName = t.node.Name
	cr.Status.AtProvider.ClusterID = t.clusterID
	return ops.Run{
		Object: cr, Target: t.cluster, History: t.node, TargetDescription: desc,
		ClusterID: t.clusterID, HistoryID: t.nodeID, Source: src, SpecHash: specHash(cr),
		Plan: func([]string) []ops.Step { return planFor(cr, t.clusterID, t.nodeID) },
		Queue: func(ctx context.Context) ([]ops.Object, error) {
			return ops.ClusterQueue(ctx, kube, t.cluster, t.clusterID)
		},
		Disruptive: opTypes[cr.Spec.ForProvider.Type].disruptive,
	}, nil
}

// A target is where a node operation works: its StorageNode (which keeps
// its history) and that node's StorageCluster (whose lock and queue it
// shares with every other operation on the cluster).
type target struct {
	node      types.NamespacedName
	nodeID    string
	cluster   types.NamespacedName
	clusterID string
}

// resolve finds the operation's StorageNode and the node's StorageCluster.
// Names stay empty for objects that do not exist (yet).
func resolve(ctx context.Context, kube client.Reader, cr *v1alpha1.StorageNodeOps) (target, error) {
	p := cr.Spec.ForProvider
	t := target{nodeID: p.NodeID}
	n := &v1alpha1.StorageNode{}
	switch {
	case p.NodeIDRef != nil:
		t.node = types.NamespacedName{Namespace: cr.Namespace, Name: p.NodeIDRef.Name}
		if err := kube.Get(ctx, t.node, n); err != nil {
			if kerrors.IsNotFound(err) {
				return target{nodeID: p.NodeID}, nil
			}
			return t, errors.Wrap(err, errGetNode)
		}
	case p.NodeID != "":
		l := &v1alpha1.StorageNodeList{}
		if err := kube.List(ctx, l, client.InNamespace(cr.Namespace)); err != nil {
			return t, errors.Wrap(err, errListNodes)
		}
		found := false
		for i := range l.Items {
			if meta.GetExternalName(&l.Items[i]) == p.NodeID {
				n, found = &l.Items[i], true
				t.node = types.NamespacedName{Namespace: cr.Namespace, Name: n.Name}
				break
			}
		}
		if !found {
			return t, nil
		}
	default:
		return t, nil
	}
	if t.nodeID == "" {
		t.nodeID = meta.GetExternalName(n)
	}
	if t.nodeID == "" {
		// The StorageNode is not in the backend yet: no target yet.
		return target{}, nil
	}
	np := n.Spec.ForProvider
	t.clusterID = np.ClusterID
	if np.ClusterIDRef != nil {
		t.cluster = types.NamespacedName{Namespace: cr.Namespace, Name: np.ClusterIDRef.Name}
		return t, nil
	}
	l := &v1alpha1.StorageClusterList{}
	if err := kube.List(ctx, l, client.InNamespace(cr.Namespace)); err != nil {
		return t, errors.Wrap(err, errListClusters)
	}
	for i := range l.Items {
		if id := meta.GetExternalName(&l.Items[i]); id != "" && id == t.clusterID {
			t.cluster = types.NamespacedName{Namespace: cr.Namespace, Name: l.Items[i].Name}
		}
	}
	return t, nil
}
