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
	"encoding/json"

	"github.com/pkg/errors"
)

// A clusterSpec is the part of an XStorageCluster's spec this function reads.
type clusterSpec struct {
	// Nodes of the cluster, in the order the user listed them.
	Nodes []nodeSpec `json:"nodes"`
	// Pools of the cluster; each item holds StoragePool parameters.
	Pools []map[string]any `json:"pools"`
	// Operations holds the policy (timeouts, retries) of composed operations.
	Operations map[string]any `json:"operations"`
	// ProviderConfigRef is copied to every composed resource.
	ProviderConfigRef map[string]any `json:"providerConfigRef"`
	// Images are the cluster's images; a change composes one Upgrade.
	Images *imagesSpec `json:"images"`
	// RestartRequestedAt: a new value composes one NodeRollingRestart.
	RestartRequestedAt string `json:"restartRequestedAt"`
	// RollingRestart holds the NodeRollingRestart's settings.
	RollingRestart map[string]any `json:"rollingRestart"`
	// ClaimRef is set by Crossplane on a legacy XR that a claim created.
	ClaimRef *struct {
		Namespace string `json:"namespace"`
	} `json:"claimRef"`
	// Namespace of the composed resources of a legacy (cluster-scoped) XR
	// without a claim.
	Namespace string `json:"namespace"`
}

// An imagesSpec is the images a cluster runs: its Upgrade's parameters.
type imagesSpec struct {
	ManagementImage string `json:"managementImage,omitempty"`
	SpdkImage       string `json:"spdkImage,omitempty"`
	Restart         bool   `json:"restart,omitempty"`
}

// state is how the images are recorded on the StorageCluster: the restart
// flag is how an Upgrade runs, not what the cluster runs.
func (i *imagesSpec) state() string {
	if i == nil || (i.ManagementImage == "" && i.SpdkImage == "") {
		return ""
	}
	return i.ManagementImage + "," + i.SpdkImage
}

// A nodeSpec is one storage node of an XStorageCluster.
type nodeSpec struct {
	// Name identifies the node in the XR; it names the composed StorageNode.
	Name string `json:"name"`
	// Address is the node's management address, host:port.
	Address string `json:"address"`
	// Interface is the node's management network interface.
	Interface string `json:"interface"`
	// Options are further StorageNode parameters, copied as they are.
	Options map[string]any `json:"options"`
}

// readSpec decodes the spec of a composite resource.
func readSpec(spec any) (clusterSpec, error) {
	var s clusterSpec
	b, err := json.Marshal(spec)
	if err != nil {
		return s, errors.Wrap(err, errReadSpec)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, errors.Wrap(err, errReadSpec)
	}
	seen := map[string]bool{}
	for _, n := range s.Nodes {
		if n.Name == "" {
			return s, errors.New(errNodeName)
		}
		if seen[n.Name] {
			return s, errors.Errorf(errFmtDuplicateNode, n.Name)
		}
		seen[n.Name] = true
	}
	return s, nil
}

const (
	errReadSpec         = "cannot read the composite resource's spec"
	errNodeName         = "cannot compose a node without a name"
	errFmtDuplicateNode = "cannot compose two nodes named %q"
)
