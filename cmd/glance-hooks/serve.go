package main

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"os/signal"
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
	listen     string
	maxBody    int64
	grace      time.Duration
	certFile   string
	keyFile    string
	kubeconfig string
	apiTimeout time.Duration
	floor      bool
}

func newServeCommand() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve the hooks over HTTP(S) for Metacontroller and the API server",
		Long: `Serve the Metacontroller hooks (POST /sync/..., /customize/...), the
validating admission webhook (POST /validate), /healthz and /readyz until
SIGTERM or SIGINT. Logs are JSON lines on stderr.`,
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
	f.StringVar(&o.listen, "listen", ":8080", "address to listen on")
	f.Int64Var(&o.maxBody, "max-body-bytes", server.DefaultMaxBodyBytes, "largest request body accepted; larger ones get 413")
	f.DurationVar(&o.grace, "shutdown-grace", 20*time.Second, "how long in-flight requests may take to finish on SIGTERM")
	f.StringVar(&o.certFile, "tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with; reloaded when the file changes. The API server calls /validate over HTTPS only")
	f.StringVar(&o.keyFile, "tls-key-file", "", "PEM private key of --tls-cert-file; reloaded when the file changes")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for the API reads of /validate; default KUBECONFIG, then the in-cluster service account")
	f.DurationVar(&o.apiTimeout, "api-timeout", kube.DefaultTimeout, "bound on one API read of /validate; keep it below the webhook's timeoutSeconds")
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
	if o.apiTimeout <= 0 {
		return usageErrorf("--api-timeout must be positive")
	}
	return nil
}

// run serves until ctx is done. Logs go to logOut as JSON lines.
func (o *serveOptions) run(ctx context.Context, logOut io.Writer) error {
	log := slog.New(slog.NewJSONHandler(logOut, nil))

	lister, err := newLister(o.kubeconfig, o.apiTimeout, log)
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if o.certFile != "" {
		r, err := server.NewCertReloader(o.certFile, o.keyFile, log)
		if err != nil {
			return err
		}
		tlsConfig = r.TLSConfig()
	}

	routes := server.DefaultRoutes()
	if o.floor {
		routes = server.FloorRoutes()
		log.Warn("serving the floor handlers: the hooks only decode and re-encode each request, for measurements only")
	}
	e := server.New(server.Config{
		MaxBodyBytes: o.maxBody,
		Logger:       log,
		Routes:       routes,
		Lister:       lister,
	})
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	info := buildinfo.Get()
	log.Info("serving", "listen", ln.Addr().String(), "tls", tlsConfig != nil, "version", info.Version, "commit", info.Commit)
	err = server.ServeListener(ctx, e, ln, o.grace, tlsConfig)
	log.Info("stopped")
	return err
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
