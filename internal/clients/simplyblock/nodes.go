package simplyblock

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/pkg/errors"
)

// ListStorageNodes implements API: GET /clusters/{cid}/storage-nodes/.
func (c *Client) ListStorageNodes(ctx context.Context, clusterID string) ([]StorageNodeDTO, error) {
	var out []StorageNodeDTO
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: &out}, "clusters", clusterID, "storage-nodes", "")
	return out, err
}

// GetStorageNode implements API: GET /clusters/{cid}/storage-nodes/{nid}/.
func (c *Client) GetStorageNode(ctx context.Context, clusterID, nodeID string) (*StorageNodeDTO, error) {
	out := &StorageNodeDTO{}
	if _, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: out}, "clusters", clusterID, "storage-nodes", nodeID, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// AddStorageNode implements API: POST /clusters/{cid}/storage-nodes/ with
// response-format=identifier, whose body is the node_add task id as a JSON
// string. If the body is unusable, the Location header's last segment is
// used.
func (c *Client) AddStorageNode(ctx context.Context, clusterID string, params StorageNodeParams) (string, error) {
	if params.DataNics == nil {
		params.DataNics = []string{} // the backend rejects null
	}
	cl := call{method: http.MethodPost, query: url.Values{"response-format": {"identifier"}}, body: params, ok: okCreated}
	resp, err := c.run(ctx, cl, "clusters", clusterID, "storage-nodes", "")
	if err != nil {
		return "", err
	}
	var id string
	if err := json.Unmarshal(resp.body, &id); err == nil && id != "" {
		return id, nil
	}
	// Location: /api/v2/clusters/{cid}/tasks/{task_id}/
	if parts := strings.Split(strings.Trim(resp.header.Get("Location"), "/"), "/"); len(parts) >= 2 && parts[len(parts)-2] == "tasks" {
		return parts[len(parts)-1], nil
	}
	return "", c.invalidResponse(http.MethodPost, apiPrefix+"/clusters/"+clusterID+"/storage-nodes/", resp.status,
		errors.New(errMsgUnexpectedBody+": want the task id as a JSON string"))
}

// DeleteStorageNode implements API: DELETE /clusters/{cid}/storage-nodes/{nid}/
// with the set force flags as query parameters.
func (c *Client) DeleteStorageNode(ctx context.Context, clusterID, nodeID string, opts NodeDeleteOptions) error {
	q := url.Values{}
	setFlag(q, "force_remove", opts.ForceRemove)
	setFlag(q, "force_migrate", opts.ForceMigrate)
	setFlag(q, "force_delete", opts.ForceDelete)
	// The spec says 200, the backend answers 204.
	cl := call{method: http.MethodDelete, query: q, ok: []int{http.StatusOK, http.StatusNoContent}}
	_, err := c.run(ctx, cl, "clusters", clusterID, "storage-nodes", nodeID, "")
	return err
}

// SuspendStorageNode implements API: POST .../storage-nodes/{nid}/suspend.
func (c *Client) SuspendStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error {
	q := url.Values{}
	setFlag(q, "force", force)
	return c.nodeAction(ctx, clusterID, nodeID, "suspend", call{method: http.MethodPost, query: q, ok: okNoContent})
}

// ResumeStorageNode implements API: POST .../storage-nodes/{nid}/resume.
func (c *Client) ResumeStorageNode(ctx context.Context, clusterID, nodeID string) error {
	return c.nodeAction(ctx, clusterID, nodeID, "resume", call{method: http.MethodPost, ok: okNoContent})
}

// ShutdownStorageNode implements API: POST .../storage-nodes/{nid}/shutdown.
func (c *Client) ShutdownStorageNode(ctx context.Context, clusterID, nodeID string, force bool) error {
	q := url.Values{}
	setFlag(q, "force", force)
	return c.nodeAction(ctx, clusterID, nodeID, "shutdown", call{method: http.MethodPost, query: q, ok: okAccepted})
}

// RestartStorageNode implements API: POST .../storage-nodes/{nid}/restart.
// The body is always sent; the backend answers 422 without one.
func (c *Client) RestartStorageNode(ctx context.Context, clusterID, nodeID string, params RestartParams) error {
	return c.nodeAction(ctx, clusterID, nodeID, "restart", call{method: http.MethodPost, body: restartBody(params), ok: okAccepted})
}

// StartStorageNode implements API: POST .../storage-nodes/{nid}/start.
func (c *Client) StartStorageNode(ctx context.Context, clusterID, nodeID string, params RestartParams) error {
	return c.nodeAction(ctx, clusterID, nodeID, "start", call{method: http.MethodPost, body: restartBody(params), ok: okAccepted})
}

// PromoteStorageNode implements API: POST .../storage-nodes/{nid}/promote.
func (c *Client) PromoteStorageNode(ctx context.Context, clusterID, nodeID string) error {
	return c.nodeAction(ctx, clusterID, nodeID, "promote", call{method: http.MethodPost, ok: okNoContent})
}

func (c *Client) nodeAction(ctx context.Context, clusterID, nodeID, action string, cl call) error {
	_, err := c.run(ctx, cl, "clusters", clusterID, "storage-nodes", nodeID, action)
	return err
}

// restartBody replaces a nil list, which would encode as null, with [].
func restartBody(p RestartParams) RestartParams {
	if p.NewSsdPcie == nil {
		p.NewSsdPcie = []string{}
	}
	return p
}

// setFlag adds name=true when v is set; false is the backend default.
func setFlag(q url.Values, name string, v bool) {
	if v {
		q.Set(name, "true")
	}
}
