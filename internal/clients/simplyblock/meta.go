package simplyblock

import (
	"context"
	"net/http"
)

// Health implements API: GET /_meta/health (204, no auth). Probes are not
// retried: they report what they see.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okNoContent, noAuth: true, once: true}, "_meta", "health")
	return err
}

// Ready implements API: GET /_meta/ready (204, or 503 "FDB not ready").
func (c *Client) Ready(ctx context.Context) error {
	_, err := c.run(ctx, call{method: http.MethodGet, ok: okNoContent, noAuth: true, once: true}, "_meta", "ready")
	return err
}
