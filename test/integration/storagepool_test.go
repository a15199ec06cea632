package integration

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func TestStoragePoolLifecycle(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.fromExample("quickstart/00-cluster.yaml", nil)
	h.fromExample("quickstart/20-pool.yaml", nil)
	clusterID := meta.GetExternalName(h.waitClusterReady("demo"))

	cr := &v1alpha1.StoragePool{}
	cr.SetName("demo-pool")
	cr.SetNamespace(h.ns)
	h.eventually("pool Ready", func() (bool, string) {
		if err := h.get(cr); err != nil {
			return false, err.Error()
		}
		c := conditionOf(cr.Status.Conditions, xpv2.TypeReady)
		return c.Status == corev1.ConditionTrue, c.Message
	})
	backendPool := func() simplyblock.StoragePoolDTO {
		for _, p := range h.sim.Pools(clusterID) {
			if p.ID == meta.GetExternalName(cr) {
				return p
			}
		}
		return simplyblock.StoragePoolDTO{}
	}
	if p := backendPool(); p.Name != "pool01" || p.MaxSize != 107374182400 {
		t.Fatalf("backend pool = %+v, want pool01 with max_size 107374182400", p)
	}

	// Update: a bigger pool and a QoS limit; the pool maximum must survive
	// the backend's reset-on-omit quirk.
	must(t, h.get(cr))
	cr.Spec.ForProvider.PoolMax = 214748364800
	cr.Spec.ForProvider.MaxRWIOPS = 5000
	must(t, h.kube.Update(h.ctx, cr))
	h.eventually("pool updated in the backend", func() (bool, string) {
		p := backendPool()
		return p.MaxSize == 214748364800 && p.MaxRWIOPS == 5000, "backend max_size and max_rw_iops not yet updated"
	})

	must(t, h.kube.Delete(h.ctx, cr))
	h.eventually("pool deleted", func() (bool, string) {
		err := h.get(cr)
		return kerrors.IsNotFound(err) && backendPool().ID == "", "still present"
	})
}
