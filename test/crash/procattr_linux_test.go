//go:build linux

package crash_test

import (
	"os/exec"
	"syscall"
)

// setProcAttrs makes the kernel SIGKILL the provider when the test binary
// dies (a panic, a timeout), so no provider outlives the suite.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
