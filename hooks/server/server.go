// Package server is the HTTP transport of the hooks: it decodes a request,
// calls the pure hook function, and encodes its answer. It holds no hook logic.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
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
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(cfg.Logger)
	e.Use(logRequests(cfg.Logger), recoverPanics(cfg.Logger))

	ok := func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) }
	e.GET("/healthz", ok)
	e.GET("/readyz", ok)
	for _, r := range cfg.Routes {
		e.POST(r.Path, r.handler(cfg))
	}
	return e
}

// Serve runs the server until ctx is done, then shuts down gracefully:
// in-flight requests finish within the grace period.
func Serve(ctx context.Context, e *echo.Echo, addr string, grace time.Duration, startTLS func(*http.Server) error) error {
	srv := &http.Server{
		Addr:              addr,
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	errc := make(chan error, 1)
	go func() {
		var err error
		if startTLS != nil {
			err = startTLS(srv)
		} else {
			err = srv.ListenAndServe()
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
