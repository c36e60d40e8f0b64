package server

import (
	"crypto/tls"
	"net"

	"golang.org/x/sys/unix"
)

// unreadBytes is how many bytes a TCP connection's socket has received and
// the server not yet read (TIOCINQ), under TLS too; 0 when that cannot be
// told.
func unreadBytes(c net.Conn) int {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	// Under --max-conns the listener hands out its own wrapper.
	if l, ok := c.(*limitedConn); ok {
		c = l.Conn
	}
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return 0
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = raw.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return n
}
