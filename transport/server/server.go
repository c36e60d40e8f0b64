// Package server is the HTTP transport of the hooks: it decodes a request,
// calls the pure hook function, and encodes its answer. It holds no hook logic.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/internal/buildinfo"
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
	// MaxInFlight bounds how many POST requests are decoded and answered at
	// once; the others wait, their bodies read, until one finishes. Zero
	// means twice GOMAXPROCS. The hooks are CPU-bound, so more at once only
	// adds memory: every request in progress holds its body and what was
	// decoded from it.
	MaxInFlight int
	// MaxInFlightBytes bounds the sum of the weights of the requests worked
	// on at once (requestWeight), since the memory a request needs grows
	// with its body and its array items (see MemoryPerBodyByte). Each
	// request counts at least MaxInFlightBytes/MaxInFlight, so there are
	// never more than MaxInFlight; one larger than the whole budget runs
	// alone. Zero means the Go memory limit, or DefaultMemoryBudget without
	// one, over MemoryPerBodyByte.
	MaxInFlightBytes int64
	// BodyReadTimeout bounds how long the head of a request's body (see
	// bodyHead) may take to arrive once its headers are in, and the rest
	// once the request has its turn; a slower one gets 408. Zero means
	// DefaultBodyReadTimeout.
	BodyReadTimeout time.Duration
	// HookToken, when set, is the Bearer token every Metacontroller route
	// requires; a request without it is a 401 whose body is not read.
	HookToken *TokenFile
	// RequireClientCert refuses every POST route to a client that did not
	// present a certificate the listener verified (see ClientCertTLSConfig);
	// the probes' GET routes stay open, as the kubelet sends no certificate.
	RequireClientCert bool
	// Metrics, when set, counts every request and admission decision.
	Metrics *Metrics
	// Readiness is what /readyz answers; nil means always ready. Give the
	// same one to ServeListener, which drains it on shutdown.
	Readiness *Readiness
	// MaxConnRequests and MaxConnAge bound the use of one keep-alive
	// connection (see limitConnUse): zero means DefaultMaxConnRequests and
	// DefaultMaxConnAge, negative means no bound.
	MaxConnRequests int
	MaxConnAge      time.Duration
	// Build identifies the build in the ETags of the hooks' answers, so an
	// answer of one build is never taken for another's. Empty means
	// buildinfo.Fingerprint().
	Build string
}

// DefaultMemoryBudget is the memory requests are admitted within when the
// Go heap has no limit (GOMEMLIMIT, or with serve MEMORY_LIMIT or the
// cgroup's memory limit): what the
// chart's default container limit (256 MiB) gives the Go heap. Without it,
// four requests near the body limit would be worked on at once whatever
// they need.
const DefaultMemoryBudget = 192 << 20

// DefaultBodyReadTimeout leaves half of Metacontroller's default hook timeout
// (10s) for the answer: a body of the largest size crosses a cluster network
// in well under a second, and a client that needs longer is refused before
// Metacontroller has given up on it.
const DefaultBodyReadTimeout = 5 * time.Second

// New builds the echo server with every route, the body limit, panic
// recovery and request logging.
func New(cfg Config) *echo.Echo {
	cfg = cfg.withDefaults()
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(cfg.Logger)
	// ServeListener gives this to http.Server, whose own errors (TLS
	// handshakes, malformed requests) then become JSON log lines too.
	e.StdLogger = serverErrorLog(cfg.Logger, cfg.Metrics.serverErrorCounter())
	if cfg.Metrics != nil {
		routes := map[string]bool{"/healthz": true, "/readyz": true}
		for _, r := range cfg.Routes {
			routes[r.Path] = true
		}
		e.Use(cfg.Metrics.instrument(routes))
	}
	e.Use(logRequests(cfg.Logger), recoverPanics(cfg.Logger))
	// Before any route's refusal, so that a 401 or 404 counts too.
	e.Pre(limitConnUse(cfg.MaxConnRequests, cfg.MaxConnAge))
	// Before routing, logging and the request metrics: a connection past
	// LimitConns' bound is answered and counted there alone.
	e.Pre(refuseOverLimit)

	ok := func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) }
	e.GET("/healthz", ok)
	e.GET("/readyz", cfg.Readiness.handler)
	slots := newInFlight(cfg.MaxInFlightBytes, cfg.MaxInFlight)
	bufs := newBodyBuffers(cfg.MaxBodyBytes)
	for _, r := range cfg.Routes {
		e.POST(r.Path, r.handler(cfg, slots, bufs), cfg.routeChecks(r)...)
	}
	return e
}

// withDefaults fills in what the Config leaves unset.
func (cfg Config) withDefaults() Config {
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
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if cfg.MaxConnRequests == 0 {
		cfg.MaxConnRequests = DefaultMaxConnRequests
	}
	if cfg.MaxConnAge == 0 {
		cfg.MaxConnAge = DefaultMaxConnAge
	}
	if cfg.Build == "" {
		cfg.Build = buildinfo.Fingerprint()
	}
	if cfg.MaxInFlightBytes <= 0 {
		limit := debug.SetMemoryLimit(-1)
		if limit == math.MaxInt64 {
			limit = DefaultMemoryBudget
		}
		cfg.MaxInFlightBytes = limit / MemoryPerBodyByte
	}
	return cfg
}

// routeChecks are what a route's request must pass before its handler:
// the client certificate when the listener requires one, Metacontroller's
// token when one is configured, and a JSON body.
func (cfg *Config) routeChecks(r Route) []echo.MiddlewareFunc {
	var mw []echo.MiddlewareFunc
	if cfg.RequireClientCert {
		mw = append(mw, requireClientCert)
	}
	if r.Caller == Metacontroller && cfg.HookToken != nil {
		mw = append(mw, requireBearer(cfg.HookToken))
	}
	return append(mw, requireJSON)
}

// Stop says how a server stops once its context is done.
type Stop struct {
	// Drain is how long the server keeps serving every request after the
	// context is done while /readyz answers 503, so that the kubelet takes
	// the pod out of its Service's endpoints and callers (Metacontroller,
	// the API server) stop picking it before the listener closes. Only
	// with a Readiness.
	Drain time.Duration
	// Grace bounds how long requests in flight may then take to finish.
	Grace time.Duration
	// Readiness is the one New's /readyz reads.
	Readiness *Readiness
}

// Serve listens on addr and runs the server until ctx is done (see
// ServeListener). With a tls.Config it serves HTTPS.
func Serve(ctx context.Context, e *echo.Echo, addr string, stop Stop, tlsConfig *tls.Config) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return ServeListener(ctx, e, ln, stop, tlsConfig)
}

// ServeListener runs the server on ln until ctx is done, then stops in
// order: readiness fails, requests keep being served for stop.Drain, the
// listener closes, and in-flight requests finish within stop.Grace. With a
// tls.Config it serves HTTPS (its GetCertificate or Certificates give the
// pair).
func ServeListener(ctx context.Context, e *echo.Echo, ln net.Listener, stop Stop, tlsConfig *tls.Config) error {
	srv := &http.Server{
		Handler:           e,
		ErrorLog:          e.StdLogger,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		TLSConfig:         tlsConfig,
		ConnContext:       countConnUse,
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
	if stop.Readiness != nil && stop.Drain > 0 {
		stop.Readiness.drain()
		select {
		case err := <-errc:
			return err
		case <-time.After(stop.Drain):
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), stop.Grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return <-errc
}

// Readiness is whether the server wants new requests: yes until it drains.
type Readiness struct {
	draining atomic.Bool
}

// NewReadiness is a Readiness that is ready.
func NewReadiness() *Readiness { return &Readiness{} }

func (r *Readiness) drain() { r.draining.Store(true) }

// Draining reports whether the server is stopping.
func (r *Readiness) Draining() bool { return r != nil && r.draining.Load() }

// handler is /readyz: 200 while ready, 503 once draining.
func (r *Readiness) handler(c echo.Context) error {
	if r.Draining() {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "draining"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}
