// Package version holds the provider's version, set at build time with
// -ldflags "-X github.com/simplyblock/provider-simplyblock/internal/version.Version=...".
package version

// Version is the provider's version. It names the provider in the
// User-Agent of every request to the simplyblock control plane.
var Version = "dev"
