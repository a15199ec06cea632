// Package simplyblock is a typed client for the simplyblock control-plane
// REST API v2.
//
// The client never retries a state-changing call on its own: the backend's
// cluster actions are not idempotent (a repeated start is an outage), so the
// caller decides, using the error classes in errors.go, whether a failed call
// definitely did not reach the backend or may have taken effect.
package simplyblock
