// Command image writes the service's image as a `docker save` archive from a
// binary built by hack/build.sh; `make image` runs it. See internal/image.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/c5c3/glance-hooks/internal/image"
)

func main() {
	var o image.Options
	var out, ref string
	var epoch int64
	flag.StringVar(&o.Binary, "binary", "", "static linux binary of glance-hooks")
	flag.StringVar(&o.Arch, "arch", "amd64", "GOARCH the binary was built for")
	flag.StringVar(&o.Version, "version", "dev", "version label")
	flag.StringVar(&o.Commit, "commit", "unknown", "commit label")
	flag.Int64Var(&epoch, "created", 0, "creation time, Unix seconds (the commit time makes the image reproducible)")
	flag.StringVar(&out, "out", "", "archive to write")
	flag.StringVar(&ref, "tag", "", "repository:tag the archive names the image")
	flag.Parse()
	if o.Binary == "" || out == "" || ref == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: image --binary FILE --out FILE --tag REPOSITORY:TAG [--arch A --version V --commit C --created UNIX]")
		os.Exit(2)
	}
	o.Created = time.Unix(epoch, 0)
	img, err := image.Build(o)
	if err == nil {
		err = image.WriteTarball(out, ref, img)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	d, _ := img.Digest()
	fmt.Printf("wrote %s: %s (%s)\n", out, ref, d)
}
