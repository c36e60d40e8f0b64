//go:build !linux

package proc

import "syscall"

// sysProcAttr: a process group of its own; namespaces and the parent-death
// signal are Linux's alone.
func sysProcAttr(uintptr) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupMembers: /proc is Linux's.
func groupMembers(int) string { return "  (not listed on this system)" }
