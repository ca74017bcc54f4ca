//go:build linux

package multiinstance

import (
	"os/exec"
	"syscall"
)

// orphanProof makes the kernel kill the server when the test process dies
// without running its cleanups (a panic, a timeout, a SIGKILL).
func orphanProof(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
