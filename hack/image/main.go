// Command image writes the service's image from binaries built by
// hack/build.sh: `make image` as a `docker save` archive of one
// architecture, `make push` as a multi-arch index pushed to a registry. See
// internal/image.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/c5c3/glance-hooks/internal/image"
)

// binaries is the repeatable --binary ARCH=FILE.
type binaries map[string]string

func (b binaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b binaries) Set(v string) error {
	arch, file, ok := strings.Cut(v, "=")
	if !ok || arch == "" || file == "" {
		return fmt.Errorf("want ARCH=FILE, got %q", v)
	}
	if _, dup := b[arch]; dup {
		return fmt.Errorf("architecture %s given twice", arch)
	}
	b[arch] = file
	return nil
}

const usage = "usage: image --binary ARCH=FILE... --ca-bundle FILE (--out FILE --tag REPOSITORY:TAG | --push REPOSITORY:TAG) [--version V --commit C --created UNIX]"

func main() {
	bins := binaries{}
	var o image.Options
	var out, ref, push string
	var epoch int64
	flag.Var(bins, "binary", "ARCH=FILE: a static linux binary of glance-hooks built for GOARCH ARCH; repeatable with --push")
	flag.StringVar(&o.CABundle, "ca-bundle", "", "PEM CA roots to ship")
	flag.StringVar(&o.Version, "version", "dev", "version label")
	flag.StringVar(&o.Commit, "commit", "unknown", "commit label")
	flag.Int64Var(&epoch, "created", 0, "creation time, Unix seconds (the commit time makes the image reproducible)")
	flag.StringVar(&out, "out", "", "archive to write")
	flag.StringVar(&ref, "tag", "", "repository:tag the archive names the image")
	flag.StringVar(&push, "push", "", "registry/repository:tag to push the multi-arch index to")
	flag.Parse()
	archive := out != "" && ref != "" && push == "" && len(bins) == 1
	pushing := push != "" && out == "" && ref == "" && len(bins) > 0
	if flag.NArg() > 0 || !(archive || pushing) {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	o.Created = time.Unix(epoch, 0)
	if err := run(o, bins, out, ref, push); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(o image.Options, bins binaries, out, ref, push string) error {
	images := map[string]v1.Image{}
	for arch, file := range bins {
		o.Arch, o.Binary = arch, file
		img, err := image.Build(o)
		if err != nil {
			return fmt.Errorf("%s: %w", arch, err)
		}
		images[arch] = img
	}
	if push == "" {
		for _, img := range images {
			if err := image.WriteTarball(out, ref, img); err != nil {
				return err
			}
			d, err := img.Digest()
			if err != nil {
				return err
			}
			fmt.Printf("wrote %s: %s (%s)\n", out, ref, d)
		}
		return nil
	}
	idx, err := image.Index(images)
	if err != nil {
		return err
	}
	d, err := image.Push(push, idx)
	if err != nil {
		return err
	}
	fmt.Printf("pushed %s@%s\n", push, d)
	return nil
}
