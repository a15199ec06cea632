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
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// An external maps a StorageNodeOps onto the managed reconciler, exactly as
// for ClusterOps: Observe advances the operation and reports the "external
// resource" missing when a backend call is due, Create sends it under the
// guard, Update never runs, Delete releases the lock.
type external struct {
	kube   client.Client
	engine *ops.Engine
	source ops.Source
}

func (e *external) run(ctx context.Context, cr *v1alpha1.StorageNodeOps) (ops.Run, error) {
	t, err := resolve(ctx, e.kube, cr)
	if err != nil {
		return ops.Run{}, err
	}
	desc := "the StorageCluster of StorageNode " + t.node.Name
	if t.node.Name == "" {
		desc = "the StorageCluster of node " + cr.Spec.ForProvider.NodeID
	}
	cr.Status.AtProvider.NodeName = t.node.Name
	cr.Status.AtProvider.ClusterID = t.clusterID
	return ops.Run{
		Object: cr, Target: t.cluster, History: t.node, TargetDescription: desc,
		ClusterID: t.clusterID, Source: e.source, SpecHash: specHash(cr),
		Plan: func([]string) []ops.Step { return planFor(cr, t.clusterID, t.nodeID) },
		Queue: func(ctx context.Context) ([]ops.Object, error) {
			return ops.ClusterQueue(ctx, e.kube, t.cluster, t.clusterID)
		},
	}, nil
}

// Observe advances the operation and says whether a backend call is due.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.StorageNodeOps) (managed.ExternalObservation, error) {
	r, err := e.run(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if meta.WasDeleted(cr) {
		released, err := e.engine.Released(ctx, r)
		return managed.ExternalObservation{ResourceExists: !released, ResourceUpToDate: true}, err
	}
	due, err := e.engine.Observe(ctx, r)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	return managed.ExternalObservation{ResourceExists: !due, ResourceUpToDate: true}, nil
}

// Create sends the current step's backend call under the guard.
func (e *external) Create(ctx context.Context, cr *v1alpha1.StorageNodeOps) (managed.ExternalCreation, error) {
	r, err := e.run(ctx, cr)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	return managed.ExternalCreation{}, e.engine.Trigger(ctx, r)
}

// Update is never called: Observe always reports the operation up to date.
func (e *external) Update(_ context.Context, _ *v1alpha1.StorageNodeOps) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, nil
}

// Delete releases the lock of a deleted operation and records it in the
// node's history. Nothing is sent to the backend.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.StorageNodeOps) (managed.ExternalDelete, error) {
	r, err := e.run(ctx, cr)
	if err != nil {
		return managed.ExternalDelete{}, err
	}
	return managed.ExternalDelete{}, e.engine.Release(ctx, r)
}

// Disconnect does nothing; clients are shared.
func (e *external) Disconnect(_ context.Context) error { return nil }
