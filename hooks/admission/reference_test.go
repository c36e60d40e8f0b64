package admission

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/test/refrules"
)

// validGlance is a complete Glance as the reference's example writes it.
const validGlance = `{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"glance","namespace":"openstack"},
"spec":{"openStackRelease":"2026.1","deployment":{"replicas":3},"image":{"repository":"ghcr.io/c5c3/glance","tag":"2026.1"},
"database":{"clusterRef":{"name":"openstack-mariadb"},"database":"glance","secretRef":{"name":"glance-db"}},
"cache":{"backend":"dogpile.cache.pymemcache","clusterRef":{"name":"openstack-memcached"}},
"keystoneEndpoint":"http://keystone.openstack.svc.cluster.local:5000/v3","serviceUser":{"secretRef":{"name":"glance-keystone"}}}}`

// reviewRaw reviews a Glance or ControlPlane written as JSON.
func reviewRaw(t *testing.T, kind string, raw []byte) (*admissionResponse, string) {
	t.Helper()
	var req = create(t, &api.Glance{})
	if kind == api.KindControlPlane {
		req = create(t, &api.ControlPlane{})
	}
	var meta struct {
		Metadata struct{ Name, Namespace string } `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(raw, &meta))
	req.Name, req.Namespace = meta.Metadata.Name, meta.Metadata.Namespace
	req.Object.Raw = raw
	resp := Review(context.Background(), req, &fakeLister{})
	require.Equal(t, req.UID, resp.UID)
	msg := ""
	if resp.Result != nil {
		msg = resp.Result.Message
	}
	return &admissionResponse{allowed: resp.Allowed, warnings: resp.Warnings}, msg
}

type admissionResponse struct {
	allowed  bool
	warnings []string
}

// TestReferenceGlanceAllowed: the reference's example applies as it is.
func TestReferenceGlanceAllowed(t *testing.T) {
	resp, msg := reviewRaw(t, api.KindGlance, []byte(validGlance))
	require.True(t, resp.allowed, msg)
	assert.Empty(t, resp.warnings)
}

// TestSecretStoreRefAllowed: spec.secretStoreRef is built (the Glance hook
// waits for the store), so both kinds are admitted without a warning; an
// empty name and another kind are refused in the reference's words
// (TestReferenceWords), the name's pattern is the CRD's to refuse.
func TestSecretStoreRefAllowed(t *testing.T) {
	for _, kind := range []string{"", "ClusterSecretStore", "SecretStore"} {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(validGlance), &obj))
		ref := map[string]any{"name": "openbao"}
		if kind != "" {
			ref["kind"] = kind
		}
		obj["spec"].(map[string]any)["secretStoreRef"] = ref
		raw, err := json.Marshal(obj)
		require.NoError(t, err)
		resp, msg := reviewRaw(t, api.KindGlance, raw)
		require.True(t, resp.allowed, "kind %q: %s", kind, msg)
		assert.Empty(t, resp.warnings)
	}
}

// TestReferenceRulesRefused runs every rule of the reference API through
// /validate: each is refused, naming its field.
func TestReferenceRulesRefused(t *testing.T) {
	for _, r := range refrules.GlanceRules {
		t.Run(r.Name, func(t *testing.T) {
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(validGlance), &obj))
			r.Apply(obj)
			raw, err := json.Marshal(obj)
			require.NoError(t, err)
			resp, msg := reviewRaw(t, api.KindGlance, raw)
			require.False(t, resp.allowed, "allowed, want refused")
			assert.Regexp(t, regexp.QuoteMeta(r.Field)+`[ :\[]`, msg, "the refusal names the field")
			if strings.Contains(r.Name, "not supported yet") {
				assert.Contains(t, msg, r.Field+" is not supported yet")
			}
		})
	}
}

// TestReferenceWarnings: what is valid but does nothing here is admitted
// with a warning saying so.
func TestReferenceWarnings(t *testing.T) {
	cases := map[string]struct {
		reason string
		set    map[string]any
		want   []string
	}{
		"eventlet workers under uWSGI": {"2026.1 runs under uWSGI", map[string]any{"apiServer.workers": 4},
			[]string{`spec.apiServer.workers is set but release "2026.1" runs under uWSGI (2026.1 or later), so the eventlet worker count is inert; configure spec.apiServer.uwsgi instead.`}},
		"uWSGI under eventlet": {"2025.2 is the eventlet server", map[string]any{"openStackRelease": "2025.2", "image.tag": "2025.2", "apiServer.uwsgi.processes": 4},
			[]string{`spec.apiServer.uwsgi is set but release "2025.2" runs the eventlet glance-api server (below 2026.1), so the uWSGI knobs are inert; configure spec.apiServer.workers instead.`}},
		"managed database sizing": {"these hooks create no database", map[string]any{"database.replicas": 3, "database.storageSize": "100Gi", "cache.replicas": 3},
			[]string{
				"spec.database.replicas has no effect: these hooks create no database or memcached cluster, they reach the one named",
				"spec.database.storageSize has no effect: these hooks create no database or memcached cluster, they reach the one named",
				"spec.cache.replicas has no effect: these hooks create no database or memcached cluster, they reach the one named",
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(validGlance), &obj))
			refrules.Rule{Set: c.set}.Apply(obj)
			raw, _ := json.Marshal(obj)
			resp, msg := reviewRaw(t, api.KindGlance, raw)
			require.True(t, resp.allowed, msg)
			assert.Equal(t, c.want, resp.warnings, c.reason)
		})
	}
}

// TestControlPlaneReferenceRules: the reference ControlPlane's knobs.
func TestControlPlaneReferenceRules(t *testing.T) {
	const head = `{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack"},"spec":{`
	const backends = `"backends":[{"name":"default","type":"S3","isDefault":true,"s3":{"endpoint":"http://s3:3900","bucket":"b","credentialsSecretRef":{"name":"c"}}}]`
	cases := map[string]struct {
		reason, spec string
		refused      string   // "" allowed
		warnings     []string // when allowed
	}{
		"reference knobs": {reason: "region, replicas, staging, image digest and publicEndpoint are taken",
			spec: `"region":"RegionTwo","services":{"glance":{` + backends + `,"replicas":2,"staging":{"sizeLimit":"20Gi"},` +
				`"image":{"repository":"r","digest":"sha256:` + strings.Repeat("a", 64) + `"},"publicEndpoint":"https://glance.example.com"}}`},
		"replicas twice": {reason: "services.glance.replicas and deployment.replicas say the same",
			spec:    `"services":{"glance":{` + backends + `,"replicas":2,"deployment":{"replicas":3}}}`,
			refused: `spec.services.glance.replicas and deployment.replicas are both set: set one of them`},
		"secret store": {reason: "the ControlPlane's External Secrets store is projected onto its Glance, which takes it",
			spec: `"secretStoreRef":{"kind":"SecretStore","name":"tenant"},"services":{"glance":{` + backends + `}}`},
		"global extra config": {reason: "merged into the Glance's extraConfig, checked against the release's options where it is written",
			spec:    `"globalExtraConfig":{"DEFAULT":{"debug":"true","no_such_option":"1"}},"services":{"glance":{` + backends + `}}`,
			refused: `spec.globalExtraConfig[DEFAULT][no_such_option]: no such option in the glance 2025.2 option catalog`},
		"service extra config": {reason: "the Glance's own extraConfig, at the ControlPlane's path",
			spec:    `"services":{"glance":{` + backends + `,"extraConfig":{"keystone_authtoken":{"password":"x"}}}}`,
			refused: `spec.services.glance.extraConfig[keystone_authtoken][password]: password is managed via spec.services.glance.serviceUser.secretRef and must not be set in extraConfig (`},
		"global extra config guarded key": {reason: "a ControlPlane's refusal names the field where the ControlPlane has it",
			spec:    `"globalExtraConfig":{"task":{"work_dir":"/w"}},"services":{"glance":{` + backends + `}}`,
			refused: `spec.globalExtraConfig[task][work_dir]: work_dir is managed via spec.services.glance.staging and must not be set in extraConfig (`},
		"service extra config key of a Glance-only field": {reason: "a field the ControlPlane does not have is named as the Glance's",
			spec:    `"services":{"glance":{` + backends + `,"extraConfig":{"paste_deploy":{"flavor":"x"}}}}`,
			refused: `spec.services.glance.extraConfig[paste_deploy][flavor]: flavor is managed via a Glance's spec.middleware (a ControlPlane does not set it) and must not be set in extraConfig (`},
		"public endpoint with a path": {reason: "clients append the API's path to the catalog's endpoint: the reference's rule and words",
			spec:    `"services":{"glance":{` + backends + `,"publicEndpoint":"https://glance.example.com/image"}}`,
			refused: "spec.services.glance.publicEndpoint: must be a bare origin (scheme://host[:port]) with no path, query, or fragment: the Glance API is served at the root and clients append the API path to the catalog endpoint"},
		"public endpoint of the gateway over http": {reason: "the Gateway listener terminates TLS",
			spec: `"services":{"glance":{` + backends + `,"gateway":{"hostname":"glance.example.com","parentRef":{"name":"gw"}},"publicEndpoint":"http://glance.example.com"}}`,
			refused: "spec.services.glance.publicEndpoint: scheme must be https when services.glance.gateway is configured (the Gateway listener terminates TLS): " +
				"every image call sends the caller's scoped Keystone token, and the image payload, to this endpoint"},
		"public endpoint of another host than the gateway's": {reason: "the listener routes only its hostname to the Glance; neither host is repeated",
			spec: `"services":{"glance":{` + backends + `,"gateway":{"hostname":"glance.example.com","parentRef":{"name":"gw"}},"publicEndpoint":"https://images.example.com"}}`,
			refused: "spec.services.glance.publicEndpoint: host must equal services.glance.gateway.hostname: the Gateway listener routes that hostname to the Glance API, " +
				"so the catalog would direct image clients to a host that never reaches it"},
		"public endpoint of the gateway": {reason: "the gateway's host over https, a port and a trailing slash allowed",
			spec: `"services":{"glance":{` + backends + `,"gateway":{"hostname":"glance.example.com","parentRef":{"name":"gw"}},"publicEndpoint":"https://glance.example.com:443/"}}`},
		"public endpoint over http": {reason: "valid, but every token would travel in clear: the reference's warning, without the URL",
			spec: `"services":{"glance":{` + backends + `,"publicEndpoint":"http://glance.example.com"}}`,
			warnings: []string{"spec.services.glance.publicEndpoint uses http://: it is advertised as the public image catalog endpoint, so every authenticated image call " +
				"would deliver the caller's scoped Keystone token — and the image payload — in cleartext. Use https://."}},
		"keystone public URL over http": {reason: "the same endpoint, written in the Keystone block",
			spec: `"services":{"glance":{` + backends + `,"keystone":{"publicURL":"http://glance.example.com:9292"}}}`,
			warnings: []string{"spec.services.glance.keystone.publicURL uses http://: it is advertised as the public image catalog endpoint, so every authenticated image call " +
				"would deliver the caller's scoped Keystone token — and the image payload — in cleartext. Use https://."}},
		"public endpoint over http twice": {reason: "one endpoint written in both places is warned of once",
			spec: `"services":{"glance":{` + backends + `,"publicEndpoint":"http://g.example.com","keystone":{"publicURL":"http://g.example.com"}}}`,
			warnings: []string{"spec.services.glance.publicEndpoint uses http://: it is advertised as the public image catalog endpoint, so every authenticated image call " +
				"would deliver the caller's scoped Keystone token — and the image payload — in cleartext. Use https://."}},
		"deprecated global option": {reason: "a deprecated name is admitted with a warning naming its replacement",
			spec:     `"globalExtraConfig":{"keystone_authtoken":{"memcache_servers":"m:11211"}},"services":{"glance":{` + backends + `}}`,
			warnings: []string{"spec.globalExtraConfig [keystone_authtoken] memcache_servers: deprecated option in glance 2025.2, replaced by [keystone_authtoken] memcached_servers"}},
		"image cache": {reason: "the projected image cache is taken",
			spec: `"services":{"glance":{` + backends + `,"imageCache":{"sizeLimit":"1Gi","maintenanceInterval":"2m"}}}`},
		"image cache below its floor": {reason: "the ControlPlane's image cache is held to the Glance's floors, at its own path",
			spec:    `"services":{"glance":{` + backends + `,"imageCache":{"sizeLimit":"100m"}}}`,
			refused: `spec.services.glance.imageCache.sizeLimit must be at least 1Mi`},
		"misspelt service": {reason: "a services key near a known service is most likely that service, refused as render and the CRD refuse it",
			spec:    `"services":{"glanse":{},"glance":{` + backends + `}}`,
			refused: "spec.services.glanse is not a known service: did you mean glance?"},
		"misspelt service alone": {reason: "a ControlPlane whose only service is misspelt would run no Glance at all",
			spec:    `"services":{"glanse":{` + backends + `}}`,
			refused: "spec.services.glanse is not a known service: did you mean glance?"},
		"a GlanceBackend's host in an entry": {reason: "the S3 address copied from a GlanceBackend is named with the entry's name for it",
			spec:    `"services":{"glance":{"backends":[{"name":"default","type":"S3","isDefault":true,"s3":{"host":"http://s3:3900","endpoint":"http://s3:3900","bucket":"b","credentialsSecretRef":{"name":"c"}}}]}}`,
			refused: "spec.services.glance.backends[0].s3.host is how a GlanceBackend names the S3 address: a ControlPlane's backends entry names it s3.endpoint"},
		"hostile service key": {reason: "a key is the request's: escaped and cut in the refusal, as any value",
			spec:    `"services":{"x\u001b[2J` + strings.Repeat("m", 300) + `":{}}`,
			refused: `spec.services.x\x1b[2J` + strings.Repeat("m", 58) + `... (305 bytes) is not a known service`},
		"unknown service": {reason: "a name near no service lists the services there are",
			spec:    `"services":{"nova":{}}`,
			refused: "spec.services.nova is not a known service (one of barbican, glance, horizon, keystone, placement)"},
		"other service": {reason: "a known service these hooks leave alone is said to be left alone",
			spec:     `"services":{"keystone":{"replicas":3}}`,
			warnings: []string{"spec.services.keystone is not reconciled here: these hooks run Glance only"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp, msg := reviewRaw(t, api.KindControlPlane, []byte(head+c.spec+`}}`))
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

// TestStandaloneBackendNamedDefault: the guide's reserved names include
// default for a backend whose name is its store id.
func TestStandaloneBackendNamedDefault(t *testing.T) {
	b := backend("default", "glance", false)
	req := create(t, &b)
	msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
	assert.Contains(t, msg, `store id "default" collides with a reserved store section`)

	b.Spec.StoreID = "default"
	b.Name = "controlplane-glance-default"
	req = create(t, &b)
	allowed(t, req, Review(context.Background(), req, &fakeLister{}))
}
