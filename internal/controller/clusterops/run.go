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

package clusterops

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

const (
	errListClusters = "cannot list StorageClusters"
	errListNodes    = "cannot list StorageNodes"
)

// runFor builds the engine's view of a ClusterOps for one reconcile.
func runFor(ctx context.Context, kube client.Client, src ops.Source, cr *v1alpha1.ClusterOps) (ops.Run, error) {
	t, clusterID, err := target(ctx, kube, cr)
	if err != nil {
		return ops.Run{}, err
	}
	autoExpand, err := autoExpandNodes(ctx, kube, cr, clusterID, t.Name)
	if err != nil {
		return ops.Run{}, err
	}
	desc := "StorageCluster " + cr.Spec.ForProvider.ClusterID
	switch p := cr.Spec.ForProvider; {
	case p.ClusterIDRef != nil && p.ClusterID == "":
		desc = "StorageCluster " + p.ClusterIDRef.Name + " (with a backend id)"
	case p.ClusterIDSelector != nil && p.ClusterID == "":
		desc = "a StorageCluster matching clusterIdSelector (with a backend id)"
	}
	if t.Name != "" {
		desc = "StorageCluster " + t.Name
		cr.Status.AtProvider.ClusterName = t.Name
	}
	return ops.Run{
		Object: cr, Target: t, TargetDescription: desc, ClusterID: clusterID, HistoryID: clusterID, Source: src,
		SpecHash: specHash(cr), Plan: planFor(cr, clusterID, autoExpand), ChooseTargets: chooseTargets(cr),
		Queue: queueOf(kube, t, clusterID), Disruptive: opTypes[cr.Spec.ForProvider.Type].disruptive,
	}, nil
}

// specHash identifies what the operation does: its type, parameters,
// target and policy, but not cancel, confirmResend or how the target was
// selected.
func specHash(cr *v1alpha1.ClusterOps) string {
	p := cr.Spec.ForProvider.DeepCopy()
	p.Cancel, p.ConfirmResend, p.Approved = false, "", false
	p.ClusterIDRef, p.ClusterIDSelector = nil, nil
	return ops.SpecHash(p)
}

// target finds the StorageCluster object the operation targets: the one
// clusterIdRef names, or the one whose external name is clusterId.
func target(ctx context.Context, kube client.Reader, cr *v1alpha1.ClusterOps) (types.NamespacedName, string, error) {
	p := cr.Spec.ForProvider
	if p.ClusterIDRef != nil {
		if p.ClusterID == "" {
			// The reference did not resolve (the StorageCluster is missing
			// or not in the backend yet): no target yet.
			return types.NamespacedName{}, "", nil
		}
		return types.NamespacedName{Namespace: cr.Namespace, Name: p.ClusterIDRef.Name}, p.ClusterID, nil
	}
	l := &v1alpha1.StorageClusterList{}
	if err := kube.List(ctx, l, client.InNamespace(cr.Namespace)); err != nil {
		return types.NamespacedName{}, "", errors.Wrap(err, errListClusters)
	}
	for i := range l.Items {
		if meta.GetExternalName(&l.Items[i]) == p.ClusterID && p.ClusterID != "" {
			return types.NamespacedName{Namespace: cr.Namespace, Name: l.Items[i].Name}, p.ClusterID, nil
		}
	}
	return types.NamespacedName{}, p.ClusterID, nil
}

// autoExpandNodes returns the StorageNodes in the operation's namespace
// that join cluster clusterID (StorageCluster clusterName) with expand:
// true. One whose cluster reference has not resolved yet is counted as
// pending when it names this StorageCluster or selects by labels (it may
// select this one): it is being added, and the expansion waits for it.
func autoExpandNodes(ctx context.Context, kube client.Reader, cr *v1alpha1.ClusterOps, clusterID, clusterName string) (steps.AutoExpansion, error) {
	var out steps.AutoExpansion
	if !opTypes[cr.Spec.ForProvider.Type].autoExpand {
		return out, nil
	}
	l := &v1alpha1.StorageNodeList{}
	if err := kube.List(ctx, l, client.InNamespace(cr.Namespace)); err != nil {
		return out, errors.Wrap(err, errListNodes)
	}
	for i := range l.Items {
		n := &l.Items[i]
		if !n.Spec.ForProvider.Expand || n.GetDeletionTimestamp() != nil || !joins(n.Spec.ForProvider, clusterID, clusterName) {
			continue
		}
		if id := meta.GetExternalName(n); id != "" {
			out.IDs = append(out.IDs, id)
		} else {
			out.Pending = append(out.Pending, n.Name)
		}
	}
	return out, nil
}

// joins reports that a StorageNode joins cluster clusterID (StorageCluster
// clusterName), or may once its cluster reference resolves.
func joins(p v1alpha1.StorageNodeParameters, clusterID, clusterName string) bool {
	switch {
	case p.ClusterID != "":
		return p.ClusterID == clusterID
	case p.ClusterIDRef != nil:
		return clusterName != "" && p.ClusterIDRef.Name == clusterName
	}
	return p.ClusterIDSelector != nil
}

// queueOf lists the operations competing for the same StorageCluster.
func queueOf(kube client.Reader, t types.NamespacedName, clusterID string) func(ctx context.Context) ([]ops.Object, error) {
	return func(ctx context.Context) ([]ops.Object, error) {
		return ops.ClusterQueue(ctx, kube, t, clusterID)
	}
}
