package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/c5c3/glance-hooks/hooks/server"
)

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", ":8080", "address to listen on")
	maxBody := fs.Int64("max-body-bytes", server.DefaultMaxBodyBytes, "largest request body accepted; larger ones get 413")
	grace := fs.Duration("shutdown-grace", 20*time.Second, "how long in-flight requests may take to finish on SIGTERM")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	e := server.New(server.Config{
		MaxBodyBytes: *maxBody,
		Logger:       log,
		Routes:       server.DefaultRoutes(),
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.Info("serving", "listen", *listen)
	err := server.Serve(ctx, e, *listen, *grace, nil)
	log.Info("stopped")
	return err
}
