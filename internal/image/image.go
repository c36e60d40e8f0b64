// Package image assembles the service's container image from the static
// binary, without a container engine and without pulling a base image: a
// layer with the non-root user's passwd and group entries, a /tmp and the
// CA roots, then the binary. The binary needs nothing else (no libc, no
// shell): the CA roots are for `keystone`, which the registration Jobs run
// against a Keystone that may serve https with a public certificate.
//
// Everything in the image is fixed by its inputs: file times are the
// Created time, owners and modes are constants, layers are written in a
// fixed order. The same binary, CA bundle and Options give the same image
// digest.
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the service runs as: numeric, so Kubernetes' runAsNonRoot can
// check it without reading /etc/passwd. 65532 is the "nonroot" user of the
// distroless images, which the chart's securityContext also names.
const (
	UID  = 65532
	GID  = 65532
	User = "65532:65532"
)

// BinaryPath is where the binary lives in the image; it is the ENTRYPOINT.
const BinaryPath = "/glance-hooks"

// CABundlePath is where the CA roots live: where Go's crypto/x509 looks
// first on linux, and where Debian puts them.
const CABundlePath = "/etc/ssl/certs/ca-certificates.crt"

// Where the chart mounts the serving certificate and the hook token.
const (
	TLSDir       = "/etc/glance-hooks/tls"
	HookTokenDir = "/etc/glance-hooks/hook-token"
)

// DefaultCmd is the image's CMD: the chart's hooks container, so the image
// run with nothing but the chart's mounts serves the hooks as the chart
// does. (A CMD that serves without TLS flags would only exit 2.)
var DefaultCmd = []string{"serve", "--routes=hooks", "--listen=:8443",
	"--tls-cert-file=" + TLSDir + "/tls.crt", "--tls-key-file=" + TLSDir + "/tls.key",
	"--auth-token-file=" + HookTokenDir + "/token", "--metrics-listen=:9090"}

// Ports are the chart's container ports: hooks, validate, and the metrics
// listener of each.
var Ports = []string{"8443/tcp", "9443/tcp", "9090/tcp", "9091/tcp"}

// Source is the repository the image is built from (its
// org.opencontainers.image.source label, which registries link to).
const Source = "https://github.com/c5c3/glance-hooks"

// Options of one image.
type Options struct {
	// Binary is the path of the static linux binary to ship.
	Binary string
	// CABundle is the path of the PEM CA roots to ship (Debian's
	// ca-certificates.crt); required.
	CABundle string
	// Arch is its GOARCH (amd64, arm64, ...).
	Arch string
	// Version and Commit become OCI labels (and match what the binary was
	// stamped with).
	Version, Commit string
	// Created is the image's creation time and every file's mtime; use the
	// commit time for a reproducible image.
	Created time.Time
}

// Build assembles the image.
func Build(o Options) (v1.Image, error) {
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("reading the binary: %w", err)
	}
	ca, err := readCABundle(o.CABundle)
	if err != nil {
		return nil, err
	}
	created := o.Created.UTC()
	base, err := layer(created, baseFiles(ca))
	if err != nil {
		return nil, err
	}
	app, err := layer(created, []file{{path: BinaryPath[1:], mode: 0o755, data: bin}})
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	when := v1.Time{Time: created}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer,
			History: v1.History{Created: when, CreatedBy: "glance-hooks image: passwd, group, /tmp for user " + User + " and the CA roots"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer,
			History: v1.History{Created: when, CreatedBy: "glance-hooks image: " + BinaryPath}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", o.Arch, when
	cf.Config = v1.Config{
		User:         User,
		Entrypoint:   []string{BinaryPath},
		Cmd:          DefaultCmd,
		WorkingDir:   "/",
		ExposedPorts: exposed(),
		Labels: map[string]string{
			"org.opencontainers.image.title":    "glance-hooks",
			"org.opencontainers.image.source":   Source,
			"org.opencontainers.image.version":  o.Version,
			"org.opencontainers.image.revision": o.Commit,
			"org.opencontainers.image.licenses": "Apache-2.0",
			"org.opencontainers.image.created":  created.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cf)
}

// WriteTarball writes img as a `docker save` archive tagged ref: docker
// load and podman load read it, crane and skopeo push it.
func WriteTarball(path, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", ref, err)
	}
	return tarball.WriteToFile(path, tag, img)
}

// file is one entry of a layer; a nil data with a directory mode is a
// directory.
type file struct {
	path     string
	mode     int64
	uid, gid int
	dir      bool
	data     []byte
}

func exposed() map[string]struct{} {
	m := map[string]struct{}{}
	for _, p := range Ports {
		m[p] = struct{}{}
	}
	return m
}

func baseFiles(ca []byte) []file {
	u, g := strconv.Itoa(UID), strconv.Itoa(GID)
	return []file{
		{path: "etc/", mode: 0o755, dir: true},
		{path: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:" + g + ":\n")},
		{path: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nonroot:x:" + u + ":" + g + ":nonroot:/home/nonroot:/sbin/nologin\n")},
		{path: "etc/ssl/", mode: 0o755, dir: true},
		{path: "etc/ssl/certs/", mode: 0o755, dir: true},
		{path: CABundlePath[1:], mode: 0o644, data: ca},
		{path: "home/", mode: 0o755, dir: true},
		{path: "home/nonroot/", mode: 0o700, dir: true, uid: UID, gid: GID},
		{path: "tmp/", mode: 0o1777, dir: true},
	}
}

// layer writes files, in the given order, as one uncompressed tar.
func layer(mtime time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, Uid: f.uid, Gid: f.gid, ModTime: mtime, Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil })
}
