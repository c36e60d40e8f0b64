package datapath

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// injected are the properties the inject plugin stamps on a member's
// imports.
var injected = map[string]string{"provenance": "imported-through-glance-hooks", "hw_disk_bus": "scsi"}

// withImportPlugins turns on the three plugins, web-download and a staging
// bound (which decompression asks for), and sets filter as the spec's
// importFiltering (nil: the default filter).
func withImportPlugins(filter *api.ImportFilteringSpec) func(*api.GlanceSpec) {
	return func(s *api.GlanceSpec) {
		size := resource.MustParse("1Gi")
		s.Staging = &api.StagingSpec{SizeLimit: &size}
		s.ImportMethods = []string{api.ImportGlanceDirect, api.ImportWebDownload, api.ImportCopyImage}
		s.ImportPlugins = &api.ImportPluginsSpec{
			Decompression:  &api.ImportDecompressionSpec{},
			Conversion:     &api.ImportConversionSpec{},
			InjectMetadata: &api.ImportInjectMetadataSpec{Properties: injected},
		}
		s.ImportFiltering = filter
	}
}

// importsInBothModes runs importPluginsAndFilter under the eventlet
// server (2025.2, and 2025.1 on Debian 13's own Glance, whose plugins are
// that release's code) and under uWSGI (2026.1, on Debian 12's Glance and
// on unstable's).
func importsInBothModes(t *testing.T, svc *glancestack.Services) {
	onEverySystem(t, "", "glance_imports_", func(t *testing.T, o glancestack.Options) { importPluginsAndFilter(t, svc, o) })
}

// importPluginsAndFilter proves spec.importPlugins and spec.importFiltering
// on a real glance-api of o's release and system: a qcow2 image imported
// through glance-direct lands in S3 as raw; web-download from loopback is
// refused by the default filter, still refused with http and the port allowed
// (loopback is denied by host), and imports byte-identical once
// allowedHosts names it; a gzip-compressed raw image a member imports lands
// unpacked, with the injected properties an admin's imports do not get.
func importPluginsAndFilter(t *testing.T, svc *glancestack.Services, o glancestack.Options) {
	qemuImg := systemProgram(t, "qemu-img", "qemu-utils")
	o.Standalone, o.Customize = true, withImportPlugins(nil)
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	p := onlyPod(t, st)
	admin := st.Client(t, p)

	// Conversion: the admin's qcow2 image is raw in the store.
	raw := append(randomBytes(31, 2<<20), make([]byte, 1<<20)...) // 3 MiB, a sparse tail
	qcow2 := convertImage(t, qemuImg, raw, "raw", "qcow2")
	require.NotEqual(t, raw, qcow2)
	converted := createImage(t, admin, "converted", "qcow2")
	admin.Stage(t, converted, qcow2)
	importGlanceDirect(t, admin, converted)
	img := admin.WaitImage(t, converted, "active", 3*time.Minute)
	got := admin.Download(t, converted)
	assert.Equal(t, "raw", imageInfo(t, qemuImg, got), "qemu-img info on the downloaded bytes")
	assert.Equal(t, raw, got, "the qcow2's disk, as raw")
	assert.Equal(t, "raw", imageField(t, admin, converted, "disk_format"), "disk_format")
	assert.Equal(t, int64(len(raw)), *img.Size)
	assert.Equal(t, services.ObjectOf(raw), st.S3.Objects(t, glancestack.Bucket1)[glancestack.Bucket1][converted], "S3 holds the raw image")
	for k := range injected {
		assert.Empty(t, imageField(t, admin, converted, k), "an admin's import gets no injected %s", k)
	}

	// Filtering: a web server on loopback, which the default filter denies
	// three times over (scheme, port, host). It serves a raw image and a
	// gzip of another.
	served, packed := randomBytes(32, 1<<20+17), append(randomBytes(33, 1<<20), make([]byte, 2<<20)...)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err := w.Write(packed)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := served
		if strings.HasSuffix(r.URL.Path, ".gz") {
			b = gz.Bytes()
		}
		// Glance's web-download reads Content-Length, and fails without it.
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	host, portText, err := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)
	port, err := strconv.Atoi(portText)
	require.NoError(t, err)
	uri := srv.URL + "/image.raw"
	fetched := createImage(t, admin, "fetched", "raw")
	code, body := webDownload(t, admin, fetched, uri)
	assert.Equal(t, http.StatusBadRequest, code, "the default filter refuses %s: %s", uri, body)
	assert.Contains(t, string(body), "does not pass filtering")

	st.Respec(t, withImportPlugins(&api.ImportFilteringSpec{AllowedSchemes: []string{api.SchemeHTTP}, AllowedPorts: []int32{int32(port)}}))
	st.Reconcile(t)
	p = onlyPod(t, st)
	admin = st.Client(t, p)
	code, body = webDownload(t, admin, fetched, uri)
	assert.Equal(t, http.StatusBadRequest, code, "http on the port allowed, loopback is still denied: %s", body)
	assert.Contains(t, string(body), "does not pass filtering")

	st.Respec(t, withImportPlugins(&api.ImportFilteringSpec{AllowedSchemes: []string{api.SchemeHTTP}, AllowedPorts: []int32{int32(port)}, AllowedHosts: []string{host}}))
	st.Reconcile(t)
	p = onlyPod(t, st)
	admin = st.Client(t, p)
	code, body = webDownload(t, admin, fetched, uri)
	require.Equal(t, http.StatusAccepted, code, "allowedHosts names the server: %s", body)
	admin.WaitImage(t, fetched, "active", 3*time.Minute)
	assert.Equal(t, served, admin.Download(t, fetched), "the web-download imports byte-identical")

	// Decompression and injection, by a member: the gzip lands unpacked,
	// with the injected properties. Through web-download: a glance-direct
	// stage records the staged (packed) size on the image, and Glance's
	// decompression plugin does not correct it, so such an import fails
	// its size check unless a conversion follows and sets the size.
	member := memberClient(t, svc, st, p)
	unpacked := createImage(t, member, "unpacked", "raw")
	code, body = webDownload(t, member, unpacked, srv.URL+"/image.raw.gz")
	require.Equal(t, http.StatusAccepted, code, "web-download of the gzip: %s", body)
	member.WaitImage(t, unpacked, "active", 3*time.Minute)
	assert.Equal(t, packed, member.Download(t, unpacked), "the image lands uncompressed (%d bytes fetched)", gz.Len())
	assert.Equal(t, services.ObjectOf(packed), st.S3.Objects(t, glancestack.Bucket1)[glancestack.Bucket1][unpacked], "S3 holds the unpacked image")
	for k, v := range injected {
		assert.Equal(t, v, imageField(t, member, unpacked, k), "a member's import gets %s", k)
	}
	for k := range injected {
		assert.Empty(t, imageField(t, admin, fetched, k), "an admin's web-download gets no injected %s", k)
	}
	t.Logf("%s (%s): qcow2 %d bytes -> raw %d; web-download from %s refused by the default filter and with http and the port allowed, imported once allowedHosts names it; gzip %d bytes -> %d unpacked with %v injected on the member's image only",
		o.Release, p.Mode, len(qcow2), len(raw), uri, gz.Len(), len(packed), injected)
}

// memberClient calls p as a user with role member in a project of its own.
func memberClient(t *testing.T, svc *glancestack.Services, st *glancestack.Stack, p *glancestack.Pod) *glancestack.Client {
	t.Helper()
	c := services.Credentials{User: "importer-" + st.Database, Password: glancestack.Password(), Project: "imports-" + st.Database}
	svc.Keystone.User(t, c.User, c.Password, c.Project)
	svc.Keystone.Grant(t, c.User, c.Project, "member")
	return &glancestack.Client{URL: p.URL("api"), Token: svc.Keystone.Token(t, c), Logs: func() string { return p.Logs(p.Container) }}
}

// createImage makes an empty image record of a disk format.
func createImage(t *testing.T, c *glancestack.Client, name, diskFormat string) string {
	t.Helper()
	code, b := postImage(t, c, name, diskFormat)
	require.Equal(t, http.StatusCreated, code, "POST /v2/images: %s", b)
	return imageID(t, b)
}

// importGlanceDirect imports a staged image into the default store.
func importGlanceDirect(t *testing.T, c *glancestack.Client, id string) {
	t.Helper()
	code, body := c.Import(t, id, glancestack.GuideBackends(true)[0].Name)
	require.Equal(t, http.StatusAccepted, code, "glance-direct import: %s", body)
}

// webDownload asks for a web-download import of uri.
func webDownload(t *testing.T, c *glancestack.Client, id, uri string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"method": map[string]string{"name": api.ImportWebDownload, "uri": uri}})
	return c.Call(t, http.MethodPost, "/v2/images/"+id+"/import", body, map[string]string{"Content-Type": "application/json"})
}

// imageField is one field or property of an image record, "" when absent.
func imageField(t *testing.T, c *glancestack.Client, id, name string) string {
	t.Helper()
	var img map[string]any
	c.GetJSON(t, "/v2/images/"+id, &img)
	v, _ := img[name].(string)
	return v
}

// systemProgram is a program of a Debian package, or a skip (a failure
// under REQUIRE_SERVICES) naming the package.
func systemProgram(t *testing.T, program, pkg string) string {
	t.Helper()
	for _, dir := range filepath.SplitList(proc.SystemPath) {
		if p := filepath.Join(dir, program); fileExists(p) {
			return p
		}
	}
	proc.Missing(t, program+" (Debian package "+pkg+")", "hack/install-glance.sh installs it")
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// convertImage runs qemu-img convert from one format to another.
func convertImage(t *testing.T, qemuImg string, data []byte, from, to string) []byte {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	require.NoError(t, os.WriteFile(in, data, 0o600))
	b, err := exec.Command(qemuImg, "convert", "-f", from, "-O", to, in, out).CombinedOutput()
	require.NoError(t, err, "%s", b)
	converted, err := os.ReadFile(out)
	require.NoError(t, err)
	return converted
}

// imageInfo is the format qemu-img info finds in data.
func imageInfo(t *testing.T, qemuImg string, data []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "image")
	require.NoError(t, os.WriteFile(f, data, 0o600))
	b, err := exec.Command(qemuImg, "info", "--output=json", f).Output()
	require.NoError(t, err)
	var info struct {
		Format string `json:"format"`
	}
	require.NoError(t, json.Unmarshal(b, &info))
	return info.Format
}
