package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/internal/transport/kube"
	"github.com/c5c3/glance-hooks/internal/transport/server"
)

// serveOptions are the serve command's flags.
type serveOptions struct {
	listen       string
	routes       string
	maxBody      int64
	bodyTimeout  time.Duration
	drain        time.Duration
	grace        time.Duration
	metrics      string
	certFile     string
	keyFile      string
	plain        bool
	tokenFile    string
	clientCAFile string
	kubeconfig   string
	apiTimeout   time.Duration
	jobImage     string
	floor        bool
}

func newServeCommand() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the hooks over HTTPS for Metacontroller and the API server",
		Long: `Serve the Metacontroller hooks (POST /sync/..., /customize/...), the
validating admission webhook (POST /validate), /healthz and /readyz until
SIGTERM or SIGINT, over TLS (plain HTTP only with --insecure-plain-http).
Logs are JSON lines on stderr.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.run(ctx, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":8443", "address to listen on")
	f.StringVar(&o.routes, "routes", "all", "which routes to serve: hooks (Metacontroller's sync and customize hooks), validate (the API server's /validate) or all")
	f.Int64Var(&o.maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "largest request body accepted; larger ones get 413")
	f.DurationVar(&o.bodyTimeout, "body-read-timeout", server.DefaultBodyReadTimeout, "how long the first 16 KiB of a request body may take to arrive, and the rest once it has its turn (408 after); keep it well below the callers' timeouts")
	f.DurationVar(&o.drain, "shutdown-drain", 5*time.Second, "on SIGTERM, how long /readyz answers 503 while every request is still served, so callers stop picking this instance before its listener closes")
	f.DurationVar(&o.grace, "shutdown-grace", 20*time.Second, "after the drain, how long in-flight requests may take to finish")
	f.StringVar(&o.metrics, "metrics-listen", "", "address to serve GET /metrics (Prometheus) on, over TLS when the service serves TLS; empty: no metrics listener")
	f.StringVar(&o.certFile, "tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with; reloaded when the file changes. Required unless --insecure-plain-http")
	f.StringVar(&o.keyFile, "tls-key-file", "", "PEM private key of --tls-cert-file; reloaded when the file changes")
	f.BoolVar(&o.plain, "insecure-plain-http", false, "serve plain HTTP instead of TLS: for trying the service on your own machine only, never where requests cross a network (they carry S3 credentials)")
	f.StringVar(&o.tokenFile, "auth-token-file", "", "file holding the token Metacontroller must send to the hooks as \"Authorization: Bearer <token>\"; reloaded when it changes")
	f.StringVar(&o.clientCAFile, "client-ca-file", "", "PEM CA bundle: every POST route then wants a client certificate it signed")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for the API reads of /validate; default KUBECONFIG, then the in-cluster service account")
	f.DurationVar(&o.apiTimeout, "api-timeout", kube.DefaultTimeout, "bound on one API read of /validate; keep it below the webhook's timeoutSeconds")
	f.StringVar(&o.jobImage, "job-image", buildinfo.Get().Image(), "image of the ControlPlane's registration Jobs: this build's own image, whose keystone command parses the args the hooks render (the chart passes the image its pods run)")
	// --floor serves, on the same paths, hook handlers that only decode and
	// re-encode each request: the floor the load test compares the hooks
	// with in the same binary. Not for production, so not in the help.
	f.BoolVar(&o.floor, "floor", false, "serve the floor handlers (measurements only)")
	_ = f.MarkHidden("floor")
	return cmd
}

// validate reports flags that cannot go together, as a usage error.
func (o *serveOptions) validate() error {
	if (o.certFile == "") != (o.keyFile == "") {
		return usageErrorf("--tls-cert-file and --tls-key-file go together: give both or neither")
	}
	if o.plain == (o.certFile != "") {
		return usageErrorf("serve needs --tls-cert-file and --tls-key-file, or --insecure-plain-http (plain HTTP, for your own machine only), and not both")
	}
	if o.clientCAFile != "" && o.plain {
		return usageErrorf("--client-ca-file needs TLS: it cannot go with --insecure-plain-http")
	}
	if o.apiTimeout <= 0 {
		return usageErrorf("--api-timeout must be positive")
	}
	if o.bodyTimeout <= 0 {
		return usageErrorf("--body-read-timeout must be positive")
	}
	if o.maxBody <= 0 {
		// The server would read it as "the default" and serve 8 MiB bodies
		// to an operator who asked for something else.
		return usageErrorf("--max-body-bytes must be positive")
	}
	if o.drain < 0 || o.grace < 0 {
		return usageErrorf("--shutdown-drain and --shutdown-grace cannot be negative")
	}
	routes, err := o.selectedRoutes()
	if err != nil {
		return err
	}
	if o.tokenFile != "" && len(server.RoutesOf(routes, server.Metacontroller)) == 0 {
		return usageErrorf("--auth-token-file authenticates Metacontroller's hooks, which --routes=%s does not serve", o.routes)
	}
	return nil
}

// selectedRoutes is --routes (and --floor): each container of the chart
// serves one caller's routes only.
func (o *serveOptions) selectedRoutes() ([]server.Route, error) {
	all := server.RoutesWith(o.jobImage)
	if o.floor {
		all = server.FloorRoutes()
	}
	switch o.routes {
	case "all":
		return all, nil
	case "hooks":
		return server.RoutesOf(all, server.Metacontroller), nil
	case "validate":
		return server.RoutesOf(all, server.APIServer), nil
	}
	return nil, usageErrorf("--routes must be hooks, validate or all, not %q", o.routes)
}

// run serves until ctx is done. Logs go to logOut as JSON lines.
func (o *serveOptions) run(ctx context.Context, logOut io.Writer) error {
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	if limit, ok := server.GoMemoryLimit(os.Getenv("MEMORY_LIMIT"), os.Getenv("GOMEMLIMIT")); ok {
		debug.SetMemoryLimit(limit)
		log.Info("Go memory limit set below the container's", "container_limit_bytes", os.Getenv("MEMORY_LIMIT"), "gomemlimit_bytes", limit)
	}
	routes, err := o.selectedRoutes()
	if err != nil {
		return err
	}
	servesHooks := len(server.RoutesOf(routes, server.Metacontroller)) > 0

	var lister admission.Lister = admission.Unavailable{Reason: "this instance does not serve /validate"}
	if len(server.RoutesOf(routes, server.APIServer)) > 0 {
		if lister, err = newLister(o.kubeconfig, o.apiTimeout, log); err != nil {
			return err
		}
	}
	var tlsConfig *tls.Config
	if o.certFile != "" {
		r, err := server.NewCertReloader(o.certFile, o.keyFile, log)
		if err != nil {
			return err
		}
		tlsConfig = r.TLSConfig()
		if o.clientCAFile != "" {
			caPEM, err := os.ReadFile(o.clientCAFile)
			if err != nil {
				return fmt.Errorf("reading --client-ca-file: %w", err)
			}
			if err := server.RequestClientCerts(tlsConfig, caPEM); err != nil {
				return fmt.Errorf("--client-ca-file: %w", err)
			}
		}
	}
	var token *server.TokenFile
	if o.tokenFile != "" {
		if token, err = server.NewTokenFile(o.tokenFile, log); err != nil {
			return err
		}
	}
	if o.plain {
		log.Warn("serving plain HTTP (--insecure-plain-http): requests and answers carry S3 credentials in clear; use it only on your own machine")
	}
	if servesHooks && token == nil && o.clientCAFile == "" {
		log.Warn("Metacontroller's hooks are served to any caller that reaches this port: give --auth-token-file (or --client-ca-file)")
	}
	if o.floor {
		log.Warn("serving the floor handlers: the hooks only decode and re-encode each request, for measurements only")
	}
	metrics := server.NewMetrics(buildinfo.Get())
	readiness := server.NewReadiness()
	e := server.New(server.Config{
		MaxBodyBytes:      o.maxBody,
		BodyReadTimeout:   o.bodyTimeout,
		Logger:            log,
		Routes:            routes,
		Lister:            lister,
		HookToken:         token,
		RequireClientCert: o.clientCAFile != "",
		Metrics:           metrics,
		Readiness:         readiness,
	})
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	stopMetrics, metricsDone, err := o.serveMetrics(metrics, log)
	if err != nil {
		ln.Close()
		return err
	}
	info := buildinfo.Get()
	log.Info("serving", "listen", ln.Addr().String(), "tls", tlsConfig != nil, "routes", o.routes, "metrics", o.metrics,
		"version", info.Version, "commit", info.Commit)
	err = server.ServeListener(ctx, e, ln, server.Stop{Drain: o.drain, Grace: o.grace, Readiness: readiness}, tlsConfig)
	// Metrics are served through the drain, then stop.
	stopMetrics()
	if merr := <-metricsDone; err == nil {
		err = merr
	}
	log.Info("stopped")
	return err
}

// serveMetrics starts the --metrics-listen server, over TLS with the same
// certificate when the service serves TLS (no client certificate asked).
// stop ends it; done reports how it ended.
func (o *serveOptions) serveMetrics(m *server.Metrics, log *slog.Logger) (stop func(), done <-chan error, err error) {
	errc := make(chan error, 1)
	if o.metrics == "" {
		errc <- nil
		return func() {}, errc, nil
	}
	var tlsConfig *tls.Config
	if o.certFile != "" {
		r, err := server.NewCertReloader(o.certFile, o.keyFile, log)
		if err != nil {
			return nil, nil, err
		}
		tlsConfig = r.TLSConfig()
	}
	ln, err := net.Listen("tcp", o.metrics)
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
