package image_test

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/image"
	"github.com/c5c3/glance-hooks/test/testbin"
)

// startRegistry serves an in-memory OCI registry on loopback, which
// go-containerregistry speaks plain HTTP to.
func startRegistry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// pulled reads ref back from the registry: each platform of its index and
// that platform's config.
func pulled(t *testing.T, ref string) map[string]*v1.ConfigFile {
	t.Helper()
	r, err := name.ParseReference(ref)
	require.NoError(t, err)
	idx, err := remote.Index(r)
	require.NoError(t, err)
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	out := map[string]*v1.ConfigFile{}
	for _, d := range m.Manifests {
		require.NotNil(t, d.Platform)
		img, err := idx.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		assert.Equal(t, d.Platform.Architecture, cf.Architecture, "the index names each image's own architecture")
		out[d.Platform.OS+"/"+d.Platform.Architecture] = cf
	}
	return out
}

func platforms(m map[string]*v1.ConfigFile) []string {
	var p []string
	for k := range m {
		p = append(p, k)
	}
	sort.Strings(p)
	return p
}

// Push publishes one tag holding an image per architecture.
func TestPushMultiArch(t *testing.T) {
	dir := t.TempDir()
	images := map[string]v1.Image{}
	for _, arch := range []string{"arm64", "amd64"} {
		bin := filepath.Join(dir, arch)
		require.NoError(t, os.WriteFile(bin, []byte("a binary for "+arch), 0o755))
		img, err := image.Build(image.Options{Binary: bin, CABundle: caBundle(t), Arch: arch, Version: "v9.9.9", Commit: "c0ffee"})
		require.NoError(t, err)
		images[arch] = img
	}
	idx, err := image.Index(images)
	require.NoError(t, err)
	ref := startRegistry(t) + "/glance-hooks:v9.9.9"
	d, err := image.Push(ref, idx)
	require.NoError(t, err)

	got := pulled(t, ref)
	assert.Equal(t, []string{"linux/amd64", "linux/arm64"}, platforms(got))
	for p, cf := range got {
		assert.Equal(t, image.DefaultCmd, cf.Config.Cmd, p)
		assert.Equal(t, "v9.9.9", cf.Config.Labels["org.opencontainers.image.version"], p)
	}
	r, err := name.ParseReference(ref)
	require.NoError(t, err)
	desc, err := remote.Head(r)
	require.NoError(t, err)
	assert.Equal(t, d, desc.Digest, "Push returns the digest the tag points at")

	_, err = image.Push("not a reference", idx)
	assert.ErrorContains(t, err, `image reference "not a reference"`)
	_, err = image.Index(nil)
	assert.Error(t, err)
}

// make push cross-compiles amd64 and arm64 and publishes them as the tag
// `version` prints, with no container engine.
func TestMakePush(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: make push cross-compiles the binary twice")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	caBundle(t)
	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	reg := startRegistry(t)
	cmd := exec.Command("make", "--no-print-directory", "push", "REGISTRY="+reg+"/c5c3", "VERSION=v0.0.0-push-test", "COMMIT=0123abc")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "pushed "+reg+"/c5c3/glance-hooks:v0.0.0-push-test@sha256:")

	got := pulled(t, reg+"/c5c3/glance-hooks:v0.0.0-push-test")
	assert.Equal(t, []string{"linux/amd64", "linux/arm64"}, platforms(got))
	for p, cf := range got {
		assert.Equal(t, "v0.0.0-push-test", cf.Config.Labels["org.opencontainers.image.version"], p)
		assert.Equal(t, "0123abc", cf.Config.Labels["org.opencontainers.image.revision"], p)
		assert.Equal(t, image.User, cf.Config.User, p)
		assert.Equal(t, []string{image.BinaryPath}, cf.Config.Entrypoint, p)
	}

	cmd = exec.Command("make", "--no-print-directory", "push")
	cmd.Dir = root
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "usage: make push REGISTRY=")
}
