package simplyblock

import (
	"context"
	"net/http"
)

// ListTasks implements API: GET /clusters/{cid}/tasks/.
func (c *Client) ListTasks(ctx context.Context, clusterID string) ([]TaskDTO, error) {
	var out []TaskDTO
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: &out}, "clusters", clusterID, "tasks", "")
	return out, err
}

// GetTask implements API: GET /clusters/{cid}/tasks/{tid}/.
func (c *Client) GetTask(ctx context.Context, clusterID, taskID string) (*TaskDTO, error) {
	out := &TaskDTO{}
	if _, err := c.run(ctx, call{method: http.MethodGet, ok: okOK, out: out}, "clusters", clusterID, "tasks", taskID, ""); err != nil {
		return nil, err
	}
	return out, nil
}
