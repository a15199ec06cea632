package simplyblock

import (
	"context"
	"net/http"
	"net/url"
)

// ListStoragePools implements API: GET /clusters/{cid}/storage-pools/.
func (c *Client) ListStoragePools(ctx context.Context, clusterID string) ([]StoragePoolDTO, error) {
	var out []StoragePoolDTO
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: &out}, "clusters", clusterID, "storage-pools", "")
	return out, err
}

// GetStoragePool implements API: GET /clusters/{cid}/storage-pools/{pid}/.
func (c *Client) GetStoragePool(ctx context.Context, clusterID, poolID string) (*StoragePoolDTO, error) {
	out := &StoragePoolDTO{}
	if _, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: out}, "clusters", clusterID, "storage-pools", poolID, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateStoragePool implements API: POST /clusters/{cid}/storage-pools/
// with response-format=full.
func (c *Client) CreateStoragePool(ctx context.Context, clusterID string, params StoragePoolParams) (*StoragePoolDTO, error) {
	out := &StoragePoolDTO{}
	cl := call{method: http.MethodPost, query: url.Values{"response-format": {"full"}}, body: params, ok: okCreated, out: out}
	if _, err := c.run(ctx, cl, "clusters", clusterID, "storage-pools", ""); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateStoragePool implements API: PUT /clusters/{cid}/storage-pools/{pid}/.
func (c *Client) UpdateStoragePool(ctx context.Context, clusterID, poolID string, params UpdatableStoragePoolParams) error {
	_, err := c.run(ctx, call{method: http.MethodPut, body: params, ok: okPut}, "clusters", clusterID, "storage-pools", poolID, "")
	return err
}

// DeleteStoragePool implements API: DELETE /clusters/{cid}/storage-pools/{pid}/.
func (c *Client) DeleteStoragePool(ctx context.Context, clusterID, poolID string) error {
	_, err := c.run(ctx, call{method: http.MethodDelete, ok: okNoContent}, "clusters", clusterID, "storage-pools", poolID, "")
	return err
}
