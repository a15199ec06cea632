//go:build !linux

package crash_test

import "os/exec"

// setProcAttrs does nothing here: only Linux has a parent-death signal.
// TestMain still kills the providers a test left running.
func setProcAttrs(*exec.Cmd) {}
