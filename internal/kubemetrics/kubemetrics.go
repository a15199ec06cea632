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

// Package kubemetrics counts the provider's Kubernetes API requests by verb,
// resource and subresource, so an operator can see what the provider costs
// the API server it shares with everything else (client-go's own metric
// counts by method and host only).
package kubemetrics

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
)

// Requests counts API requests by verb (the HTTP method, or WATCH and LIST
// for collection reads), resource and subresource.
var Requests = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "provider_simplyblock_kube_requests_total",
	Help: "Kubernetes API requests sent by the provider, by verb, resource and subresource.",
}, []string{"verb", "resource", "subresource"})

// Count makes every request sent through cfg count in Requests.
func Count(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return counting{next: rt} })
	return out
}

type counting struct{ next http.RoundTripper }

func (c counting) RoundTrip(r *http.Request) (*http.Response, error) {
	verb, resource, sub := Describe(r.Method, r.URL.Path, r.URL.Query().Get("watch") == "true")
	Requests.WithLabelValues(verb, resource, sub).Inc()
	return c.next.RoundTrip(r)
}

// Describe returns the verb, resource and subresource of a request for an
// API path: /api/v1/[namespaces/<ns>/]<resource>[/<name>[/<sub>]] or
// /apis/<group>/<version>/...; the resource is qualified by its group
// (clusterops.simplyblock.m.crossplane.io). Paths that name no resource
// (discovery) are resource "".
func Describe(method, path string, watch bool) (verb, resource, subresource string) {
	verb = method
	parts := strings.Split(strings.Trim(path, "/"), "/")
	group := ""
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		group, parts = parts[1], parts[3:]
	default:
		return verb, "", ""
	}
	// A namespaced path, unless it reads or writes namespaces themselves.
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return verb, "", ""
	}
	resource = parts[0]
	if group != "" {
		resource += "." + group
	}
	if len(parts) >= 3 {
		subresource = parts[2]
	}
	if method == http.MethodGet && len(parts) == 1 {
		verb = "LIST"
		if watch {
			verb = "WATCH"
		}
	}
	return verb, resource, subresource
}
