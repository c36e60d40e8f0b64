package main

import (
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/c5c3/glance-hooks/internal/buildinfo"
	"github.com/c5c3/glance-hooks/transport/kube"
	"github.com/c5c3/glance-hooks/transport/server"
	"github.com/c5c3/glance-hooks/transport/service"
	"github.com/c5c3/glance-hooks/transport/storecheck"
)

// serveOptions are the serve command's flags.
type serveOptions struct {
	listen       string
	routes       string
	maxBody      int64
	bodyTimeout  time.Duration
	connRequests int
	connAge      time.Duration
	maxConns     int
	maxInFlight  int
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
	storeCheck   time.Duration
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
			if err := checkMounted(o.mountedFiles()); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			routes, err := o.selectedRoutes()
			if err != nil {
				return err
			}
			opts := o.options(routes)
			if caveat := buildinfo.Get().ImageCaveat(); caveat != "" && !cmd.Flags().Changed("job-image") {
				opts.Warnings = append(opts.Warnings, "--job-image: "+caveat)
			}
			return service.Run(ctx, opts, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":8443", "address to listen on")
	f.StringVar(&o.routes, "routes", "all", "which routes to serve: hooks (Metacontroller's sync and customize hooks), validate (the API server's /validate) or all")
	f.Int64Var(&o.maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "largest request body accepted; larger ones get 413")
	f.DurationVar(&o.bodyTimeout, "body-read-timeout", server.DefaultBodyReadTimeout, "how long the first 16 KiB of a request body may take to arrive, and the rest once it has its turn (408 after); keep it well below the callers' timeouts")
	f.IntVar(&o.connRequests, "max-conn-requests", server.DefaultMaxConnRequests, "requests served on one keep-alive connection before the server closes it, so the caller dials again and a connection balancer spreads the load over the replicas; 0: no bound")
	f.DurationVar(&o.connAge, "max-conn-age", server.DefaultMaxConnAge, "age after which a keep-alive connection is closed after its next answer, for the same reason; 0: no bound")
	f.IntVar(&o.maxConns, "max-conns", server.DefaultMaxConns, "connections held open at once; past it a connection gets one 503 (Retry-After: 1) and is closed, past twice it a connection is closed unanswered; 0: no bound")
	f.IntVar(&o.maxInFlight, "max-in-flight", 0, "requests decoded and answered at once, fewer when their bodies are large (the memory budget); the others wait with the first 16 KiB of their body read. The hooks are CPU-bound: more than the CPUs only adds memory. 0: twice GOMAXPROCS")
	f.DurationVar(&o.drain, "shutdown-drain", 5*time.Second, "on SIGTERM, how long /readyz answers 503 while every request is still served, so callers stop picking this instance before its listener closes")
	f.DurationVar(&o.grace, "shutdown-grace", 20*time.Second, "after the drain, how long in-flight requests may take to finish")
	f.StringVar(&o.metrics, "metrics-listen", "", "address to serve GET /metrics (Prometheus) on, over TLS when the service serves TLS; empty: no metrics listener")
	f.StringVar(&o.certFile, "tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with; reloaded when the file changes. Required unless --insecure-plain-http")
	f.StringVar(&o.keyFile, "tls-key-file", "", "PEM private key of --tls-cert-file; reloaded when the file changes")
	f.BoolVar(&o.plain, "insecure-plain-http", false, "serve plain HTTP instead of TLS: for trying the service on your own machine only, never where requests cross a network (they carry S3 credentials)")
	f.StringVar(&o.tokenFile, "auth-token-file", "", "file holding the token Metacontroller must send to the hooks as \"Authorization: Bearer <token>\"; read on every request, a changed content taken at once")
	f.StringVar(&o.clientCAFile, "client-ca-file", "", "PEM CA bundle: every POST route then wants a client certificate it signed")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for the API reads of /validate; default KUBECONFIG, then the in-cluster service account")
	f.DurationVar(&o.apiTimeout, "api-timeout", kube.DefaultTimeout, "bound on one API read of /validate; keep it below the webhook's timeoutSeconds")
	f.DurationVar(&o.storeCheck, "store-check-timeout", 0, "check each GlanceBackend's S3 endpoint when its hook syncs it, waiting this long for an answer (2s is a good start), and report StoreReachable on the backend and StoresReachable on its Glance; a verdict is kept for 10s, a store that does not answer is checked again every 30s, one that answers at each resync of Metacontroller (set metacontroller.resyncPeriodSeconds). The service then needs to reach the S3 endpoints. 0: no checks")
	f.StringVar(&o.jobImage, "job-image", buildinfo.Get().Image(), "image of the ControlPlane's registration Jobs, whose keystone command parses the args the hooks render (the chart passes the image its pods run); the default is the image of the release this build is, or of the release a development build descends from (then serve warns: give the build's own image)")
	return cmd
}

// validate reports flags that cannot go together, as a usage error.
func (o *serveOptions) validate() error {
	if err := o.validateTLS(); err != nil {
		return err
	}
	if err := o.validateBounds(); err != nil {
		return err
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

// validateTLS: TLS with both files, or plain HTTP said out loud.
func (o *serveOptions) validateTLS() error {
	if (o.certFile == "") != (o.keyFile == "") {
		return usageErrorf("--tls-cert-file and --tls-key-file go together: give both or neither")
	}
	if o.plain == (o.certFile != "") {
		return usageErrorf("serve needs --tls-cert-file and --tls-key-file, or --insecure-plain-http (plain HTTP, for your own machine only), and not both")
	}
	if o.clientCAFile != "" && o.plain {
		return usageErrorf("--client-ca-file needs TLS: it cannot go with --insecure-plain-http")
	}
	return nil
}

// validateBounds: the sizes and durations the flags bound.
func (o *serveOptions) validateBounds() error {
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
	if o.maxInFlight < 0 {
		return usageErrorf("--max-in-flight cannot be negative (0 means twice GOMAXPROCS)")
	}
	if o.connRequests < 0 || o.connAge < 0 || o.maxConns < 0 {
		return usageErrorf("--max-conn-requests, --max-conn-age and --max-conns cannot be negative (0 means no bound)")
	}
	if o.storeCheck < 0 {
		return usageErrorf("--store-check-timeout cannot be negative (0 means no checks)")
	}
	if o.drain < 0 || o.grace < 0 {
		return usageErrorf("--shutdown-drain and --shutdown-grace cannot be negative")
	}
	return nil
}

// selectedRoutes is --routes: each container of the chart
// serves one caller's routes only.
func (o *serveOptions) selectedRoutes() ([]server.Route, error) {
	all := server.RoutesWith(o.jobImage)
	if o.storeCheck > 0 {
		all = server.WithStoreChecks(all, storecheck.New(o.storeCheck, 0).Check)
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

// options hands the checked flags to the service.
func (o *serveOptions) options(routes []server.Route) service.Options {
	return service.Options{Listen: o.listen, Routes: routes, RoutesName: o.routes, MaxBody: o.maxBody, BodyTimeout: o.bodyTimeout,
		MaxConnRequests: noBoundIfZero(o.connRequests), MaxConnAge: noBoundIfZero(o.connAge), MaxConns: o.maxConns,
		MaxInFlight: o.maxInFlight, Drain: o.drain, Grace: o.grace, Metrics: o.metrics, CertFile: o.certFile, KeyFile: o.keyFile, Plain: o.plain,
		TokenFile: o.tokenFile, ClientCAFile: o.clientCAFile, Kubeconfig: o.kubeconfig, APITimeout: o.apiTimeout}
}

// noBoundIfZero turns a flag's "0: no bound" into the server's negative
// "no bound" (its zero means the default).
func noBoundIfZero[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}
