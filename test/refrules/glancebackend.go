package refrules

import (
	"strconv"
	"strings"
)

// GlanceBackendRules are the rules on a GlanceBackend's spec, changes to
// the guide's secondary store (paths under its spec). Admission and
// /sync/glancebackend run them alike (TestGlanceBackendGatesAgree), and
// the CRD holds each of them too (TestGlanceBackendCELRules): a
// GlanceBackend's rules need only the object. What only the webhook can
// check of a GlanceBackend reads its siblings (test/webhook).
var GlanceBackendRules = []Rule{
	{"type other than S3", map[string]any{"type": "Swift", "s3": nil}, "spec.type", true},
	{"reserved store id", map[string]any{"storeId": "os_glance_staging_store"}, "spec.storeId", true},
	{"store id of a reserved section", map[string]any{"storeId": "glance_store"}, "spec.storeId", true},
	{"host not a URL", map[string]any{"s3.host": "garage:3900"}, "spec.s3.host", true},
	{"host with credentials", map[string]any{"s3.host": "http://k:s@garage:3900"}, "spec.s3.host", true},
	{"endpoint, the ControlPlane's word for host", map[string]any{"s3.endpoint": "http://garage:3900"}, "spec.s3.endpoint", true},
	{"bucket URL format", map[string]any{"s3.bucketURLFormat": "subdomain"}, "spec.s3.bucketURLFormat", true},
	{"CA bundle on a cleartext host", map[string]any{"s3.caBundleRef": map[string]any{"name": "s3-ca"}}, "spec.s3", true},
	{"CA bundle kind", map[string]any{"s3.host": "https://garage:3900", "s3.caBundleRef": map[string]any{"name": "s3-ca", "kind": "Volume"}}, "spec.s3.caBundleRef.kind", true},
	{"large object size", map[string]any{"s3.largeObjectSize": 0}, "spec.s3.largeObjectSize", true},
	{"extra option with a newline", map[string]any{"extraOptions": map[string]any{"s3_store_thread_pools": "1\n[DEFAULT]"}}, "spec.extraOptions[s3_store_thread_pools]", true},
	{"extra option owned by the credentials", map[string]any{"extraOptions": map[string]any{"s3_store_secret_key": "s"}}, "spec.extraOptions", true},
	{"Glance name", map[string]any{"glanceRef.name": "Glance_1"}, "spec.glanceRef.name", true},
	{"too many extra options", map[string]any{"extraOptions": Options(33)}, "spec.extraOptions", true},
	{"extra option value too long", map[string]any{"extraOptions": map[string]any{"s3_store_thread_pools": strings.Repeat("1", 1025)}}, "spec.extraOptions", true},
}

// AcceptedGlanceBackendRules are changes close to the refused ones that
// both gates admit and the sync renders.
var AcceptedGlanceBackendRules = []Rule{
	{"the base", map[string]any{}, "", false},
	{"a store id of its own", map[string]any{"storeId": "archive"}, "", false},
	{"CA bundle on an https host", map[string]any{"s3.host": "https://garage:3900", "s3.caBundleRef": map[string]any{"name": "s3-ca", "kind": "Secret", "key": "ca.crt"}}, "", false},
	{"virtual-hosted buckets", map[string]any{"s3.bucketURLFormat": "virtual"}, "", false},
	{"an extra option of the driver", map[string]any{"extraOptions": map[string]any{"s3_store_thread_pools": "20"}}, "", false},
}

// Options is n extra options of a store, s3_store_option_0 to
// s3_store_option_<n-1>.
func Options(n int) map[string]any {
	out := make(map[string]any, n)
	for i := range n {
		out["s3_store_option_"+strconv.Itoa(i)] = "1"
	}
	return out
}
