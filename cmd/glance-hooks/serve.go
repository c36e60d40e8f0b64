package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/c5c3/glance-hooks/hooks/admission"
	"github.com/c5c3/glance-hooks/internal/transport/kube"
	"github.com/c5c3/glance-hooks/internal/transport/server"
)

func serve(args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return runServe(ctx, args, os.Stderr)
}

// runServe parses the serve flags and serves until ctx is done. Logs go to
// logOut as JSON lines.
func runServe(ctx context.Context, args []string, logOut io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", ":8080", "address to listen on")
	maxBody := fs.Int64("max-body-bytes", server.DefaultMaxBodyBytes, "largest request body accepted; larger ones get 413")
	grace := fs.Duration("shutdown-grace", 20*time.Second, "how long in-flight requests may take to finish on SIGTERM")
	certFile := fs.String("tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with; reloaded when the file changes. The API server calls /validate over HTTPS only")
	keyFile := fs.String("tls-key-file", "", "PEM private key of --tls-cert-file; reloaded when the file changes")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig for the API reads of /validate; default KUBECONFIG, then the in-cluster service account")
	apiTimeout := fs.Duration("api-timeout", kube.DefaultTimeout, "bound on one API read of /validate; keep it below the webhook's timeoutSeconds")
	floor := hiddenFloorFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q", fs.Arg(0))
	}
	if (*certFile == "") != (*keyFile == "") {
		return errors.New("--tls-cert-file and --tls-key-file go together: give both or neither")
	}
	if *apiTimeout <= 0 {
		return errors.New("--api-timeout must be positive")
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil))

	lister, err := newLister(*kubeconfig, *apiTimeout, log)
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if *certFile != "" {
		r, err := server.NewCertReloader(*certFile, *keyFile, log)
		if err != nil {
			return err
		}
		tlsConfig = r.TLSConfig()
	}

	routes := server.DefaultRoutes()
	if *floor {
		routes = server.FloorRoutes()
		log.Warn("serving the floor handlers: the hooks only decode and re-encode each request, for measurements only")
	}
	e := server.New(server.Config{
		MaxBodyBytes: *maxBody,
		Logger:       log,
		Routes:       routes,
		Lister:       lister,
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	log.Info("serving", "listen", ln.Addr().String(), "tls", tlsConfig != nil)
	err = server.ServeListener(ctx, e, ln, *grace, tlsConfig)
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

// hiddenFloorFlag adds --floor, left out of the help: it serves, on the same
// paths, hook handlers that only decode and re-encode each request, the
// floor the load test compares the hooks with in the same binary.
func hiddenFloorFlag(fs *flag.FlagSet) *bool {
	visible := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) { visible.Var(f.Value, f.Name, f.Usage) })
	fs.Usage = func() {
		visible.SetOutput(fs.Output())
		fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
		visible.PrintDefaults()
	}
	return fs.Bool("floor", false, "")
}
