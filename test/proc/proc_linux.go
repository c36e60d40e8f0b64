package proc

import "syscall"

// sysProcAttr puts the program in a process group of its own (so its
// workers can be killed with it) and has the kernel kill it should the test
// binary die without cleaning up; cloneflags are namespaces to start it in.
func sysProcAttr(cloneflags uintptr) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: cloneflags}
}
