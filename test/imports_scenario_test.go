package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// importBlocks sets every block of the image import: plugins (all three),
// a pinned filter and a staging bound.
const importBlocks = `  staging: {sizeLimit: 40Gi}
  importMethods: [glance-direct, web-download, copy-image]
  importPlugins:
    decompression: {}
    conversion: {outputFormat: qcow2}
    injectMetadata:
      properties: {provenance: "https://images.example.com:8443/catalog", hw_disk_bus: scsi}
      ignoreUserRoles: [admin, image-publisher]
  importFiltering:
    allowedHosts: [images.example.com, 10.20.0.5]
    allowedPorts: [443, 8443]
`

// mountedConfig is glance-api.conf of the ConfigMap the Glance's
// Deployment mounts.
func mountedConfig(t *testing.T, s *scenario) string {
	cfg, _ := mounts(s.get("Deployment", "glance"))
	return configText(t, s.get("ConfigMap", cfg))
}

// TestImportBlocksScenario: a standalone Glance with every import block
// converges with them in its config; taking the blocks out rolls back to
// the default filter and no plugin, in a new config.
func TestImportBlocksScenario(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + importBlocks + "---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	require.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	conf := mountedConfig(t, s)
	for _, line := range []string{
		"enabled_import_methods = [glance-direct,web-download,copy-image]\n",
		"[import_filtering_opts]\nallowed_schemes = [https]\ndisallowed_schemes = []\nallowed_hosts = [images.example.com,10.20.0.5]\n" +
			"disallowed_hosts = []\nallowed_ports = [443,8443]\ndisallowed_ports = []\n",
		"[image_import_opts]\nimage_import_plugins = [image_decompression,image_conversion,inject_image_metadata]\n",
		"[image_conversion]\noutput_format = qcow2\n",
		"[inject_metadata_properties]\ninject = hw_disk_bus:scsi,provenance:https://images.example.com:8443/catalog\nignore_user_roles = admin,image-publisher\n",
		"[task]\nwork_dir = /var/lib/glance/tasks\n",
	} {
		assert.Contains(t, conf, line)
	}
	with := mountedConfig(t, s)

	s.apply(credentials + "\n---\n" + standaloneGlance)
	s.converge()
	conf = mountedConfig(t, s)
	assert.NotEqual(t, with, conf, "a new config without the blocks")
	assert.Contains(t, conf, "[image_import_opts]\nimage_import_plugins = []\n", "no plugin, said explicitly")
	assert.NotContains(t, conf, "[image_conversion]")
	assert.NotContains(t, conf, "[inject_metadata_properties]")
	assert.Contains(t, conf, "allowed_schemes = [https]\ndisallowed_schemes = []\nallowed_hosts = []\n"+
		"disallowed_hosts = [localhost,127.0.0.1,0.0.0.0,::1,169.254.169.254,kubernetes,kubernetes.default,kubernetes.default.svc,kubernetes.default.svc.cluster.local]\n"+
		"allowed_ports = [443]\ndisallowed_ports = []\n", "the default filter")
}

// The captured /sync/glance fixture of the import blocks (see capture_test.go).
func init() {
	capturedGlanceCases = append(capturedGlanceCases,
		capturedCase{"import-plugins-and-filter", `
A standalone Glance with every block of the image import set: spec.importPlugins
enables decompression, conversion to qcow2 and the injection of two
properties (rendered sorted by name, admin and image-publisher left alone),
spec.importFiltering pins web-download to two hosts on ports 443 and 8443
(the scheme stays https, and the host deny list is empty because Glance
ignores it beside an allow list), and spec.staging bounds the staging and
tasks areas at 40Gi each, which decompression asks for.`,
			func(s *scenario) string {
				s.apply(credentials + "\n---\n" + standaloneGlance + importBlocks + "---\n" +
					standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
				s.converge()
				return "glance"
			}})
}
