package simplyblock

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Status sets used by the calls below.
var (
	okOK        = []int{http.StatusOK}
	okCreated   = []int{http.StatusCreated}
	okNoContent = []int{http.StatusNoContent}
	okAccepted  = []int{http.StatusAccepted}
	// The spec says 200 where the backend answers 204; accept both.
	okPut = []int{http.StatusOK, http.StatusNoContent}
)

// ListClusters implements API: GET /clusters/.
func (c *Client) ListClusters(ctx context.Context) ([]ClusterDTO, error) {
	var out []ClusterDTO
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: &out}, "clusters", "")
	return out, err
}

// GetCluster implements API: GET /clusters/{id}/.
func (c *Client) GetCluster(ctx context.Context, id string) (*ClusterDTO, error) {
	out := &ClusterDTO{}
	if _, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: out}, "clusters", id, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateCluster implements API: POST /clusters/?response-format=full.
func (c *Client) CreateCluster(ctx context.Context, params ClusterParams) (*ClusterDTO, error) {
	out := &ClusterDTO{}
	cl := call{method: http.MethodPost, query: url.Values{"response-format": {"full"}}, body: params, ok: okCreated, out: out}
	if _, err := c.run(ctx, cl, "clusters", ""); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateClusterName implements API: PUT /clusters/{id}/ {"name": name}.
func (c *Client) UpdateClusterName(ctx context.Context, id, name string) error {
	cl := call{method: http.MethodPut, body: UpdateClusterParams{Name: &name}, ok: okPut}
	_, err := c.run(ctx, cl, "clusters", id, "")
	return err
}

// DeleteCluster implements API: DELETE /clusters/{id}/.
func (c *Client) DeleteCluster(ctx context.Context, id string) error {
	_, err := c.run(ctx, call{method: http.MethodDelete, ok: okNoContent}, "clusters", id, "")
	return err
}

// ActivateCluster implements API: POST /clusters/{id}/activate.
func (c *Client) ActivateCluster(ctx context.Context, id string) error {
	return c.clusterAction(ctx, id, "activate", okAccepted)
}

// ExpandCluster implements API: POST /clusters/{id}/expand.
func (c *Client) ExpandCluster(ctx context.Context, id string) error {
	return c.clusterAction(ctx, id, "expand", okAccepted)
}

// ShutdownCluster implements API: POST /clusters/{id}/shutdown.
func (c *Client) ShutdownCluster(ctx context.Context, id string) error {
	return c.clusterAction(ctx, id, "shutdown", okAccepted)
}

// StartCluster implements API: POST /clusters/{id}/start.
func (c *Client) StartCluster(ctx context.Context, id string) error {
	return c.clusterAction(ctx, id, "start", okAccepted)
}

// RebalanceCluster implements API: POST /clusters/{id}/rebalance.
func (c *Client) RebalanceCluster(ctx context.Context, id string) error {
	return c.clusterAction(ctx, id, "rebalance", okNoContent)
}

func (c *Client) clusterAction(ctx context.Context, id, action string, ok []int) error {
	_, err := c.run(ctx, call{method: http.MethodPost, ok: ok}, "clusters", id, action)
	return err
}

// UpdateCluster implements API: POST /clusters/{id}/update.
func (c *Client) UpdateCluster(ctx context.Context, id string, params UpdateParams) error {
	_, err := c.run(ctx, call{method: http.MethodPost, body: params, ok: okNoContent}, "clusters", id, "update")
	return err
}

// ClusterLogs implements API: GET /clusters/{id}/logs?limit=N.
func (c *Client) ClusterLogs(ctx context.Context, id string, limit int) ([]ClusterLogEntry, error) {
	var out []ClusterLogEntry
	cl := call{method: http.MethodGet, ok: okOK, out: &out}
	if limit > 0 {
		cl.query = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	_, err := c.run(ctx, cl, "clusters", id, "logs")
	return out, err
}
