package storagepool

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/providerconfig"
)

var (
	_ managed.TypedExternalClient[*v1alpha1.StoragePool]    = &external{}
	_ managed.TypedExternalConnector[*v1alpha1.StoragePool] = &connector{}
)

const (
	testClusterID = "c0000000-0000-4000-8000-000000000001"
	testPoolID    = "p0000000-0000-4000-8000-000000000001"
	testName      = "pool01"
	gib           = int64(1) << 30
)

var testPending = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var (
	errNotFound = &simplyblock.Error{Kind: simplyblock.KindNotFound, Outcome: simplyblock.OutcomeAnswered, StatusCode: 404,
		Method: "GET", Path: "/api/v2/clusters/" + testClusterID + "/storage-pools/" + testPoolID + "/", Message: "Pool not found"}
	errServer = &simplyblock.Error{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
		Method: "DELETE", Path: "/api/v2/clusters/" + testClusterID + "/storage-pools/" + testPoolID + "/",
		Message: "Pool has volumes"}
	errLost = &simplyblock.Error{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown,
		Method: "POST", Path: "/api/v2/clusters/" + testClusterID + "/storage-pools/", Message: "request sent, outcome unknown: EOF"}
	errBadRequest = &simplyblock.Error{Kind: simplyblock.KindBadRequest, Outcome: simplyblock.OutcomeAnswered, StatusCode: 400,
		Method: "POST", Path: "/api/v2/clusters/" + testClusterID + "/storage-pools/", Message: "Pool name already exists"}
)

type poolModifier func(*v1alpha1.StoragePool)

func withClusterID(id string) poolModifier {
	return func(cr *v1alpha1.StoragePool) { cr.Spec.ForProvider.ClusterID = id }
}

func withExternalName(n string) poolModifier {
	return func(cr *v1alpha1.StoragePool) { meta.SetExternalName(cr, n) }
}

func withCreateOutcomeUnknown() poolModifier {
	return func(cr *v1alpha1.StoragePool) {
		meta.SetExternalCreatePending(cr, testPending)
		meta.SetExternalCreateFailed(cr, testPending)
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
	}
}

// withOutcomeUnknownMark is the annotation Create leaves after an ambiguous failure.
func withOutcomeUnknownMark() poolModifier {
	return func(cr *v1alpha1.StoragePool) {
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
	}
}

// withCreateRefused is a resource whose create was definitely refused.
func withCreateRefused() poolModifier {
	return func(cr *v1alpha1.StoragePool) {
		meta.SetExternalCreatePending(cr, testPending)
		meta.SetExternalCreateFailed(cr, testPending)
	}
}

// withCreateInterrupted is a resource whose create the provider stopped
// in: the create-pending annotation with no result after it.
func withCreateInterrupted() poolModifier {
	return func(cr *v1alpha1.StoragePool) { meta.SetExternalCreatePending(cr, testPending) }
}

// withCreateFound marks the create's result found by Observe: the outcome
// annotation gone and, after an interrupted create, create-succeeded
// recorded (at "now", see sinceNow).
func withCreateFound() poolModifier {
	return func(cr *v1alpha1.StoragePool) {
		meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
		if meta.ExternalCreateIncomplete(cr) {
			meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
		}
	}
}

// sinceNow replaces a create-succeeded time written during the test by
// "now", so that withCreateFound can name it.
func sinceNow(cr *v1alpha1.StoragePool, start time.Time) {
	if t := meta.GetExternalCreateSucceeded(cr); !t.IsZero() && !t.Before(start.Truncate(time.Second)) {
		meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
	}
}

func withParams(f func(p *v1alpha1.StoragePoolParameters)) poolModifier {
	return func(cr *v1alpha1.StoragePool) { f(&cr.Spec.ForProvider) }
}

func withObserved(p *simplyblock.StoragePoolDTO) poolModifier {
	return func(cr *v1alpha1.StoragePool) { cr.Status.AtProvider = observe(p) }
}

func withConditions(c ...xpv2.Condition) poolModifier {
	return func(cr *v1alpha1.StoragePool) { cr.SetConditions(c...) }
}

func pool(m ...poolModifier) *v1alpha1.StoragePool {
	cr := &v1alpha1.StoragePool{}
	cr.SetName("pool01")
	cr.SetNamespace("storage")
	cr.Spec.ForProvider = v1alpha1.StoragePoolParameters{ClusterID: testClusterID, Name: testName, PoolMax: 100 * gib, MaxRWIOPS: 1000}
	for _, f := range m {
		f(cr)
	}
	return cr
}

type dtoModifier func(*simplyblock.StoragePoolDTO)

func withDTO(f func(p *simplyblock.StoragePoolDTO)) dtoModifier { return f }

func poolDTO(m ...dtoModifier) *simplyblock.StoragePoolDTO {
	p := &simplyblock.StoragePoolDTO{
		ID: testPoolID, ClusterID: testClusterID, Name: testName, Status: simplyblock.PoolActive,
		MaxSize: 100 * gib, MaxRWIOPS: 1000, Capacity: &simplyblock.CapacityStatDTO{SizeTotal: 100 * gib},
	}
	for _, f := range m {
		f(p)
	}
	return p
}

func getPool(p *simplyblock.StoragePoolDTO, err error) func(context.Context, string, string) (*simplyblock.StoragePoolDTO, error) {
	return func(_ context.Context, clusterID, poolID string) (*simplyblock.StoragePoolDTO, error) {
		if clusterID != testClusterID || poolID != testPoolID {
			return nil, errors.Errorf("GetStoragePool(%q, %q), want (%q, %q)", clusterID, poolID, testClusterID, testPoolID)
		}
		return p, err
	}
}

func unavailable(msg string) xpv2.Condition {
	c := xpv2.Unavailable()
	c.Message = msg
	return c
}

func TestObserve(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StoragePool
	}
	type want struct {
		o   managed.ExternalObservation
		err error
		cr  *v1alpha1.StoragePool
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"NoClusterID": {
			reason: "A pool without a clusterId cannot be observed.",
			fields: fields{api: &fake.MockClient{}},
			args:   args{cr: pool(withClusterID(""))},
			want:   want{err: errors.New(errNoClusterID), cr: pool(withClusterID(""))},
		},
		"NoExternalNameNoCreateAttempt": {
			reason: "A pool without an external name that never tried a create does not exist, and the backend is not asked.",
			fields: fields{api: &fake.MockClient{}},
			args:   args{cr: pool()},
			want:   want{o: managed.ExternalObservation{ResourceExists: false}, cr: pool()},
		},
		"CreateAnswerLostAdopted": {
			reason: "A pool whose create answer was lost adopts the backend pool with its name and reports a late init.",
			fields: fields{api: &fake.MockClient{
				MockListStoragePools: func(_ context.Context, clusterID string) ([]simplyblock.StoragePoolDTO, error) {
					if clusterID != testClusterID {
						return nil, errors.Errorf("ListStoragePools(%q), want %q", clusterID, testClusterID)
					}
					return []simplyblock.StoragePoolDTO{
						*poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.ID, p.Name = "other", "other" })),
						*poolDTO(),
					}, nil
				},
				MockGetStoragePool: getPool(poolDTO(), nil),
			}},
			args: args{cr: pool(withCreateOutcomeUnknown())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: pool(withCreateOutcomeUnknown(), withCreateFound(), withExternalName(testPoolID), withObserved(poolDTO()),
					withConditions(xpv2.Available())),
			},
		},
		"CreateInterruptedAdopted": {
			reason: "After a create the provider stopped in (create-pending with no result), the backend object with its name is adopted and the create's result recorded, instead of refusing to proceed.",
			fields: fields{api: &fake.MockClient{
				MockListStoragePools: func(_ context.Context, clusterID string) ([]simplyblock.StoragePoolDTO, error) {
					if clusterID != testClusterID {
						return nil, errors.Errorf("ListStoragePools(%q), want %q", clusterID, testClusterID)
					}
					return []simplyblock.StoragePoolDTO{
						*poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.ID, p.Name = "other", "other" })),
						*poolDTO(),
					}, nil
				},
				MockGetStoragePool: getPool(poolDTO(), nil),
			}},
			args: args{cr: pool(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: true},
				cr: pool(withCreateInterrupted(), withCreateFound(), withExternalName(testPoolID), withObserved(poolDTO()),
					withConditions(xpv2.Available())),
			},
		},
		"CreateInterruptedNothingCreated": {
			reason: "After a create the provider stopped in, no backend object with its name means the create was not sent: it does not exist, so Create sends it.",
			fields: fields{api: &fake.MockClient{
				MockListStoragePools: func(_ context.Context, _ string) ([]simplyblock.StoragePoolDTO, error) { return nil, nil },
			}},
			args: args{cr: pool(withCreateInterrupted())},
			want: want{o: managed.ExternalObservation{ResourceExists: false}, cr: pool(withCreateInterrupted())},
		},
		"CreateAnswerLostNothingCreated": {
			reason: "A pool whose create attempt left no pool with its name does not exist.",
			fields: fields{api: &fake.MockClient{
				MockListStoragePools: func(_ context.Context, _ string) ([]simplyblock.StoragePoolDTO, error) { return nil, nil },
			}},
			args: args{cr: pool(withCreateOutcomeUnknown())},
			want: want{o: managed.ExternalObservation{ResourceExists: false}, cr: pool(withCreateOutcomeUnknown())},
		},
		"CreateAnswerLostListFailed": {
			reason: "An error listing pools while looking for a lost create is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockListStoragePools: func(_ context.Context, _ string) ([]simplyblock.StoragePoolDTO, error) { return nil, errServer },
			}},
			args: args{cr: pool(withCreateOutcomeUnknown())},
			want: want{err: errors.Wrap(errServer, errListPools), cr: pool(withCreateOutcomeUnknown())},
		},
		"NotFound": {
			reason: "A pool the backend does not know does not exist.",
			fields: fields{api: &fake.MockClient{MockGetStoragePool: getPool(nil, errNotFound)}},
			args:   args{cr: pool(withExternalName(testPoolID))},
			want:   want{o: managed.ExternalObservation{ResourceExists: false}, cr: pool(withExternalName(testPoolID))},
		},
		"GetFailed": {
			reason: "Any other error reading the pool is returned wrapped.",
			fields: fields{api: &fake.MockClient{MockGetStoragePool: getPool(nil, errServer)}},
			args:   args{cr: pool(withExternalName(testPoolID))},
			want:   want{err: errors.Wrap(errServer, errGetPool), cr: pool(withExternalName(testPoolID))},
		},
		"UpToDate": {
			reason: "An active pool matching forProvider is available and up to date.",
			fields: fields{api: &fake.MockClient{MockGetStoragePool: getPool(poolDTO(), nil)}},
			args:   args{cr: pool(withExternalName(testPoolID))},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: pool(withExternalName(testPoolID), withObserved(poolDTO()), withConditions(xpv2.Available())),
			},
		},
		"QoSDrift": {
			reason: "A pool whose QoS limit differs is not up to date.",
			fields: fields{api: &fake.MockClient{MockGetStoragePool: getPool(poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.MaxRWIOPS = 500 })), nil)}},
			args:   args{cr: pool(withExternalName(testPoolID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: false},
				cr: pool(withExternalName(testPoolID), withObserved(poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.MaxRWIOPS = 500 }))),
					withConditions(xpv2.Available())),
			},
		},
		"Inactive": {
			reason: "An inactive pool is unavailable and the condition names the status.",
			fields: fields{api: &fake.MockClient{MockGetStoragePool: getPool(poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.Status = simplyblock.PoolInactive })), nil)}},
			args:   args{cr: pool(withExternalName(testPoolID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				cr: pool(withExternalName(testPoolID), withObserved(poolDTO(withDTO(func(p *simplyblock.StoragePoolDTO) { p.Status = simplyblock.PoolInactive }))),
					withConditions(unavailable("pool status is inactive"))),
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api}
			start := time.Now()
			got, err := e.Observe(context.Background(), tc.args.cr)
			sinceNow(tc.args.cr, start)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.o, got); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.cr, tc.args.cr, test.EquateConditions()); diff != "" {
				t.Errorf("\n%s\ne.Observe(...): -want cr, +got cr:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StoragePool
	}
	type want struct {
		err    error
		cr     *v1alpha1.StoragePool
		params *simplyblock.StoragePoolParams
	}

	params := poolParams(pool().Spec.ForProvider)

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Created": {
			reason: "A created pool's UUID becomes the external name.",
			fields: fields{api: &fake.MockClient{
				MockCreateStoragePool: func(_ context.Context, _ string, _ simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
					return poolDTO(), nil
				},
			}},
			args: args{cr: pool()},
			want: want{cr: pool(withExternalName(testPoolID)), params: &params},
		},
		"CreateAnswerLost": {
			reason: "A create whose outcome is unknown returns an error saying the provider adopts the pool by name.",
			fields: fields{api: &fake.MockClient{
				MockCreateStoragePool: func(_ context.Context, _ string, _ simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
					return nil, errLost
				},
			}},
			args: args{cr: pool()},
			want: want{
				err:    errors.Wrapf(errors.Wrap(errLost, errCreatePool), errMayHaveCreated, testName),
				cr:     pool(withOutcomeUnknownMark()),
				params: &params,
			},
		},
		"CreateRefused": {
			reason: "A definite refusal is returned wrapped, without the adoption message.",
			fields: fields{api: &fake.MockClient{
				MockCreateStoragePool: func(_ context.Context, _ string, _ simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
					return nil, errBadRequest
				},
			}},
			args: args{cr: pool()},
			want: want{err: errors.Wrap(errBadRequest, errCreatePool), cr: pool(), params: &params},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var gotParams *simplyblock.StoragePoolParams
			api := tc.fields.api.(*fake.MockClient)
			inner := api.MockCreateStoragePool
			api.MockCreateStoragePool = func(ctx context.Context, clusterID string, p simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
				if clusterID != testClusterID {
					t.Errorf("CreateStoragePool(%q, ...), want %q", clusterID, testClusterID)
				}
				gotParams = &p
				return inner(ctx, clusterID, p)
			}
			e := &external{api: api}
			got, err := e.Create(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalCreation{}, got); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.cr, tc.args.cr); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want cr, +got cr:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.params, gotParams); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want params, +got params:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestCreateAnswerLostMessageMentionsAdoption(t *testing.T) {
	e := &external{api: &fake.MockClient{
		MockCreateStoragePool: func(_ context.Context, _ string, _ simplyblock.StoragePoolParams) (*simplyblock.StoragePoolDTO, error) {
			return nil, errLost
		},
	}}
	_, err := e.Create(context.Background(), pool())
	if err == nil || !strings.Contains(err.Error(), "adopts a pool named \""+testName+"\"") {
		t.Errorf("e.Create(...): error %v does not say the provider adopts the pool by name", err)
	}
}

func TestUpdate(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StoragePool
	}
	type want struct {
		err    error
		params *simplyblock.UpdatableStoragePoolParams
	}

	name := testName
	size := 200 * gib
	iops := int64(2000)

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Resized": {
			reason: "Update sends the name and the new maximum size, and no unchanged QoS limit.",
			fields: fields{api: &fake.MockClient{
				MockUpdateStoragePool: func(_ context.Context, _, _ string, _ simplyblock.UpdatableStoragePoolParams) error { return nil },
			}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(poolDTO()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.PoolMax = size }))},
			want: want{params: &simplyblock.UpdatableStoragePoolParams{Name: &name, MaxSize: &size}},
		},
		"QoSRaised": {
			reason: "Raising one QoS limit sends only that limit, besides name and size.",
			fields: fields{api: &fake.MockClient{
				MockUpdateStoragePool: func(_ context.Context, _, _ string, _ simplyblock.UpdatableStoragePoolParams) error { return nil },
			}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(poolDTO()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.MaxRWIOPS = iops }))},
			want: want{params: &simplyblock.UpdatableStoragePoolParams{Name: &name, MaxSize: func() *int64 { s := 100 * gib; return &s }(), MaxRWIOPS: &iops}},
		},
		"QoSCleared": {
			reason: "Clearing a QoS limit is refused before any call, with a message naming the limit.",
			fields: fields{api: &fake.MockClient{}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(poolDTO()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.MaxRWIOPS = 0 }))},
			want: want{err: errors.Wrap(errors.Errorf(errCannotLowerQoS, "max_rw_iops", 1000), errUpdatePool)},
		},
		"WouldClearVolumeMax": {
			reason: "Every pool update resets volume_max_size to 0 and none can set it again (sbcli pool_controller.py:308-318): a pool with one is not updated, and the message says why.",
			fields: fields{api: &fake.MockClient{}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(func() *simplyblock.StoragePoolDTO { d := poolDTO(); d.VolumeMaxSize = 10 * gib; return d }()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.VolumeMaxSize = 10 * gib; p.PoolMax = size }))},
			want: want{err: errors.Wrap(errors.Errorf(errWouldClearVolumeMax, 10*gib), errUpdatePool)},
		},
		"VolumeMaxLost": {
			reason: "A volume_max_size reset outside the provider cannot be restored: the update says so instead of sending a PUT that changes nothing.",
			fields: fields{api: &fake.MockClient{}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(poolDTO()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.VolumeMaxSize = 10 * gib }))},
			want: want{err: errors.Wrap(errors.Errorf(errVolumeMaxLost, 0, 10*gib), errUpdatePool)},
		},
		"UpdateFailed": {
			reason: "A failed update is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockUpdateStoragePool: func(_ context.Context, _, _ string, _ simplyblock.UpdatableStoragePoolParams) error { return errServer },
			}},
			args: args{cr: pool(withExternalName(testPoolID), withObserved(poolDTO()),
				withParams(func(p *v1alpha1.StoragePoolParameters) { p.PoolMax = size }))},
			want: want{
				err:    errors.Wrap(errServer, errUpdatePool),
				params: &simplyblock.UpdatableStoragePoolParams{Name: &name, MaxSize: &size},
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var gotParams *simplyblock.UpdatableStoragePoolParams
			api := tc.fields.api.(*fake.MockClient)
			if inner := api.MockUpdateStoragePool; inner != nil {
				api.MockUpdateStoragePool = func(ctx context.Context, clusterID, poolID string, p simplyblock.UpdatableStoragePoolParams) error {
					if clusterID != testClusterID || poolID != testPoolID {
						t.Errorf("UpdateStoragePool(%q, %q, ...), want (%q, %q)", clusterID, poolID, testClusterID, testPoolID)
					}
					gotParams = &p
					return inner(ctx, clusterID, poolID, p)
				}
			}
			e := &external{api: api}
			got, err := e.Update(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Update(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalUpdate{}, got); diff != "" {
				t.Errorf("\n%s\ne.Update(...): -want, +got:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.params, gotParams); diff != "" {
				t.Errorf("\n%s\ne.Update(...): -want params, +got params:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StoragePool
	}
	type want struct {
		err error
	}

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Deleted": {
			reason: "Deleting the pool named by the external name succeeds.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStoragePool: func(_ context.Context, clusterID, poolID string) error {
					if clusterID != testClusterID || poolID != testPoolID {
						return errors.Errorf("DeleteStoragePool(%q, %q), want (%q, %q)", clusterID, poolID, testClusterID, testPoolID)
					}
					return nil
				},
			}},
			args: args{cr: pool(withExternalName(testPoolID))},
		},
		"NotFound": {
			reason: "A pool that is already gone counts as deleted.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStoragePool: func(_ context.Context, _, _ string) error { return errNotFound },
			}},
			args: args{cr: pool(withExternalName(testPoolID))},
		},
		"Refused": {
			reason: "A refusal (a pool with volumes is a 500) is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockDeleteStoragePool: func(_ context.Context, _, _ string) error { return errServer },
			}},
			args: args{cr: pool(withExternalName(testPoolID))},
			want: want{err: errors.Wrap(errServer, errDeletePool)},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api}
			got, err := e.Delete(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Delete(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalDelete{}, got); diff != "" {
				t.Errorf("\n%s\ne.Delete(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

func TestConnect(t *testing.T) {
	errBoom := errors.New("boom")
	c := &connector{Connector: providerconfig.Connector{
		Usage: resource.ModernTrackerFn(func(_ context.Context, _ resource.ModernManaged) error { return errBoom }),
	}}
	got, err := c.Connect(context.Background(), pool())
	if diff := cmp.Diff(errors.Wrap(errBoom, "cannot track ProviderConfig usage"), err, test.EquateErrors()); diff != "" {
		t.Errorf("\nc.Connect(...): -want error, +got error:\n%s\n", diff)
	}
	if got != nil {
		t.Errorf("c.Connect(...): got client %v, want nil on error", got)
	}
}
