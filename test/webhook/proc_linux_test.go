//go:build integration

package webhook_test

import "syscall"

// sysProcAttr makes the kernel kill a hook process when the test binary dies
// without running its cleanups.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
