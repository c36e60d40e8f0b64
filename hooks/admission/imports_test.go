package admission

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// glanceDirectDecompression is the warning of decompression beside
// glance-direct, after the path.
const glanceDirectDecompression = " does not work alone with glance-direct: staging records the packed size on the image, the plugin does not correct it, and the import fails Glance's size check unless a conversion rewrites the image; web-download imports are unpacked"

// The reference's warnings of the import filter, as its webhook words
// them: widened(path, set, default) and inert(deny, allow, default).
func widened(at, set, def string) string {
	return at + " is set to " + set + ", widening the operator default " + def + ". The scheme and port pin is the primary web-download control — " +
		"the link-local metadata endpoint answers on http/80 — and once widened only the host denylist remains, which matches literally: " +
		"alternate spellings of the same address (an integer or IPv4-mapped form, a raw ClusterIP, a trailing-dot FQDN) are not covered. " +
		"Confine the reachable endpoints with spec.networkPolicy.additionalEgress, or pin allowedHosts to the mirrors imports are supposed to use."
}

func inert(deny, allow, def string) string {
	return deny + " is set while " + allow + " is unset and therefore resolves to the operator default " + def + ". " +
		"Glance evaluates a deny-list only while the matching allow-list is empty, so this list is inert; set " + allow +
		" to an explicitly empty list ([]) to make the deny-list authoritative."
}

// TestImportBlocks: what spec.importPlugins and spec.importFiltering admit,
// refuse and warn of, on a Glance.
func TestImportBlocks(t *testing.T) {
	cases := map[string]struct {
		reason   string
		set      map[string]any
		refused  string   // "" allowed
		warnings []string // when allowed
	}{
		"every plugin": {reason: "decompression with a staging bound, conversion, injection with roles",
			set: map[string]any{"staging.sizeLimit": "20Gi", "importPlugins": map[string]any{"decompression": map[string]any{}, "conversion": map[string]any{"outputFormat": "qcow2"},
				"injectMetadata": map[string]any{"properties": map[string]any{"vendor": "https://example.com:8443/x", "b": ""}, "ignoreUserRoles": []any{"admin", "reader"}}}},
			warnings: []string{"spec.importPlugins.decompression" + glanceDirectDecompression}},
		"decompression with unbounded staging": {reason: "unbounded is the acknowledgement too",
			set: map[string]any{"staging.unbounded": true, "importPlugins.decompression": map[string]any{}, "importMethods": []any{"web-download"}}},
		"decompression with a claim only": {reason: "a claim alone leaves the size to the default",
			set:     map[string]any{"staging.volumeClaim.storageClassName": "fast", "importPlugins.decompression": map[string]any{}},
			refused: "spec.staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled"},
		"empty property map": {reason: "the plugin with nothing to inject does nothing",
			set:     map[string]any{"importPlugins.injectMetadata.properties": map[string]any{}},
			refused: "spec.importPlugins.injectMetadata.properties: at least one property must be set: the inject_image_metadata plugin has nothing to inject otherwise"},
		"canonical address": {reason: "Glance canonicalizes the URI's host before it looks it up",
			set:     map[string]any{"importFiltering.disallowedHosts": []any{"0:0::1"}},
			refused: "spec.importFiltering.disallowedHosts[0] is an IP address not in its canonical form"},
		"port zero": {reason: "not a port",
			set:     map[string]any{"importFiltering.allowedPorts": []any{0}},
			refused: "spec.importFiltering.allowedPorts[0]: port must be between 1 and 65535"},
		"pinned mirror": {reason: "an allow list of hosts with the https pin is the tightest filter",
			set: map[string]any{"importFiltering.allowedHosts": []any{"mirror.example.com", "10.0.0.7"}}},
		"empty allow lists": {reason: "an empty allow list opts out of the default; the deny lists then apply",
			set:      map[string]any{"importFiltering": map[string]any{"allowedSchemes": []any{}, "disallowedSchemes": []any{"http"}, "allowedPorts": []any{}, "disallowedPorts": []any{22}}},
			warnings: []string{widened("spec.importFiltering.allowedSchemes", "[]", "[https]"), widened("spec.importFiltering.allowedPorts", "[]", "[443]")}},
		"inert deny list": {reason: "a deny list beside a defaulted allow list is never read",
			set:      map[string]any{"importFiltering.disallowedSchemes": []any{"http"}},
			warnings: []string{inert("spec.importFiltering.disallowedSchemes", "spec.importFiltering.allowedSchemes", "[https]")}},
		"empty deny list": {reason: "an empty deny list denies nothing, so nothing is inert",
			set: map[string]any{"importFiltering.disallowedPorts": []any{}}},
		"default written out": {reason: "an allow list equal to the default widens nothing",
			set: map[string]any{"importFiltering": map[string]any{"allowedSchemes": []any{"https"}, "allowedPorts": []any{443}}}},
		"every import part at once": {reason: "one refusal names the import parts' problems in the parts' order: imports, uri-filter, import-plugins (its rule on the spec as written last)",
			set: map[string]any{"importMethods": []any{"copy-image", "copy-image"}, "importFiltering.allowedPorts": []any{0},
				"importPlugins": map[string]any{"decompression": map[string]any{}, "conversion": map[string]any{"outputFormat": "iso"}}},
			refused: "spec.importMethods[1] is given twice; spec.importFiltering.allowedPorts[0]: port must be between 1 and 65535; spec.importPlugins.conversion.outputFormat: Unsupported value: supported values: \"qcow2\", \"raw\", \"vmdk\"; spec.staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled"},
		"plain http with named hosts": {reason: "the reference warns of a widened list even beside pinned hosts, each list on its own",
			set:      map[string]any{"importFiltering": map[string]any{"allowedSchemes": []any{"http", "https"}, "allowedPorts": []any{443, 8080}, "allowedHosts": []any{"mirror.example.com"}}},
			warnings: []string{widened("spec.importFiltering.allowedSchemes", "[http https]", "[https]"), widened("spec.importFiltering.allowedPorts", "[443 8080]", "[443]")}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(validGlance), &obj))
			refrules.Rule{Set: c.set}.Apply(obj)
			raw, err := json.Marshal(obj)
			require.NoError(t, err)
			resp, msg := reviewRaw(t, api.KindGlance, raw)
			if c.refused != "" {
				require.False(t, resp.allowed, c.reason)
				assert.Contains(t, msg, c.refused, c.reason)
				return
			}
			require.True(t, resp.allowed, "%s: %s", c.reason, msg)
			assert.Equal(t, c.warnings, resp.warnings, c.reason)
		})
	}
}

// TestImportBlocksOnAControlPlane: the same rules under
// spec.services.glance, decompression judged by the staging the
// ControlPlane writes (its Glance child gets the default size spelled out).
func TestImportBlocksOnAControlPlane(t *testing.T) {
	const head = `{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack"},"spec":{"services":{"glance":{` +
		`"backends":[{"name":"default","type":"S3","isDefault":true,"s3":{"endpoint":"http://s3:3900","bucket":"b","credentialsSecretRef":{"name":"c"}}}]`
	cases := map[string]struct {
		reason, glance string
		refused        string
		warnings       []string
	}{
		"decompression without staging": {reason: "the staging bound is asked for where it is written",
			glance: `,"importPlugins":{"decompression":{}}`, refused: "spec.services.glance.staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled"},
		"decompression with staging": {reason: "and taken with it, with a warning for glance-direct, a default import method",
			glance:   `,"staging":{"sizeLimit":"50Gi"},"importPlugins":{"decompression":{},"conversion":{}}`,
			warnings: []string{"spec.services.glance.importPlugins.decompression" + glanceDirectDecompression}},
		"colon in a property name": {reason: "Glance splits each pair at its first colon",
			glance:  `,"importPlugins":{"injectMetadata":{"properties":{"a:b":"c"}}}`,
			refused: "spec.services.glance.importPlugins.injectMetadata.properties[a:b]: property name must not contain a colon"},
		"both host lists": {reason: "Glance would ignore the deny half",
			glance:  `,"importFiltering":{"allowedHosts":["m.example.com"],"disallowedHosts":["x.example.com"]}`,
			refused: "spec.services.glance.importFiltering.disallowedHosts: allowedHosts and disallowedHosts are mutually exclusive"},
		"inert port deny list": {reason: "warned of under the ControlPlane's path",
			glance:   `,"importFiltering":{"disallowedPorts":[22]}`,
			warnings: []string{inert("spec.services.glance.importFiltering.disallowedPorts", "spec.services.glance.importFiltering.allowedPorts", "[443]")}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp, msg := reviewRaw(t, api.KindControlPlane, []byte(head+c.glance+`}}}}`))
			if c.refused != "" {
				require.False(t, resp.allowed, c.reason)
				assert.Contains(t, msg, c.refused, c.reason)
				return
			}
			require.True(t, resp.allowed, "%s: %s", c.reason, msg)
			assert.Equal(t, c.warnings, resp.warnings, c.reason)
		})
	}
}
