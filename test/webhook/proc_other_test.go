//go:build integration && !linux

package webhook_test

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
