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
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	errObservedXR      = "cannot get the observed composite resource"
	errObservedCDs     = "cannot get the observed composed resources"
	errDesiredXR       = "cannot get the desired composite resource"
	errDesiredCDs      = "cannot get the desired composed resources"
	errSetDesiredXR    = "cannot set the desired composite resource"
	errSetDesiredCDs   = "cannot set the desired composed resources"
	errSetStatus       = "cannot set the composite resource's status"
	errNoNamespace     = "cannot compose a legacy XStorageCluster without a claim: set spec.namespace"
	reasonNodeDeferred = "NodeDeferred"
)

// A Function composes the nodes, pools and operations of an XStorageCluster.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer

	log logging.Logger
}

// NewFunction returns a Function that logs to the supplied logger.
func NewFunction(log logging.Logger) *Function {
	return &Function{log: log}
}

// RunFunction composes one render of an XStorageCluster.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := response.To(req, response.DefaultTTL)

	oxr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errObservedXR))
		return rsp, nil
	}
	log := f.log.WithValues("xr", oxr.Resource.GetName(), "namespace", oxr.Resource.GetNamespace())

	spec, err := readSpec(oxr.Resource.Object["spec"])
	if err != nil {
		response.Fatal(rsp, err)
		return rsp, nil
	}
	namespace := oxr.Resource.GetNamespace()
	switch {
	case namespace != "":
	case spec.ClaimRef != nil && spec.ClaimRef.Namespace != "":
		namespace = spec.ClaimRef.Namespace
	case spec.Namespace != "":
		namespace = spec.Namespace
	default:
		response.Fatal(rsp, errors.New(errNoNamespace))
		return rsp, nil
	}

	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errObservedCDs))
		return rsp, nil
	}
	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errDesiredCDs))
		return rsp, nil
	}

	p := planner{
		xrName:      oxr.Resource.GetName(),
		namespace:   namespace,
		clusterName: oxr.Resource.GetName(),
		spec:        spec,
		observed:    map[string]map[string]any{},
	}
	// The StorageCluster comes from the step before; nodes, pools and
	// operations refer to it by its name.
	if cd, ok := desired[ResourceCluster]; ok && cd.Resource.GetName() != "" {
		p.clusterName = cd.Resource.GetName()
	}
	for name, oc := range observed {
		p.observed[string(name)] = oc.Resource.Object
	}
	out := p.Plan()

	for name, r := range out.Resources {
		ready := resource.ReadyFalse
		if r.Ready {
			ready = resource.ReadyTrue
		}
		desired[resource.Name(name)] = &resource.DesiredComposed{
			Resource: &composed.Unstructured{Unstructured: unstructured.Unstructured{Object: r.Object}},
			Ready:    ready,
		}
	}
	if cd, ok := desired[ResourceCluster]; ok {
		meta.AddAnnotations(cd.Resource, out.ClusterAnnotations)
	}
	if err := response.SetDesiredComposedResources(rsp, desired); err != nil {
		response.Fatal(rsp, errors.Wrap(err, errSetDesiredCDs))
		return rsp, nil
	}

	dxr, err := request.GetDesiredCompositeResource(req)
	if err != nil {
		response.Fatal(rsp, errors.Wrap(err, errDesiredXR))
		return rsp, nil
	}
	for k, v := range out.Status {
		if err := dxr.Resource.SetValue("status."+k, v); err != nil {
			response.Fatal(rsp, errors.Wrap(err, errSetStatus))
			return rsp, nil
		}
	}
	if err := response.SetDesiredCompositeResource(rsp, dxr); err != nil {
		response.Fatal(rsp, errors.Wrap(err, errSetDesiredXR))
		return rsp, nil
	}

	if len(out.Deferred) > 0 {
		msg := "nodes not composed yet: " + strings.Join(out.Deferred, ", ")
		response.Normal(rsp, msg).WithReason(reasonNodeDeferred).TargetCompositeAndClaim()
		log.Debug("Deferred nodes", "nodes", out.Deferred)
	}
	log.Debug("Composed", "resources", len(out.Resources))
	return rsp, nil
}
