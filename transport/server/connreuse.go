package server

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
)

// DefaultMaxConnRequests and DefaultMaxConnAge bound how long one keep-alive
// connection is used. Metacontroller keeps a few long-lived connections, and
// a connection balancer (a Service's kube-proxy rules) picks a replica per
// connection only: without a bound, the replica a connection first reached
// serves it for good, and replicas added for latency sit idle. Ending a
// connection after 100 requests or a minute makes the caller dial again, so
// the balancer spreads the load anew; the price is one TCP and TLS handshake
// per 100 requests, a few percent of the requests' own CPU (see
// docs/scale.md).
const (
	DefaultMaxConnRequests = 100
	DefaultMaxConnAge      = time.Minute
)

// connUse is what a server counts of one connection.
type connUse struct {
	opened   time.Time
	requests atomic.Int64
	// overLimit: accepted past LimitConns' bound, answered 503.
	overLimit bool
	// conn is the connection, for what its socket holds unread (see
	// body.rest).
	conn net.Conn
}

type connUseKey struct{}

// countConnUse is http.Server's ConnContext: every connection gets its own
// connUse, which limitConnUse, refuseOverLimit and body.rest read.
func countConnUse(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connUseKey{}, &connUse{opened: time.Now(), overLimit: overLimit(c), conn: c})
}

// limitConnUse answers with "Connection: close" the request that reaches
// maxRequests on its connection, or arrives once the connection is maxAge
// old, so that the client's next request opens a new connection. Zero turns
// a bound off. Requests on a connection the server did not count (a server
// not started by ServeListener) are left alone.
func limitConnUse(maxRequests int, maxAge time.Duration) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if u, ok := c.Request().Context().Value(connUseKey{}).(*connUse); ok {
				n := u.requests.Add(1)
				if (maxRequests > 0 && n >= int64(maxRequests)) || (maxAge > 0 && time.Since(u.opened) >= maxAge) {
					// net/http ends the connection once this answer is
					// written (and does not read another request from it).
					c.Response().Header().Set(echo.HeaderConnection, "close")
				}
			}
			return next(c)
		}
	}
}
