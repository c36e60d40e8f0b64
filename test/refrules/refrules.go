// Package refrules lists the validation rules of the reference Glance API
// as cases: a change to a valid Glance and the field path its refusal must
// name. The admission tests run every case through /validate; the
// integration tests run them through a real kube-apiserver, where the CRD's
// CEL rules refuse those marked CEL before the webhook is asked.
package refrules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DBTLS sets one field of a complete spec.database.tls.
func DBTLS(path string, v any) map[string]any {
	return map[string]any{"database.tls": map[string]any{"caBundleSecretRef": map[string]any{"name": "db-ca"}, "clientCertSecretRef": map[string]any{"name": "db-client"}},
		"database.tls." + path: v}
}

// Ints is n ports, 1 to n: a list longer than the CRD's maxItems when n
// is.
func Ints(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// Properties is n image properties to inject, p0 to p<n-1>.
func Properties(n int) map[string]any {
	out := make(map[string]any, n)
	for i := range n {
		out["p"+strconv.Itoa(i)] = "v"
	}
	return out
}

// Rule is one refused change.
type Rule struct {
	Name string
	// Set are dotted paths under spec and their values; nil deletes.
	Set map[string]any
	// Field is the path the refusal names, e.g. spec.image.digest.
	Field string
	// CEL marks a rule the CRD itself enforces (a CEL rule, a pattern, an
	// enum, a bound, or a field a Kubernetes type of the schema lacks,
	// under kubectl's strict field validation); the others only the
	// webhook can.
	CEL bool
}

// GlanceRules are the rules on a Glance's spec.
var GlanceRules = []Rule{
	{"tag and digest", map[string]any{"image.tag": "2025.2", "image.digest": "sha256:" + strings.Repeat("0", 64)}, "spec.image", true},
	{"digest shape", map[string]any{"image.tag": nil, "image.digest": "sha256:XYZ"}, "spec.image.digest", true},
	{"preStop sleep beyond the grace period", map[string]any{"deployment.preStopSleepSeconds": 40}, "spec.deployment.preStopSleepSeconds", true},
	{"grace period too short", map[string]any{"deployment.terminationGracePeriodSeconds": 5}, "spec.deployment.terminationGracePeriodSeconds", true},
	{"no replicas", map[string]any{"deployment.replicas": 0}, "spec.deployment.replicas", true},
	{"request above its limit", map[string]any{"deployment.resources": map[string]any{"requests": map[string]any{"memory": "2Gi"}, "limits": map[string]any{"memory": "1Gi"}}}, "spec.deployment.resources.requests.memory", false},
	{"spread selector of other pods", map[string]any{"deployment.topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
		"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "other"}}}}}, "spec.deployment.topologySpreadConstraints[0].labelSelector", false},
	{"spread selector by expressions", map[string]any{"deployment.topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway",
		"labelSelector": map[string]any{"matchExpressions": []any{map[string]any{"key": "app.kubernetes.io/name", "operator": "In", "values": []any{"glance"}}}}}}}, "spec.deployment.topologySpreadConstraints[0].labelSelector.matchExpressions", false},
	{"keep-alive timeout without keep-alive", map[string]any{"apiServer.uwsgi.httpKeepAliveTimeout": 5}, "spec.apiServer.uwsgi.httpKeepAliveTimeout", true},
	{"unbounded staging with a size", map[string]any{"staging.unbounded": true, "staging.sizeLimit": "5Gi"}, "spec.staging.unbounded", true},
	{"unbounded staging on a claim", map[string]any{"staging.unbounded": true, "staging.volumeClaim.storageClassName": "fast"}, "spec.staging.unbounded", true},
	{"log level", map[string]any{"logging.level": "LOUD"}, "spec.logging.level", true},
	{"logger name", map[string]any{"logging.perLoggerLevels": map[string]any{"a,b": "INFO"}}, "spec.logging.perLoggerLevels", true},
	{"memory target", map[string]any{"autoscaling.maxReplicas": 3, "autoscaling.targetMemoryUtilization": 0}, "spec.autoscaling.targetMemoryUtilization", true},
	{"autoscaler maximum below the replicas", map[string]any{"deployment.replicas": 3, "autoscaling.maxReplicas": 2}, "spec.autoscaling.maxReplicas", false},
	{"region", map[string]any{"region": "-east"}, "spec.region", true},
	{"credentials mode", map[string]any{"database.credentialsMode": "Sometimes"}, "spec.database.credentialsMode", true},
	{"staging below 1Mi", map[string]any{"staging.sizeLimit": "100m"}, "spec.staging.sizeLimit", false},
	{"both halves of the host filter", map[string]any{"importFiltering.allowedHosts": []any{"mirror.example.com"}, "importFiltering.disallowedHosts": []any{"evil.example.com"}}, "spec.importFiltering.disallowedHosts", true},
	{"both halves of the scheme filter", map[string]any{"importFiltering.allowedSchemes": []any{"https"}, "importFiltering.disallowedSchemes": []any{"http"}}, "spec.importFiltering.disallowedSchemes", true},
	{"both halves of the port filter", map[string]any{"importFiltering.allowedPorts": []any{443}, "importFiltering.disallowedPorts": []any{80}}, "spec.importFiltering.disallowedPorts", true},
	{"conversion format", map[string]any{"importPlugins.conversion.outputFormat": "iso"}, "spec.importPlugins.conversion.outputFormat", true},
	{"a filter host that is no host", map[string]any{"importFiltering.allowedHosts": []any{"mirror_1.example.com"}}, "spec.importFiltering.allowedHosts[0]", false},
	{"decompression without a staging bound", map[string]any{"importPlugins.decompression": map[string]any{}, "staging": nil}, "spec.staging.sizeLimit", true},
	{"an injected property name with a colon", map[string]any{"importPlugins.injectMetadata.properties": map[string]any{"vendor:team": "x"}}, "spec.importPlugins.injectMetadata.properties", false},
	{"an injected property value with a comma", map[string]any{"importPlugins.injectMetadata.properties": map[string]any{"vendor": "a,b"}}, "spec.importPlugins.injectMetadata.properties", false},
	{"an injected property in Glance's namespace", map[string]any{"importPlugins.injectMetadata.properties": map[string]any{"os_glance_x": "1"}}, "spec.importPlugins.injectMetadata.properties", false},
	{"too many filter ports", map[string]any{"importFiltering.allowedPorts": Ints(65)}, "spec.importFiltering.allowedPorts", true},
	{"too many injected properties", map[string]any{"importPlugins.injectMetadata.properties": Properties(65)}, "spec.importPlugins.injectMetadata.properties", true},
	{"an ignored role with a comma", map[string]any{"importPlugins.injectMetadata": map[string]any{"properties": map[string]any{"a": "b"}, "ignoreUserRoles": []any{"admin,member"}}}, "spec.importPlugins.injectMetadata.ignoreUserRoles[0]", false},
	{"harakiri beyond the drain window", map[string]any{"apiServer.uwsgi.harakiri": 30}, "spec.apiServer.uwsgi.harakiri", false},
	{"recreate with rolling parameters", map[string]any{"deployment.strategy": map[string]any{"type": "Recreate", "rollingUpdate": map[string]any{"maxSurge": 1}}}, "spec.deployment.strategy.rollingUpdate", false},
	{"cache backend", map[string]any{"cache.backend": "not a module"}, "spec.cache.backend", false},
	{"gateway wildcard host name", map[string]any{"gateway": map[string]any{"hostname": "*.example.com", "parentRef": map[string]any{"name": "gw"}}}, "spec.gateway.hostname", false},
	{"networkPolicy without a source", map[string]any{"networkPolicy": map[string]any{"ingress": []any{}}}, "spec.networkPolicy.ingress", true},
	{"networkPolicy source without a selector", map[string]any{"networkPolicy": map[string]any{"ingress": []any{map[string]any{}}}}, "spec.networkPolicy.ingress[0].namespaceSelector", true},
	{"networkPolicy source of pods without their namespaces", map[string]any{"networkPolicy": map[string]any{"ingress": []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"role": "client"}}}}}}, "spec.networkPolicy.ingress[0].namespaceSelector", true},
	{"networkPolicy egress field misspelt", map[string]any{"networkPolicy": map[string]any{"ingress": []any{map[string]any{"namespaceSelector": map[string]any{}}}, "additionalEgress": []any{map[string]any{"too": []any{}}}}}, "spec.networkPolicy.additionalEgress", true},
	{"database TLS mode", DBTLS("mode", "strict"), "spec.database.tls.mode", true},
	{"database TLS CA bundle without a Secret", DBTLS("caBundleSecretRef.name", nil), "spec.database.tls.caBundleSecretRef.name", true},
	{"database TLS CA bundle key", DBTLS("caBundleSecretRef.key", "ca/crt"), "spec.database.tls.caBundleSecretRef.key", true},
	{"database TLS client Secret name", DBTLS("clientCertSecretRef.name", "Client_Cert"), "spec.database.tls.clientCertSecretRef.name", true},
	{"database TLS client certificate key chosen", DBTLS("clientCertSecretRef.key", "tls.crt"), "spec.database.tls.clientCertSecretRef.key", true},
	{"dynamic credentials on an external server", map[string]any{"database.credentialsMode": "Dynamic", "database.clusterRef": nil, "database.host": "db.example.com"}, "spec.database.credentialsMode", true},
	{"extraConfig unknown option", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"no_such_option": "1"}}}, "spec.extraConfig[DEFAULT][no_such_option]", false},
	{"extraConfig unknown section", map[string]any{"extraConfig": map[string]any{"no_such_section": map[string]any{"debug": "true"}}}, "spec.extraConfig[no_such_section][debug]", false},
	{"extraConfig service password", map[string]any{"extraConfig": map[string]any{"keystone_authtoken": map[string]any{"password": "hunter2"}}}, "spec.extraConfig[keystone_authtoken][password]", false},
	{"extraConfig import filtering", map[string]any{"extraConfig": map[string]any{"import_filtering_opts": map[string]any{"allowed_schemes": "[http]"}}}, "spec.extraConfig[import_filtering_opts][allowed_schemes]", false},
	{"extraConfig image cache", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"image_cache_max_size": "1000"}}}, "spec.extraConfig[DEFAULT][image_cache_max_size]", false},
	{"extraConfig import plugins", map[string]any{"extraConfig": map[string]any{"image_import_opts": map[string]any{"image_import_plugins": "[image_conversion]"}}}, "spec.extraConfig[image_import_opts][image_import_plugins]", false},
	{"extraConfig task work dir", map[string]any{"extraConfig": map[string]any{"task": map[string]any{"work_dir": "/var/tmp"}}}, "spec.extraConfig[task][work_dir]", false},
	{"extraConfig uWSGI python interpreter", map[string]any{"extraConfig": map[string]any{"wsgi": map[string]any{"python_interpreter": "/usr/bin/python3"}}}, "spec.extraConfig[wsgi][python_interpreter]", false},
	{"extraConfig newline in a value", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug": "true\n[database]"}}}, "spec.extraConfig[DEFAULT][debug]", false},
	{"extraConfig carriage return in a key", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug\r": "true"}}}, "spec.extraConfig[DEFAULT][debug\\r]", false},
	{"extraConfig newline in a section", map[string]any{"extraConfig": map[string]any{"DEFAULT]\n[database": map[string]any{"debug": "true"}}}, "spec.extraConfig", true},
	{"policy rule empty", map[string]any{"policyOverrides.rules": map[string]any{"get_images": ""}}, "spec.policyOverrides", true},
	{"policy without rules or ConfigMap", map[string]any{"policyOverrides": map[string]any{}}, "spec.policyOverrides", true},
	{"policy with no rule and no ConfigMap", map[string]any{"policyOverrides": map[string]any{"rules": map[string]any{}}}, "spec.policyOverrides", true},
	{"middleware named like a filter of the hooks", map[string]any{"middleware": []any{map[string]any{"name": "authtoken", "filterFactory": "a.b:c", "position": "after"}}}, "spec.middleware[0].name", false},
	{"middleware names twice", map[string]any{"middleware": []any{map[string]any{"name": "x", "filterFactory": "a.b:c", "position": "after"}, map[string]any{"name": "x", "filterFactory": "a.b:c", "position": "before"}}}, "spec.middleware[1].name", false},
	{"middleware factory", map[string]any{"middleware": []any{map[string]any{"name": "x", "filterFactory": "not a factory", "position": "after"}}}, "spec.middleware[0].filterFactory", false},
	{"plugin service password", map[string]any{"plugins": []any{map[string]any{"name": "p", "configSection": "keystone_authtoken", "config": map[string]any{"password": "hunter2"}}}}, "spec.plugins[0].config[password]", false},
	{"plugin newline in a value", map[string]any{"plugins": []any{map[string]any{"name": "p", "configSection": "p", "config": map[string]any{"k": "v\n[DEFAULT]"}}}}, "spec.plugins[0].config[k]", false},
	{"image cache below 1Mi", map[string]any{"imageCache.sizeLimit": "100m"}, "spec.imageCache.sizeLimit", false},
	{"image cache maintained more often than each minute", map[string]any{"imageCache.maintenanceInterval": "30s"}, "spec.imageCache.maintenanceInterval", false},
	{"purge retention below a day", map[string]any{"dbPurge.retentionDays": 0}, "spec.dbPurge.retentionDays", true},
	{"purge schedule not cron", map[string]any{"dbPurge.schedule": "every night"}, "spec.dbPurge.schedule", false},
	{"purge schedule with a time zone", map[string]any{"dbPurge.schedule": "CRON_TZ=Europe/Berlin 0 3 * * *"}, "spec.dbPurge.schedule", false},
}

// HostileRules are what an attacker with write access to a Glance tried
// where no webhook stood in the way: each is refused by /validate and by
// /sync/glance alike, naming its field. GlanceRules lists them after its
// own, so every test of the table runs them too.
var HostileRules = []Rule{
	{"extraConfig database URL with a password", map[string]any{"extraConfig": map[string]any{"database": map[string]any{"connection": "mysql+pymysql://u:leak@db.example.com/glance"}}}, "spec.extraConfig[database][connection]", false},
	{"extraConfig database URL with a password in its query", map[string]any{"extraConfig": map[string]any{"database": map[string]any{"connection": "mysql+pymysql://u@db.example.com/glance?password=leak"}}}, "spec.extraConfig[database][connection]", false},
	{"extraConfig direct image URLs", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"show_image_direct_url": "true"}}}, "spec.extraConfig[DEFAULT][show_image_direct_url]", false},
	{"extraConfig section spelt with a space", map[string]any{"extraConfig": map[string]any{" database": map[string]any{"connection": "sqlite://"}}}, "spec.extraConfig", false},
	{"extraConfig line separator in a value", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug": "true\u2028x"}}}, "spec.extraConfig[DEFAULT][debug]", false},
	{"extraConfig escape in a key", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug\x1b": "true"}}}, "spec.extraConfig[DEFAULT]", false},
	{"purge retention negative", map[string]any{"dbPurge.retentionDays": -1}, "spec.dbPurge.retentionDays", true},
	{"purge schedule minute out of range", map[string]any{"dbPurge.schedule": "61 * * * *"}, "spec.dbPurge.schedule", false},
	{"purge schedule with a trailing newline", map[string]any{"dbPurge.schedule": "1 0 * * *\n"}, "spec.dbPurge.schedule", false},
	{"image cache negative", map[string]any{"imageCache.sizeLimit": "-1Gi"}, "spec.imageCache.sizeLimit", false},
	{"image cache 1e400", map[string]any{"imageCache.sizeLimit": "1e400"}, "spec.imageCache.sizeLimit", false},
	{"image cache 1e19", map[string]any{"imageCache.sizeLimit": "1e19"}, "spec.imageCache.sizeLimit", false},
	{"image cache 1e100", map[string]any{"imageCache.sizeLimit": "1e100"}, "spec.imageCache.sizeLimit", false},
	{"image cache 8Ei", map[string]any{"imageCache.sizeLimit": "8Ei"}, "spec.imageCache.sizeLimit", false},
	{"staging beyond a node", map[string]any{"staging.sizeLimit": "1e19"}, "spec.staging.sizeLimit", false},
	{"gateway host name with a newline", map[string]any{"gateway": map[string]any{"hostname": "a.example\nb", "parentRef": map[string]any{"name": "gw"}}}, "spec.gateway.hostname", false},
	{"policy rule name with NEL", map[string]any{"policyOverrides.rules": map[string]any{"get_images\u0085x": "@"}}, "spec.policyOverrides.rules", false},
	{"policy rule value with NEL", map[string]any{"policyOverrides.rules": map[string]any{"get_images": "role:reader\u0085or role:member"}}, "spec.policyOverrides.rules[get_images]", false},
	{"policy rule value with DEL", map[string]any{"policyOverrides.rules": map[string]any{"get_images": "role:reader\x7f"}}, "spec.policyOverrides.rules[get_images]", false},
	{"logger name with a control character", map[string]any{"logging.perLoggerLevels": map[string]any{"glance\u0085api": "INFO"}}, "spec.logging.perLoggerLevels", true},
}

// AcceptedRules are changes close to the refused ones that both gates
// admit, and whose rendered files the real oslo.config, oslo.policy and
// logging.config read back as written: the table's other half, so a rule
// that refuses too much fails as surely as one that refuses too little.
var AcceptedRules = []Rule{
	{"the base", map[string]any{}, "", false},
	{"image cache at the bound", map[string]any{"imageCache.sizeLimit": "64Ti"}, "", false},
	{"request at its limit", map[string]any{"deployment.resources": map[string]any{"requests": map[string]any{"cpu": "1", "memory": "1Gi"}, "limits": map[string]any{"cpu": "1000m", "memory": "1024Mi"}}}, "", false},
	{"one replica", map[string]any{"deployment.replicas": 1}, "", false},
	{"purge schedule as a descriptor", map[string]any{"dbPurge.schedule": "@daily", "dbPurge.retentionDays": 1}, "", false},
	{"policy rules in plain words and beyond ASCII", map[string]any{"policyOverrides.rules": map[string]any{"get_images": "role:reader or role:member", "get_image": "project_id:%(project_id)s or '\u00e9':%(x)s"}}, "", false},
	{"logger levels", map[string]any{"logging": map[string]any{"format": "text", "level": "INFO", "perLoggerLevels": map[string]any{"glance.api": "DEBUG", "sqlalchemy.engine": "WARNING"}}}, "", false},
	{"logging as JSON", map[string]any{"logging": map[string]any{"format": "json", "level": "WARNING", "perLoggerLevels": map[string]any{"keystonemiddleware.auth_token": "DEBUG"}}}, "", false},
	{"extraConfig options of the release", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug": "true", "user_storage_quota": "10GB"}, "oslo_middleware": map[string]any{"enable_proxy_headers_parsing": "true"}}}, "", false},
	{"extraConfig database options without a URL", map[string]any{"extraConfig": map[string]any{"database": map[string]any{"max_pool_size": "10"}}}, "", false},
}

// Apply sets a rule's values on a Glance object's spec (as decoded JSON).
func (r Rule) Apply(obj map[string]any) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		obj["spec"] = spec
	}
	// Shorter paths first, so a block is set before its fields.
	keys := make([]string, 0, len(r.Set))
	for k := range r.Set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(spec, k, r.Set[k])
	}
}

func set(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		m = step(m, p)
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

// step is the object at one segment of a path: a key, made when it is
// missing, or name[i], the i-th entry of an existing list.
func step(m map[string]any, seg string) map[string]any {
	if name, index, ok := strings.Cut(strings.TrimSuffix(seg, "]"), "["); ok {
		i, err := strconv.Atoi(index)
		list, _ := m[name].([]any)
		if err != nil || i < 0 || i >= len(list) {
			panic(fmt.Sprintf("refrules: no entry %s in a list of %d", seg, len(list)))
		}
		return list[i].(map[string]any)
	}
	next, ok := m[seg].(map[string]any)
	if !ok {
		next = map[string]any{}
		m[seg] = next
	}
	return next
}

// ExampleGlance is the reference's example Glance, field for field: the
// CR its documentation shows, which applies here unchanged.
const ExampleGlance = `apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: Glance
metadata:
  name: glance
  namespace: openstack
spec:
  openStackRelease: "2025.2"
  deployment:
    replicas: 3
  image:
    repository: ghcr.io/c5c3/glance
    tag: "2025.2"
  database:
    clusterRef:
      name: openstack-mariadb
    database: glance
    secretRef:
      name: glance-db
  cache:
    clusterRef:
      name: openstack-memcached
  keystoneEndpoint: http://keystone.openstack.svc.cluster.local:5000/v3
  serviceUser:
    secretRef:
      name: glance-keystone
`

func init() { GlanceRules = append(GlanceRules, HostileRules...) }
