package test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderFixture reads one output file of a render fixture.
func renderFixture(t *testing.T, name, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("fixtures", "render", name, file))
	require.NoError(t, err)
	return string(b)
}

// conditionRow finds "KIND NAME TYPE STATUS REASON" in a conditions table.
func conditionRow(kind, name, typ, status, reason string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + kind + ` +` + regexp.QuoteMeta(name) + ` +` + typ + ` +` + status + ` +` + reason + ` `)
}

// The renders of examples/ keep what the guide promises; these checks run on
// the recorded outputs, so a regenerated fixture that breaks one fails here.

func TestRenderExampleControlPlane(t *testing.T) {
	out, errs := renderFixture(t, "controlplane", "stdout"), renderFixture(t, "controlplane", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "controlplane", "exit-code"))
	for _, b := range []string{"controlplane-glance-default", "controlplane-glance-secondary"} {
		assert.Regexp(t, conditionRow("GlanceBackend", b, "Ready", "True", "AllReady"), errs)
	}
	assert.Regexp(t, conditionRow("Glance", "controlplane-glance", "BackendsReady", "True", "AllBackendsProjected"), errs)
	assert.Contains(t, out, "    enabled_backends = default:s3,secondary:s3\n")
	assert.Contains(t, out, "    default_backend = default\n")
	assert.NotContains(t, out, "example-secret-access-key-0001")
	assert.Contains(t, out, "  secret-access-key: '<redacted: 30 bytes>'\n")
}

func TestRenderExampleStandalone(t *testing.T) {
	out, errs := renderFixture(t, "standalone", "stdout"), renderFixture(t, "standalone", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "standalone", "exit-code"))
	assert.Regexp(t, conditionRow("Glance", "glance", "Ready", "True", "AllReady"), errs)
	assert.Contains(t, out, "    enabled_backends = primary:s3,secondary:s3\n")
	assert.Contains(t, out, "    default_backend = primary\n")
}

func TestRenderExampleFaultedBackend(t *testing.T) {
	out, errs := renderFixture(t, "faulted-backend", "stdout"), renderFixture(t, "faulted-backend", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "faulted-backend", "exit-code"))
	assert.Regexp(t, conditionRow("GlanceBackend", "archive", "CredentialsReady", "False", "WaitingForCredentials"), errs)
	assert.Regexp(t, conditionRow("Glance", "glance", "BackendsReady", "False", "WaitingForBackends"), errs)
	assert.Regexp(t, conditionRow("GlanceBackend", "primary", "Ready", "True", "AllReady"), errs)
	assert.Contains(t, out, "    enabled_backends = primary:s3\n", "the healthy store keeps projecting")
	assert.Contains(t, out, "reason: GlanceBackendSkipped\n", "status.backends[] reports the skipped store")
}

func TestRenderExampleSwitchDiff(t *testing.T) {
	out := renderFixture(t, "diff-switch-default", "stdout")
	assert.Equal(t, "1\n", renderFixture(t, "diff-switch-default", "exit-code"), "differences found")
	created := regexp.MustCompile(`(?m)^created +ConfigMap +openstack/controlplane-glance-config-([0-9a-f]{10})  \(replaces controlplane-glance-config-([0-9a-f]{10})\)$`).FindStringSubmatch(out)
	require.NotNil(t, created, "a new config ConfigMap replaces the old one:\n%s", out)
	assert.NotEqual(t, created[1], created[2])
	assert.Regexp(t, `(?m)^deleted +ConfigMap +openstack/controlplane-glance-config-`+created[2]+`$`, out)
	assert.Regexp(t, `(?m)^unchanged +Secret +openstack/controlplane-glance-backends-[0-9a-f]{10}$`, out, "the backends Secret keeps its name")
	assert.Regexp(t, `(?m)^changed +Deployment +openstack/controlplane-glance$`, out)
	assert.Contains(t, out, "Glance openstack/controlplane-glance: pods roll: the pod template changed (volume config: controlplane-glance-config-"+created[2]+" -> controlplane-glance-config-"+created[1]+")\n")
	assert.Contains(t, out, "-    default_backend = default\n+    default_backend = secondary\n")
	assert.False(t, strings.Contains(out, "example-secret-access-key"), "no credential in the diff")

	// The switched example rendered on its own mounts the same new ConfigMap.
	assert.Contains(t, renderFixture(t, "controlplane-switched", "stdout"), "name: controlplane-glance-config-"+created[1]+"\n")
}

func TestRenderRefusalsCarryTheAdmissionMessage(t *testing.T) {
	assert.Equal(t, "4\n", renderFixture(t, "refused-sibling-default", "exit-code"))
	assert.Equal(t, "glance-hooks render: test/fixtures/render/refused-sibling-default/input/20-secondary.yaml:2: GlanceBackend openstack/secondary refused by admission: "+
		`GlanceBackend "primary" attached to the same Glance "glance" is already marked isDefault; exactly one default store is allowed`+"\n",
		renderFixture(t, "refused-sibling-default", "stderr"))
	assert.Empty(t, renderFixture(t, "refused-sibling-default", "stdout"))
	assert.Contains(t, renderFixture(t, "refused-two-defaults", "stderr"), "exactly one backends entry must set isDefault")
}

// TestRenderFixturesHoldNoCredential: no render output carries a credential
// of the inputs, in the clear or base64-encoded.
func TestRenderFixturesHoldNoCredential(t *testing.T) {
	secrets := []string{"GKexampleaccesskey0001", "GKexampleaccesskey0002", "example-secret-access-key-0001"}
	outputs, err := filepath.Glob(filepath.Join("fixtures", "render", "*", "std*"))
	require.NoError(t, err)
	require.NotEmpty(t, outputs)
	for _, f := range outputs {
		if filepath.Base(f) == "stdin" {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, s := range secrets {
			assert.NotContains(t, string(b), s, f)
			assert.NotContains(t, string(b), base64.StdEncoding.EncodeToString([]byte(s)), f)
		}
	}
}

// The README offers directories: examples/ renders as one input, the Secret
// given in several of its files read once.
func TestRenderExamplesDirectory(t *testing.T) {
	out, errs := renderFixture(t, "examples-dir", "stdout"), renderFixture(t, "examples-dir", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "examples-dir", "exit-code"), errs)
	assert.Equal(t, 1, strings.Count(out, "  name: garage-s3-credentials\n  namespace: openstack\n"), "the shared credentials Secret is one object")
	for _, parent := range []string{"openstack/controlplane", "openstack/glance", "faulted/glance"} {
		assert.Regexp(t, `(?m)^(ControlPlane|Glance) +`+regexp.QuoteMeta(parent)+` +Ready `, errs)
	}
	assert.Equal(t, "7\n", renderFixture(t, "check-not-ready", "exit-code"), "--check fails on the faulted example")
}

func TestRenderExamplePrivateCA(t *testing.T) {
	out, errs := renderFixture(t, "private-ca", "stdout"), renderFixture(t, "private-ca", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "private-ca", "exit-code"))
	assert.Regexp(t, conditionRow("Glance", "glance", "Ready", "True", "AllReady"), errs)
	assert.Regexp(t, conditionRow("GlanceBackend", "internal", "CABundleReady", "True", "CABundleAvailable"), errs)
	assert.Regexp(t, conditionRow("GlanceBackend", "public", "CABundleReady", "True", "NoCABundle"), errs)
	assert.Contains(t, errs, `holds 1 certificate: "CN=Example Storage CA,O=Example"`)
	assert.Contains(t, out, "        - mountPath: /etc/glance/s3-ca/internal\n")
	assert.Regexp(t, `glance.openstack.c5c3.io/ca-bundles: internal=sha256:[0-9a-f]{64}\n`, out)
	assert.NotContains(t, out, "AWS_CA_BUNDLE", "2025.2 reads the bundle per store")
}

// TestRenderExampleReference: the reference API's example Glance renders
// Ready under --check, with its three replicas and the service user's
// defaulted names.
func TestRenderExampleReference(t *testing.T) {
	out, errs := renderFixture(t, "reference-example", "stdout"), renderFixture(t, "reference-example", "stderr")
	assert.Equal(t, "0\n", renderFixture(t, "reference-example", "exit-code"))
	assert.Regexp(t, conditionRow("Glance", "glance", "Ready", "True", "AllReady"), errs)
	assert.Contains(t, out, "  replicas: 3\n")
	assert.Contains(t, out, "    username = glance\n    project_name = service\n")
	assert.Contains(t, out, "    memcached_servers = openstack-memcached.openstack.svc.cluster.local:11211\n")
}
