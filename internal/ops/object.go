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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// An Object is an operation managed resource (ClusterOps, StorageNodeOps).
type Object interface {
	resource.Managed

	// GetOperationStatus returns the engine's part of the status, which the
	// engine reads and writes in place.
	GetOperationStatus() *v1alpha1.OperationStatus

	// GetOperationPolicy returns deadlines, retries, TTL and cancel.
	GetOperationPolicy() v1alpha1.OperationPolicy

	// GetOperationType returns the operation's type, e.g. Restart.
	GetOperationType() string
}

// SpecHash identifies an operation's parameters (its spec.forProvider with
// what may change after creation, and how its target was selected, cleared
// by the caller), for run-once protection.
func SpecHash(forProvider any) string {
	b, _ := json.Marshal(forProvider) //nolint:errchkjson // plain API data always marshals.
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}
