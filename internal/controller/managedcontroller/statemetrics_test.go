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

package managedcontroller

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

func TestStateRecorder(t *testing.T) {
	withConditions := func(c ...xpv2.Condition) *v1alpha1.ClusterOps {
		o := &v1alpha1.ClusterOps{}
		o.SetConditions(c...)
		return o
	}
	ready := xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionTrue}
	synced := xpv2.Condition{Type: xpv2.TypeSynced, Status: corev1.ConditionTrue}
	notSynced := xpv2.Condition{Type: xpv2.TypeSynced, Status: corev1.ConditionFalse}
	type want struct{ exists, ready, synced float64 }
	cases := map[string]struct {
		reason string
		objs   []any
		want   want
	}{
		"Empty": {
			reason: "No cached object: every gauge is zero.",
			want:   want{},
		},
		"Counts": {
			reason: "Every cached object exists; Ready and Synced count those whose condition is True.",
			objs:   []any{withConditions(ready, synced), withConditions(notSynced), withConditions(synced), withConditions()},
			want:   want{exists: 4, ready: 1, synced: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := statemetrics.NewMRStateMetrics()
			r := newStateRecorder(nil, v1alpha1.SchemeGroupVersion.WithKind("ClusterOpsList"), m, 0)
			r.record(tc.objs)
			gvk := "simplyblock.m.crossplane.io/v1alpha1, Kind=ClusterOps"
			got := want{
				exists: value(t, m.Exists.WithLabelValues(gvk)),
				ready:  value(t, m.Ready.WithLabelValues(gvk)),
				synced: value(t, m.Synced.WithLabelValues(gvk)),
			}
			if got != tc.want {
				t.Errorf("\n%s\nrecord(...): got %+v, want %+v", tc.reason, got, tc.want)
			}
		})
	}
}

// value reads a gauge.
func value(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}
