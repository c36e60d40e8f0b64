// Package reference proves the Glance API field by field: every leaf of
// the Glance CRD's spec is either rendered into the objects the hooks
// return, accepted and shown to change nothing (with a warning), or
// refused as not supported yet. The table is checked against the CRD, so
// a field added to the schema without a case here fails the build.
package reference

import (
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/schemas"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
	"github.com/c5c3/glance-hooks/test/refrules"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// outcome is what a field does.
type outcome int

const (
	// rendered: the field's value reaches the rendered objects (check says where).
	rendered outcome = iota
	// inert: accepted, and the rendered objects are those of the base.
	inert
	// refused: admission refuses it as not supported yet.
	refused
	// refusedAsInvalid: admission refuses every value, naming the field:
	// the reference has it, but what it would choose is fixed.
	refusedAsInvalid
)

// fieldCase sets one field (value under spec at the path, with whatever
// else its block requires) and says what it does.
type fieldCase struct {
	// reference marks a field of the reference Glance API; the others are
	// this project's own.
	reference bool
	set       map[string]any // dotted paths under spec -> value
	outcome   outcome
	// check looks at the rendered objects, for rendered fields.
	check func(t *testing.T, r result)
}

// result is the render of one case.
type result struct {
	conf, uwsgi, logging string
	// all is every object but the Glance itself, as JSON.
	all             string
	deployment, hpa chain.Object
	status          chain.Object
	// dbURL is the database URL Secret's value.
	dbURL string
}

func (r result) pod() map[string]any {
	return dig(r.deployment, "spec", "template", "spec").(map[string]any)
}

func (r result) container() map[string]any {
	return r.pod()["containers"].([]any)[0].(map[string]any)
}

func confHas(lines ...string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		for _, l := range lines {
			assert.Contains(t, r.conf, l+"\n", "glance-api.conf")
		}
	}
}

// logLevelsMerged checks logging.perLoggerLevels' case: the levels are
// merged into oslo.log's list, which default_log_levels would replace.
func logLevelsMerged(t *testing.T, r result) {
	assert.Contains(t, r.conf, "default_log_levels = amqp=ERROR,amqplib=WARN,", "the user's amqp over oslo.log's, first by name")
	assert.Contains(t, r.conf, ",keystonemiddleware=WARN,", "oslo.log's own levels stay")
	assert.Contains(t, r.conf, ",sqlalchemy=WARN,sqlalchemy.engine=WARNING,", "the user's logger beside oslo.log's parent")
}

func podHas(key string, want any, path ...string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Equal(t, jsonish(want), jsonish(dig(r.pod(), append([]string{key}, path...)...)))
	}
}

func jsonish(v any) string { b, _ := json.Marshal(v); return string(b) }

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// Every leaf of the CRD's spec has one case: those of cases here, those a
// feature's own file registers (featureCases), and one for each leaf of a
// field admission still refuses (laterCases, from api.LaterFields).

// featureCases are the cases registered by the files of the features, each
// from an init of its own, so a feature's cases live beside its checks.
var featureCases = map[string]fieldCase{}

// addCases registers a feature's cases.
func addCases(cs map[string]fieldCase) {
	for path, c := range cs {
		if _, dup := featureCases[path]; dup {
			panic("two cases for spec." + path)
		}
		featureCases[path] = c
	}
}

// laterCases are a refused case for each CRD leaf under a field
// api.LaterFields lists, setting that field's example.
func laterCases(t *testing.T) map[string]fieldCase {
	out := map[string]fieldCase{}
	for _, leaf := range crdLeaves(t) {
		if f, ok := laterField(leaf); ok {
			out[leaf] = fieldCase{reference: true, set: f.Example, outcome: refused}
		}
	}
	return out
}

// laterField is the api.LaterFields entry a leaf is under.
func laterField(leaf string) (api.LaterField, bool) {
	for _, f := range api.LaterFields {
		if leaf == f.Path || strings.HasPrefix(leaf, f.Path+".") {
			return f, true
		}
	}
	return api.LaterField{}, false
}

// laterPath is the api.LaterFields path a refused leaf is under.
func laterPath(leaf string) string {
	if f, ok := laterField(leaf); ok {
		return f.Path
	}
	return "(no refused field holds spec." + leaf + ")"
}

// allCases are the three sets of cases, one per leaf.
func allCases(t *testing.T) map[string]fieldCase {
	out := maps.Clone(cases)
	for _, more := range []map[string]fieldCase{featureCases, laterCases(t)} {
		for path, c := range more {
			require.NotContains(t, out, path, "one case per leaf")
			out[path] = c
		}
	}
	return out
}

// cases: the Glance CRD's spec leaves (a leaf is a scalar, a list, a map,
// or a block the schema keeps as written).
var cases = map[string]fieldCase{
	"openStackRelease": {true, map[string]any{"openStackRelease": "2025.2", "image.tag": "2025.2"}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, "2025.2", r.status["installedRelease"])
	}},
	"deployment.replicas": {true, map[string]any{"deployment.replicas": 3}, rendered, func(t *testing.T, r result) {
		assert.EqualValues(t, 3, dig(r.deployment, "spec", "replicas"))
	}},
	"deployment.resources": {true, map[string]any{"deployment.resources": map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}}}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, `{"requests":{"cpu":"1","memory":"1Gi"}}`, jsonish(r.container()["resources"]))
	}},
	"deployment.terminationGracePeriodSeconds": {true, map[string]any{"deployment.terminationGracePeriodSeconds": 60}, rendered,
		podHas("terminationGracePeriodSeconds", 60)},
	"deployment.preStopSleepSeconds": {true, map[string]any{"deployment.preStopSleepSeconds": 5}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, `{"preStop":{"sleep":{"seconds":5}}}`, jsonish(r.container()["lifecycle"]))
	}},
	"deployment.strategy.type": {true, map[string]any{"deployment.strategy": map[string]any{"type": "Recreate"}}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, `{"type":"Recreate"}`, jsonish(dig(r.deployment, "spec", "strategy")))
	}},
	"deployment.strategy.rollingUpdate.maxSurge": {true, map[string]any{"deployment.strategy": map[string]any{"rollingUpdate": map[string]any{"maxSurge": "50%"}}}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, `{"rollingUpdate":{"maxSurge":"50%"}}`, jsonish(dig(r.deployment, "spec", "strategy")))
	}},
	"deployment.strategy.rollingUpdate.maxUnavailable": {true, map[string]any{"deployment.strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 1}}}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, `{"rollingUpdate":{"maxUnavailable":1},"type":"RollingUpdate"}`, jsonish(dig(r.deployment, "spec", "strategy")))
	}},
	"deployment.topologySpreadConstraints": {true, map[string]any{"deployment.topologySpreadConstraints": []any{map[string]any{"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}}}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, jsonish(r.pod()["topologySpreadConstraints"]), `"maxSkew":2,"topologyKey":"zone"`)
	}},
	"deployment.priorityClassName": {true, map[string]any{"deployment.priorityClassName": "high"}, rendered, podHas("priorityClassName", "high")},
	"deployment.nodeSelector":      {false, map[string]any{"deployment.nodeSelector": map[string]any{"role": "control"}}, rendered, podHas("nodeSelector", map[string]any{"role": "control"})},
	"deployment.affinity": {false, map[string]any{"deployment.affinity": map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
		map[string]any{"weight": 1, "podAffinityTerm": map[string]any{"topologyKey": "kubernetes.io/hostname"}}}}}}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, jsonish(r.pod()["affinity"]), `"weight":1`)
	}},
	"deployment.tolerations": {false, map[string]any{"deployment.tolerations": []any{map[string]any{"key": "role", "operator": "Exists"}}}, rendered,
		podHas("tolerations", []any{map[string]any{"key": "role", "operator": "Exists"}})},
	"image.repository": {true, map[string]any{"image.repository": "registry.example/glance"}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, "registry.example/glance:2025.2", r.container()["image"])
	}},
	"image.tag": {true, map[string]any{"image.tag": "2025.2-p1"}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, "ghcr.io/c5c3/glance:2025.2-p1", r.container()["image"])
	}},
	"image.digest": {true, map[string]any{"image.tag": nil, "image.digest": "sha256:" + strings.Repeat("ab", 32)}, rendered, func(t *testing.T, r result) {
		assert.Equal(t, "ghcr.io/c5c3/glance@sha256:"+strings.Repeat("ab", 32), r.container()["image"])
	}},
	"database.clusterRef.name": {true, map[string]any{"database.clusterRef.name": "mariadb"}, rendered, envHasSecret("OS_DATABASE__CONNECTION")},
	"database.host":            {true, map[string]any{"database.clusterRef": nil, "database.host": "db.example.com"}, rendered, envHasSecret("OS_DATABASE__CONNECTION")},
	"database.port":            {true, map[string]any{"database.port": 3307}, rendered, envHasSecret("OS_DATABASE__CONNECTION")},
	"database.database":        {true, map[string]any{"database.database": "images"}, rendered, envHasSecret("OS_DATABASE__CONNECTION")},
	"database.secretRef.name":  {true, map[string]any{"database.secretRef.name": "glance-db"}, rendered, envHasSecret("OS_DATABASE__CONNECTION")},
	// The example's Secret holds the password under password: another key
	// is read, and its absence named.
	"database.secretRef.key": {true, map[string]any{"database.secretRef.key": "db-password"}, rendered, func(t *testing.T, r result) {
		c := condition(t, r, glance.CondDatabaseReady)
		assert.Equal(t, "False", c["status"])
		assert.Contains(t, c["message"], `Secret "glance-db" has no key "db-password"`)
	}},
	// Dynamic users render what Static ones do: the hooks create no user
	// in either mode and roll the pods when the Secret changes.
	"database.credentialsMode": {true, map[string]any{"database.credentialsMode": "Dynamic"}, inert, nil},
	"database.replicas":        {true, map[string]any{"database.replicas": 3}, inert, nil},
	"database.storageSize":     {true, map[string]any{"database.storageSize": "100Gi"}, inert, nil},
	"database.tls.mode": {true, refrules.DBTLS("mode", "verify-ca"), rendered,
		dbURLHas("&ssl_ca=/etc/glance/database-tls/ca.crt&ssl_cert=/etc/glance/database-tls/tls.crt&ssl_key=/etc/glance/database-tls/tls.key&ssl_check_hostname=false")},
	"database.tls.caBundleSecretRef.name": {true, refrules.DBTLS("caBundleSecretRef.name", "db-ca"), rendered,
		allHas(`{"secret":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"db-ca"}}`)},
	"database.tls.caBundleSecretRef.key": {true, refrules.DBTLS("caBundleSecretRef.key", "bundle.pem"), rendered,
		allHas(`{"secret":{"items":[{"key":"bundle.pem","path":"ca.crt"}],"name":"db-ca"}}`)},
	"database.tls.clientCertSecretRef.name": {true, refrules.DBTLS("clientCertSecretRef.name", "db-client"), rendered,
		allHas(`{"secret":{"items":[{"key":"tls.crt","path":"tls.crt"},{"key":"tls.key","path":"tls.key"}],"name":"db-client"}}`)},
	// clientCertSecretRef.key is the reference's, and a kubernetes.io/tls
	// Secret has no key to choose: admission refuses it (the webhook and CEL).
	"database.tls.clientCertSecretRef.key": {true, refrules.DBTLS("clientCertSecretRef.key", "tls.crt"), refusedAsInvalid, nil},
	"cache.backend":                        {true, map[string]any{"cache.backend": "dogpile.cache.pymemcache"}, rendered, confHas("backend = dogpile.cache.pymemcache", "enabled = true")},
	"cache.clusterRef.name":                {true, map[string]any{"cache.clusterRef.name": "memcached"}, rendered, confHas("memcached_servers = memcached.openstack.svc.cluster.local:11211")},
	"cache.servers":                        {true, map[string]any{"cache.clusterRef": nil, "cache.servers": []any{"10.0.0.5:11211"}}, rendered, confHas("memcached_servers = 10.0.0.5:11211")},
	"cache.replicas":                       {true, map[string]any{"cache.replicas": 3}, inert, nil},
	"keystoneEndpoint":                     {true, map[string]any{"keystoneEndpoint": "http://ks.example:5000/v3"}, rendered, confHas("auth_url = http://ks.example:5000/v3")},
	"keystonePublicEndpoint":               {true, map[string]any{"keystonePublicEndpoint": "https://ks.example/v3"}, rendered, confHas("www_authenticate_uri = https://ks.example/v3")},
	"serviceUser.username":                 {true, map[string]any{"serviceUser.username": "img"}, rendered, confHas("username = img")},
	"serviceUser.projectName":              {true, map[string]any{"serviceUser.projectName": "svc"}, rendered, confHas("project_name = svc")},
	"serviceUser.userDomainName":           {true, map[string]any{"serviceUser.userDomainName": "ud"}, rendered, confHas("user_domain_name = ud")},
	"serviceUser.projectDomainName":        {true, map[string]any{"serviceUser.projectDomainName": "pd"}, rendered, confHas("project_domain_name = pd")},
	"serviceUser.secretRef.name":           {true, map[string]any{"serviceUser.secretRef.name": "glance-service-user"}, rendered, envHasSecret("OS_KEYSTONE_AUTHTOKEN__PASSWORD")},
	"serviceUser.secretRef.key":            {true, map[string]any{"serviceUser.secretRef.key": "password"}, rendered, envHasSecret("OS_KEYSTONE_AUTHTOKEN__PASSWORD")},
	"region":                               {true, map[string]any{"region": "RegionTwo"}, rendered, confHas("region_name = RegionTwo")},
	"apiServer.workers":                    {true, map[string]any{"apiServer.workers": 6}, rendered, confHas("workers = 6")},
	"apiServer.uwsgi.processes":            {true, uwsgi("processes", 3), rendered, uwsgiHas("processes = 3")},
	"apiServer.uwsgi.threads":              {true, uwsgi("threads", 2), rendered, uwsgiHas("threads = 2")},
	"apiServer.uwsgi.httpKeepAlive":        {true, uwsgi("httpKeepAlive", true), rendered, uwsgiHas("http11-socket = $(POD_IP):9292")},
	"apiServer.uwsgi.harakiri":             {true, uwsgi("harakiri", 20), rendered, uwsgiHas("harakiri = 20")},
	"apiServer.uwsgi.httpKeepAliveTimeout": {true, map[string]any{"openStackRelease": "2026.1", "image.tag": "2026.1",
		"apiServer.uwsgi": map[string]any{"httpKeepAlive": true, "httpKeepAliveTimeout": 15}}, rendered, uwsgiHas("socket-timeout = 15")},
	"metadefsPath": {false, map[string]any{"metadefsPath": "/opt/metadefs"}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, r.all, "/opt/metadefs", "the schema Job loads the metadata definitions from there")
	}},
	"importMethods": {false, map[string]any{"importMethods": []any{"glance-direct"}}, rendered, confHas("enabled_import_methods = [glance-direct]")},
	"staging.sizeLimit": {true, map[string]any{"staging.sizeLimit": "20Gi"}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, jsonish(r.pod()["volumes"]), `{"emptyDir":{"sizeLimit":"20Gi"},"name":"staging"}`)
		assert.Contains(t, jsonish(r.pod()["volumes"]), `{"emptyDir":{"sizeLimit":"20Gi"},"name":"tasks"}`, "import tasks get the same bound")
	}},
	"staging.unbounded": {true, map[string]any{"staging.unbounded": true}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, jsonish(r.pod()["volumes"]), `{"emptyDir":{},"name":"staging"}`)
		assert.Contains(t, jsonish(r.pod()["volumes"]), `{"emptyDir":{},"name":"tasks"}`, "import tasks are unbounded too")
	}},
	"staging.volumeClaim.storageClassName": {false, map[string]any{"staging.volumeClaim.storageClassName": "fast"}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, jsonish(r.pod()["volumes"]), `"storageClassName":"fast"`)
	}},
	"autoscaling.minReplicas": {true, map[string]any{"autoscaling.minReplicas": 3, "autoscaling.maxReplicas": 5}, rendered, func(t *testing.T, r result) {
		assert.EqualValues(t, 3, dig(r.hpa, "spec", "minReplicas"))
	}},
	"autoscaling.maxReplicas": {true, map[string]any{"autoscaling.maxReplicas": 7}, rendered, func(t *testing.T, r result) {
		assert.EqualValues(t, 7, dig(r.hpa, "spec", "maxReplicas"))
	}},
	"autoscaling.targetCPUUtilization":    {true, map[string]any{"autoscaling.maxReplicas": 4, "autoscaling.targetCPUUtilization": 60}, rendered, hpaHas("cpu", 60)},
	"autoscaling.targetMemoryUtilization": {true, map[string]any{"autoscaling.maxReplicas": 4, "autoscaling.targetMemoryUtilization": 70}, rendered, hpaHas("memory", 70)},
	"logging.format": {true, map[string]any{"logging.format": "json"}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, r.conf, "log_config_append = /etc/glance/config/logging.conf\n")
		assert.Contains(t, r.logging, "class = oslo_log.formatters.JSONFormatter\n")
	}},
	"logging.level": {true, map[string]any{"logging.level": "WARNING"}, rendered, func(t *testing.T, r result) {
		assert.Contains(t, r.logging, "[logger_root]\nlevel = WARNING\n")
	}},
	"logging.debug":           {true, map[string]any{"logging.debug": true}, rendered, confHas("debug = true")},
	"logging.perLoggerLevels": {true, map[string]any{"logging.perLoggerLevels": map[string]any{"sqlalchemy.engine": "WARNING", "amqp": "ERROR"}}, rendered, logLevelsMerged},
	"dropRetiredStores":       {false, map[string]any{"dropRetiredStores": []any{"old"}}, inert, nil},

	"importFiltering.allowedSchemes": {true, map[string]any{"importFiltering.allowedSchemes": []any{"http", "https"}, "importFiltering.allowedHosts": []any{"mirror.example.com"}}, rendered,
		confHas("[import_filtering_opts]\nallowed_schemes = [http,https]")},
	"importFiltering.disallowedSchemes": {true, map[string]any{"importFiltering.allowedSchemes": []any{}, "importFiltering.disallowedSchemes": []any{"http"}}, rendered,
		confHas("allowed_schemes = []\ndisallowed_schemes = [http]")},
	"importFiltering.allowedHosts": {true, map[string]any{"importFiltering.allowedHosts": []any{"mirror.example.com"}}, rendered,
		confHas("allowed_hosts = [mirror.example.com]\ndisallowed_hosts = []")},
	"importFiltering.disallowedHosts": {true, map[string]any{"importFiltering.disallowedHosts": []any{"metadata.example.com"}}, rendered,
		confHas("disallowed_hosts = [localhost,127.0.0.1,0.0.0.0,::1,169.254.169.254,kubernetes,kubernetes.default,kubernetes.default.svc,kubernetes.default.svc.cluster.local,metadata.example.com]")},
	"importFiltering.allowedPorts": {true, map[string]any{"importFiltering.allowedPorts": []any{443, 8443}, "importFiltering.allowedHosts": []any{"mirror.example.com"}}, rendered,
		confHas("allowed_ports = [443,8443]")},
	"importFiltering.disallowedPorts": {true, map[string]any{"importFiltering.allowedPorts": []any{}, "importFiltering.disallowedPorts": []any{22}}, rendered,
		confHas("allowed_ports = []\ndisallowed_ports = [22]")},
	"importPlugins.decompression": {true, map[string]any{"importPlugins.decompression": map[string]any{}, "staging.sizeLimit": "20Gi"}, rendered,
		confHas("[image_import_opts]\nimage_import_plugins = [image_decompression]")},
	"importPlugins.conversion.outputFormat": {true, map[string]any{"importPlugins.conversion.outputFormat": "qcow2"}, rendered,
		confHas("image_import_plugins = [image_conversion]", "[image_conversion]\noutput_format = qcow2")},
	"importPlugins.injectMetadata.properties": {true, map[string]any{"importPlugins.injectMetadata.properties": map[string]any{"z": "1", "a": "https://x.example:8443/p"}}, rendered,
		confHas("image_import_plugins = [inject_image_metadata]", "[inject_metadata_properties]\ninject = a:https://x.example:8443/p,z:1\nignore_user_roles = admin")},
	"importPlugins.injectMetadata.ignoreUserRoles": {true, map[string]any{"importPlugins.injectMetadata": map[string]any{"properties": map[string]any{"a": "b"}, "ignoreUserRoles": []any{"admin", "reader"}}}, rendered, confHas("ignore_user_roles = admin,reader")},
	"gateway.hostname": {true, gateway("hostname", "images.example.com"), rendered, func(t *testing.T, r result) {
		allHas(`"hostnames":["images.example.com"]`)(t, r)
		assert.Equal(t, "https://images.example.com/", r.status["endpoint"])
	}},
	"gateway.parentRef.name":        {true, gateway("parentRef.name", "edge"), rendered, allHas(`"parentRefs":[{"name":"edge"}]`)},
	"gateway.parentRef.namespace":   {true, gateway("parentRef.namespace", "infra"), rendered, allHas(`"parentRefs":[{"name":"gw","namespace":"infra"}]`)},
	"gateway.parentRef.sectionName": {true, gateway("parentRef.sectionName", "https"), rendered, allHas(`"parentRefs":[{"name":"gw","sectionName":"https"}]`)},
	"gateway.path": {true, gateway("path", "/image"), rendered, func(t *testing.T, r result) {
		allHas(`"filters":[{"type":"URLRewrite","urlRewrite":{"path":{"replacePrefixMatch":"/","type":"ReplacePrefixMatch"}}}],"matches":[{"path":{"type":"PathPrefix","value":"/image"}}]`)(t, r)
		assert.Equal(t, "https://glance.example.com/image/", r.status["endpoint"])
	}},
	"gateway.annotations": {true, gateway("annotations", map[string]any{"a": "b"}), rendered, allHas(`"annotations":{"a":"b",`)},
	"networkPolicy.ingress": {true, map[string]any{"networkPolicy.ingress": []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "images"}},
		"podSelector": map[string]any{"matchLabels": map[string]any{"role": "client"}}}}}, rendered,
		allHas(`"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"team":"images"}},"podSelector":{"matchLabels":{"role":"client"}}}],"ports":[{"port":9292,"protocol":"TCP"}]}]`)},
	"networkPolicy.additionalEgress": {true, map[string]any{"networkPolicy.ingress": []any{map[string]any{"namespaceSelector": map[string]any{}}},
		"networkPolicy.additionalEgress": []any{map[string]any{"to": []any{map[string]any{"ipBlock": map[string]any{"cidr": "203.0.113.0/24"}}}}}}, rendered,
		allHas(`{"to":[{"ipBlock":{"cidr":"203.0.113.0/24"}}]}]`)},
	"policyOverrides.rules":             {true, map[string]any{"policyOverrides.rules": map[string]any{"get_image": "@"}}, rendered, policyRendered(`\"get_image\": \"@\"`)},
	"policyOverrides.configMapRef.name": {true, map[string]any{"policyOverrides.configMapRef.name": "policy"}, rendered, waitsForPolicyConfigMap},
	"middleware":                        {true, map[string]any{"middleware": []any{map[string]any{"name": "x", "filterFactory": "a.b:f", "position": "before"}}}, rendered, pasteHas("pipeline = x cors ", "[filter:x]\\npaste.filter_factory = a.b:f\\n")},
	"plugins":                           {true, map[string]any{"plugins": []any{map[string]any{"name": "x", "configSection": "x", "config": map[string]any{"k": "v"}}}}, rendered, confHas("[x]\nk = v")},
	"extraConfig":                       {true, map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"allow_anonymous_access": "true"}}}, rendered, confHas("allow_anonymous_access = true")},
}

// dbURLHas looks into the database URL Secret the hooks write.
func dbURLHas(want string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, r.dbURL, want, "OS_DATABASE__CONNECTION")
	}
}

func allHas(want string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.True(t, strings.Contains(r.all, want), "the rendered objects hold %s", want)
	}
}

func gateway(path string, v any) map[string]any {
	return map[string]any{"gateway": map[string]any{"hostname": "glance.example.com", "parentRef": map[string]any{"name": "gw"}}, "gateway." + path: v}
}

// uwsgi sets a uWSGI knob on a release that runs uWSGI.
func uwsgi(key string, v any) map[string]any {
	return map[string]any{"openStackRelease": "2026.1", "image.tag": "2026.1", "apiServer.uwsgi." + key: v}
}

func uwsgiHas(line string) func(*testing.T, result) {
	return func(t *testing.T, r result) { t.Helper(); assert.Contains(t, r.uwsgi, line+"\n") }
}

func hpaHas(resource string, target int) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, jsonish(dig(r.hpa, "spec", "metrics")), `"name":"`+resource+`","target":{"averageUtilization":`+jsonish(target))
	}
}

func envHasSecret(name string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, jsonish(r.container()["env"]), `{"name":"`+name+`","valueFrom":{"secretKeyRef"`)
	}
}

// crdLeaves are the Glance CRD's spec leaves, as dotted paths.
func crdLeaves(t *testing.T) []string {
	raw, err := schemas.Read(schemas.GlanceFile)
	require.NoError(t, err)
	js, err := utilyaml.ToJSON(raw)
	require.NoError(t, err)
	var crd map[string]any
	require.NoError(t, json.Unmarshal(js, &crd))
	spec := dig(crd, "spec")
	versions := dig(spec, "versions").([]any)
	root := dig(versions[0], "schema", "openAPIV3Schema", "properties", "spec").(map[string]any)
	var out []string
	var walk func(n map[string]any, path string)
	walk = func(n map[string]any, path string) {
		props, _ := n["properties"].(map[string]any)
		// A block of Kubernetes' own (resources) is one leaf: its fields
		// are the pod spec's.
		if n["type"] != "object" || len(props) == 0 || path == "deployment.resources" {
			out = append(out, path)
			return
		}
		for k, v := range props {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(v.(map[string]any), p)
		}
	}
	walk(root, "")
	sort.Strings(out)
	return out
}

// TestTableCoversTheCRD is the drift test: the table and the CRD's spec
// leaves are the same set.
func TestTableCoversTheCRD(t *testing.T) {
	var table []string
	for p := range allCases(t) {
		table = append(table, p)
	}
	sort.Strings(table)
	assert.Equal(t, crdLeaves(t), table, "every spec leaf of the Glance CRD has one case here, and every case is a leaf")
}

// base is the standalone example the cases change.
func base(t *testing.T) []render.Doc {
	raw, err := os.ReadFile("../../examples/standalone.yaml")
	require.NoError(t, err)
	docs, err := render.Parse(raw, "standalone.yaml", "openstack")
	require.NoError(t, err)
	tlsOnce.Do(func() { tlsDocs = dbTLSSecrets(t) })
	return append(docs, tlsDocs...)
}

// The TLS Secrets are made once: every case, and the baseline an inert
// case is compared with, sees the same.
var (
	tlsOnce sync.Once
	tlsDocs []render.Doc
)

// dbTLSSecrets are the database TLS Secrets the cases name, beside the
// example's objects: a CA bundle and a client certificate.
func dbTLSSecrets(t *testing.T) []render.Doc {
	ca, err := testcert.NewCA("db-ca")
	require.NoError(t, err)
	client, err := testcert.NewClient("glance")
	require.NoError(t, err)
	secret := func(name string, data map[string][]byte) render.Doc {
		enc := map[string]any{}
		for k, v := range data {
			enc[k] = base64.StdEncoding.EncodeToString(v)
		}
		return render.Doc{Source: name, Object: chain.Object{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": name, "namespace": "openstack"}, "data": enc}}
	}
	return []render.Doc{
		secret("db-ca", map[string][]byte{"ca.crt": ca.CertPEM, "bundle.pem": ca.CertPEM}),
		secret("db-client", map[string][]byte{"tls.crt": client.CertPEM, "tls.key": client.KeyPEM}),
	}
}

func run(t *testing.T, c *fieldCase) (result, error) {
	docs := base(t)
	for _, d := range docs {
		if d.Object["kind"] == "Glance" {
			refrules.Rule{Set: c.set}.Apply(d.Object)
		}
	}
	st, err := render.Render(docs, render.Options{})
	if err != nil {
		return result{}, err
	}
	return collect(st.Objects()), nil
}

func collect(objs []chain.Object) result {
	var r result
	var children []chain.Object
	for _, o := range objs {
		if o["kind"] != "Glance" {
			children = append(children, o)
		}
		switch o["kind"] {
		case "ConfigMap":
			if d, ok := o["data"].(map[string]any); ok && d["glance-api.conf"] != nil {
				r.conf, _ = d["glance-api.conf"].(string)
				r.uwsgi, _ = d["glance-api-uwsgi.ini"].(string)
				r.logging, _ = d["logging.conf"].(string)
			}
		case "Deployment":
			r.deployment = o
		case "HorizontalPodAutoscaler":
			r.hpa = o
		case "Secret":
			if d, ok := o["data"].(map[string]any); ok && d["connection"] != nil {
				b, _ := base64.StdEncoding.DecodeString(d["connection"].(string))
				r.dbURL = string(b)
			}
		case "Glance":
			r.status, _ = o["status"].(map[string]any)
		}
	}
	r.all = jsonish(children)
	return r
}

// TestEveryField runs each case through admission and the hooks.
func TestEveryField(t *testing.T) {
	baseline, err := run(t, &fieldCase{})
	require.NoError(t, err)
	for path, c := range allCases(t) {
		t.Run(path, func(t *testing.T) {
			got, err := run(t, &c)
			switch c.outcome {
			case refused:
				require.Error(t, err)
				assert.Contains(t, err.Error(), "spec."+laterPath(path)+" is not supported yet")
			case refusedAsInvalid:
				require.Error(t, err)
				assert.Contains(t, err.Error(), "spec."+path)
			case inert:
				require.NoError(t, err)
				assert.True(t, reflect.DeepEqual(baseline, got), "an inert field changes nothing rendered")
			case rendered:
				require.NoError(t, err)
				if c.check != nil {
					c.check(t, got)
				}
			}
		})
	}
}

// TestExampleIsTheReferences keeps examples/reference/glance.yaml's Glance
// the reference's example, field for field.
func TestExampleIsTheReferences(t *testing.T) {
	raw, err := os.ReadFile("../../examples/reference/glance.yaml")
	require.NoError(t, err)
	docs, err := render.Parse(raw, "glance.yaml", "openstack")
	require.NoError(t, err)
	want, err := render.Parse([]byte(refrules.ExampleGlance), "example", "openstack")
	require.NoError(t, err)
	require.Len(t, want, 1)
	found := false
	for _, d := range docs {
		if d.Object["kind"] == "Glance" {
			found = true
			assert.Equal(t, want[0].Object, d.Object)
		}
	}
	assert.True(t, found, "the example holds a Glance")
}
