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

// Package apis contains the Kubernetes API types of provider-simplyblock and
// registers them with a scheme.
package apis

import (
	"k8s.io/apimachinery/pkg/runtime"

	simplyblockv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	v1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
)

// AddToSchemes may be used to add all resources defined in the project to a
// Scheme.
var AddToSchemes = runtime.SchemeBuilder{
	v1alpha1.SchemeBuilder.AddToScheme,
	simplyblockv1alpha1.SchemeBuilder.AddToScheme,
}

// AddToScheme adds all resources defined in the project to a Scheme.
func AddToScheme(s *runtime.Scheme) error {
	return AddToSchemes.AddToScheme(s)
}
