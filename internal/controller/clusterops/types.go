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
	"maps"
	"slices"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// An opType is what one ClusterOps type does: how its plan is built from
// the step library (docs/steps.md). Each type has its file (activate.go,
// expand.go, …) and its line in opTypes. Adding a type: that file and line,
// its API enum value and parameters, its example and its tests; the crash
// matrix, the integration table, the CRD's enum and the README's table are
// checked against opTypes.
type opType struct {
	// plan returns the type's steps.
	plan func(in planInput) []ops.Step
	// disruptive says the type takes the cluster, or a node of it, down
	// or out of redundancy: it takes a slot of every DisruptionBudget that
	// selects the cluster before its first call.
	disruptive bool
	// targets fixes status.targets when the operation starts; nil when
	// the plan needs none.
	targets func(p v1alpha1.ClusterOpsParameters, s *ops.Snapshot) []string
	// autoExpand says the plan needs the StorageNodes that join the cluster
	// with expand: true (planInput.autoExpand).
	autoExpand bool
}

// planInput is what a plan is built from.
type planInput struct {
	clusterID string
	params    v1alpha1.ClusterOpsParameters
	// targets are the nodes fixed when the operation started.
	targets []string
	// autoExpand lists the StorageNodes added with expand: true.
	autoExpand steps.AutoExpansion
}

// opTypes is every ClusterOps type.
var opTypes = map[v1alpha1.ClusterOperationType]opType{
	v1alpha1.ClusterActivate:           activateType,
	v1alpha1.ClusterExpand:             expandType,
	v1alpha1.ClusterShutdown:           shutdownType,
	v1alpha1.ClusterStart:              startType,
	v1alpha1.ClusterRestart:            restartType,
	v1alpha1.ClusterNodeRollingRestart: nodeRollingRestartType,
	v1alpha1.ClusterUpgrade:            upgradeType,
	v1alpha1.ClusterRebalance:          rebalanceType,
}

// Types lists the ClusterOps types, sorted.
func Types() []v1alpha1.ClusterOperationType {
	return slices.Sorted(maps.Keys(opTypes))
}

// Plan returns the steps of an operation with params on cluster clusterID
// whose targets are fixed (the nodes of a NodeRollingRestart), for tests and
// documentation: the plan a running operation follows is the same.
func Plan(params v1alpha1.ClusterOpsParameters, clusterID string, targets []string) []ops.Step {
	t, ok := opTypes[params.Type]
	if !ok {
		return nil
	}
	return t.plan(planInput{clusterID: clusterID, params: params, targets: targets})
}

// planFor returns the plan of cr's type, given the targets fixed when it
// started.
func planFor(cr *v1alpha1.ClusterOps, clusterID string, autoExpand steps.AutoExpansion) func(targets []string) []ops.Step {
	t, ok := opTypes[cr.Spec.ForProvider.Type]
	return func(targets []string) []ops.Step {
		if !ok {
			return nil
		}
		return t.plan(planInput{clusterID: clusterID, params: cr.Spec.ForProvider, targets: targets, autoExpand: autoExpand})
	}
}

// chooseTargets returns how cr's type fixes its targets, or nil.
func chooseTargets(cr *v1alpha1.ClusterOps) func(s *ops.Snapshot) []string {
	t, ok := opTypes[cr.Spec.ForProvider.Type]
	if !ok || t.targets == nil {
		return nil
	}
	p := cr.Spec.ForProvider
	return func(s *ops.Snapshot) []string { return t.targets(p, s) }
}

// one is a plan of a single step.
func one(s ops.Step) []ops.Step { return []ops.Step{s} }
