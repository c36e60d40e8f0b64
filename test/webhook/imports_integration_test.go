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
		`ControlPlane "controlplane": spec.services.glance.importPlugins.decompression needs staging.sizeLimit (sized for the largest unpacked image) or staging.unbounded: an archive unpacks in the staging area with no bound but that`,
		with("      importPlugins:\n        decompression: {}\n"), "apply", "-f", "-")
	s.refused(t, "CREATE ControlPlane imports/controlplane",
		`ControlPlane "controlplane": spec.services.glance.importPlugins.injectMetadata.properties[a:b]: the property name contains ':': each pair is split at its first ':', so the name would end there`,
		with("      importPlugins:\n        injectMetadata:\n          properties: {\"a:b\": c}\n"), "apply", "-f", "-")
	s.accepted(t, "CREATE ControlPlane imports/controlplane",
		with("      staging: {sizeLimit: 20Gi}\n      importPlugins:\n        decompression: {}\n        conversion: {}\n"+
			"      importFiltering:\n        allowedHosts: [mirror.example.com]\n"), "apply", "-f", "-")
}
