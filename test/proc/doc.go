// Package proc runs the real programs tests start on this machine: each in a
// process group of its own, killed by the kernel should the test binary die,
// its output in a log file that is shown (secrets masked) when the test
// fails, stopped with SIGTERM then SIGKILL in t.Cleanup. It also finds free
// loopback ports and builds clean environments, so nothing of the caller's
// environment changes what a program reads.
//
// test/services (MariaDB, memcached, Keystone, S3) and test/podrun (a
// rendered pod's containers as processes) are built on it.
package proc
