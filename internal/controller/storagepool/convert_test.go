package storagepool

import (
	"encoding/json"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

func ptr[T any](v T) *T { return &v }

func TestPoolParams(t *testing.T) {
	p := v1alpha1.StoragePoolParameters{
		ClusterID: testClusterID, Name: testName, PoolMax: 1, VolumeMaxSize: 2, MaxRWIOPS: 3, MaxRWMBytes: 4,
		MaxRMBytes: 5, MaxWMBytes: 6, DHCHAP: true,
	}
	want := simplyblock.StoragePoolParams{
		Name: testName, PoolMax: 1, VolumeMaxSize: 2, MaxRWIOPS: 3, MaxRWMBytes: 4, MaxRMBytes: 5, MaxWMBytes: 6, DHCHAP: true,
	}
	if diff := cmp.Diff(want, poolParams(p)); diff != "" {
		t.Errorf("\nEvery forProvider field reaches the create body.\npoolParams(...): -want, +got:\n%s\n", diff)
	}
}

func TestUpToDate(t *testing.T) {
	type args struct {
		p   v1alpha1.StoragePoolParameters
		dto *simplyblock.StoragePoolDTO
	}
	base := v1alpha1.StoragePoolParameters{ClusterID: testClusterID, Name: testName, PoolMax: 100, VolumeMaxSize: 10,
		MaxRWIOPS: 1, MaxRWMBytes: 2, MaxRMBytes: 3, MaxWMBytes: 4}
	dto := func(f func(*simplyblock.StoragePoolDTO)) *simplyblock.StoragePoolDTO {
		d := &simplyblock.StoragePoolDTO{ID: testPoolID, Name: testName, MaxSize: 100, VolumeMaxSize: 10,
			MaxRWIOPS: 1, MaxRWMBytes: 2, MaxRMBytes: 3, MaxWMBytes: 4}
		if f != nil {
			f(d)
		}
		return d
	}

	cases := map[string]struct {
		reason string
		args   args
		want   bool
	}{
		"Same":          {reason: "A pool matching every updatable field is up to date.", args: args{p: base, dto: dto(nil)}, want: true},
		"NameDrift":     {reason: "A renamed pool is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.Name = "x" })}, want: false},
		"SizeDrift":     {reason: "A pool with another maximum is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.MaxSize = 0 })}, want: false},
		"RWIOPSDrift":   {reason: "A pool with another max_rw_iops is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.MaxRWIOPS = 9 })}, want: false},
		"RWMBytesDrift": {reason: "A pool with another max_rw_mbytes is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.MaxRWMBytes = 9 })}, want: false},
		"RMBytesDrift":  {reason: "A pool with another max_r_mbytes is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.MaxRMBytes = 9 })}, want: false},
		"WMBytesDrift":  {reason: "A pool with another max_w_mbytes is not up to date.", args: args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.MaxWMBytes = 9 })}, want: false},
		"VolumeMaxSizeCompared": {
			reason: "A volume_max_size other than volumeMaxSize (reset by an update outside the provider, or set on an imported pool) makes the pool stale, so that Update says why it cannot be fixed.",
			args:   args{p: base, dto: dto(func(d *simplyblock.StoragePoolDTO) { d.VolumeMaxSize = 99 })}, want: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := upToDate(tc.args.p, tc.args.dto); got != tc.want {
				t.Errorf("\n%s\nupToDate(...): want %t, got %t\n", tc.reason, tc.want, got)
			}
		})
	}
}

func TestUpdateParams(t *testing.T) {
	type args struct {
		p v1alpha1.StoragePoolParameters
		o v1alpha1.StoragePoolObservation
	}
	type want struct {
		params simplyblock.UpdatableStoragePoolParams
		body   string
		err    error
	}
	observed := v1alpha1.StoragePoolObservation{Name: testName, MaxSize: 100, MaxRWIOPS: 1, MaxRWMBytes: 2}
	desired := func(f func(*v1alpha1.StoragePoolParameters)) v1alpha1.StoragePoolParameters {
		p := v1alpha1.StoragePoolParameters{Name: testName, PoolMax: 100, MaxRWIOPS: 1, MaxRWMBytes: 2}
		if f != nil {
			f(&p)
		}
		return p
	}

	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"RenameKeepsMaxSize": {
			reason: "max_size is always sent, or the backend resets the pool maximum to 0; volume_max_size is never sent.",
			args:   args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.Name = "renamed" }), o: observed},
			want: want{
				params: simplyblock.UpdatableStoragePoolParams{Name: ptr("renamed"), MaxSize: ptr(int64(100))},
				body:   `{"name":"renamed","max_size":100}`,
			},
		},
		"UnlimitedMaxSizeSent": {
			reason: "A pool maximum of 0 (unlimited) is still sent explicitly.",
			args:   args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.PoolMax = 0 }), o: observed},
			want: want{
				params: simplyblock.UpdatableStoragePoolParams{Name: ptr(testName), MaxSize: ptr(int64(0))},
				body:   `{"name":"pool01","max_size":0}`,
			},
		},
		"RaiseOneLimit": {
			reason: "Raising one QoS limit sends only that limit.",
			args:   args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.MaxRWMBytes = 20 }), o: observed},
			want: want{
				params: simplyblock.UpdatableStoragePoolParams{Name: ptr(testName), MaxSize: ptr(int64(100)), MaxRWMBytes: ptr(int64(20))},
				body:   `{"name":"pool01","max_size":100,"max_rw_mbytes":20}`,
			},
		},
		"SetEveryLimit": {
			reason: "Setting every QoS limit sends each one.",
			args: args{p: desired(func(p *v1alpha1.StoragePoolParameters) {
				p.MaxRWIOPS, p.MaxRWMBytes, p.MaxRMBytes, p.MaxWMBytes = 11, 12, 13, 14
			}), o: observed},
			want: want{
				params: simplyblock.UpdatableStoragePoolParams{Name: ptr(testName), MaxSize: ptr(int64(100)),
					MaxRWIOPS: ptr(int64(11)), MaxRWMBytes: ptr(int64(12)), MaxRMBytes: ptr(int64(13)), MaxWMBytes: ptr(int64(14))},
				body: `{"name":"pool01","max_size":100,"max_rw_iops":11,"max_rw_mbytes":12,"max_r_mbytes":13,"max_w_mbytes":14}`,
			},
		},
		"VolumeMaxSizeWouldBeCleared": {
			reason: "Every update resets the backend's volume_max_size to 0, and none can set it again (sbcli pool_controller.py:308-318): a pool with one is not updated.",
			args: args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.Name, p.VolumeMaxSize = "renamed", 10 }),
				o: func() v1alpha1.StoragePoolObservation { o := observed; o.VolumeMaxSize = 10; return o }()},
			want: want{err: errors.Errorf(errWouldClearVolumeMax, 10)},
		},
		"VolumeMaxSizeLost": {
			reason: "A volumeMaxSize the backend no longer has cannot be restored: a non-zero volume_max_size would be written to the pool maximum (pool_controller.py:310-318).",
			args:   args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.VolumeMaxSize = 50 }), o: observed},
			want:   want{err: errors.Errorf(errVolumeMaxLost, 0, 50)},
		},
		"ClearLimit": {
			reason: "Clearing a QoS limit is refused with a message naming the limit and its backend value.",
			args:   args{p: desired(func(p *v1alpha1.StoragePoolParameters) { p.MaxRWMBytes = 0 }), o: observed},
			want: want{
				params: simplyblock.UpdatableStoragePoolParams{Name: ptr(testName), MaxSize: ptr(int64(100))},
				err:    errors.Errorf(errCannotLowerQoS, "max_rw_mbytes", 2),
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := updateParams(tc.args.p, tc.args.o)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\nupdateParams(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want.params, got); diff != "" {
				t.Errorf("\n%s\nupdateParams(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			body, jerr := json.Marshal(got)
			if jerr != nil {
				t.Fatalf("json.Marshal(...): %v", jerr)
			}
			if diff := cmp.Diff(tc.want.body, string(body)); diff != "" {
				t.Errorf("\n%s\nupdateParams(...) as JSON: -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestObserveConversion(t *testing.T) {
	cases := map[string]struct {
		reason string
		dto    *simplyblock.StoragePoolDTO
		want   v1alpha1.StoragePoolObservation
	}{
		"AllFields": {
			reason: "Every pool field is copied.",
			dto: &simplyblock.StoragePoolDTO{ID: testPoolID, ClusterID: testClusterID, Name: testName, Status: simplyblock.PoolActive,
				MaxSize: 1, VolumeMaxSize: 2, MaxRWIOPS: 3, MaxRWMBytes: 4, MaxRMBytes: 5, MaxWMBytes: 6, DHCHAP: true,
				AllowedHosts: []string{"nqn.host"}, Capacity: &simplyblock.CapacityStatDTO{SizeTotal: 7, SizeProv: 8, SizeUsed: 9, SizeFree: 10, SizeUtil: 11}},
			want: v1alpha1.StoragePoolObservation{ID: testPoolID, ClusterID: testClusterID, Name: testName, Status: "active",
				MaxSize: 1, VolumeMaxSize: 2, MaxRWIOPS: 3, MaxRWMBytes: 4, MaxRMBytes: 5, MaxWMBytes: 6, DHCHAP: true,
				AllowedHosts: []string{"nqn.host"}, Capacity: &v1alpha1.CapacityObservation{SizeTotal: 7, SizeProv: 8, SizeUsed: 9, SizeFree: 10, SizeUtil: 11}},
		},
		"NoCapacity": {
			reason: "A pool without capacity stats has no capacity observation.",
			dto:    &simplyblock.StoragePoolDTO{ID: testPoolID},
			want:   v1alpha1.StoragePoolObservation{ID: testPoolID},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, observe(tc.dto)); diff != "" {
				t.Errorf("\n%s\nobserve(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestAvailability(t *testing.T) {
	cases := map[string]struct {
		reason string
		status simplyblock.PoolStatus
		want   xpv2.Condition
	}{
		"Active":   {reason: "An active pool is available.", status: simplyblock.PoolActive, want: xpv2.Available()},
		"Inactive": {reason: "An inactive pool is unavailable.", status: simplyblock.PoolInactive, want: unavailable("pool status is inactive")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, availability(tc.status)); diff != "" {
				t.Errorf("\n%s\navailability(%q): -want, +got:\n%s\n", tc.reason, tc.status, diff)
			}
		})
	}
}
