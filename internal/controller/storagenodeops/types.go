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
	"maps"
	"slices"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
	"github.com/simplyblock/provider-simplyblock/internal/ops/steps"
)

// An opType is what one StorageNodeOps type does: how its plan is built
// from the step library (docs/steps.md). Each type has its file
// (suspend.go, …) and its line in opTypes. Adding a type: that file and
// line, its API enum value and parameters, its example and its tests; the
// crash matrix, the integration table, the CRD's enum and the README's
// table are checked against opTypes.
type opType struct {
	// plan returns the type's steps.
	plan func(in planInput) []ops.Step
	// disruptive says the type takes the cluster, or a node of it, down
	// or out of redundancy: it takes a slot of every DisruptionBudget that
	// selects the cluster before its first call.
	disruptive bool
}

// planInput is what a plan is built from.
type planInput struct {
	node   steps.Node
	params v1alpha1.StorageNodeOpsParameters
}

// opTypes is every StorageNodeOps type.
var opTypes = map[v1alpha1.StorageNodeOperationType]opType{
	v1alpha1.NodeSuspend:  suspendType,
	v1alpha1.NodeResume:   resumeType,
	v1alpha1.NodeShutdown: shutdownType,
	v1alpha1.NodeRestart:  restartType,
	v1alpha1.NodeStart:    startType,
	v1alpha1.NodeRemove:   removeType,
	v1alpha1.NodeMigrate:  migrateType,
}

// Types lists the StorageNodeOps types, sorted.
func Types() []v1alpha1.StorageNodeOperationType {
	return slices.Sorted(maps.Keys(opTypes))
}

// Plan returns the steps of an operation with params on node nodeID of
// cluster clusterID, for tests and documentation: the plan a running
// operation follows is the same.
func Plan(params v1alpha1.StorageNodeOpsParameters, clusterID, nodeID string) []ops.Step {
	t, ok := opTypes[params.Type]
	if !ok {
		return nil
	}
	return t.plan(planInput{node: steps.Node{Cluster: clusterID, ID: nodeID}, params: params})
}

// planFor returns the steps of cr's type on node nodeID of cluster
// clusterID.
func planFor(cr *v1alpha1.StorageNodeOps, clusterID, nodeID string) []ops.Step {
	return Plan(cr.Spec.ForProvider, clusterID, nodeID)
}

// one is a plan of a single step.
func one(s ops.Step) []ops.Step { return []ops.Step{s} }
