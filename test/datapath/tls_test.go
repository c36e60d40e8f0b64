package datapath

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/services"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// zed is the release of Debian 12's glance (25.1) and glance_store (4.1),
// which has no s3_store_cacert: the hooks render the Glance as that release,
// so what runs here is the config such a release gets.
const zed = "2022.2"

// privateCA proves an S3 store behind https:// with a private CA on a real
// glance-api: versitygw serves a certificate a test CA issued, the
// ControlPlane's entries name a ConfigMap holding that CA, and glance-api
// from the rendered Deployment uploads to and downloads from both stores.
// glance_store 4.1 has no s3_store_cacert, so this is the process-wide path:
// the bundle reaches botocore as AWS_CA_BUNDLE (the per-store option is
// rendered too, and ignored by this release). Then the ConfigMaps get
// another CA: the pod rolls (new digest), and uploads fail with the
// certificate error the troubleshooting row (docs/troubleshooting.md) names.
func privateCA(t *testing.T, svc *glancestack.Services) {
	began := time.Now()
	ca, err := testcert.NewCA("Storage CA")
	require.NoError(t, err)
	leaf, err := ca.Issue("127.0.0.1", "127.0.0.1")
	require.NoError(t, err)
	other, err := testcert.NewCA("Other CA")
	require.NoError(t, err)

	// Two stores on the https:// server, each naming a ConfigMap with the
	// CA: with one process-wide bundle they must hold the same content.
	backends := glancestack.GuideBackends(false)
	backends[0].CABundle, backends[1].CABundle = "storage-ca", "storage-ca-copy"
	st := glancestack.New(t, svc, glancestack.Options{Release: zed, Database: "glance_tls", Backends: backends,
		S3: services.S3Options{TLS: &services.S3TLS{CertPEM: leaf.CertPEM, KeyPEM: leaf.KeyPEM, CAPEM: ca.CertPEM}}})
	require.False(t, st.Versions.ReadsS3StoreCACert(),
		"glance_store %s may read s3_store_cacert; this test proves the path of a glance_store without it", st.Versions.GlanceStore)
	require.True(t, strings.HasPrefix(st.S3.Endpoint, "https://"), st.S3.Endpoint)
	t.Logf("glance %s, glance_store %s; %s at %s", st.Versions.Glance, st.Versions.GlanceStore, st.S3.Version(t), st.S3.Endpoint)
	setCA := func(pem []byte) {
		for _, b := range backends {
			st.ApplyConfigMap(t, b.CABundle, map[string]string{api.DefaultCABundleKey: string(pem)})
		}
	}
	setCA(ca.CertPEM)
	st.Reconcile(t)
	defaultBackend := names.BackendName(glancestack.ControlPlaneName, "default")
	require.Equal(t, "True/AllBackendsProjected", st.Condition(t, api.KindGlance, st.Glance, "BackendsReady"))
	require.Equal(t, "True/CABundleAvailable", st.Condition(t, api.KindGlanceBackend, defaultBackend, names.ConditionCABundleReady))
	jobs := st.Jobs()
	require.Len(t, jobs, 1, "one schema Job")
	require.True(t, jobs[0].Succeeded(), "the db sync Job succeeded")

	// What the pod reads: the ConfigMap's key at the store's path, the
	// per-store option in backends.conf, AWS_CA_BUNDLE naming the file.
	p := onlyPod(t, st)
	require.Equal(t, glance.Eventlet, p.Mode, "release %s runs the eventlet server", zed)
	tpl := st.Deployment(t).Spec.Template
	digests := tpl.Annotations[names.AnnotationCABundles]
	require.Regexp(t, `^default=sha256:[0-9a-f]{64},secondary=sha256:[0-9a-f]{64}$`, digests)
	var caEnv []string
	for _, ctr := range tpl.Spec.Containers {
		for _, e := range ctr.Env {
			if e.Name == glance.EnvCABundle {
				caEnv = append(caEnv, ctr.Name+" "+e.Value)
			}
		}
	}
	assert.Equal(t, []string{glance.ContainerName + " " + names.CABundlePath("default")}, caEnv,
		"the process-wide bundle of a release without s3_store_cacert")
	onDisk, err := p.HostPath(p.Container, names.CABundlePath("default"))
	require.NoError(t, err)
	mounted, err := os.ReadFile(onDisk)
	require.NoError(t, err)
	assert.Equal(t, ca.CertPEM, mounted, "the ConfigMap's key is mounted at the store's path")
	_, sec := st.Mounts(t)
	assert.Contains(t, st.SecretData(t, sec)[names.BackendsFile], "s3_store_cacert = "+names.CABundlePath("default")+"\n")

	c := st.Client(t, p)
	img1, img2 := randomBytes(11, 900<<10+5), randomBytes(12, 100<<10)
	id1 := c.UploadActive(t, "tls-default", img1, "", "default")
	id2 := c.UploadActive(t, "tls-secondary", img2, "secondary", "secondary")
	objs := st.S3.Objects(t, glancestack.Bucket1, glancestack.Bucket2)
	assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, objs[glancestack.Bucket1])
	assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2)}, objs[glancestack.Bucket2])
	assert.Equal(t, img1, c.Download(t, id1), "download of %s", id1)
	assert.Equal(t, img2, c.Download(t, id2), "download of %s", id2)

	// Another CA in both ConfigMaps: the hooks cannot know which CA signed
	// the server's certificate; they name the bundle's subjects, which is
	// what to compare, and the new digests roll the pod.
	st.TakeEvents()
	setCA(other.CertPEM)
	st.Reconcile(t)
	assert.Equal(t, "True/CABundleAvailable", st.Condition(t, api.KindGlanceBackend, defaultBackend, names.ConditionCABundleReady))
	assert.Contains(t, fmt.Sprint(st.Get(t, api.GlanceAPIVersion, api.KindGlanceBackend, defaultBackend)["status"]), `holds 1 certificate: "CN=Other CA"`)
	assert.NotEqual(t, digests, st.Deployment(t).Spec.Template.Annotations[names.AnnotationCABundles],
		"the new content is in the pod template")
	assertRolled(t, st.TakeEvents(), p, glance.Eventlet)

	wrongCAUpload(t, st, "tls-wrong-ca", 13)
	assertStopped(t, st.StopPods(t))
	t.Logf("private CA: %s", time.Since(began).Round(time.Millisecond))
}

// wrongCAUpload uploads image name (its bytes from seed) to the default
// store through the stack's one pod, whose store trusts a CA that did not
// sign its S3 server's certificate: a 500, the image stays queued, and
// glance-api logs botocore's certificate error. It returns the pod's
// client.
func wrongCAUpload(t *testing.T, st *glancestack.Stack, name string, seed uint64) *glancestack.Client {
	p := onlyPod(t, st)
	c := st.Client(t, p)
	id := c.CreateImage(t, name)
	code, body := c.Upload(t, id, randomBytes(seed, 4096), "default")
	require.Equal(t, http.StatusInternalServerError, code, "upload verified with the wrong CA: %s", body)
	assert.Equal(t, "queued", c.Image(t, id).Status)
	log := p.Logs(p.Container)
	assert.Contains(t, log, "certificate verify failed", "glance-api logs botocore's TLS failure")
	t.Logf("glance-api's log: %s", lineWith(log, "certificate verify failed"))
	return c
}

// lineWith is the first line of s containing sub, cut to 400 bytes.
func lineWith(s, sub string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return line[:min(len(line), 400)]
		}
	}
	return ""
}

// perStoreCA proves the per-store path on a glance_store that reads
// s3_store_cacert (o's system, rendered for its release): the two stores
// are on two https:// S3 servers whose certificates two private CAs issued,
// each store's ConfigMap holds its own CA, and no process-wide bundle is
// set, which could trust only one of them. Both stores take and give back
// images. Then the default store's ConfigMap gets the other store's CA:
// the pod rolls, an upload to that store fails with the certificate error,
// and the other store still takes images.
func perStoreCA(t *testing.T, svc *glancestack.Services, o glancestack.Options) {
	began := time.Now()
	var cas [2]testcert.CA
	var leaves [2]testcert.Pair
	for i, name := range []string{"Storage CA A", "Storage CA B"} {
		ca, err := testcert.NewCA(name)
		require.NoError(t, err)
		leaf, err := ca.Issue("127.0.0.1", "127.0.0.1")
		require.NoError(t, err)
		cas[i], leaves[i] = ca, leaf
	}
	keys := glancestack.S3Defaults(services.S3Options{}, glancestack.VersionsIn(t, o.Pods.Root))
	second := keys
	second.Buckets = []string{glancestack.Bucket2}
	second.TLS = &services.S3TLS{CertPEM: leaves[1].CertPEM, KeyPEM: leaves[1].KeyPEM, CAPEM: cas[1].CertPEM}
	s3b := services.StartS3(t, second)
	o.S3 = keys
	o.S3.Buckets = []string{glancestack.Bucket1}
	o.S3.TLS = &services.S3TLS{CertPEM: leaves[0].CertPEM, KeyPEM: leaves[0].KeyPEM, CAPEM: cas[0].CertPEM}
	o.Backends = glancestack.GuideBackends(false)
	o.Backends[0].CABundle, o.Backends[1].CABundle = "storage-ca-a", "storage-ca-b"
	o.Backends[1].Endpoint = s3b.Endpoint
	st := glancestack.New(t, svc, o)
	require.True(t, st.Versions.ReadsS3StoreCACert(), "glance_store %s reads s3_store_cacert", st.Versions.GlanceStore)
	require.True(t, strings.HasPrefix(st.S3.Endpoint, "https://") && strings.HasPrefix(s3b.Endpoint, "https://"), "%s %s", st.S3.Endpoint, s3b.Endpoint)
	setCA := func(configMap string, ca testcert.CA) {
		st.ApplyConfigMap(t, configMap, map[string]string{api.DefaultCABundleKey: string(ca.CertPEM)})
	}
	setCA("storage-ca-a", cas[0])
	setCA("storage-ca-b", cas[1])
	st.Reconcile(t)
	require.Equal(t, "True/AllBackendsProjected", st.Condition(t, api.KindGlance, st.Glance, "BackendsReady"))

	p := onlyPod(t, st)
	for _, ctr := range st.Deployment(t).Spec.Template.Spec.Containers {
		for _, e := range ctr.Env {
			assert.NotEqual(t, glance.EnvCABundle, e.Name, "container %s: no process-wide bundle where each store has its own", ctr.Name)
		}
	}
	_, sec := st.Mounts(t)
	conf := st.SecretData(t, sec)[names.BackendsFile]
	for _, store := range []string{"default", "secondary"} {
		assert.Contains(t, conf, "s3_store_cacert = "+names.CABundlePath(store)+"\n")
	}

	c := st.Client(t, p)
	img1, img2 := randomBytes(14, 700<<10+3), randomBytes(15, 200<<10+1)
	id1 := c.UploadActive(t, "ca-a", img1, "default", "default")
	id2 := c.UploadActive(t, "ca-b", img2, "secondary", "secondary")
	assert.Equal(t, map[string]services.S3Object{id1: services.ObjectOf(img1)}, st.S3.Objects(t, glancestack.Bucket1)[glancestack.Bucket1])
	assert.Equal(t, map[string]services.S3Object{id2: services.ObjectOf(img2)}, s3b.Objects(t, glancestack.Bucket2)[glancestack.Bucket2])
	assert.Equal(t, img1, c.Download(t, id1), "download of %s", id1)
	assert.Equal(t, img2, c.Download(t, id2), "download of %s", id2)

	// The default store is told to trust B's CA, which did not sign its
	// server's certificate: only that store fails.
	st.TakeEvents()
	setCA("storage-ca-a", cas[1])
	st.Reconcile(t)
	assertRolled(t, st.TakeEvents(), p, launchModeOf(t, o.Release))
	c = wrongCAUpload(t, st, "ca-a-wrong", 16)
	img3 := randomBytes(17, 300<<10)
	id3 := c.UploadActive(t, "ca-b-still", img3, "secondary", "secondary")
	assert.Equal(t, img3, c.Download(t, id3), "the other store is unaffected")
	assertStopped(t, st.StopPods(t))
	t.Logf("per-store CA: %s", time.Since(began).Round(time.Millisecond))
}
