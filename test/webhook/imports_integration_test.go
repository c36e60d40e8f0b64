//go:build integration

package webhook_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/guide"
)

// TestImportBlocksOnAControlPlane: the import rules hold on a ControlPlane
// through the real API server too, named where the ControlPlane sets them;
// decompression is judged by the staging the ControlPlane writes.
func TestImportBlocksOnAControlPlane(t *testing.T) {
	s := setup(t)
	const ns = "imports"
	s.env.Namespace(t, ns)
	with := func(block string) string {
		cp := strings.Replace(inNamespace(guide.ControlPlane, ns), "      backends:\n", block+"      backends:\n", 1)
		require.NotEqual(t, inNamespace(guide.ControlPlane, ns), cp)
		return cp
	}
	s.refused(t, "CREATE ControlPlane imports/controlplane",
		`ControlPlane "controlplane": spec.services.glance.staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled: the plugin expands the staged image by a ratio the caller picks and nothing caps the result, and breaching this bound evicts the glance-api pod together with every other in-flight import on that replica, so the 10Gi default cannot be assumed to fit the largest UNPACKED image (set staging.unbounded to deliberately keep no bound instead)`,
		with("      importPlugins:\n        decompression: {}\n"), "apply", "-f", "-")
	s.refused(t, "CREATE ControlPlane imports/controlplane",
		`ControlPlane "controlplane": spec.services.glance.importPlugins.injectMetadata.properties[a:b]: property name must not contain a colon: the oslo Dict syntax splits each pair on the first colon, so the name would be silently truncated there and its remainder injected as part of the value`,
		with("      importPlugins:\n        injectMetadata:\n          properties: {\"a:b\": c}\n"), "apply", "-f", "-")
	s.accepted(t, "CREATE ControlPlane imports/controlplane",
		with("      staging: {sizeLimit: 20Gi}\n      importPlugins:\n        decompression: {}\n        conversion: {}\n"+
			"      importFiltering:\n        allowedHosts: [mirror.example.com]\n"), "apply", "-f", "-")
}
