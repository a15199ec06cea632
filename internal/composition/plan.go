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

package composition

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// APIVersion of the managed resources this function composes.
const APIVersion = "simplyblock.m.crossplane.io/v1alpha1"

// AnnotationExpandedNodes lists, on a composed Expand, the expanded nodes
// (comma-separated names) the cluster has once it finished. A later render
// whose expanded nodes it covers (a node was removed) composes no new Expand.
const AnnotationExpandedNodes = "storage.simplyblock.io/expanded-nodes"

// On a composed StorageNode: the address its node runs at (the one it was
// added with, or the last one a composed Migrate moved it to) and how many
// composed Migrates of it succeeded, which numbers the next one. A node
// entry whose address differs from the first composes a Migrate
// (README, "Composition": "Moving a node").
const (
	AnnotationNodeAddress = "storage.simplyblock.io/node-address"
	AnnotationNodeMoves   = "storage.simplyblock.io/node-moves"
)

// On the StorageCluster: the images it runs ("<management>,<spdk>", as the
// XR had them when it was created or its last composed Upgrade succeeded),
// how many composed Upgrades succeeded (it numbers the next one), and the
// last restartRequestedAt a composed NodeRollingRestart completed (README,
// "Composition": "Day-2 operations from the XR").
const (
	AnnotationImages           = "storage.simplyblock.io/images"
	AnnotationUpgrades         = "storage.simplyblock.io/upgrades"
	AnnotationRestartRequested = "storage.simplyblock.io/restart-requested-at"
)

// Composition resource names: the keys that tie a composed resource to its
// place in the composition across renders.
const (
	// ResourceCluster is the StorageCluster, composed by the previous step.
	ResourceCluster = "cluster"
	// ResourceActivate is the Activate ClusterOps.
	ResourceActivate = "activate"

	nodeResourcePrefix    = "node-"
	poolResourcePrefix    = "pool-"
	expandResourcePrefix  = "expand-"
	migrateResourcePrefix = "migrate-"
	upgradeResourcePrefix = "upgrade-"
	restartResourcePrefix = "rolling-restart-"
)

// Cluster statuses (status.atProvider.status of a StorageCluster) that show
// the backend activated the cluster at some point.
var activatedStatuses = map[string]bool{
	"active": true, "degraded": true, "read_only": true, "in_expansion": true,
}

// A composedResource is one desired composed resource and whether it is ready.
type composedResource struct {
	Object map[string]any
	Ready  bool
}

// A plan is everything one render composes.
type plan struct {
	// Resources by composition resource name.
	Resources map[string]composedResource
	// Deferred lists the nodes that are not composed yet, with the reason.
	Deferred []string
	// Status holds the fields this function sets in the XR's status.
	Status map[string]any
	// ClusterAnnotations are set on the StorageCluster the step before
	// composes: what the cluster runs (clusterState).
	ClusterAnnotations map[string]string
}

// A planner turns an XR's spec and the observed composed resources into a
// plan. It holds no state between renders: everything it needs is observed.
type planner struct {
	xrName      string
	namespace   string
	clusterName string
	spec        clusterSpec
	observed    map[string]map[string]any
}

// Plan composes the nodes, pools and operations of one XStorageCluster.
func (p *planner) Plan() plan {
	out := plan{Resources: map[string]composedResource{}, Status: map[string]any{}}

	activated, activationPhase := p.activation()
	var expansion []string
	var moves []move
	composedNodes, readyNodes := 0, 0
	for _, n := range p.spec.Nodes {
		key := nodeResourcePrefix + n.Name
		obs, seen := p.observed[key]
		expand := false
		switch {
		case seen:
			// A composed node keeps how it joined; it is never re-added.
			expand, _, _ = unstructured.NestedBool(obs, "spec", "forProvider", "expand")
		case activated:
			// The backend refuses a plain add to an activated cluster: the node
			// joins with expand: true and the backend integrates it.
			expand = true
		case activationPhase != "":
			// Activation is under way: a node added now would either miss it
			// or be refused once it finished. It waits for the outcome.
			out.Deferred = append(out.Deferred, fmt.Sprintf("%s (waits for %s to succeed; it is %s)",
				n.Name, p.name("activate"), activationPhase))
			continue
		}
		if expand {
			expansion = append(expansion, n.Name)
		}
		at := p.nodeAt(n, obs, seen)
		if m, moving := p.moveOf(n, at); moving {
			moves = append(moves, m)
		} else if seen && n.Address != at.address {
			at = location{address: n.Address, moves: at.moves + 1} // its Migrate succeeded
		}
		ready := isReady(obs)
		out.Resources[key] = composedResource{Object: p.storageNode(n, expand, obs, seen, at), Ready: ready}
		composedNodes++
		if ready {
			readyNodes++
		}
	}

	for _, pool := range p.spec.Pools {
		name, _ := pool["name"].(string)
		key := poolResourcePrefix + name
		out.Resources[key] = composedResource{Object: p.storagePool(name, pool), Ready: isReady(p.observed[key])}
	}

	var operations []any
	addOperation := func(key string, obj map[string]any) {
		phase := phaseOf(p.observed[key])
		out.Resources[key] = composedResource{Object: obj, Ready: phase == "Succeeded"}
		name, _, _ := unstructured.NestedString(obj, "metadata", "name")
		opType, _, _ := unstructured.NestedString(obj, "spec", "forProvider", "type")
		op := map[string]any{"name": name, "type": opType}
		if phase != "" {
			op["phase"] = phase
		}
		operations = append(operations, op)
	}
	if obs, seen := p.observed[ResourceActivate]; seen {
		// Its spec is immutable and its node count was fixed when it was
		// composed; nodes listed later join through an Expand.
		addOperation(ResourceActivate, observedCopy(obs))
	} else {
		var params map[string]any
		if composedNodes > 0 {
			params = map[string]any{"activate": map[string]any{"expectedNodes": int64(composedNodes)}}
		}
		addOperation(ResourceActivate, p.clusterOps(p.name("activate"), "Activate", params))
	}

	current := ""
	if len(expansion) > 0 {
		current = expandResourcePrefix + changeID(expansion)
		_, seen := p.observed[current]
		if covering := p.coveringExpansion(expansion); !seen && covering != "" {
			// Nodes were removed since the last growth: the observed Expand
			// already covers every expanded node, there is nothing to integrate.
			current = covering
			addOperation(current, observedCopy(p.observed[current]))
		} else {
			op := p.clusterOps(p.name(fmt.Sprintf("expand-%d-%s", composedNodes, changeID(expansion))), "Expand",
				map[string]any{"expand": map[string]any{"expectedNodes": int64(composedNodes)}})
			_ = unstructured.SetNestedStringMap(op, map[string]string{AnnotationExpandedNodes: strings.Join(sortedCopy(expansion), ",")},
				"metadata", "annotations")
			addOperation(current, op)
		}
	}
	for _, m := range moves {
		addOperation(m.key, p.migrate(m))
	}
	state := p.clusterState()
	if activated {
		for _, op := range p.clusterChanges(&state) {
			addOperation(op.key, op.object)
		}
	}
	out.ClusterAnnotations = state.annotations()
	// An earlier expansion or move that is still running stays composed
	// until it finishes; deleting it would abandon it half way.
	for _, key := range sortedKeys(p.observed) {
		if !hasAnyPrefix(key, expandResourcePrefix, migrateResourcePrefix, upgradeResourcePrefix, restartResourcePrefix) || key == current {
			continue
		}
		if _, composed := out.Resources[key]; composed {
			continue
		}
		if phase := phaseOf(p.observed[key]); phase != "Succeeded" && phase != "Failed" {
			addOperation(key, observedCopy(p.observed[key]))
		}
	}

	out.Status["nodes"] = map[string]any{
		"listed":   int64(len(p.spec.Nodes)),
		"composed": int64(composedNodes),
		"ready":    int64(readyNodes),
	}
	if len(out.Deferred) > 0 {
		out.Status["nodes"].(map[string]any)["deferred"] = toAny(out.Deferred)
	}
	out.Status["operations"] = operations
	if last := p.lastOperation(); last != nil {
		out.Status["lastOperation"] = last
	}
	return out
}

// activation reports whether the cluster was activated, and otherwise the
// phase of the composed Activate operation ("" when there is none yet: the
// first render, whose nodes are the initial ones).
func (p *planner) activation() (bool, string) {
	status, _, _ := unstructured.NestedString(p.observed[ResourceCluster], "status", "atProvider", "status")
	if activatedStatuses[status] {
		return true, ""
	}
	act, ok := p.observed[ResourceActivate]
	if !ok {
		return false, ""
	}
	phase := phaseOf(act)
	if phase == "Succeeded" {
		return true, ""
	}
	if phase == "" {
		phase = "Pending"
	}
	return false, phase
}

// lastOperation is the newest record of the cluster's operation history.
func (p *planner) lastOperation() map[string]any {
	h, _, _ := unstructured.NestedSlice(p.observed[ResourceCluster], "status", "atProvider", "operationHistory")
	if len(h) == 0 {
		return nil
	}
	rec, ok := h[len(h)-1].(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]any{}
	for _, k := range []string{"name", "kind", "type", "phase", "reason", "message", "startedAt", "completedAt"} {
		if v, ok := rec[k]; ok {
			out[k] = v
		}
	}
	return out
}

// name is the object name of a composed resource: the XR's name and a suffix.
func (p *planner) name(suffix string) string { return p.xrName + "-" + suffix }

// storageNode is the desired StorageNode of node entry n. A composed one
// keeps the address it was added with (it is immutable; the provider finds
// the node by its UUID wherever it moved) and records where it runs.
func (p *planner) storageNode(n nodeSpec, expand bool, obs map[string]any, seen bool, at location) map[string]any {
	fp := map[string]any{}
	for k, v := range n.Options {
		fp[k] = v
	}
	fp["clusterIdRef"] = map[string]any{"name": p.clusterName}
	fp["nodeAddress"] = n.Address
	if added, ok, _ := unstructured.NestedString(obs, "spec", "forProvider", "nodeAddress"); seen && ok && added != "" {
		fp["nodeAddress"] = added
	}
	fp["interfaceName"] = n.Interface
	if expand {
		fp["expand"] = true
	}
	obj := p.managed("StorageNode", p.name(n.Name), fp)
	_ = unstructured.SetNestedStringMap(obj, map[string]string{
		AnnotationNodeAddress: at.address, AnnotationNodeMoves: strconv.Itoa(at.moves),
	}, "metadata", "annotations")
	return obj
}

// A location is where a composed node runs: its address and how many
// composed Migrates moved it there.
type location struct {
	address string
	moves   int
}

// nodeAt reads where node entry n's StorageNode runs from its annotations;
// a node not composed yet (or composed before they existed) is at the
// address it is added with.
func (p *planner) nodeAt(n nodeSpec, obs map[string]any, seen bool) location {
	at := location{address: n.Address}
	if !seen {
		return at
	}
	annotations, _, _ := unstructured.NestedStringMap(obs, "metadata", "annotations")
	if a := annotations[AnnotationNodeAddress]; a != "" {
		at.address = a
	} else if added, ok, _ := unstructured.NestedString(obs, "spec", "forProvider", "nodeAddress"); ok && added != "" {
		at.address = added
	}
	at.moves, _ = strconv.Atoi(annotations[AnnotationNodeMoves])
	return at
}

// A move is a composed Migrate of one node to its entry's new address.
type move struct {
	key, name string
	node      nodeSpec
}

// moveOf returns the Migrate that takes node entry n from at to its address,
// unless it is there or that Migrate succeeded (then the node is there).
// The Migrate is named after the move's number and target, so a re-render
// composes the same one, and a later move to the same address a new one.
func (p *planner) moveOf(n nodeSpec, at location) (move, bool) {
	if n.Address == at.address {
		return move{}, false
	}
	suffix := fmt.Sprintf("%s-%d-%s", n.Name, at.moves+1, changeID([]string{n.Address}))
	m := move{key: migrateResourcePrefix + suffix, name: p.name("migrate-" + suffix), node: n}
	return m, phaseOf(p.observed[m.key]) != "Succeeded"
}

// migrate is the StorageNodeOps of a move.
func (p *planner) migrate(m move) map[string]any {
	fp := map[string]any{}
	for k, v := range p.spec.Operations {
		fp[k] = v
	}
	fp["type"] = "Migrate"
	fp["nodeIdRef"] = map[string]any{"name": p.name(m.node.Name)}
	fp["migrate"] = map[string]any{"nodeAddress": m.node.Address}
	return p.managed("StorageNodeOps", m.name, fp)
}

func (p *planner) storagePool(name string, params map[string]any) map[string]any {
	fp := map[string]any{}
	for k, v := range params {
		fp[k] = v
	}
	fp["clusterIdRef"] = map[string]any{"name": p.clusterName}
	return p.managed("StoragePool", p.name("pool-"+name), fp)
}

func (p *planner) clusterOps(name, opType string, params map[string]any) map[string]any {
	fp := map[string]any{}
	for k, v := range p.spec.Operations {
		fp[k] = v
	}
	for k, v := range params {
		fp[k] = v
	}
	fp["type"] = opType
	fp["clusterIdRef"] = map[string]any{"name": p.clusterName}
	return p.managed("ClusterOps", name, fp)
}

func (p *planner) managed(kind, name string, forProvider map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if p.namespace != "" {
		meta["namespace"] = p.namespace
	}
	spec := map[string]any{"forProvider": forProvider}
	if p.spec.ProviderConfigRef != nil {
		spec["providerConfigRef"] = p.spec.ProviderConfigRef
	}
	return map[string]any{"apiVersion": APIVersion, "kind": kind, "metadata": meta, "spec": spec}
}

// observedCopy is the desired form of an observed resource: its identity and
// spec, without status or server-set metadata.
func observedCopy(obs map[string]any) map[string]any {
	meta := map[string]any{}
	for _, k := range []string{"name", "namespace"} {
		if v, ok, _ := unstructured.NestedString(obs, "metadata", k); ok {
			meta[k] = v
		}
	}
	if v, ok, _ := unstructured.NestedString(obs, "metadata", "annotations", AnnotationExpandedNodes); ok {
		meta["annotations"] = map[string]any{AnnotationExpandedNodes: v}
	}
	return map[string]any{
		"apiVersion": obs["apiVersion"], "kind": obs["kind"], "metadata": meta,
		"spec": runtime.DeepCopyJSONValue(obs["spec"]),
	}
}

// changeID names a set of added nodes: the same set always gets the same ID.
func changeID(nodes []string) string {
	sum := sha256.Sum256([]byte(strings.Join(sortedCopy(nodes), ",")))
	return hex.EncodeToString(sum[:])[:8]
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// coveringExpansion returns the key of an observed Expand whose expanded
// nodes include every node of expansion, or "".
func (p *planner) coveringExpansion(expansion []string) string {
	for _, key := range sortedKeys(p.observed) {
		if !strings.HasPrefix(key, expandResourcePrefix) {
			continue
		}
		listed, _, _ := unstructured.NestedString(p.observed[key], "metadata", "annotations", AnnotationExpandedNodes)
		covered := strings.Split(listed, ",")
		if listed != "" && !slices.ContainsFunc(expansion, func(n string) bool { return !slices.Contains(covered, n) }) {
			return key
		}
	}
	return ""
}

func isReady(obj map[string]any) bool {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Ready" && m["status"] == "True" {
			return true
		}
	}
	return false
}

func phaseOf(obj map[string]any) string {
	phase, _, _ := unstructured.NestedString(obj, "status", "atProvider", "phase")
	return phase
}

func sortedKeys(m map[string]map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// A clusterState is what the StorageCluster's annotations record.
type clusterState struct {
	images           string
	upgrades         int
	restartRequested string
}

func (s clusterState) annotations() map[string]string {
	return map[string]string{AnnotationImages: s.images, AnnotationUpgrades: strconv.Itoa(s.upgrades),
		AnnotationRestartRequested: s.restartRequested}
}

// clusterState reads the observed StorageCluster's annotations. Before the
// cluster is composed, the XR's images are what it will run and its
// restartRequestedAt is no request (a new cluster needs no restart). On a
// composed cluster without the annotations (composed before they existed)
// the images are taken as running, and any restartRequestedAt is new.
func (p *planner) clusterState() clusterState {
	obs, seen := p.observed[ResourceCluster]
	if !seen {
		return clusterState{images: p.spec.Images.state(), restartRequested: p.spec.RestartRequestedAt}
	}
	a, _, _ := unstructured.NestedStringMap(obs, "metadata", "annotations")
	st := clusterState{images: p.spec.Images.state(), restartRequested: a[AnnotationRestartRequested]}
	if v, ok := a[AnnotationImages]; ok {
		st.images = v
	}
	st.upgrades, _ = strconv.Atoi(a[AnnotationUpgrades])
	return st
}

// A clusterOp is a composed cluster operation and its composition key.
type clusterOp struct {
	key    string
	object map[string]any
}

// clusterChanges returns the Upgrade and the NodeRollingRestart the XR asks
// for and the cluster has not had. One that succeeded is recorded in st
// instead (it is not composed any more). Each is named after its change, so
// a re-render composes the same one: an Upgrade after the number of the
// upgrades before it and its images, a restart after its timestamp.
func (p *planner) clusterChanges(st *clusterState) []clusterOp {
	var out []clusterOp
	if want := p.spec.Images.state(); want != "" && want != st.images {
		suffix := fmt.Sprintf("%d-%s", st.upgrades+1, changeID([]string{want}))
		key := upgradeResourcePrefix + suffix
		if phaseOf(p.observed[key]) == "Succeeded" {
			st.images, st.upgrades = want, st.upgrades+1
		} else {
			out = append(out, clusterOp{key: key, object: p.clusterOps(p.name("upgrade-"+suffix), "Upgrade",
				map[string]any{"upgrade": imagesParams(p.spec.Images)})})
		}
	}
	if want := p.spec.RestartRequestedAt; want != "" && want != st.restartRequested {
		key := restartResourcePrefix + changeID([]string{want})
		if phaseOf(p.observed[key]) == "Succeeded" {
			st.restartRequested = want
		} else {
			params := map[string]any{}
			if len(p.spec.RollingRestart) > 0 {
				params["nodeRollingRestart"] = runtime.DeepCopyJSONValue(p.spec.RollingRestart)
			}
			out = append(out, clusterOp{key: key, object: p.clusterOps(p.name(key), "NodeRollingRestart", params)})
		}
	}
	return out
}

// imagesParams are an Upgrade's parameters for images.
func imagesParams(i *imagesSpec) map[string]any {
	out := map[string]any{}
	if i.ManagementImage != "" {
		out["managementImage"] = i.ManagementImage
	}
	if i.SpdkImage != "" {
		out["spdkImage"] = i.SpdkImage
	}
	if i.Restart {
		out["restart"] = true
	}
	return out
}
