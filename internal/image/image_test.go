package image_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/image"
	"github.com/c5c3/glance-hooks/test/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// archive is a `docker save` tarball as this test reads it, by hand, with no
// help from the library that wrote it.
type archive struct {
	files    map[string][]byte
	manifest struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	config struct {
		Architecture string
		OS           string
		Created      time.Time
		Config       struct {
			User         string
			Entrypoint   []string
			Cmd          []string
			ExposedPorts map[string]struct{}
			Labels       map[string]string
		}
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		}
	}
}

func readArchive(t *testing.T, path string) *archive {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := &archive{files: map[string][]byte{}}
	for _, e := range readTar(t, f) {
		a.files[e.header.Name] = e.data
	}
	var manifests []json.RawMessage
	require.NoError(t, json.Unmarshal(a.files["manifest.json"], &manifests))
	require.Len(t, manifests, 1)
	require.NoError(t, json.Unmarshal(manifests[0], &a.manifest))
	require.NoError(t, json.Unmarshal(a.files[a.manifest.Config], &a.config))
	return a
}

// entry is one file of a layer.
type entry struct {
	header *tar.Header
	data   []byte
}

// readTar reads every entry of a tar stream.
func readTar(t *testing.T, r io.Reader) []entry {
	t.Helper()
	var entries []entry
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		require.NoError(t, err)
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		entries = append(entries, entry{h, b})
	}
}

// layers returns every layer's entries, checking each against its diff id.
func (a *archive) layers(t *testing.T) [][]entry {
	t.Helper()
	require.Len(t, a.config.RootFS.DiffIDs, len(a.manifest.Layers))
	var out [][]entry
	for i, name := range a.manifest.Layers {
		zr, err := gzip.NewReader(bytes.NewReader(a.files[name]))
		require.NoError(t, err)
		raw, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, a.config.RootFS.DiffIDs[i], "sha256:"+sha256Hex(raw), "layer %d matches its diff id", i)
		out = append(out, readTar(t, bytes.NewReader(raw)))
	}
	return out
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func build(t *testing.T, dir string) (string, *archive) {
	t.Helper()
	bin, err := testbin.Path()
	require.NoError(t, err)
	img, err := image.Build(image.Options{Binary: bin, CABundle: caBundle(t), Arch: runtime.GOARCH, Version: testbin.Version, Commit: testbin.Commit,
		Created: time.Unix(1767225600, 0)})
	require.NoError(t, err)
	path := filepath.Join(dir, "image.tar")
	require.NoError(t, image.WriteTarball(path, "example.test/glance-hooks:v0.0.0-test", img))
	return path, readArchive(t, path)
}

// The image runs the service as a non-root user, and its entrypoint is the
// binary: entrypoint + "version" prints the stamped version.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a linux binary; this test runs it, so it needs linux")
	}
	path, a := build(t, t.TempDir())

	assert.Equal(t, []string{"example.test/glance-hooks:v0.0.0-test"}, a.manifest.RepoTags)
	cfg := a.config.Config
	assert.Equal(t, "linux", a.config.OS)
	assert.Equal(t, runtime.GOARCH, a.config.Architecture)
	assert.Equal(t, []string{"/glance-hooks"}, cfg.Entrypoint)
	// The default command is the chart's hooks container, on the chart's
	// ports; test/chart holds both to the chart and the Dockerfile.
	assert.Equal(t, []string{"serve", "--routes=hooks", "--listen=:8443",
		"--tls-cert-file=/etc/glance-hooks/tls/tls.crt", "--tls-key-file=/etc/glance-hooks/tls/tls.key",
		"--auth-token-file=/etc/glance-hooks/hook-token/token", "--metrics-listen=:9090"}, cfg.Cmd)
	assert.Equal(t, map[string]struct{}{"8443/tcp": {}, "9443/tcp": {}, "9090/tcp": {}, "9091/tcp": {}}, cfg.ExposedPorts)
	assert.Equal(t, testbin.Version, cfg.Labels["org.opencontainers.image.version"])
	assert.Equal(t, testbin.Commit, cfg.Labels["org.opencontainers.image.revision"])
	assert.Equal(t, "https://github.com/c5c3/glance-hooks", cfg.Labels["org.opencontainers.image.source"])

	// A numeric, non-root user and group, so runAsNonRoot can check them.
	uidText, gidText, ok := strings.Cut(cfg.User, ":")
	require.True(t, ok, "User %q names a group too", cfg.User)
	uid, err := strconv.Atoi(uidText)
	require.NoError(t, err, "User is numeric")
	gid, err := strconv.Atoi(gidText)
	require.NoError(t, err, "group is numeric")
	assert.NotZero(t, uid, "the image does not run as root")
	assert.NotZero(t, gid)

	// Unpack the layers in order, as a container runtime would.
	root := filepath.Join(t.TempDir(), "rootfs")
	require.NoError(t, os.MkdirAll(root, 0o755))
	for _, l := range a.layers(t) {
		for _, e := range l {
			h := e.header
			assert.Zero(t, h.Mode&(04000|02000), "%s has no setuid or setgid bit", h.Name)
			assert.False(t, filepath.IsAbs(h.Name) || strings.Contains(h.Name, ".."), "%s stays inside the root", h.Name)
			target := filepath.Join(root, h.Name)
			switch h.Typeflag {
			case tar.TypeDir:
				require.NoError(t, os.MkdirAll(target, 0o755))
				require.NoError(t, os.Chmod(target, os.FileMode(h.Mode).Perm()|os.FileMode(h.Mode)&os.ModeSticky))
			case tar.TypeReg:
				require.NoError(t, os.WriteFile(target, e.data, os.FileMode(h.Mode).Perm()))
				assert.Zero(t, h.Uid, "%s is owned by root: the service cannot change its own files", h.Name)
				assert.Zero(t, h.Mode&0o022, "%s is writable by its owner only", h.Name)
			default:
				t.Fatalf("%s: unexpected entry type %c", h.Name, h.Typeflag)
			}
		}
	}
	passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	require.NoError(t, err)
	assert.Contains(t, string(passwd), ":x:"+uidText+":"+gidText+":", "/etc/passwd names the image's user")

	// The CA roots are where Go's crypto/x509 looks on linux, readable by
	// the image's user, and the bundle given.
	roots, err := os.ReadFile(filepath.Join(root, "etc", "ssl", "certs", "ca-certificates.crt"))
	require.NoError(t, err)
	want, err := os.ReadFile(caBundle(t))
	require.NoError(t, err)
	assert.Equal(t, want, roots)
	pool := x509.NewCertPool()
	assert.True(t, pool.AppendCertsFromPEM(roots))

	// Entrypoint + version, as `docker run <image> version` runs it: in a
	// chroot of the unpacked layers as the image's user when this test may
	// (it runs as root), otherwise straight from the unpacked directory.
	for _, args := range [][]string{{"version"}, {"--version"}} {
		cmd := exec.Command(filepath.Join(root, cfg.Entrypoint[0]), args...)
		if os.Geteuid() == 0 {
			cmd = exec.Command(cfg.Entrypoint[0], args...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
			cmd.Dir = "/"
		} else {
			t.Log("not root: running the entrypoint outside a chroot, as the test's user")
		}
		cmd.Env = []string{}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s: %s", cfg.Entrypoint[0], args, out)
		assert.Equal(t, "glance-hooks "+testbin.Version+" (commit "+testbin.Commit+", "+runtime.Version()+", linux/"+runtime.GOARCH+")\n", string(out))
	}

	// The same inputs give the same bytes.
	again, _ := build(t, t.TempDir())
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	second, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, sha256Hex(first), sha256Hex(second), "the image archive is reproducible")
}

// caBundle is the CA roots the image ships: the build machine's, as make
// image takes them (hack/ca-roots.sh).
func caBundle(t *testing.T) string {
	t.Helper()
	const debian = "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(debian); err != nil {
		t.Skipf("no CA roots on this machine (%v): hack/ca-roots.sh installs Debian's ca-certificates", err)
	}
	return debian
}

// A bundle that is no CA roots is refused when the image is built, not
// found out when the registration Job first meets an https Keystone.
func TestBuildRefusesABundleThatIsNoRoots(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.WriteFile(bin, []byte("binary"), 0o755))
	one := filepath.Join(dir, "one.pem")
	roots, err := os.ReadFile(caBundle(t))
	require.NoError(t, err)
	block, _ := pem.Decode(roots)
	require.NotNil(t, block)
	require.NoError(t, os.WriteFile(one, pem.EncodeToMemory(block), 0o644))
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o644))
	for bundle, want := range map[string]string{
		"":                           "no CA bundle given",
		filepath.Join(dir, "absent"): "reading the CA bundle",
		one:                          "holds 1 certificates, fewer than 20",
		notPEM:                       "holds 0 certificates",
	} {
		_, err := image.Build(image.Options{Binary: bin, CABundle: bundle, Arch: "amd64"})
		require.Error(t, err, bundle)
		assert.Contains(t, err.Error(), want, bundle)
	}
}
