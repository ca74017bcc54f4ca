//go:build unix && !linux

package multiinstance

import "os/exec"

// orphanProof: only Linux can tie a child's life to its parent's; elsewhere
// the test's cleanups are all there is.
func orphanProof(*exec.Cmd) {}
