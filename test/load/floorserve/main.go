// Command floorserve is "glance-hooks serve --insecure-plain-http" with the
// floor's routes (test/floor) instead of the hooks: the twin the load test
// compares the service with. It is built for the measurements only (make
// bench), never shipped.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/c5c3/glance-hooks/test/floor"
	"github.com/c5c3/glance-hooks/transport/server"
	"github.com/c5c3/glance-hooks/transport/service"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (plain HTTP)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	o := service.Options{Listen: *listen, Routes: floor.Routes(), RoutesName: "floor", MaxBody: server.DefaultMaxBodyBytes,
		BodyTimeout: server.DefaultBodyReadTimeout, Plain: true}
	if err := service.Run(ctx, o, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "floorserve:", err)
		os.Exit(1)
	}
}
