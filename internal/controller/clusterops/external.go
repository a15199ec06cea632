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
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// An external maps a ClusterOps onto the managed reconciler:
//
//   - Observe lets the engine advance the operation (queue, lock,
//     preconditions, evidence, completion, deadlines, TTL) and reports the
//     "external resource" as missing exactly when the current step's
//     backend call is due;
//   - Create sends that call under the write-ahead guard;
//   - Update never runs (an operation is always "up to date");
//   - Delete releases the lock and records the deletion.
type external struct {
	kube   client.Client
	engine *ops.Engine
	source ops.Source
}

func (e *external) run(ctx context.Context, cr *v1alpha1.ClusterOps) (ops.Run, error) {
	t, clusterID, err := target(ctx, e.kube, cr)
	if err != nil {
		return ops.Run{}, err
	}
	autoExpand, err := autoExpandNodes(ctx, e.kube, cr, clusterID)
	if err != nil {
		return ops.Run{}, err
	}
	desc := "StorageCluster " + cr.Spec.ForProvider.ClusterID
	if t.Name != "" {
		desc = "StorageCluster " + t.Name
		cr.Status.AtProvider.ClusterName = t.Name
	}
	return ops.Run{
		Object: cr, Target: t, TargetDescription: desc, ClusterID: clusterID, Source: e.source,
		SpecHash: specHash(cr), Plan: planFor(cr, clusterID, autoExpand), ChooseTargets: chooseTargets(cr),
		Queue: queueOf(e.kube, t, clusterID),
	}, nil
}

// Observe advances the operation and says whether a backend call is due.
func (e *external) Observe(ctx context.Context, cr *v1alpha1.ClusterOps) (managed.ExternalObservation, error) {
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
func (e *external) Create(ctx context.Context, cr *v1alpha1.ClusterOps) (managed.ExternalCreation, error) {
	r, err := e.run(ctx, cr)
	if err != nil {
		return managed.ExternalCreation{}, err
	}
	return managed.ExternalCreation{}, e.engine.Trigger(ctx, r)
}

// Update is never called: Observe always reports the operation up to date.
func (e *external) Update(_ context.Context, _ *v1alpha1.ClusterOps) (managed.ExternalUpdate, error) {
	return managed.ExternalUpdate{}, nil
}

// Delete releases the lock of a deleted operation and records it in the
// cluster's history. Nothing is sent to the backend.
func (e *external) Delete(ctx context.Context, cr *v1alpha1.ClusterOps) (managed.ExternalDelete, error) {
	r, err := e.run(ctx, cr)
	if err != nil {
		return managed.ExternalDelete{}, err
	}
	return managed.ExternalDelete{}, e.engine.Release(ctx, r)
}

// Disconnect does nothing; clients are shared.
func (e *external) Disconnect(_ context.Context) error { return nil }
