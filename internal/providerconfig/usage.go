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

package providerconfig

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
)

const errGetUsage = "cannot get ProviderConfigUsage"

// CoveredBy reports whether holder's ProviderConfigUsage (crossplane-runtime
// names it after holder's UID, in holder's namespace) records the
// ProviderConfig mg references: while holder exists, that ProviderConfig
// cannot be deleted, so mg needs no usage of its own for as long as it
// cannot outlive holder.
func CoveredBy(ctx context.Context, kube client.Reader, holder client.Object, mg resource.ModernManaged) (bool, error) {
	ref := mg.GetProviderConfigReference()
	if ref == nil || holder.GetUID() == "" || holder.GetNamespace() != mg.GetNamespace() {
		return false, nil
	}
	u := &v1alpha1.ProviderConfigUsage{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: holder.GetNamespace(), Name: string(holder.GetUID())}, u); err != nil {
		if kerrors.IsNotFound(err) {
			return false, nil
		}
		return false, errors.Wrap(err, errGetUsage)
	}
	have := u.GetProviderConfigReference()
	return have.Name == ref.Name && have.Kind == ref.Kind, nil
}
