package server

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// DefaultMaxConns bounds the connections one listener holds open. The
// service's callers need a handful: Metacontroller multiplexes its hook
// calls over one HTTP/2 connection per hook URL (or a small HTTP/1 pool),
// the API server does the same for the webhook, the kubelet opens one per
// probe. Each open connection costs memory the request budget does not
// see (a goroutine, buffers, the TLS and HTTP/2 state): 1,000 idle HTTP/2
// connections over TLS added 41 MiB to the service's RSS, HTTP/1 ones
// less. So 1,000 is far more than the callers use and about 40 MiB, which
// fits the chart's default 256 MiB container beside the requests' 192 MiB
// budget.
const DefaultMaxConns = 1000

// overLimitDeadline is all a connection past the limit gets for its TLS
// handshake and its request before it is closed: enough to be told 503 on
// any network a cluster has, too little for a flood of them to pile up.
const overLimitDeadline = time.Second

// What is done with a connection past the limit.
const (
	connsAnswered503 = "503"
	connsClosed      = "closed"
)

// ConnsOverLimitActions are the values of MetricConnsOverLimit's label.
var ConnsOverLimitActions = []string{connsAnswered503, connsClosed}

const ()

// LimitConns bounds how many connections ln holds open at once (max; zero
// or less: no bound). A connection past max is still accepted and served
// one answer, 503 with Retry-After, on every route but the probes', then
// closed: a caller is told why instead of waiting in the accept queue
// (which is what an accept gate like netutil.LimitListener would do, and
// a caller that times out there learns nothing). It gets
// overLimitDeadline in all. Past twice max a connection is closed as soon
// as it is accepted, unanswered: a 503 over TLS costs a handshake, and
// answering every connection of a flood would spend what the limit is
// there to save. m (nil: none) counts both and the connections open.
func LimitConns(ln net.Listener, max int, m *Metrics) net.Listener {
	if max <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, max: int64(max), m: m}
}

type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
	m    *Metrics
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		n := l.open.Add(1)
		if n > 2*l.max {
			l.open.Add(-1)
			c.Close()
			l.m.connOverLimit(connsClosed)
			continue
		}
		l.m.connOpened(1)
		lc := &limitedConn{Conn: c, l: l}
		if n > l.max {
			lc.over = time.Now().Add(overLimitDeadline)
			_ = c.SetDeadline(lc.over)
			l.m.connOverLimit(connsAnswered503)
		}
		return lc, nil
	}
}

// limitedConn is one connection the listener counts until it is closed.
type limitedConn struct {
	net.Conn
	l *limitListener
	// over, when set, is when this connection past the limit is done: no
	// deadline net/http sets may be later.
	over   time.Time
	closed sync.Once
}

func (c *limitedConn) Close() error {
	c.closed.Do(func() {
		c.l.open.Add(-1)
		c.l.m.connOpened(-1)
	})
	return c.Conn.Close()
}

// CloseWrite passes net/http's half-close through to a TCP connection,
// which then sends its FIN before the last answer's connection closes.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *limitedConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *limitedConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *limitedConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

func (c *limitedConn) clamp(t time.Time) time.Time {
	if c.over.IsZero() || (!t.IsZero() && t.Before(c.over)) {
		return t
	}
	return c.over
}

// overLimit reports whether c (or the connection under its TLS) was
// accepted past the limit.
func overLimit(c net.Conn) bool {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, ok := c.(*limitedConn)
	return ok && !lc.over.IsZero()
}

// refuseOverLimit answers 503 to every request on a connection past the
// limit (see LimitConns), before anything else reads it, and without a
// request log line: a flood of them is counted in MetricConnsOverLimit. The
// probes are answered: they cost nothing, and a kubelet whose liveness
// probe found the pod busy would restart it.
func refuseOverLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, ok := c.Request().Context().Value(connUseKey{}).(*connUse)
		if !ok || !u.overLimit || isProbe(c.Request()) {
			return next(c)
		}
		c.Response().Header().Set("Retry-After", "1")
		return newHTTPError(http.StatusServiceUnavailable, "this instance has too many connections open; retry on a new connection")
	}
}

func isProbe(r *http.Request) bool {
	return r.Method == http.MethodGet && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz")
}
