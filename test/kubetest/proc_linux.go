package kubetest

import "syscall"

// sysProcAttr makes the kernel kill etcd and kube-apiserver when the test
// binary dies without running its cleanups (a panic, a timeout, SIGKILL).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
