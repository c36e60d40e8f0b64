package proc

import (
	"net"
	"strconv"
	"testing"
)

// FreePort asks the kernel for a TCP port nobody listens on at host
// (127.0.0.1 unless given). Another process may take it before the caller
// binds it; programs that fail to bind say so in their log.
func FreePort(t testing.TB, host ...string) int {
	t.Helper()
	h := "127.0.0.1"
	if len(host) > 0 {
		h = host[0]
	}
	l, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
	if err != nil {
		t.Fatalf("finding a free port on %s: %v", h, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// HostPort joins a host and a port.
func HostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }
