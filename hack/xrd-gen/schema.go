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

package main

import (
	"fmt"

	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

const (
	group       = "storage.simplyblock.io"
	legacyGroup = "legacy.storage.simplyblock.io"
	version     = "v1alpha1"
)

// Bounds of the XR's own lists and strings. The API server estimates the
// cost of every CEL rule from them (a rule inside an unbounded list costs
// more than the budget allows, and the CRD is refused); README "Composition"
// lists them.
const (
	maxNodes      = 128 // nodes of one cluster
	maxPools      = 64  // pools of one cluster
	maxNodeName   = 40  // leaves room for the XR's name in the StorageNode's name
	maxObjectName = 253 // a Kubernetes object name
	maxTimestamp  = 64  // an RFC 3339 timestamp
	maxNamespace  = 63  // a Kubernetes namespace name
)

func str(desc string) extv1.JSONSchemaProps {
	return extv1.JSONSchemaProps{Type: "string", Description: desc}
}

// boundedStr is a string of at most maxLength characters.
func boundedStr(desc string, maxLength int64) extv1.JSONSchemaProps {
	p := str(desc)
	p.MaxLength = &maxLength
	return p
}

func integer(desc string) extv1.JSONSchemaProps {
	return extv1.JSONSchemaProps{Type: "integer", Format: "int64", Description: desc}
}

func object(desc string, props map[string]extv1.JSONSchemaProps, required ...string) extv1.JSONSchemaProps {
	return extv1.JSONSchemaProps{Type: "object", Description: desc, Properties: props, Required: required}
}

// mapList is a list of at most maxItems objects keyed by name.
func mapList(desc string, maxItems int64, item extv1.JSONSchemaProps) extv1.JSONSchemaProps {
	key := "name"
	listType := "map"
	return extv1.JSONSchemaProps{
		Type: "array", Description: desc, Items: &extv1.JSONSchemaPropsOrArray{Schema: &item},
		XListType: &listType, XListMapKeys: []string{key}, MaxItems: &maxItems,
	}
}

// specSchema is the XR's spec: the cluster, its nodes and pools, and the
// policy of the operations composed for it.
func specSchema(cluster, node, pool, ops, nodeOps map[string]extv1.JSONSchemaProps) (extv1.JSONSchemaProps, error) {
	clusterProps, err := pick(cluster, clusterFields)
	if err != nil {
		return extv1.JSONSchemaProps{}, err
	}
	nodeOptions, err := pick(node, nodeOptionFields)
	if err != nil {
		return extv1.JSONSchemaProps{}, err
	}
	nodeIdentity, err := pick(node, []string{"nodeAddress", "interfaceName"})
	if err != nil {
		return extv1.JSONSchemaProps{}, err
	}
	nodeMigrate := nodeOps["migrate"].Properties
	poolProps, err := pick(pool, poolFields)
	if err != nil {
		return extv1.JSONSchemaProps{}, err
	}
	opsProps, err := pick(ops, operationFields)
	if err != nil {
		return extv1.JSONSchemaProps{}, err
	}
	// A node's name becomes part of a Kubernetes object name.
	nodeName := boundedStr("Name of the node in this cluster; the StorageNode is named <xr>-<name>.", maxNodeName)
	nodeName.Pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
	minNodes := int64(1)

	nodes := mapList(fmt.Sprintf("Storage nodes of the cluster, at most %d. Nodes listed when the XR is created form "+
		"the cluster that the Activate operation activates; nodes added later join with expand: true and one Expand "+
		"operation per change integrates them. Removing a node deletes its StorageNode.", maxNodes), maxNodes,
		object("A storage node.", map[string]extv1.JSONSchemaProps{
			"name":      nodeName,
			"address":   movableAddress(nodeIdentity["nodeAddress"], nodeMigrate["nodeAddress"]),
			"interface": withDescription(nodeIdentity["interfaceName"], "Management network interface of the node."),
			"options":   object("Further StorageNode parameters (spec.forProvider of the StorageNode).", nodeOptions),
		}, "name", "address", "interface"))
	nodes.MinItems = &minNodes

	return object("The desired storage cluster.", map[string]extv1.JSONSchemaProps{
		"cluster":    object("StorageCluster parameters (spec.forProvider); name defaults to the XR's name.", clusterProps),
		"nodes":      nodes,
		"pools":      mapList(fmt.Sprintf("Storage pools of the cluster, at most %d.", maxPools), maxPools, object("StoragePool parameters (spec.forProvider).", poolProps, "name")),
		"operations": object("Policy of the operations composed for the cluster (deadlines, retries).", opsProps),
		"images": withDescription(withoutDefaults(ops["upgrade"]), "The cluster's control-plane and SPDK images. A change "+
			"composes one Upgrade ClusterOps (restart: every node restarts with the new SPDK image); the first value is "+
			"taken as what the cluster runs."),
		"restartRequestedAt": restartRequestedAt(),
		"rollingRestart": object("Settings of the NodeRollingRestart a new restartRequestedAt composes.",
			pickNamed(ops["nodeRollingRestart"].Properties, "healthGate", "perNodeTimeoutSeconds")),
		"providerConfigRef": object("ProviderConfig (or ClusterProviderConfig) of every composed resource.",
			map[string]extv1.JSONSchemaProps{
				"name": boundedStr("Name of the ProviderConfig.", maxObjectName),
				"kind": {Type: "string", Description: "Kind of the provider configuration.",
					Enum: []extv1.JSON{{Raw: []byte(`"ProviderConfig"`)}, {Raw: []byte(`"ClusterProviderConfig"`)}}},
			}, "name"),
	}, "nodes"), nil
}

// restartRequestedAt is the XR's restart request: a timestamp whose every
// new value composes one NodeRollingRestart (kubectl rollout restart's
// habit, Cluster API's rolloutAfter).
func restartRequestedAt() extv1.JSONSchemaProps {
	p := boundedStr("A new value (a timestamp, e.g. 2026-12-01T10:00:00Z) composes one NodeRollingRestart of the cluster "+
		"with the rollingRestart settings; the value the XR is created with restarts nothing.", maxTimestamp)
	p.Format = "date-time"
	return p
}

// pickNamed copies the named properties without their defaults.
func pickNamed(from map[string]extv1.JSONSchemaProps, names ...string) map[string]extv1.JSONSchemaProps {
	out := map[string]extv1.JSONSchemaProps{}
	for _, n := range names {
		out[n] = withoutDefaults(from[n])
	}
	return out
}

// movableAddress is a node's address in the XR: the StorageNode's bounds,
// the Migrate's host:port pattern, and not immutable: a new address moves
// the node with a composed Migrate.
func movableAddress(added, migrate extv1.JSONSchemaProps) extv1.JSONSchemaProps {
	p := withDescription(added, "Management address of the node, host:port. Changing it moves the node to that "+
		"host with one composed StorageNodeOps Migrate; the node keeps its identity.")
	p.XValidations = nil
	p.Pattern = migrate.Pattern
	return p
}

func withDescription(p extv1.JSONSchemaProps, desc string) extv1.JSONSchemaProps {
	p.Description = desc
	return p
}

// statusSchema is what the XR reports: the cluster, its operations and nodes.
func statusSchema() extv1.JSONSchemaProps {
	operation := func(desc string) extv1.JSONSchemaProps {
		return object(desc, map[string]extv1.JSONSchemaProps{
			"name": str("Name of the operation object."), "uid": str("UID of the operation object."),
			"kind": str("ClusterOps or StorageNodeOps."), "type": str("Type of the operation."),
			"phase": str("Pending, Running, Succeeded or Failed."), "reason": str("Why it is in its phase."),
			"message": str("The operation's message."), "startedAt": str("When it started."),
			"completedAt": str("When it finished."),
		})
	}
	return object("Observed state of the storage cluster.", map[string]extv1.JSONSchemaProps{
		"cluster": object("The StorageCluster as the backend reports it.", map[string]extv1.JSONSchemaProps{
			"id": str("Backend ID of the cluster."), "status": str("Backend status of the cluster, e.g. active."),
		}),
		"activeOperation": operation("The operation holding the cluster's lock right now."),
		"lastOperation":   operation("The newest finished operation of the cluster's history."),
		"nodes": object("Storage nodes.", map[string]extv1.JSONSchemaProps{
			"listed": integer("Nodes listed in spec.nodes."), "composed": integer("Nodes composed as StorageNodes."),
			"ready": integer("Composed nodes that are Ready."),
			"deferred": {Type: "array", Description: "Listed nodes not composed yet, and why.",
				Items: &extv1.JSONSchemaPropsOrArray{Schema: &extv1.JSONSchemaProps{Type: "string"}}},
		}),
		"operations": {Type: "array", Description: "Operations composed for the cluster.",
			Items: &extv1.JSONSchemaPropsOrArray{Schema: &extv1.JSONSchemaProps{Type: "object",
				Properties: map[string]extv1.JSONSchemaProps{"name": str("Name."), "type": str("Type."), "phase": str("Phase.")}}}},
	})
}

func printerColumns() []map[string]any {
	return []map[string]any{
		{"name": "CLUSTER", "type": "string", "jsonPath": ".status.cluster.status"},
		{"name": "NODES", "type": "integer", "jsonPath": ".status.nodes.ready"},
		{"name": "OPERATION", "type": "string", "jsonPath": ".status.activeOperation.name"},
		{"name": "LAST", "type": "string", "jsonPath": ".status.lastOperation.phase"},
	}
}

func version1(spec, status extv1.JSONSchemaProps) map[string]any {
	return map[string]any{
		"name": version, "served": true, "referenceable": true,
		"additionalPrinterColumns": printerColumns(),
		"schema": map[string]any{"openAPIV3Schema": object("", map[string]extv1.JSONSchemaProps{
			"spec": spec, "status": status,
		})},
	}
}

// namespacedXRD defines XStorageCluster, a namespaced XR (Crossplane v2).
func namespacedXRD(spec, status extv1.JSONSchemaProps) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v2",
		"kind":       "CompositeResourceDefinition",
		"metadata":   map[string]any{"name": "xstorageclusters." + group},
		"spec": map[string]any{
			"scope": "Namespaced",
			"group": group,
			"names": map[string]any{"kind": "XStorageCluster", "plural": "xstorageclusters",
				"categories": []string{"crossplane", "simplyblock"}},
			"versions": []any{version1(spec, status)},
		},
	}
}

// legacyXRD defines XLegacyStorageCluster, a cluster-scoped XR offered through
// the StorageClusterClaim claim, for teams still on claims. Without a claim,
// spec.namespace says where the composed resources go.
func legacyXRD(spec, status extv1.JSONSchemaProps) map[string]any {
	spec = *spec.DeepCopy()
	spec.Properties["namespace"] = boundedStr("Namespace of the composed resources of an XR created without a claim "+
		"(with a claim they go to the claim's namespace).", maxNamespace)
	return map[string]any{
		"apiVersion": "apiextensions.crossplane.io/v1",
		"kind":       "CompositeResourceDefinition",
		"metadata":   map[string]any{"name": "xlegacystorageclusters." + legacyGroup},
		"spec": map[string]any{
			"scope": "LegacyCluster",
			"group": legacyGroup,
			"names": map[string]any{"kind": "XLegacyStorageCluster", "plural": "xlegacystorageclusters",
				"categories": []string{"crossplane", "simplyblock"}},
			"claimNames": map[string]any{"kind": "StorageClusterClaim", "plural": "storageclusterclaims"},
			"versions":   []any{version1(spec, status)},
		},
	}
}
