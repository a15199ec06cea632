package storagepool

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

const (
	errCannotLowerQoS = "the backend cannot clear a QoS limit once set (%s is %d in the backend, 0 requested); set a value instead"
	// Every pool update resets volume_max_size to 0, and none can set it
	// again (sbcli pool_controller.py:308-318).
	errWouldClearVolumeMax = "refusing to update the pool: every pool update resets the backend's volume_max_size (%d) to 0 and no update can set it again; " +
		"to change the name, poolMax or QoS limits, recreate the pool"
	errVolumeMaxLost = "the backend's volume_max_size is %d, not the %d requested: an update outside this provider reset it, and no update can set it again; recreate the pool to restore it"
)

func poolParams(p v1alpha1.StoragePoolParameters) simplyblock.StoragePoolParams {
	return simplyblock.StoragePoolParams{
		Name:          p.Name,
		PoolMax:       p.PoolMax,
		VolumeMaxSize: p.VolumeMaxSize,
		MaxRWIOPS:     p.MaxRWIOPS,
		MaxRWMBytes:   p.MaxRWMBytes,
		MaxRMBytes:    p.MaxRMBytes,
		MaxWMBytes:    p.MaxWMBytes,
		DHCHAP:        p.DHCHAP,
	}
}

// A qosLimit is one QoS field: its backend name, desired and observed value.
type qosLimit struct {
	name              string
	desired, observed int64
}

func qosLimits(p v1alpha1.StoragePoolParameters, o v1alpha1.StoragePoolObservation) []qosLimit {
	return []qosLimit{
		{"max_rw_iops", p.MaxRWIOPS, o.MaxRWIOPS},
		{"max_rw_mbytes", p.MaxRWMBytes, o.MaxRWMBytes},
		{"max_r_mbytes", p.MaxRMBytes, o.MaxRMBytes},
		{"max_w_mbytes", p.MaxWMBytes, o.MaxWMBytes},
	}
}

func upToDate(p v1alpha1.StoragePoolParameters, dto *simplyblock.StoragePoolDTO) bool {
	o := observe(dto)
	if p.Name != o.Name || p.PoolMax != o.MaxSize || p.VolumeMaxSize != o.VolumeMaxSize {
		return false
	}
	for _, l := range qosLimits(p, o) {
		if l.desired != l.observed {
			return false
		}
	}
	return true
}

// updateParams builds the PUT body. Backend quirks (docs/backend.md,
// "Pool updates"): an omitted max_size resets the pool maximum to 0, so it
// is always sent; every update resets volume_max_size to 0 and a non-zero
// one is written to the pool maximum instead, so it is never sent and a
// pool with one is not updated (volumeMaxSize is immutable at admission); a
// QoS limit of 0 is ignored, so clearing one is refused here with a clear
// message.
func updateParams(p v1alpha1.StoragePoolParameters, o v1alpha1.StoragePoolObservation) (simplyblock.UpdatableStoragePoolParams, error) {
	out := simplyblock.UpdatableStoragePoolParams{Name: &p.Name, MaxSize: &p.PoolMax}
	switch {
	case o.VolumeMaxSize != 0:
		return out, errors.Errorf(errWouldClearVolumeMax, o.VolumeMaxSize)
	case p.VolumeMaxSize != o.VolumeMaxSize:
		return out, errors.Errorf(errVolumeMaxLost, o.VolumeMaxSize, p.VolumeMaxSize)
	}
	targets := map[string]**int64{
		"max_rw_iops":   &out.MaxRWIOPS,
		"max_rw_mbytes": &out.MaxRWMBytes,
		"max_r_mbytes":  &out.MaxRMBytes,
		"max_w_mbytes":  &out.MaxWMBytes,
	}
	for _, l := range qosLimits(p, o) {
		if l.desired == l.observed {
			continue
		}
		if l.desired == 0 {
			return out, errors.Errorf(errCannotLowerQoS, l.name, l.observed)
		}
		v := l.desired
		*targets[l.name] = &v
	}
	return out, nil
}

func observe(p *simplyblock.StoragePoolDTO) v1alpha1.StoragePoolObservation {
	o := v1alpha1.StoragePoolObservation{
		ID:            p.ID,
		ClusterID:     p.ClusterID,
		Name:          p.Name,
		Status:        string(p.Status),
		MaxSize:       p.MaxSize,
		VolumeMaxSize: p.VolumeMaxSize,
		MaxRWIOPS:     p.MaxRWIOPS,
		MaxRWMBytes:   p.MaxRWMBytes,
		MaxRMBytes:    p.MaxRMBytes,
		MaxWMBytes:    p.MaxWMBytes,
		DHCHAP:        p.DHCHAP,
		AllowedHosts:  p.AllowedHosts,
	}
	if p.Capacity != nil {
		o.Capacity = &v1alpha1.CapacityObservation{
			SizeTotal: p.Capacity.SizeTotal,
			SizeProv:  p.Capacity.SizeProv,
			SizeUsed:  p.Capacity.SizeUsed,
			SizeFree:  p.Capacity.SizeFree,
			SizeUtil:  p.Capacity.SizeUtil,
		}
	}
	return o
}

func availability(s simplyblock.PoolStatus) xpv2.Condition {
	if s == simplyblock.PoolActive {
		return xpv2.Available()
	}
	c := xpv2.Unavailable()
	c.Message = "pool status is " + string(s)
	return c
}
