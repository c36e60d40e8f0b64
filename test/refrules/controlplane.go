package refrules

import (
	"strconv"
	"strings"
)

// The rules on a ControlPlane that runs Glance, as cases: a change to the
// guide's ControlPlane (paths under its spec, a list entry as name[i]) and
// what the refusal must name. Admission and /sync/controlplane run them
// alike (TestControlPlaneGatesAgree); the real API server runs them too,
// those marked CEL in the CRD, the others through the webhook.

// glanceAt is a path under spec.services.glance.
func glanceAt(path string) string { return "services.glance." + path }

// backendAt is a path under the i-th backends entry.
func backendAt(i, path string) string { return glanceAt("backends[" + i + "]." + path) }

// defaultCount is how a refusal of the defaults' count reads: it is a rule
// of the whole list, worded by the guide, and names no single entry.
const defaultCount = "exactly one backends entry must set isDefault"

// ControlPlaneRules are the rules on a ControlPlane's spec. Field is the
// path the refusal names or, for the count of defaults, the guide's words.
var ControlPlaneRules = []Rule{
	{"two defaults", map[string]any{backendAt("1", "isDefault"): true}, defaultCount, true},
	{"no default", map[string]any{backendAt("0", "isDefault"): false}, defaultCount, true},
	{"no backends", map[string]any{glanceAt("backends"): []any{}}, "spec.services.glance.backends", true},
	{"too many backends", map[string]any{glanceAt("backends"): Entries(33)}, "spec.services.glance.backends", true},
	{"duplicate entry names", map[string]any{backendAt("1", "name"): "default"}, "spec.services.glance.backends", true},
	{"reserved store prefix", map[string]any{backendAt("1", "name"): "os_glance_staging_store"}, "spec.services.glance.backends[1]", true},
	{"reserved store section", map[string]any{backendAt("1", "name"): "glance_store"}, "spec.services.glance.backends[1]", true},
	{"endpoint not a URL", map[string]any{backendAt("1", "s3.endpoint"): "garage:3900"}, "spec.services.glance.backends[1].s3.endpoint", true},
	{"endpoint with credentials", map[string]any{backendAt("0", "s3.endpoint"): "http://k:s@garage:3900"}, "spec.services.glance.backends[0].s3.endpoint", true},
	{"extra option with a newline", map[string]any{backendAt("0", "extraOptions"): map[string]any{"s3_store_thread_pools": "1\n[DEFAULT]"}},
		"spec.services.glance.backends[0].extraOptions[s3_store_thread_pools]", true},
	{"extra option owned by the credentials", map[string]any{backendAt("1", "extraOptions"): map[string]any{"s3_store_secret_key": "s"}},
		"spec.services.glance.backends[1].extraOptions", true},
	{"too many extra options", map[string]any{backendAt("0", "extraOptions"): Options(33)}, "spec.services.glance.backends[0].extraOptions", true},
	{"release with a newline", map[string]any{"openStackRelease": "2025.2\n[DEFAULT]"}, "spec.openStackRelease", true},
	{"release of another cadence", map[string]any{"openStackRelease": "2025.3"}, "spec.openStackRelease", true},
	{"database without a server", map[string]any{glanceAt("database"): map[string]any{"database": "glance"}}, "spec.services.glance.database", true},
	{"Keystone endpoint not a URL", map[string]any{glanceAt("keystoneEndpoint"): "keystone"}, "spec.services.glance.keystoneEndpoint", true},
	{"registration URL not a URL", map[string]any{glanceAt("keystone.publicURL"): "keystone"}, "spec.services.glance.keystone.publicURL", true},
	{"registration region", map[string]any{glanceAt("keystone.region"): "-east"}, "spec.services.glance.keystone.region", true},
	{"registration onDelete", map[string]any{glanceAt("keystone.onDelete"): "Sometimes"}, "spec.services.glance.keystone.onDelete", true},
	{"public endpoint with a path", map[string]any{glanceAt("publicEndpoint"): "https://images.example.com/image"}, "spec.services.glance.publicEndpoint", false},
	{"public endpoint in cleartext beside a gateway", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "images.example.com", "parentRef": map[string]any{"name": "gw"}},
		glanceAt("publicEndpoint"): "http://images.example.com"}, "spec.services.glance.publicEndpoint", false},
	{"public endpoint on another host than the gateway's", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "images.example.com", "parentRef": map[string]any{"name": "gw"}},
		glanceAt("publicEndpoint"): "https://glance.example.com"}, "spec.services.glance.publicEndpoint", false},
	{"gateway without a host name", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "", "parentRef": map[string]any{"name": "gw"}}}, "spec.services.glance.gateway.hostname", true},
	{"gateway host name with a port", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "images.example.com:443", "parentRef": map[string]any{"name": "gw"}}}, "spec.services.glance.gateway.hostname", false},
	{"gateway host name too long", map[string]any{glanceAt("gateway"): map[string]any{"hostname": strings.Repeat("a.", 126) + "ab", "parentRef": map[string]any{"name": "gw"}}}, "spec.services.glance.gateway.hostname", true},
	{"gateway wildcard host name", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "*.example.com", "parentRef": map[string]any{"name": "gw"}}}, "spec.services.glance.gateway.hostname", false},
	{"extraConfig unknown option", map[string]any{glanceAt("extraConfig"): map[string]any{"DEFAULT": map[string]any{"no_such_option": "1"}}},
		"spec.services.glance.extraConfig[DEFAULT][no_such_option]", false},
	{"globalExtraConfig unknown option", map[string]any{"globalExtraConfig": map[string]any{"DEFAULT": map[string]any{"no_such_option": "1"}}},
		"spec.globalExtraConfig[DEFAULT][no_such_option]", false},
	{"globalExtraConfig service password", map[string]any{"globalExtraConfig": map[string]any{"keystone_authtoken": map[string]any{"password": "hunter2"}}},
		"spec.globalExtraConfig[keystone_authtoken][password]", false},
	{"shared database server no host name", map[string]any{"infrastructure.database": map[string]any{"host": "db example", "secretRef": map[string]any{"name": "shared-db"}}},
		"spec.infrastructure.database.host", true},
	{"shared database without its Secret", map[string]any{"infrastructure.database": map[string]any{"host": "db.example.com"}},
		"spec.infrastructure.database.secretRef.name", false},
	{"credentials mode under both names", map[string]any{glanceAt("databaseCredentialsMode"): "Static", glanceAt("database"): map[string]any{
		"clusterRef": map[string]any{"name": "openstack-db"}, "database": "glance", "secretRef": map[string]any{"name": "glance-db"}, "credentialsMode": "Static"}},
		"spec.services.glance.databaseCredentialsMode", true},
	{"short-lived users on the shared brownfield database", map[string]any{glanceAt("databaseCredentialsMode"): "Dynamic",
		"infrastructure.database": map[string]any{"host": "db.example.com", "secretRef": map[string]any{"name": "shared-db"}}},
		"spec.services.glance.databaseCredentialsMode", false},
	{"short-lived users on the Glance's own external database", map[string]any{glanceAt("databaseCredentialsMode"): "Dynamic",
		glanceAt("database"): map[string]any{"host": "db.example.com", "database": "glance", "secretRef": map[string]any{"name": "glance-db"}}},
		"spec.services.glance.databaseCredentialsMode", false},
	{"credentials mode of no kind", map[string]any{glanceAt("databaseCredentialsMode"): "Sometimes"}, "spec.services.glance.databaseCredentialsMode", true},
	{"database and cache instances of the Glance's own", map[string]any{glanceAt("dedicatedBackingServices"): map[string]any{"cache": map[string]any{"servers": []any{"mc:11211"}}}},
		"spec.services.glance.dedicatedBackingServices", true},
	{"Glance in another namespace", map[string]any{glanceAt("namespace"): map[string]any{"name": "glance", "lifecycle": "Managed"}}, "spec.services.glance.namespace", true},
	{"Glance on another cluster", map[string]any{glanceAt("targetClusterRef"): map[string]any{"name": "edge"}}, "spec.services.glance.targetClusterRef", true},
	{"autoscaler maximum below the replicas", map[string]any{glanceAt("deployment.replicas"): 3, glanceAt("autoscaling.maxReplicas"): 2},
		"spec.services.glance.autoscaling.maxReplicas", false},
	{"harakiri beyond the drain window", map[string]any{"openStackRelease": "2026.1", glanceAt("apiServer.uwsgi.harakiri"): 30}, "spec.services.glance.apiServer.uwsgi.harakiri", false},
	{"staging below 1Mi", map[string]any{glanceAt("staging.sizeLimit"): "100m"}, "spec.services.glance.staging.sizeLimit", false},
	{"image cache below 1Mi", map[string]any{glanceAt("imageCache.sizeLimit"): "100m"}, "spec.services.glance.imageCache.sizeLimit", false},
	{"too many filter ports", map[string]any{glanceAt("importFiltering.allowedPorts"): Ints(65)}, "spec.services.glance.importFiltering.allowedPorts", true},
	{"a filter host that is no host", map[string]any{glanceAt("importFiltering.allowedHosts"): []any{"mirror_1.example.com"}}, "spec.services.glance.importFiltering.allowedHosts[0]", false},
}

// Entries are n backends entries of the guide's shape, store0 to
// store<n-1>, the first the default: a list longer than the CRD's
// maxItems when n is.
func Entries(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"name": "store" + strconv.Itoa(i), "type": "S3", "isDefault": i == 0,
			"s3": map[string]any{"endpoint": "http://garage.shared-services.svc.cluster.local:3900", "bucket": "glance-images", "region": "garage",
				"credentialsSecretRef": map[string]any{"name": "garage-s3-credentials"}}}
	}
	return out
}

// AcceptedControlPlaneRules are changes close to the refused ones that
// both gates admit and the sync projects.
var AcceptedControlPlaneRules = []Rule{
	{"the base", map[string]any{}, "", false},
	{"the default switched", map[string]any{backendAt("0", "isDefault"): false, backendAt("1", "isDefault"): true}, "", false},
	{"public endpoint as an origin with a port", map[string]any{glanceAt("publicEndpoint"): "https://images.example.com:8443"}, "", false},
	{"public endpoint on the gateway's host", map[string]any{glanceAt("gateway"): map[string]any{"hostname": "images.example.com", "parentRef": map[string]any{"name": "gw"}},
		glanceAt("publicEndpoint"): "https://images.example.com"}, "", false},
	{"registration in a region", map[string]any{glanceAt("keystone.region"): "RegionTwo", glanceAt("keystone.onDelete"): "Keep"}, "", false},
	{"extraConfig options of the release", map[string]any{glanceAt("extraConfig"): map[string]any{"DEFAULT": map[string]any{"debug": "true"}},
		"globalExtraConfig": map[string]any{"oslo_middleware": map[string]any{"enable_proxy_headers_parsing": "true"}}}, "", false},
	{"autoscaler above the replicas", map[string]any{glanceAt("deployment.replicas"): 2, glanceAt("autoscaling.maxReplicas"): 4}, "", false},
	{"credentials mode under the reference's name", map[string]any{glanceAt("databaseCredentialsMode"): "Static"}, "", false},
	{"the reference's shared servers", map[string]any{"infrastructure": map[string]any{
		"database": map[string]any{"host": "db.example.com", "port": 3307, "database": "openstack", "secretRef": map[string]any{"name": "shared-db"}},
		"cache":    map[string]any{"backend": "dogpile.cache.pymemcache", "servers": []any{"mc-0.example.com:11211"}}}}, "", false},
}
