package datapath

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/internal/testcert"
	"github.com/c5c3/glance-hooks/test/proc"
	"github.com/c5c3/glance-hooks/test/services"
)

// zed is the release of Debian 12's glance (25.1) and glance_store (4.1),
// which has no s3_store_cacert: the hooks render the Glance as that release,
// so what runs here is the config such a release gets.
const zed = "2022.2"

// TestDataPathPrivateCA proves an S3 store behind https:// with a private CA
// on a real glance-api: versitygw serves a certificate a test CA issued, the
// ControlPlane's entries name a ConfigMap holding that CA, and glance-api
// from the rendered Deployment uploads to and downloads from both stores.
// glance_store 4.1 has no s3_store_cacert, so this is the process-wide path:
// the bundle reaches botocore as AWS_CA_BUNDLE (the per-store option is
// rendered too, and ignored by this release). Then the ConfigMaps get
// another CA: the pods roll (new digest), and uploads fail with the
// certificate error the README's troubleshooting row names.
func TestDataPathPrivateCA(t *testing.T) {
	tl := findTools(t)
	dir := t.TempDir()
	redact := &proc.Redactor{}
	redact.Add(secretKey)

	glanceVersion, storeVersion := versions(t, tl)
	require.False(t, atLeast(storeVersion, 4, 7),
		"glance_store %s may read s3_store_cacert; this test proves the path of a glance_store without it", storeVersion)
	serverRegion := region
	if !atLeast(storeVersion, 4, 2) {
		serverRegion = "us-east-1"
	}
	ca, err := testcert.NewCA("Storage CA")
	require.NoError(t, err)
	leaf, err := ca.Issue("127.0.0.1", "127.0.0.1")
	require.NoError(t, err)
	other, err := testcert.NewCA("Other CA")
	require.NoError(t, err)
	s3 := services.StartS3(t, services.S3Options{Region: serverRegion, AccessKey: accessKey, SecretKey: secretKey,
		Buckets: []string{bucket1, bucket2}, Python: tl.python,
		TLS: &services.S3TLS{CertPEM: leaf.CertPEM, KeyPEM: leaf.KeyPEM, CAPEM: ca.CertPEM}})
	t.Logf("glance-api %s, glance_store %s, %s at %s", glanceVersion, storeVersion, s3.Version(t), s3.Endpoint)

	// Two stores on the https:// server, each naming a ConfigMap with the
	// CA: with one process-wide bundle they must hold the same content.
	c, _, jobs, glanceExtra := newGlanceCluster(t, dir, redact)
	c.apply(configMap("storage-ca", map[string]string{"ca.crt": string(ca.CertPEM)}))
	c.apply(configMap("storage-ca-copy", map[string]string{"ca.crt": string(ca.CertPEM)}))
	cp := func() string {
		doc := controlPlane(s3.Endpoint, region, glanceExtra,
			entry{name: "default", bucket: bucket1, credentials: "garage-s3-credentials", isDefault: true, caBundle: "storage-ca"},
			entry{name: "secondary", bucket: bucket2, credentials: "garage-s3-credentials", caBundle: "storage-ca-copy"})
		return strings.Replace(doc, "spec:\n  services:", "spec:\n  openStackRelease: \""+zed+"\"\n  services:", 1)
	}
	c.apply(cp())
	c.converge()
	require.Equal(t, "True/AllBackendsProjected", c.condition(glanceAPIVer, "Glance", glanceName, "BackendsReady"))
	require.Equal(t, "True/CABundleAvailable", c.condition(glanceAPIVer, "GlanceBackend", glanceName+"-default", "CABundleReady"))
	require.Len(t, *jobs, 1, "one schema Job ran: %s", describe(*jobs))
	require.Empty(t, (*jobs)[0].failed, "the db sync Job: %s", (*jobs)[0].failed)

	img := []byte(strings.Repeat("private CA image data ", 40000))
	var digests string
	if !t.Run("uploads and downloads through TLS verified with the mounted bundle", func(t *testing.T) {
		d := c.deployment(glanceName)
		digests = d.Spec.Template.Annotations[names.AnnotationCABundles]
		require.Regexp(t, `^default=sha256:[0-9a-f]{64},secondary=sha256:[0-9a-f]{64}$`, digests)
		p := newPod(t, c, filepath.Join(dir, "pod-1"), glanceName, true)
		assert.Equal(t, ca.CertPEM, p.file(t, names.CABundlePath("default")), "the ConfigMap's key is mounted at the store's path")
		assert.Contains(t, string(p.file(t, backendsPath)), "s3_store_cacert = "+names.CABundlePath("default")+"\n")
		require.Contains(t, p.env, "AWS_CA_BUNDLE="+p.mounted[names.CABundlePath("default")], "the process-wide bundle of a release without s3_store_cacert")
		p.start(t, redact)
		t.Logf("glance-api up in %s", p.started.Round(time.Millisecond))

		id1 := uploadActive(t, p, "tls-default", img, "", "default")
		id2 := uploadActive(t, p, "tls-secondary", img[:100000], "secondary", "secondary")
		objs := s3.Objects(t, bucket1, bucket2)
		assert.Equal(t, services.ObjectOf(img), objs[bucket1][id1])
		assert.Equal(t, services.ObjectOf(img[:100000]), objs[bucket2][id2])
		assert.Equal(t, img, p.download(t, id1))
		assert.Equal(t, img[:100000], p.download(t, id2))
		t.Logf("glance-api stopped in %s", p.stop(t).Round(time.Millisecond))
	}) {
		return
	}

	t.Run("a wrong CA rolls the pods and fails uploads with a certificate error", func(t *testing.T) {
		c.apply(configMap("storage-ca", map[string]string{"ca.crt": string(other.CertPEM)}))
		c.apply(configMap("storage-ca-copy", map[string]string{"ca.crt": string(other.CertPEM)}))
		c.converge()
		// The hooks cannot know which CA signed the server's certificate;
		// they name the bundle's subjects, which is what to compare.
		backend := c.get(glanceAPIVer, "GlanceBackend", glanceName+"-default")
		assert.Equal(t, "True/CABundleAvailable", c.condition(glanceAPIVer, "GlanceBackend", glanceName+"-default", "CABundleReady"))
		assert.Contains(t, fmt.Sprint(backend["status"]), `holds 1 certificate: "CN=Other CA"`)
		assert.NotEqual(t, digests, c.deployment(glanceName).Spec.Template.Annotations[names.AnnotationCABundles],
			"the new content is in the pod template: the pods roll")

		p := newPod(t, c, filepath.Join(dir, "pod-2"), glanceName, true)
		p.start(t, redact) // glance-api makes no S3 call at start
		id := p.createImage(t, "tls-wrong-ca")
		code, body := p.upload(t, id, img[:4096], "default")
		require.Equal(t, http.StatusInternalServerError, code, "upload verified with the wrong CA: %s", body)
		assert.Equal(t, "queued", p.image(t, id).Status)
		log := p.proc.Log()
		assert.Contains(t, log, "certificate verify failed", "glance-api logs botocore's TLS failure")
		t.Logf("glance-api's log: %s", lineWith(log, "certificate verify failed"))
		t.Logf("glance-api stopped in %s", p.stop(t).Round(time.Millisecond))
	})
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
