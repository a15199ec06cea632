package fake

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

var _ simplyblock.API = &MockClient{}

func TestMockClientCallsField(t *testing.T) {
	var gotID string
	m := &MockClient{MockGetCluster: func(_ context.Context, id string) (*simplyblock.ClusterDTO, error) {
		gotID = id
		return &simplyblock.ClusterDTO{ID: id}, nil
	}}
	got, err := m.GetCluster(context.Background(), "c1")
	if err != nil {
		t.Fatalf("GetCluster(...): unexpected error: %v", err)
	}
	if diff := cmp.Diff(&simplyblock.ClusterDTO{ID: "c1"}, got); diff != "" {
		t.Errorf("GetCluster(...): -want, +got:\n%s", diff)
	}
	if gotID != "c1" {
		t.Errorf("MockGetCluster received id %q, want c1", gotID)
	}
}
