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
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the engine's Prometheus metrics. They are registered once
// with controller-runtime's registry by the provider.
type Metrics struct {
	// Finished counts operations by kind, type and result (phase/reason).
	Finished *prometheus.CounterVec
	// Duration observes the seconds from leaving the queue to finishing.
	Duration *prometheus.HistogramVec
	// QueueDepth is the number of operations waiting, per kind and target.
	QueueDepth *prometheus.GaugeVec
	// BackendCalls counts state-changing calls by endpoint and HTTP status
	// ("none" when no answer arrived).
	BackendCalls *prometheus.CounterVec
	// GuardResolutions counts how ambiguous calls were resolved:
	// evidence, resent, unknown.
	GuardResolutions *prometheus.CounterVec
	// StatusWrites counts the status writes operations sent to the API
	// server, by kind and by what they record (StatusWriteOf).
	StatusWrites *prometheus.CounterVec
	// Events counts the events operations emitted, by kind and reason.
	Events *prometheus.CounterVec
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		Finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simplyblock_operations_total",
			Help: "Finished operations by kind, type, phase and reason.",
		}, []string{"kind", "type", "phase", "reason"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "simplyblock_operation_duration_seconds",
			Help:    "Seconds from leaving the queue to finishing, by kind, type and phase.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16),
		}, []string{"kind", "type", "phase"}),
		QueueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "simplyblock_operation_queue_depth",
			Help: "Operations waiting for their target's lock, by kind and target.",
		}, []string{"kind", "target"}),
		BackendCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simplyblock_operation_backend_calls_total",
			Help: "State-changing backend calls sent by operations, by endpoint and HTTP status.",
		}, []string{"endpoint", "code"}),
		GuardResolutions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simplyblock_operation_guard_resolutions_total",
			Help: "Calls with a lost answer, by how they were resolved: evidence, resent or unknown.",
		}, []string{"outcome"}),
		StatusWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simplyblock_operation_status_writes_total",
			Help: "Status writes of operations sent to the API server, by kind and what they record: queued, intent, progress or finished.",
		}, []string{"kind", "write"}),
		Events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "simplyblock_operation_events_total",
			Help: "Events emitted for operations (each an API write), by kind and reason.",
		}, []string{"kind", "reason"}),
	}
}

// Collectors returns every metric, for registration.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Finished, m.Duration, m.QueueDepth, m.BackendCalls, m.GuardResolutions, m.StatusWrites, m.Events}
}

var (
	defaultMetrics     *Metrics
	defaultMetricsOnce sync.Once
)

// DefaultMetrics returns the process-wide metrics, created on first use.
func DefaultMetrics() *Metrics {
	defaultMetricsOnce.Do(func() { defaultMetrics = NewMetrics() })
	return defaultMetrics
}
