// Package service runs the hook service the serve command configures: the
// TLS and token files, the /validate API access, the hook and metrics
// listeners and the ordered shutdown. The command only parses and checks
// flags.
package service

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/transport/kube"
	"github.com/c5c3/glance-hooks/transport/server"
)

// Options are what serve's flags decided, already checked by the command.
type Options struct {
	Listen string
	// Routes are served; RoutesName is how --routes named them, for the
	// log line.
	Routes      []server.Route
	RoutesName  string
	MaxBody     int64
	BodyTimeout time.Duration
	// MaxConnRequests and MaxConnAge are server.Config's.
	MaxConnRequests int
	MaxConnAge      time.Duration
	// MaxConns bounds the hook listener's open connections (see
	// server.LimitConns); zero: no bound.
	MaxConns int
	// MaxInFlight is server.Config's; zero: its default.
	MaxInFlight  int
	Drain, Grace time.Duration
	Metrics      string
	CertFile     string
	KeyFile      string
	Plain        bool
	TokenFile    string
	ClientCAFile string
	Kubeconfig   string
	APITimeout   time.Duration
	// Warnings are the command's findings about its flags, logged once at
	// start where the operator reads the rest.
	Warnings []string
}

// Run serves until ctx is done. Logs go to logOut as JSON lines.
func Run(ctx context.Context, o Options, logOut io.Writer) error {
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	setMemoryLimit(log)
	routes := o.Routes
	var err error
	var lister admission.Lister = admission.Unavailable{Reason: "this instance does not serve /validate"}
	if len(server.RoutesOf(routes, server.APIServer)) > 0 {
		if lister, err = newLister(o.Kubeconfig, o.APITimeout, log); err != nil {
			return err
		}
	}
	tlsConfig, err := hookTLS(o, log)
	if err != nil {
		return err
	}
	var token *server.TokenFile
	if o.TokenFile != "" {
		if token, err = server.NewTokenFile(o.TokenFile, log); err != nil {
			return err
		}
	}
	logStartWarnings(o, log, token != nil)
	metrics := server.NewMetrics(buildinfo.Get())
	readiness := server.NewReadiness()
	e := server.New(server.Config{
		MaxBodyBytes:      o.MaxBody,
		BodyReadTimeout:   o.BodyTimeout,
		MaxConnRequests:   o.MaxConnRequests,
		MaxConnAge:        o.MaxConnAge,
		MaxInFlight:       o.MaxInFlight,
		Logger:            log,
		Routes:            routes,
		Lister:            lister,
		HookToken:         token,
		RequireClientCert: o.ClientCAFile != "",
		Metrics:           metrics,
		Readiness:         readiness,
	})
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	ln = server.LimitConns(ln, o.MaxConns, metrics)
	stopMetrics, metricsDone, err := serveMetrics(o, metrics, log)
	if err != nil {
		ln.Close()
		return err
	}
	info := buildinfo.Get()
	log.Info("serving", "listen", ln.Addr().String(), "tls", tlsConfig != nil, "routes", o.RoutesName, "metrics", o.Metrics, "max_conns", o.MaxConns,
		"version", info.Version, "commit", info.Commit)
	err = server.ServeListener(ctx, e, ln, server.Stop{Drain: o.Drain, Grace: o.Grace, Readiness: readiness}, tlsConfig)
	// Metrics are served through the drain, then stop.
	stopMetrics()
	if merr := <-metricsDone; err == nil {
		err = merr
	}
	log.Info("stopped")
	return err
}

// setMemoryLimit sets the Go memory limit below the container's, unless
// GOMEMLIMIT is set (see server.GoMemoryLimit). The container's limit is
// MEMORY_LIMIT (the chart's, through the downward API) or, without it,
// the cgroup's: a container started some other way is held too.
func setMemoryLimit(log *slog.Logger) {
	container, from := os.Getenv("MEMORY_LIMIT"), "MEMORY_LIMIT"
	if strings.TrimSpace(container) == "" {
		container, from = server.CgroupMemoryLimit(os.ReadFile), "cgroup"
	}
	if limit, ok := server.GoMemoryLimit(container, os.Getenv("GOMEMLIMIT")); ok {
		debug.SetMemoryLimit(limit)
		log.Info("Go memory limit set below the container's", "container_limit_bytes", container, "from", from, "gomemlimit_bytes", limit)
	}
}

// hookTLS is the hook listener's TLS, with the certificate reloaded as it
// changes and client certificates asked for with --client-ca-file; nil
// without --tls-cert-file.
func hookTLS(o Options, log *slog.Logger) (*tls.Config, error) {
	if o.CertFile == "" {
		return nil, nil
	}
	r, err := server.NewCertReloader(o.CertFile, o.KeyFile, log)
	if err != nil {
		return nil, err
	}
	tlsConfig := r.TLSConfig()
	if o.ClientCAFile == "" {
		return tlsConfig, nil
	}
	caPEM, err := os.ReadFile(o.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("reading --client-ca-file: %w", err)
	}
	if err := server.RequestClientCerts(tlsConfig, caPEM); err != nil {
		return nil, fmt.Errorf("--client-ca-file: %w", err)
	}
	return tlsConfig, nil
}

// logStartWarnings logs, once at start, the command's findings about its
// flags and what leaves the service open to anyone who reaches it.
func logStartWarnings(o Options, log *slog.Logger, hasToken bool) {
	for _, w := range o.Warnings {
		log.Warn(w)
	}
	if o.Plain {
		log.Warn("serving plain HTTP (--insecure-plain-http): requests and answers carry S3 credentials in clear; use it only on your own machine")
	}
	servesHooks := len(server.RoutesOf(o.Routes, server.Metacontroller)) > 0
	if servesHooks && !hasToken && o.ClientCAFile == "" {
		log.Warn("Metacontroller's hooks are served to any caller that reaches this port: give --auth-token-file (or --client-ca-file)")
	}
}

// serveMetrics starts the --metrics-listen server, over TLS with the same
// certificate when the service serves TLS (no client certificate asked).
// stop ends it; done reports how it ended.
func serveMetrics(o Options, m *server.Metrics, log *slog.Logger) (stop func(), done <-chan error, err error) {
	errc := make(chan error, 1)
	if o.Metrics == "" {
		errc <- nil
		return func() {}, errc, nil
	}
	var tlsConfig *tls.Config
	if o.CertFile != "" {
		r, err := server.NewCertReloader(o.CertFile, o.KeyFile, log)
		if err != nil {
			return nil, nil, err
		}
		tlsConfig = r.TLSConfig()
	}
	ln, err := net.Listen("tcp", o.Metrics)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics-listen: %w", err)
	}
	log.Info("serving metrics", "listen", ln.Addr().String(), "tls", tlsConfig != nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		errc <- server.ServeListener(ctx, server.MetricsServer(m, log), ln, server.Stop{Grace: time.Second}, tlsConfig)
	}()
	return cancel, errc, nil
}

// newLister gives /validate its API access. A kubeconfig the operator named
// that does not load stops the service; no configuration at all does not:
// the sync hooks keep serving and /validate refuses what needs the API.
func newLister(kubeconfig string, timeout time.Duration, log *slog.Logger) (admission.Lister, error) {
	cfg, src, err := kube.RESTConfig(kubeconfig)
	switch {
	case err != nil && src.Explicit():
		return nil, err
	case err != nil:
		log.Warn("no API access; /validate refuses every GlanceBackend change that needs its siblings", "error", err.Error())
		return admission.Unavailable{Reason: err.Error()}, nil
	}
	l, err := kube.NewLister(cfg, timeout)
	if err != nil {
		return nil, err
	}
	log.Info("API access for /validate", "source", string(src), "host", cfg.Host, "api_timeout", timeout.String())
	return l, nil
}
