package datapath

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

const (
	glanceName   = "controlplane-glance"
	glanceAPIVer = "glance.openstack.c5c3.io/v1alpha1"
	accessKey    = "GKdatapath0001"
	// secretKey holds '$' and '%': oslo.config would read "$host" as an
	// interpolation unless the renderer writes "$$", and "%2F" would become
	// "/" in anything that URL-decodes it. The S3 server checks SigV4, so a
	// mangled key fails every request.
	secretKey   = "dp$host%2F$$x%%y$"
	wrongSecret = "not-the-right-secret-0001"
	// region is the guide's (Garage's SigV4 region).
	region = "garage"

	bucket1 = "glance-images"
	bucket2 = "glance-images-2"

	// debianMetadefs is where Debian's glance-common has the metadata
	// definitions the image keeps under /var/lib/openstack.
	debianMetadefs = "/usr/share/glance-common/metadefs"
)

var (
	configPath   = glance.ConfigDir + "/" + names.ConfigFile
	backendsPath = glance.BackendsDir + "/" + names.BackendsFile
)

// TestDataPath proves the guide's "Confirm it from the data path" on a real
// glance-api: the config the hooks render starts it, GET /v2/info/stores
// lists both stores with the default flagged, images land in the right
// bucket, switching the default through the ControlPlane flips the flag and
// keeps backends.conf byte-identical, and a store with a wrong key is
// rendered (the hooks cannot know) and fails uploads with 500.
func TestDataPath(t *testing.T) {
	tl := findTools(t)
	began := time.Now()
	dir := t.TempDir()
	redact := &proc.Redactor{}
	redact.Add(secretKey)

	glanceVersion, storeVersion := versions(t, tl)
	// glance_store before 4.2 has no s3_store_region_name: it ignores the
	// rendered region and signs for us-east-1 (botocore's default with a
	// custom endpoint). versitygw refuses a signature for another region,
	// so on such a release the server runs in us-east-1 and every upload
	// below also proves the rendered region is harmlessly ignored.
	serverRegion := region
	if !atLeast(storeVersion, 4, 2) {
		serverRegion = "us-east-1"
	}
	s3 := services.StartS3(t, services.S3Options{Region: serverRegion, AccessKey: accessKey, SecretKey: secretKey,
		Buckets: []string{bucket1, bucket2}, Python: tl.python})
	require.Equal(t, http.StatusForbidden, s3.UnsignedStatus(t, bucket1), "versitygw must refuse unsigned requests")
	t.Logf("glance-api %s, glance_store %s, %s; S3 %s in region %s (rendered region %q)",
		glanceVersion, storeVersion, s3.Version(t), s3.Endpoint, serverRegion, region)

	// The guide's ControlPlane with two stores, driven through the hooks.
	c, db, jobs, glanceExtra := newGlanceCluster(t, dir, redact)
	defaultEntry := entry{name: "default", bucket: bucket1, credentials: "garage-s3-credentials", isDefault: true}
	secondary := entry{name: "secondary", bucket: bucket2, credentials: "garage-s3-credentials"}
	c.apply(controlPlane(s3.Endpoint, region, glanceExtra, defaultEntry, secondary))
	c.converge()
	require.Equal(t, "True/AllBackendsProjected", c.condition(glanceAPIVer, "Glance", glanceName, "BackendsReady"))
	require.Len(t, *jobs, 1, "one schema Job ran: %s", describe(*jobs))
	require.Empty(t, (*jobs)[0].failed, "the db sync Job: %s", (*jobs)[0].failed)
	require.Equal(t, []string{"db-sync", "load-metadefs"}, (*jobs)[0].containers)
	require.Equal(t, "True/SchemaSynced", c.condition(glanceAPIVer, "Glance", glanceName, "DatabaseReady"))
	tables := db.Tables(t, "glance")
	require.Contains(t, tables, "images", "db sync made the schema in MariaDB")
	namespaces := db.Query(t, "SELECT COUNT(*) FROM glance.metadef_namespaces")
	require.NotEqual(t, "0", namespaces[0][0], "the metadata definitions are loaded")
	t.Logf("MariaDB on %s; %s: %d tables, %s metadata definition namespaces", db.Addr(), describe(*jobs), len(tables), namespaces[0][0])

	data := func(seed uint64, n int) []byte {
		r := rand.New(rand.NewPCG(seed, seed))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	img1, img2 := data(1, 1<<20+1), data(2, 2<<20+3)
	var id1, id2 string
	var backends1 []byte
	configName1, backendsName1 := mounts(c, glanceName)

	if !t.Run("two stores, uploads land in their buckets", func(t *testing.T) {
		p := newPod(t, c, filepath.Join(dir, "pod-1"), glanceName, true)
		backends1 = p.file(t, backendsPath)
		conf := string(p.file(t, configPath))
		require.Contains(t, conf, "enabled_backends = default:s3,secondary:s3\n")
		require.Contains(t, conf, "default_backend = default\n")
		require.NotContains(t, conf, secretKey, "credentials stay out of the ConfigMap")
		require.Contains(t, string(p.file(t, glance.PasteConfig)), "[pipeline:glance-api-keystone]\n", "the paste pipeline is in the ConfigMap")
		b := string(backends1)
		require.Contains(t, b, "s3_store_secret_key = "+strings.ReplaceAll(secretKey, "$", "$$")+"\n",
			"the renderer must escape '$' as '$$'")
		require.Contains(t, b, "s3_store_bucket_url_format = path\n")
		require.Contains(t, b, "s3_store_region_name = "+region+"\n")

		p.start(t, redact)
		t.Logf("glance-api up in %s", p.started.Round(time.Millisecond))

		require.Equal(t, map[string]bool{"default": true, "secondary": false}, p.stores(t),
			"GET /v2/info/stores: both store ids, default flagged")

		id2 = uploadActive(t, p, "to-secondary", img2, "secondary", "secondary")
		id1 = uploadActive(t, p, "no-header", img1, "", "default")
		objs := s3.Objects(t, bucket1, bucket2)
		assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, objs[bucket1], "bucket %s holds the default store's image", bucket1)
		assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2)}, objs[bucket2], "bucket %s holds the secondary store's image", bucket2)
		// Reads parse the location glance_store recorded, credentials
		// included: the key survives that round trip too.
		assert.Equal(t, img1, p.download(t, id1), "download of %s", id1)
		assert.Equal(t, img2, p.download(t, id2), "download of %s", id2)
		t.Logf("glance-api stopped in %s", p.stop(t).Round(time.Millisecond))
	}) {
		return
	}

	if !t.Run("switch the default with one ControlPlane edit", func(t *testing.T) {
		defaultEntry.isDefault, secondary.isDefault = false, true
		c.apply(controlPlane(s3.Endpoint, region, glanceExtra, defaultEntry, secondary))
		c.converge()
		configName2, backendsName2 := mounts(c, glanceName)
		require.NotEqual(t, configName1, configName2, "a new config ConfigMap is rendered")
		require.Equal(t, backendsName1, backendsName2, "the backends Secret keeps its name")

		p := newPod(t, c, filepath.Join(dir, "pod-2"), glanceName, true)
		require.Equal(t, backends1, p.file(t, backendsPath), "backends.conf is byte-identical after the switch")
		require.Contains(t, string(p.file(t, configPath)), "default_backend = secondary\n")
		p.start(t, redact)
		t.Logf("glance-api up in %s on the new ConfigMap %s", p.started.Round(time.Millisecond), configName2)

		require.Equal(t, map[string]bool{"default": false, "secondary": true}, p.stores(t),
			"GET /v2/info/stores: secondary now flagged default")
		img3 := data(3, 512<<10+7)
		id3 := uploadActive(t, p, "no-header-after-switch", img3, "", "secondary")
		objs := s3.Objects(t, bucket1, bucket2)
		assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, objs[bucket1])
		assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2), id3: services.ObjectOf(img3)}, objs[bucket2])
		assert.Equal(t, img1, p.download(t, id1), "an image of the former default still downloads")
		t.Logf("glance-api stopped in %s", p.stop(t).Round(time.Millisecond))
	}) {
		return
	}

	t.Run("a store with a wrong key is rendered and fails uploads with 500", func(t *testing.T) {
		c.apply(credentialsSecret("broken-s3-credentials", accessKey, wrongSecret))
		broken := entry{name: "broken", bucket: bucket1, credentials: "broken-s3-credentials"}
		c.apply(controlPlane(s3.Endpoint, region, glanceExtra, defaultEntry, secondary, broken))
		c.converge()
		// The hooks check that the key pair is there, not that S3 accepts it.
		assert.Equal(t, "True/CredentialsAvailable", c.condition(glanceAPIVer, "GlanceBackend", glanceName+"-broken", "CredentialsReady"))
		assert.Equal(t, "True/AllBackendsProjected", c.condition(glanceAPIVer, "Glance", glanceName, "BackendsReady"))

		p := newPod(t, c, filepath.Join(dir, "pod-3"), glanceName, true)
		require.Contains(t, string(p.file(t, backendsPath)), "[broken]\n")
		p.start(t, redact) // glance-api makes no S3 call at start
		t.Logf("glance-api up in %s with the broken store", p.started.Round(time.Millisecond))
		require.Equal(t, map[string]bool{"default": false, "secondary": true, "broken": false}, p.stores(t))

		id := p.createImage(t, "to-broken")
		code, body := p.upload(t, id, data(4, 64<<10), "broken")
		require.Equal(t, http.StatusInternalServerError, code, "upload to the store with a wrong key: %s", body)
		img := p.image(t, id)
		assert.Equal(t, "queued", img.Status, "the image goes back to queued")
		assert.Empty(t, img.Stores)
		assert.Contains(t, p.proc.Log(), "(403)", "glance-api logs S3's 403 (HeadBucket Forbidden)")

		// Its siblings keep working in the same process.
		img5 := data(5, 300<<10)
		id5 := uploadActive(t, p, "to-default-beside-broken", img5, "default", "default")
		objs := s3.Objects(t, bucket1)
		assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1), id5: services.ObjectOf(img5)}, objs[bucket1],
			"nothing of the failed upload reached the bucket")
		t.Logf("glance-api stopped in %s", p.stop(t).Round(time.Millisecond))
	})
	t.Run("the Deployment's probe passes with the rendered keystone flavor", func(t *testing.T) {
		// No override of the flavor here: the rendered pipeline (flavor
		// keystone, the rendered [keystone_authtoken]) loads, the probes'
		// GET /healthcheck passes without a token, and the API refuses
		// requests without one. No Keystone is contacted.
		p := newPod(t, c, filepath.Join(dir, "pod-4"), glanceName, false)
		require.Equal(t, glance.HealthPath, p.probe)
		p.start(t, redact)
		code, body := p.call(t, http.MethodGet, glance.HealthPath, nil, nil)
		assert.Equal(t, http.StatusOK, code, "GET %s without a token: %s", glance.HealthPath, body)
		code, body = p.call(t, http.MethodGet, "/v2/info/stores", nil, nil)
		assert.Equal(t, http.StatusUnauthorized, code, "GET /v2/info/stores without a token: %s", body)
		t.Logf("glance-api (keystone flavor) up in %s, stopped in %s", p.started.Round(time.Millisecond), p.stop(t).Round(time.Millisecond))
	})
	t.Logf("whole data-path test: %s", time.Since(began).Round(time.Millisecond))
}

// newGlanceCluster starts the database as the guide's devstack makes it (a
// database and a user with every privilege on it, the user's password, with
// @ : / %, in the Secret glance-db with username and password) and a cluster
// holding that Secret, the service user's and the S3 credentials, whose
// schema Jobs run for real. glanceExtra is the ControlPlane's
// services.glance part pointing at that database (only its host and port
// point at loopback) and at Debian's metadata definitions.
func newGlanceCluster(t *testing.T, dir string, redact *proc.Redactor) (c *cluster, db *services.MariaDB, jobs *[]jobRun, glanceExtra string) {
	t.Helper()
	db = services.StartMariaDB(t)
	db.CreateDatabase(t, "glance")
	dbPassword := services.RandomSecret()
	db.CreateUser(t, "glance", dbPassword, "glance")
	redact.Add(dbPassword)

	c = newCluster(t)
	jobs = c.runJobs(t, filepath.Join(dir, "jobs"), redact)
	c.apply(credentialsSecret("garage-s3-credentials", accessKey, secretKey))
	c.apply(secret("glance-db", map[string]string{"username": "glance", "password": dbPassword}))
	c.apply(secret("glance-service-user", map[string]string{"password": "unused-without-keystone"}))
	glanceExtra = fmt.Sprintf(`database: {host: %s, port: %d, database: glance, secretRef: {name: glance-db}}
      metadefsPath: %s`, db.Host, db.Port, debianMetadefs)
	return c, db, jobs, glanceExtra
}

// uploadActive creates an image, uploads data (into store when not ""),
// and checks it ends active in the wanted store.
func uploadActive(t *testing.T, p *pod, name string, data []byte, store, want string) string {
	t.Helper()
	id := p.createImage(t, name)
	code, body := p.upload(t, id, data, store)
	require.Equal(t, http.StatusNoContent, code, "PUT /v2/images/%s/file (store %q): %s\nlast lines of glance-api's log:\n%s", id, store, body, p.proc.Tail(40))
	img := p.image(t, id)
	require.Equal(t, "active", img.Status, "image %s", name)
	require.Equal(t, want, img.Stores, "image %s stores", name)
	require.NotNil(t, img.Size)
	require.Equal(t, int64(len(data)), *img.Size)
	return id
}

// mounts reads the ConfigMap and Secret names the Deployment mounts, as the
// guide's kubectl jsonpath does.
func mounts(c *cluster, name string) (config, backends string) {
	for _, v := range c.deployment(name).Spec.Template.Spec.Volumes {
		switch {
		case v.Name == names.VolumeConfig && v.ConfigMap != nil:
			config = v.ConfigMap.Name
		case v.Name == names.VolumeBackends && v.Secret != nil:
			backends = v.Secret.SecretName
		}
	}
	return config, backends
}

// versions reports glance's and glance_store's versions as glance-api's
// interpreter sees them.
func versions(t *testing.T, tl tools) (glanceVersion, storeVersion string) {
	t.Helper()
	out, err := proc.Run(time.Minute, proc.Options{Env: proc.CleanEnv(t.TempDir()), Argv: []string{tl.python, "-c",
		"from importlib.metadata import version as v; print(v('glance'), v('glance_store'))"}})
	f := strings.Fields(out)
	if err != nil || len(f) != 2 {
		t.Fatalf("reading glance and glance_store versions: %v: %s", err, out)
	}
	return f[0], f[1]
}

// atLeast compares a dotted version with major.minor.
func atLeast(version string, major, minor int) bool {
	parts := strings.SplitN(version, ".", 3)
	ma, err1 := strconv.Atoi(parts[0])
	mi := 0
	var err2 error
	if len(parts) > 1 {
		mi, err2 = strconv.Atoi(parts[1])
	}
	if err1 != nil || err2 != nil {
		return true // unknown: assume a current release
	}
	return ma > major || (ma == major && mi >= minor)
}
