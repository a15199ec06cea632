package storagecluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/pkg/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
)

var _ managed.TypedExternalClient[*v1alpha1.StorageCluster] = &external{}

const (
	testID      = "3a1b2c4d-0000-4000-8000-000000000001"
	testOtherID = "3a1b2c4d-0000-4000-8000-000000000002"
	testName    = "prod"
	testNQN     = "nqn.2023-02.io.simplyblock:3a1b2c4d"
	testSecret  = "s3cr3t-cluster-secret"
)

var testPending = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type clusterModifier func(*v1alpha1.StorageCluster)

func withExternalName(n string) clusterModifier {
	return func(cr *v1alpha1.StorageCluster) { meta.SetExternalName(cr, n) }
}

func withCreateOutcomeUnknown() clusterModifier {
	return func(cr *v1alpha1.StorageCluster) {
		meta.SetExternalCreatePending(cr, testPending)
		meta.SetExternalCreateFailed(cr, testPending)
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
	}
}

// withOutcomeUnknownMark is the annotation Create leaves after an ambiguous failure.
func withOutcomeUnknownMark() clusterModifier {
	return func(cr *v1alpha1.StorageCluster) {
		meta.AddAnnotations(cr, map[string]string{v1alpha1.AnnotationCreateOutcomeUnknown: "true"})
	}
}

// withCreateRefused is a resource whose create was definitely refused.
func withCreateRefused() clusterModifier {
	return func(cr *v1alpha1.StorageCluster) {
		meta.SetExternalCreatePending(cr, testPending)
		meta.SetExternalCreateFailed(cr, testPending)
	}
}

// withCreateInterrupted is a resource whose create the provider stopped
// in: the create-pending annotation with no result after it.
func withCreateInterrupted() clusterModifier {
	return func(cr *v1alpha1.StorageCluster) { meta.SetExternalCreatePending(cr, testPending) }
}

// withCreateFound marks the create's result found by Observe: the outcome
// annotation gone and, after an interrupted create, create-succeeded
// recorded (at "now", see sinceNow).
func withCreateFound() clusterModifier {
	return func(cr *v1alpha1.StorageCluster) {
		meta.RemoveAnnotations(cr, v1alpha1.AnnotationCreateOutcomeUnknown)
		if meta.ExternalCreateIncomplete(cr) {
			meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
		}
	}
}

// sinceNow replaces a create-succeeded time written during the test by
// "now", so that withCreateFound can name it.
func sinceNow(cr *v1alpha1.StorageCluster, start time.Time) {
	if t := meta.GetExternalCreateSucceeded(cr); !t.IsZero() && !t.Before(start.Truncate(time.Second)) {
		meta.AddAnnotations(cr, map[string]string{meta.AnnotationKeyExternalCreateSucceeded: "now"})
	}
}

func withName(n string) clusterModifier {
	return func(cr *v1alpha1.StorageCluster) { cr.Spec.ForProvider.Name = n }
}

func withAtProvider(o v1alpha1.StorageClusterObservation) clusterModifier {
	return func(cr *v1alpha1.StorageCluster) { cr.Status.AtProvider = o }
}

func withConditions(c ...xpv2.Condition) clusterModifier {
	return func(cr *v1alpha1.StorageCluster) { cr.SetConditions(c...) }
}

func cluster(m ...clusterModifier) *v1alpha1.StorageCluster {
	cr := &v1alpha1.StorageCluster{}
	cr.SetName("prod")
	cr.SetNamespace("storage")
	cr.Spec.ForProvider.Name = testName
	for _, f := range m {
		f(cr)
	}
	return cr
}

type dtoModifier func(*simplyblock.ClusterDTO)

func withStatus(s simplyblock.ClusterStatus) dtoModifier {
	return func(c *simplyblock.ClusterDTO) { c.Status = s }
}

func withDTOName(n *string) dtoModifier {
	return func(c *simplyblock.ClusterDTO) { c.Name = n }
}

func withDTOID(id string) dtoModifier {
	return func(c *simplyblock.ClusterDTO) { c.ID = id }
}

func clusterDTO(m ...dtoModifier) *simplyblock.ClusterDTO {
	name := testName
	c := &simplyblock.ClusterDTO{
		ID:        testID,
		Name:      &name,
		NQN:       testNQN,
		Status:    simplyblock.ClusterActive,
		BlockSize: 512,
		DistrNdcs: 1,
		DistrNpcs: 1,
		HA:        true,
		Secret:    testSecret,
		Capacity:  simplyblock.CapacityStatDTO{SizeTotal: 100, SizeUsed: 10, SizeFree: 90},
	}
	for _, f := range m {
		f(c)
	}
	return c
}

// observation is what observe makes of clusterDTO(m...) with no previous state.
func observation(m ...dtoModifier) v1alpha1.StorageClusterObservation {
	return observe(v1alpha1.StorageClusterObservation{}, clusterDTO(m...))
}

func details(id string) managed.ConnectionDetails {
	return managed.ConnectionDetails{
		ConnectionKeyClusterID: []byte(id),
		ConnectionKeyNQN:       []byte(testNQN),
		ConnectionKeySecret:    []byte(testSecret),
	}
}

func unavailable(msg string) xpv2.Condition {
	c := xpv2.Unavailable()
	c.Message = msg
	return c
}

var (
	errBoom = errors.New("boom")

	errNotFound = &simplyblock.Error{Kind: simplyblock.KindNotFound, Outcome: simplyblock.OutcomeAnswered, StatusCode: 404,
		Method: "GET", Path: "/api/v2/clusters/" + testID + "/", Message: "Cluster not found"}
	errServer = &simplyblock.Error{Kind: simplyblock.KindServerError, Outcome: simplyblock.OutcomeAnswered, StatusCode: 500,
		Method: "GET", Path: "/api/v2/clusters/", Message: "Internal Server Error"}
	errLost = &simplyblock.Error{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeUnknown,
		Method: "POST", Path: "/api/v2/clusters/", Message: "request sent, outcome unknown: EOF"}
	errNotSent = &simplyblock.Error{Kind: simplyblock.KindTransport, Outcome: simplyblock.OutcomeNotSent,
		Method: "POST", Path: "/api/v2/clusters/", Message: "request not sent: connection refused"}
	errConflict = &simplyblock.Error{Kind: simplyblock.KindConflict, Outcome: simplyblock.OutcomeAnswered, StatusCode: 409,
		Method: "DELETE", Path: "/api/v2/clusters/" + testID + "/", Message: "Cluster has storage nodes"}
	errValidation = &simplyblock.Error{Kind: simplyblock.KindValidation, Outcome: simplyblock.OutcomeAnswered, StatusCode: 422,
		Method: "POST", Path: "/api/v2/clusters/", Message: "body.distr_ndcs: Invalid erasure coding scheme"}
)

func TestObserve(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StorageCluster
	}
	type want struct {
		o   managed.ExternalObservation
		err error
		cr  *v1alpha1.StorageCluster
	}

	renamed := "old-name"

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"NoExternalNameNoCreateAttempt": {
			reason: "A resource without an external name that never tried a create does not exist, and the backend is not asked.",
			fields: fields{api: &fake.MockClient{}},
			args:   args{cr: cluster()},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: cluster(),
			},
		},
		"CreateAnswerLostAdopted": {
			reason: "A resource whose create answer was lost adopts the backend cluster with its name, sets the external name and reports a late init so it is persisted.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) {
					other := "other"
					return []simplyblock.ClusterDTO{
						*clusterDTO(withDTOID(testOtherID), withDTOName(&other)),
						*clusterDTO(withDTOName(nil)),
						*clusterDTO(),
					}, nil
				},
				MockGetCluster: func(_ context.Context, id string) (*simplyblock.ClusterDTO, error) {
					if id != testID {
						return nil, errors.Errorf("GetCluster(%q), want %q", id, testID)
					}
					return clusterDTO(), nil
				},
			}},
			args: args{cr: cluster(withCreateOutcomeUnknown())},
			want: want{
				o: managed.ExternalObservation{
					ResourceExists:          true,
					ResourceUpToDate:        true,
					ResourceLateInitialized: true,
					ConnectionDetails:       details(testID),
				},
				cr: cluster(withCreateOutcomeUnknown(), withCreateFound(), withExternalName(testID), withAtProvider(observation()), withConditions(xpv2.Available())),
			},
		},
		"CreateInterruptedAdopted": {
			reason: "After a create the provider stopped in (create-pending with no result), the backend object with its name is adopted and the create's result recorded, instead of refusing to proceed.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) {
					other := "other"
					return []simplyblock.ClusterDTO{
						*clusterDTO(withDTOID(testOtherID), withDTOName(&other)),
						*clusterDTO(withDTOName(nil)),
						*clusterDTO(),
					}, nil
				},
				MockGetCluster: func(_ context.Context, id string) (*simplyblock.ClusterDTO, error) {
					if id != testID {
						return nil, errors.Errorf("GetCluster(%q), want %q", id, testID)
					}
					return clusterDTO(), nil
				},
			}},
			args: args{cr: cluster(withCreateInterrupted())},
			want: want{
				o: managed.ExternalObservation{
					ResourceExists:          true,
					ResourceUpToDate:        true,
					ResourceLateInitialized: true,
					ConnectionDetails:       details(testID),
				},
				cr: cluster(withCreateInterrupted(), withCreateFound(), withExternalName(testID), withAtProvider(observation()), withConditions(xpv2.Available())),
			},
		},
		"CreateInterruptedNothingCreated": {
			reason: "After a create the provider stopped in, no backend object with its name means the create was not sent: it does not exist, so Create sends it.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) {
					other := "other"
					return []simplyblock.ClusterDTO{*clusterDTO(withDTOID(testOtherID), withDTOName(&other))}, nil
				},
			}},
			args: args{cr: cluster(withCreateInterrupted())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: cluster(withCreateInterrupted()),
			},
		},
		"CreateRefusedNeverAdopts": {
			reason: "After a definite create refusal (e.g. 409, the name belongs to someone else's cluster) the cluster with that name is never adopted.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) {
					return []simplyblock.ClusterDTO{*clusterDTO()}, nil
				},
			}},
			args: args{cr: cluster(withCreateRefused())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: cluster(withCreateRefused()),
			},
		},
		"CreateAnswerLostNothingCreated": {
			reason: "A resource whose create attempt left no cluster with its name does not exist, so Create runs again.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) {
					other := "other"
					return []simplyblock.ClusterDTO{*clusterDTO(withDTOID(testOtherID), withDTOName(&other))}, nil
				},
			}},
			args: args{cr: cluster(withCreateOutcomeUnknown())},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: cluster(withCreateOutcomeUnknown()),
			},
		},
		"CreateAnswerLostListFailed": {
			reason: "An error listing clusters while looking for a lost create is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockListClusters: func(_ context.Context) ([]simplyblock.ClusterDTO, error) { return nil, errServer },
			}},
			args: args{cr: cluster(withCreateOutcomeUnknown())},
			want: want{
				err: errors.Wrap(errServer, errListClusters),
				cr:  cluster(withCreateOutcomeUnknown()),
			},
		},
		"NotFound": {
			reason: "A cluster the backend does not know does not exist.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) { return nil, errNotFound },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				o:  managed.ExternalObservation{ResourceExists: false},
				cr: cluster(withExternalName(testID)),
			},
		},
		"GetFailed": {
			reason: "Any other error reading the cluster is returned wrapped, not mistaken for absence.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) { return nil, errServer },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				err: errors.Wrap(errServer, errGetCluster),
				cr:  cluster(withExternalName(testID)),
			},
		},
		"ActiveUpToDate": {
			reason: "An active cluster with the desired name is available and up to date, and publishes its connection details.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) { return clusterDTO(), nil },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				o: managed.ExternalObservation{
					ResourceExists:    true,
					ResourceUpToDate:  true,
					ConnectionDetails: details(testID),
				},
				cr: cluster(withExternalName(testID), withAtProvider(observation()), withConditions(xpv2.Available())),
			},
		},
		"UnreadyIsAvailable": {
			reason: "A created cluster awaiting activation is in a normal lifecycle state and so is available.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) {
					return clusterDTO(withStatus(simplyblock.ClusterUnready)), nil
				},
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ConnectionDetails: details(testID)},
				cr: cluster(withExternalName(testID), withAtProvider(observation(withStatus(simplyblock.ClusterUnready))),
					withConditions(xpv2.Available())),
			},
		},
		"DegradedIsUnavailable": {
			reason: "A degraded cluster is unavailable and the condition names the status.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) {
					return clusterDTO(withStatus(simplyblock.ClusterDegraded)), nil
				},
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ConnectionDetails: details(testID)},
				cr: cluster(withExternalName(testID), withAtProvider(observation(withStatus(simplyblock.ClusterDegraded))),
					withConditions(unavailable("cluster status is degraded"))),
			},
		},
		"NameDrift": {
			reason: "A cluster whose backend name differs from the desired one is not up to date, so Update renames it.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) {
					return clusterDTO(withDTOName(&renamed)), nil
				},
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: false, ConnectionDetails: details(testID)},
				cr: cluster(withExternalName(testID), withAtProvider(observation(withDTOName(&renamed))),
					withConditions(xpv2.Available())),
			},
		},
		"KeepsOperationState": {
			reason: "Observe keeps the atProvider fields the operation engine owns.",
			fields: fields{api: &fake.MockClient{
				MockGetCluster: func(_ context.Context, _ string) (*simplyblock.ClusterDTO, error) { return clusterDTO(), nil },
			}},
			args: args{cr: cluster(withExternalName(testID), withAtProvider(v1alpha1.StorageClusterObservation{
				Status:           "stale",
				ActiveOperation:  &v1alpha1.OperationReference{},
				OperationHistory: []v1alpha1.OperationRecord{{}},
			}))},
			want: want{
				o: managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ConnectionDetails: details(testID)},
				cr: cluster(withExternalName(testID), withAtProvider(func() v1alpha1.StorageClusterObservation {
					o := observation()
					o.ActiveOperation = &v1alpha1.OperationReference{}
					o.OperationHistory = []v1alpha1.OperationRecord{{}}
					return o
				}()), withConditions(xpv2.Available())),
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
		cr *v1alpha1.StorageCluster
	}
	type want struct {
		c      managed.ExternalCreation
		err    error
		cr     *v1alpha1.StorageCluster
		params *simplyblock.ClusterParams
	}

	params := clusterParams(cluster().Spec.ForProvider)

	cases := map[string]struct {
		reason string
		fields fields
		args   args
		want   want
	}{
		"Created": {
			reason: "A created cluster's UUID becomes the external name and its connection details are returned.",
			fields: fields{api: &fake.MockClient{
				MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
					return clusterDTO(), nil
				},
			}},
			args: args{cr: cluster()},
			want: want{
				c:      managed.ExternalCreation{ConnectionDetails: details(testID)},
				cr:     cluster(withExternalName(testID)),
				params: &params,
			},
		},
		"CreateAnswerLost": {
			reason: "A create whose outcome is unknown returns an error saying the provider adopts the cluster by name, and sets no external name.",
			fields: fields{api: &fake.MockClient{
				MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
					return nil, errLost
				},
			}},
			args: args{cr: cluster()},
			want: want{
				err:    errors.Wrapf(errors.Wrap(errLost, errCreateCluster), errMayHaveCreated, testName),
				cr:     cluster(withOutcomeUnknownMark()),
				params: &params,
			},
		},
		"CreateAnswerUndecodable": {
			reason: "A 2xx answer whose body could not be decoded may have created the cluster, so the adoption message is returned.",
			fields: fields{api: &fake.MockClient{
				MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
					return nil, &simplyblock.Error{Kind: simplyblock.KindInvalidResponse, Outcome: simplyblock.OutcomeAnswered, StatusCode: 201}
				},
			}},
			args: args{cr: cluster()},
			want: want{
				err: errors.Wrapf(errors.Wrap(&simplyblock.Error{Kind: simplyblock.KindInvalidResponse, Outcome: simplyblock.OutcomeAnswered, StatusCode: 201},
					errCreateCluster), errMayHaveCreated, testName),
				cr:     cluster(withOutcomeUnknownMark()),
				params: &params,
			},
		},
		"CreateRefused": {
			reason: "A definite refusal is returned wrapped, without the adoption message.",
			fields: fields{api: &fake.MockClient{
				MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
					return nil, errValidation
				},
			}},
			args: args{cr: cluster()},
			want: want{
				err:    errors.Wrap(errValidation, errCreateCluster),
				cr:     cluster(),
				params: &params,
			},
		},
		"CreateNotSent": {
			reason: "A create that never reached the backend is returned wrapped, without the adoption message.",
			fields: fields{api: &fake.MockClient{
				MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
					return nil, errNotSent
				},
			}},
			args: args{cr: cluster()},
			want: want{
				err:    errors.Wrap(errNotSent, errCreateCluster),
				cr:     cluster(),
				params: &params,
			},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var gotParams *simplyblock.ClusterParams
			api := tc.fields.api.(*fake.MockClient)
			inner := api.MockCreateCluster
			api.MockCreateCluster = func(ctx context.Context, p simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
				gotParams = &p
				return inner(ctx, p)
			}
			e := &external{api: api}
			got, err := e.Create(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Create(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.c, got); diff != "" {
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
		MockCreateCluster: func(_ context.Context, _ simplyblock.ClusterParams) (*simplyblock.ClusterDTO, error) {
			return nil, errLost
		},
	}}
	_, err := e.Create(context.Background(), cluster())
	if err == nil || !strings.Contains(err.Error(), "adopts a cluster named \""+testName+"\"") {
		t.Errorf("e.Create(...): error %v does not say the provider adopts the cluster by name", err)
	}
}

func TestUpdate(t *testing.T) {
	type fields struct {
		api simplyblock.API
	}
	type args struct {
		cr *v1alpha1.StorageCluster
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
		"Renamed": {
			reason: "Update renames the cluster named by the external name to the desired name.",
			fields: fields{api: &fake.MockClient{
				MockUpdateClusterName: func(_ context.Context, id, name string) error {
					if id != testID || name != "new-name" {
						return errors.Errorf("UpdateClusterName(%q, %q), want (%q, %q)", id, name, testID, "new-name")
					}
					return nil
				},
			}},
			args: args{cr: cluster(withExternalName(testID), withName("new-name"))},
			want: want{},
		},
		"RenameFailed": {
			reason: "A failed rename is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockUpdateClusterName: func(_ context.Context, _, _ string) error { return errServer },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{err: errors.Wrap(errServer, errRenameCluster)},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api}
			got, err := e.Update(context.Background(), tc.args.cr)
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("\n%s\ne.Update(...): -want error, +got error:\n%s\n", tc.reason, diff)
			}
			if diff := cmp.Diff(managed.ExternalUpdate{}, got); diff != "" {
				t.Errorf("\n%s\ne.Update(...): -want, +got:\n%s\n", tc.reason, diff)
			}
		})
	}
}

// lockReader is an API reader holding objs (the operations a lock may
// name).
func lockReader(t *testing.T, objs ...client.Object) client.Reader {
	t.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatalf("cannot build scheme: %v", err)
	}
	return crfake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// runningOp is ClusterOps name in the cluster's namespace, running.
func runningOp(name string) *v1alpha1.ClusterOps {
	o := &v1alpha1.ClusterOps{}
	o.SetNamespace("storage")
	o.SetName(name)
	o.SetUID(types.UID(name + "-uid"))
	o.Status.AtProvider.Phase = v1alpha1.OperationRunning
	return o
}

func lockedBy(name string) clusterModifier {
	return func(c *v1alpha1.StorageCluster) {
		c.Status.AtProvider.ActiveOperation = &v1alpha1.OperationReference{Name: name, UID: types.UID(name + "-uid"), Type: "Restart", Kind: v1alpha1.ClusterOpsKind}
	}
}

func TestDelete(t *testing.T) {
	type fields struct {
		api simplyblock.API
		// operations exist in the API server.
		operations []client.Object
	}
	type args struct {
		cr *v1alpha1.StorageCluster
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
			reason: "Deleting the cluster named by the external name succeeds.",
			fields: fields{api: &fake.MockClient{
				MockDeleteCluster: func(_ context.Context, id string) error {
					if id != testID {
						return errors.Errorf("DeleteCluster(%q), want %q", id, testID)
					}
					return nil
				},
			}},
			args: args{cr: cluster(withExternalName(testID))},
		},
		"NotFound": {
			reason: "A cluster that is already gone counts as deleted.",
			fields: fields{api: &fake.MockClient{
				MockDeleteCluster: func(_ context.Context, _ string) error { return errNotFound },
			}},
			args: args{cr: cluster(withExternalName(testID))},
		},
		"NotEmpty": {
			reason: "A 409 (cluster still has nodes or pools) is returned with advice to delete them first.",
			fields: fields{api: &fake.MockClient{
				MockDeleteCluster: func(_ context.Context, _ string) error { return errConflict },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{err: errors.Wrap(errors.Wrap(errConflict, errNotEmpty), errDeleteCluster)},
		},
		"DeleteFailed": {
			reason: "Any other error is returned wrapped.",
			fields: fields{api: &fake.MockClient{
				MockDeleteCluster: func(_ context.Context, _ string) error { return errServer },
			}},
			args: args{cr: cluster(withExternalName(testID))},
			want: want{err: errors.Wrap(errServer, errDeleteCluster)},
		},
		"WaitsForTheLockHolder": {
			reason: "A cluster whose lock an operation holds is not deleted in the backend until the operation finished; the error names it.",
			fields: fields{
				api: &fake.MockClient{
					MockDeleteCluster: func(_ context.Context, _ string) error { return errors.New("DeleteCluster must not be called") },
				},
				operations: []client.Object{runningOp("demo-restart")},
			},
			args: args{cr: cluster(withExternalName(testID), lockedBy("demo-restart"))},
			want: want{err: errors.New("waiting for ClusterOps demo-restart (Restart) to finish: it holds the cluster's lock, and the cluster is deleted only after it")},
		},
		"StaleLockDoesNotBlock": {
			reason: "A lock whose holder no longer exists (its finalizer was removed by hand) does not keep the cluster forever.",
			fields: fields{api: &fake.MockClient{
				MockDeleteCluster: func(_ context.Context, _ string) error { return nil },
			}},
			args: args{cr: cluster(withExternalName(testID), lockedBy("gone"))},
		},
		"FinishedHolderDoesNotBlock": {
			reason: "A lock whose holder finished without releasing it (a crash in between) does not block the deletion.",
			fields: fields{
				api: &fake.MockClient{MockDeleteCluster: func(_ context.Context, _ string) error { return nil }},
				operations: []client.Object{func() client.Object {
					o := runningOp("demo-restart")
					o.Status.AtProvider.Phase = v1alpha1.OperationSucceeded
					return o
				}()},
			},
			args: args{cr: cluster(withExternalName(testID), lockedBy("demo-restart"))},
		},
	}

	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{api: tc.fields.api, locks: lockReader(t, tc.fields.operations...)}
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

func TestDeleteNotEmptyMessage(t *testing.T) {
	e := &external{api: &fake.MockClient{
		MockDeleteCluster: func(_ context.Context, _ string) error { return errConflict },
	}}
	_, err := e.Delete(context.Background(), cluster(withExternalName(testID)))
	if err == nil {
		t.Fatal("e.Delete(...): want an error for a 409")
	}
	for _, s := range []string{"StorageNodes", "StoragePools", "HTTP 409"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("e.Delete(...): error %q does not mention %q", err, s)
		}
	}
}

func TestDisconnect(t *testing.T) {
	if err := (&external{}).Disconnect(context.Background()); err != nil {
		t.Errorf("e.Disconnect(...): unexpected error: %v", err)
	}
}
