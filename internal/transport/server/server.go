// Package server is the HTTP transport of the hooks: it decodes a request,
// calls the pure hook function, and encodes its answer. It holds no hook logic.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/admission"
)

// DefaultMaxBodyBytes bounds a request body. Metacontroller sends the parent
// and every observed child and related object; a Glance with a thousand
// backends and their store Secrets stays well under this.
const DefaultMaxBodyBytes = 8 << 20

// Config of the server.
type Config struct {
	// MaxBodyBytes bounds request bodies; larger ones get 413.
	MaxBodyBytes int64
	// Logger receives one line per request; never a body.
	Logger *slog.Logger
	// Now is the clock the hooks stamp condition transitions with.
	Now func() time.Time
	// Routes to serve in addition to /healthz and /readyz.
	Routes []Route
	// Lister reads sibling GlanceBackends for /validate. Nil means no API
	// access: every decision that needs the siblings is a refusal.
	Lister admission.Lister
	// MaxInFlight bounds how many POST requests are read, decoded and
	// answered at once; the others wait, their bodies unread, until one
	// finishes. Zero means twice GOMAXPROCS. The hooks are CPU-bound, so
	// more at once only adds memory: every request in progress holds its
	// body and what was decoded from it.
	MaxInFlight int
}

// New builds the echo server with every route, the body limit, panic
// recovery and request logging.
func New(cfg Config) *echo.Echo {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 2 * runtime.GOMAXPROCS(0)
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(cfg.Logger)
	e.Use(logRequests(cfg.Logger), recoverPanics(cfg.Logger))

	ok := func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) }
	e.GET("/healthz", ok)
	e.GET("/readyz", ok)
	limit := limitInFlight(cfg.MaxInFlight)
	for _, r := range cfg.Routes {
		e.POST(r.Path, r.handler(cfg), limit)
	}
	return e
}

// limitInFlight lets n requests through at once; the others wait for a
// slot, or until their client gives up.
func limitInFlight(n int) echo.MiddlewareFunc {
	slots := make(chan struct{}, n)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			select {
			case slots <- struct{}{}:
			case <-c.Request().Context().Done():
				return newHTTPError(http.StatusServiceUnavailable, "the request was cancelled while it waited for its turn")
			}
			defer func() { <-slots }()
			return next(c)
		}
	}
}

// Serve listens on addr and runs the server until ctx is done (see
// ServeListener). With a tls.Config it serves HTTPS.
func Serve(ctx context.Context, e *echo.Echo, addr string, grace time.Duration, tlsConfig *tls.Config) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, e, ln, grace, tlsConfig)
}

// ServeListener runs the server on ln until ctx is done, then shuts down
// gracefully: in-flight requests finish within the grace period. With a
// tls.Config it serves HTTPS (its GetCertificate or Certificates give the pair).
func ServeListener(ctx context.Context, e *echo.Echo, ln net.Listener, grace time.Duration, tlsConfig *tls.Config) error {
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		TLSConfig:         tlsConfig,
	}
	errc := make(chan error, 1)
	go func() {
		var err error
		if tlsConfig != nil {
			err = srv.ServeTLS(ln, "", "")
		} else {
			err = srv.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return <-errc
}
