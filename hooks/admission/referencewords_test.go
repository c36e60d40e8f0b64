package admission

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestReferenceWords: a rule this project shares with the reference is
// refused in the reference's words, whole, after the object and the field
// path (its webhook's field.Error without the value, which a message here
// never repeats). The words are written out here rather than taken from
// the code, so a change to them fails this test and asks for a CHANGELOG
// line.
func TestReferenceWords(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	cases := []struct {
		name string
		mod  func(*api.Glance)
		want string
	}{
		{"cache cluster with a newline", func(g *api.Glance) { g.Spec.Cache.ClusterRef.Name = "memcached\n" },
			"spec.cache.clusterRef.name: value must not contain a newline or carriage return: it is rendered verbatim into the service configuration file, so a newline injects arbitrary config lines"},
		{"cache server with a carriage return", func(g *api.Glance) { g.Spec.Cache = &api.CacheSpec{Servers: []string{"memcached:11211\r"}} },
			"spec.cache.servers[0]: value must not contain a newline or carriage return: it is rendered verbatim into the service configuration file, so a newline injects arbitrary config lines"},
		{"keystone scheme", func(g *api.Glance) { g.Spec.KeystoneEndpoint = "ftp://keystone:5000/v3" },
			"spec.keystoneEndpoint: scheme must be http or https"},
		{"keystone without a host", func(g *api.Glance) { g.Spec.KeystoneEndpoint = "http:///v3" },
			"spec.keystoneEndpoint: URL must include a host"},
		{"keystone that does not parse", func(g *api.Glance) { g.Spec.KeystonePublicEndpoint = "https://keystone/%zz" },
			"spec.keystonePublicEndpoint: must be a valid URL: invalid URL escape"},
		{"gateway without host and Gateway", func(g *api.Glance) { g.Spec.Gateway = &api.GatewaySpec{} },
			"spec.gateway.hostname: hostname must be set when spec.gateway is configured; " +
				"spec.gateway.parentRef.name: parentRef.name must be set when spec.gateway is configured"},
		{"filter host empty", func(g *api.Glance) { g.Spec.ImportFiltering = &api.ImportFilteringSpec{AllowedHosts: []string{""}} },
			"spec.importFiltering.allowedHosts[0]: host must not be empty"},
		{"filter host with a newline", func(g *api.Glance) {
			g.Spec.ImportFiltering = &api.ImportFilteringSpec{DisallowedHosts: []string{"a.example\nb"}}
		}, "spec.importFiltering.disallowedHosts[0]: host must not contain newline or carriage-return characters: the rendered [import_filtering_opts] value is written verbatim, so a newline injects arbitrary config lines"},
		{"filter host too long", func(g *api.Glance) {
			g.Spec.ImportFiltering = &api.ImportFilteringSpec{AllowedHosts: []string{strings.Repeat("a", 254)}}
		}, "spec.importFiltering.allowedHosts[0]: host must be at most 253 characters"},
		{"filter port", func(g *api.Glance) { g.Spec.ImportFiltering = &api.ImportFilteringSpec{AllowedPorts: []int32{0}} },
			"spec.importFiltering.allowedPorts[0]: port must be between 1 and 65535"},
		{"filter scheme", func(g *api.Glance) {
			g.Spec.ImportFiltering = &api.ImportFilteringSpec{AllowedSchemes: []string{"ftp"}}
		},
			`spec.importFiltering.allowedSchemes[0]: Unsupported value: supported values: "http", "https"`},
		{"too many filter hosts", func(g *api.Glance) {
			hosts := make([]string, 65)
			for i := range hosts {
				hosts[i] = fmt.Sprintf("mirror%d.example.com", i)
			}
			g.Spec.ImportFiltering = &api.ImportFilteringSpec{AllowedHosts: hosts}
		}, "spec.importFiltering.allowedHosts: Too many: 65: must have at most 64 items"},
		{"too many ignored roles", func(g *api.Glance) {
			roles := make([]string, 65)
			for i := range roles {
				roles[i] = fmt.Sprintf("role%d", i)
			}
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a": "b"}, IgnoreUserRoles: roles}}
		}, "spec.importPlugins.injectMetadata.ignoreUserRoles: Too many: 65: must have at most 64 items"},
		{"inject nothing", func(g *api.Glance) {
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{}}
		}, "spec.importPlugins.injectMetadata.properties: at least one property must be set: the inject_image_metadata plugin has nothing to inject otherwise"},
		{"inject a name with a comma", func(g *api.Glance) {
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a,b": "c"}}}
		}, "spec.importPlugins.injectMetadata.properties[a,b]: property name must not contain a comma: the oslo Dict syntax separates pairs on commas, so the name would be split into a property of its own"},
		{"inject a role with a comma", func(g *api.Glance) {
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{InjectMetadata: &api.ImportInjectMetadataSpec{Properties: map[string]string{"a": "b"}, IgnoreUserRoles: []string{"admin,member"}}}
		}, "spec.importPlugins.injectMetadata.ignoreUserRoles[0]: role must not contain a comma: the rendered ignore_user_roles list separates roles on commas, so the entry would be read as two roles"},
		{"conversion format", func(g *api.Glance) {
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{Conversion: &api.ImportConversionSpec{OutputFormat: "iso"}}
		}, `spec.importPlugins.conversion.outputFormat: Unsupported value: supported values: "qcow2", "raw", "vmdk"`},
		{"decompression without a staging bound", func(g *api.Glance) {
			g.Spec.ImportPlugins = &api.ImportPluginsSpec{Decompression: &api.ImportDecompressionSpec{}}
		}, "spec.staging.sizeLimit must be set explicitly while importPlugins.decompression is enabled: the plugin expands the staged image by a ratio the caller picks and nothing caps the result, and breaching this bound evicts the glance-api pod together with every other in-flight import on that replica, so the 10Gi default cannot be assumed to fit the largest UNPACKED image (set staging.unbounded to deliberately keep no bound instead)"},
		{"purge retention", func(g *api.Glance) { g.Spec.DBPurge = &api.DBPurgeSpec{RetentionDays: n(0)} },
			"spec.dbPurge.retentionDays: retentionDays must be at least 1"},
		{"purge schedule", func(g *api.Glance) { g.Spec.DBPurge = &api.DBPurgeSpec{Schedule: "every night"} },
			"spec.dbPurge.schedule: invalid cron expression: expected five fields (minute hour day-of-month month day-of-week), each within its range, or a descriptor such as @daily"},
		{"cache maintained too often", func(g *api.Glance) {
			g.Spec.ImageCache = &api.ImageCacheSpec{MaintenanceInterval: &metav1.Duration{Duration: 30 * time.Second}}
		}, "spec.imageCache.maintenanceInterval must be at least 1m0s: each pass walks the whole cache"},
		{"middleware named cache", func(g *api.Glance) {
			g.Spec.ImageCache = &api.ImageCacheSpec{}
			g.Spec.Middleware = []api.MiddlewareSpec{{Name: "cache", FilterFactory: "a.b:c", Position: "after"}}
		}, `spec.middleware[0].name: the operator injects the "cache" paste filter and owns that filter name while spec.imageCache is set: rename this middleware or unset spec.imageCache`},
		{"extraConfig value with a newline", func(g *api.Glance) {
			g.Spec.ExtraConfig = map[string]map[string]string{"DEFAULT": {"debug": "true\n[database]"}}
		}, "spec.extraConfig[DEFAULT][debug]: extraConfig key and value must not contain a newline or carriage return: the rendered INI writes them verbatim, so a newline injects arbitrary config lines"},
		{"extraConfig service password", func(g *api.Glance) {
			g.Spec.ExtraConfig = map[string]map[string]string{"keystone_authtoken": {"password": "hunter2"}}
		}, "spec.extraConfig[keystone_authtoken][password]: password is managed via spec.serviceUser.secretRef and must not be set in extraConfig (the service user's password stays in its Secret and reaches glance-api as an environment variable)"},
		{"extraConfig unknown option", func(g *api.Glance) {
			g.Spec.ExtraConfig = map[string]map[string]string{"DEFAULT": {"no_such_option": "1"}}
		}, "spec.extraConfig[DEFAULT][no_such_option]: no such option in the glance 2025.2 option catalog"},
		{"extraConfig unknown section", func(g *api.Glance) {
			g.Spec.ExtraConfig = map[string]map[string]string{"no_such_section": {"debug": "true"}}
		}, "spec.extraConfig[no_such_section][debug]: no such section in the glance 2025.2 option catalog (sections registered by a loaded plugin must be declared via spec.plugins): an S3 store's options go in its GlanceBackend's spec.extraOptions"},
		{"autoscaling without a maximum", func(g *api.Glance) { g.Spec.Autoscaling = &api.AutoscalingSpec{MinReplicas: n(1)} },
			"spec.autoscaling.maxReplicas: maxReplicas must be at least 1; spec.autoscaling.minReplicas: minReplicas must not exceed maxReplicas"},
		{"logging format", func(g *api.Glance) { g.Spec.Logging = &api.LoggingSpec{Format: "xml"} },
			`spec.logging.format: Unsupported value: supported values: "text", "json"`},
		{"store without a name", func(g *api.Glance) { g.Spec.SecretStoreRef = &api.SecretStoreRefSpec{Kind: api.KindSecretStore} },
			"spec.secretStoreRef.name: store name must be set"},
		{"store of another kind", func(g *api.Glance) { g.Spec.SecretStoreRef = &api.SecretStoreRefSpec{Kind: "Vault", Name: "v"} },
			`spec.secretStoreRef.kind: Unsupported value: supported values: "ClusterSecretStore", "SecretStore"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { refusedAs(t, guideGlance(tc.mod), `Glance "glance": `+tc.want) })
	}

	t.Run("GlanceBackend options", func(t *testing.T) {
		b := backend("secondary", "glance", false, func(b *api.GlanceBackend) {
			b.Spec.ExtraOptions = map[string]string{"": "x", "s3_store_thread_pools": "10\n[DEFAULT]"}
		})
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
		assert.Equal(t, `GlanceBackend "secondary": spec.extraOptions: option name must not be empty; `+
			"spec.extraOptions[s3_store_thread_pools]: value must not contain newline or carriage-return characters", msg)
	})
	t.Run("GlanceBackend option bounds", func(t *testing.T) {
		b := backend("secondary", "glance", false, func(b *api.GlanceBackend) {
			b.Spec.ExtraOptions = map[string]string{"s3_store_thread_pools": strings.Repeat("1", 1025)}
		})
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
		assert.Equal(t, `GlanceBackend "secondary": spec.extraOptions: each extraOptions key must be <=256 characters and each value <=1024 characters`, msg)
	})
	t.Run("ControlPlane store", func(t *testing.T) {
		req := create(t, guideControlPlane(func(cp *api.ControlPlane) { cp.Spec.SecretStoreRef = &api.SecretStoreRefSpec{} }))
		msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
		assert.Contains(t, msg, `ControlPlane "controlplane": spec.secretStoreRef.name: store name must be set`)
		assert.NotContains(t, msg, "spec.services.glance.secretStoreRef", "named where the ControlPlane sets it")
	})
}

// TestControlPlaneReferenceWords: what the reference ControlPlane refuses
// of the Glance it runs is refused here in its words, which are the
// ControlPlane's where they differ from the Glance's.
func TestControlPlaneReferenceWords(t *testing.T) {
	gateway := func(host string) func(*api.ControlPlane) {
		return func(cp *api.ControlPlane) {
			cp.Spec.Services.Glance.Gateway = &api.GatewaySpec{Hostname: host, ParentRef: api.GatewayParentRef{Name: "gw"}}
		}
	}
	cases := []struct {
		name string
		mod  func(*api.ControlPlane)
		want string
	}{
		{"too many backends", func(cp *api.ControlPlane) {
			b := cp.Spec.Services.Glance.Backends[:1]
			for i := range 32 {
				b = append(b, entry(fmt.Sprintf("store%d", i), false, "glance-images"))
			}
			cp.Spec.Services.Glance.Backends = b
		}, "spec.services.glance.backends: Too many: 33: must have at most 32 items"},
		{"release of another cadence", func(cp *api.ControlPlane) { cp.Spec.OpenStackRelease = "2025.3" },
			`spec.openStackRelease: must match the OpenStack release pattern ^\d{4}\.[12]$ (e.g. 2025.2)`},
		{"gateway without a host name", gateway(""),
			"spec.services.glance.gateway.hostname: must be set when a gateway is configured"},
		{"gateway host name with a port", gateway("images.example.com:443"),
			"spec.services.glance.gateway.hostname: must be a bare DNS hostname"},
		{"gateway host name with a path", gateway("images.example.com/v2"),
			"spec.services.glance.gateway.hostname: must be a bare DNS hostname"},
		{"gateway host name that is no DNS name", gateway("Images_1.example.com"),
			"spec.services.glance.gateway.hostname: must be a bare DNS hostname"},
		{"gateway host name too long", gateway(strings.Repeat("a.", 126) + "ab"),
			"spec.services.glance.gateway.hostname: must be at most 253 characters (the maximum DNS name length)"},
		{"gateway wildcard, in the Glance's words", gateway("*.example.com"),
			"spec.services.glance.gateway.hostname must name one host: it is the endpoint clients use, which a wildcard is not"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { refusedAs(t, guideControlPlane(tc.mod), `ControlPlane "controlplane": `+tc.want) })
	}
	t.Run("a Glance's gateway keeps the reference Glance's words", func(t *testing.T) {
		refusedAs(t, guideGlance(func(g *api.Glance) { g.Spec.Gateway = &api.GatewaySpec{ParentRef: api.GatewayParentRef{Name: "gw"}} }),
			`Glance "glance": spec.gateway.hostname: hostname must be set when spec.gateway is configured`)
	})
}

// refusedAs asserts that creating obj is refused with 422 and exactly the
// message want.
func refusedAs(t *testing.T, obj metav1.Object, want string) {
	t.Helper()
	req := create(t, obj)
	assert.Equal(t, want, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422))
}

// TestControlPlaneReferenceWarnings: what the reference ControlPlane
// admits with a warning of its Glance's extraConfig is admitted here with
// the same warning: a key the hooks own that the merged blocks override
// (each block that sets it named), and a release without an option
// catalog, said once of the merge.
func TestControlPlaneReferenceWarnings(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*api.ControlPlane)
		want []string
	}{
		{"owned key in the Glance's block", func(cp *api.ControlPlane) {
			cp.Spec.Services.Glance.ExtraConfig = map[string]map[string]string{"DEFAULT": {"enabled_backends": "a:s3"}}
		}, []string{"[DEFAULT] enabled_backends overrides an operator-owned key (managed by operator-computed) (must agree with the projected backends Secret); " +
			"the override is honored but reported (set at spec.services.glance.extraConfig[DEFAULT][enabled_backends])"}},
		{"owned key in both blocks", func(cp *api.ControlPlane) {
			cp.Spec.GlobalExtraConfig = map[string]map[string]string{"keystone_authtoken": {"memcached_servers": "m:11211"}, "DEFAULT": {"debug": "true"}}
			cp.Spec.Services.Glance.ExtraConfig = map[string]map[string]string{"keystone_authtoken": {"memcached_servers": "n:11211"}}
		}, []string{"[keystone_authtoken] memcached_servers overrides an operator-owned key (managed by operator-computed); the override is honored but reported " +
			"(set at spec.globalExtraConfig[keystone_authtoken][memcached_servers], spec.services.glance.extraConfig[keystone_authtoken][memcached_servers])"}},
		{"database connection without a password", func(cp *api.ControlPlane) {
			cp.Spec.GlobalExtraConfig = map[string]map[string]string{"database": {"connection": "sqlite://"}}
		}, []string{"[database] connection overrides an operator-owned key (managed by operator-computed) (the runtime value comes from the OS_DATABASE__CONNECTION env override, " +
			"so the file override is ignored); the override is honored but reported (set at spec.globalExtraConfig[database][connection])"}},
		{"release without a catalog, once for both blocks", func(cp *api.ControlPlane) {
			cp.Spec.OpenStackRelease = "2030.1"
			cp.Spec.GlobalExtraConfig = map[string]map[string]string{"DEFAULT": {"anything": "x"}}
			cp.Spec.Services.Glance.ExtraConfig = map[string]map[string]string{"DEFAULT": {"other": "y"}}
		}, []string{`the merged glance extraConfig was not validated against an option catalog: no catalog for release "2030.1" is embedded in this operator build`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := create(t, guideControlPlane(tc.mod))
			resp := Review(context.Background(), req, &fakeLister{})
			allowed(t, req, resp)
			assert.Equal(t, tc.want, resp.Warnings)
		})
	}
}
