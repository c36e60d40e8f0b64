// Package refrules lists the validation rules of the reference Glance API
// as cases: a change to a valid Glance and the field path its refusal must
// name. The admission tests run every case through /validate; the
// integration tests run them through a real kube-apiserver, where the CRD's
// CEL rules refuse those marked CEL before the webhook is asked.
package refrules

import (
	"sort"
	"strings"
)

// Rule is one refused change.
type Rule struct {
	Name string
	// Set are dotted paths under spec and their values; nil deletes.
	Set map[string]any
	// Field is the path the refusal names, e.g. spec.image.digest.
	Field string
	// CEL marks a rule the CRD itself enforces (a CEL rule, a pattern, an
	// enum or a bound); the others only the webhook can.
	CEL bool
}

// GlanceRules are the rules on a Glance's spec.
var GlanceRules = []Rule{
	{"tag and digest", map[string]any{"image.tag": "2025.2", "image.digest": "sha256:" + strings.Repeat("0", 64)}, "spec.image", true},
	{"digest shape", map[string]any{"image.tag": nil, "image.digest": "sha256:XYZ"}, "spec.image.digest", true},
	{"preStop sleep beyond the grace period", map[string]any{"deployment.preStopSleepSeconds": 40}, "spec.deployment.preStopSleepSeconds", true},
	{"grace period too short", map[string]any{"deployment.terminationGracePeriodSeconds": 5}, "spec.deployment.terminationGracePeriodSeconds", true},
	{"keep-alive timeout without keep-alive", map[string]any{"apiServer.uwsgi.httpKeepAliveTimeout": 5}, "spec.apiServer.uwsgi.httpKeepAliveTimeout", true},
	{"unbounded staging with a size", map[string]any{"staging.unbounded": true, "staging.sizeLimit": "5Gi"}, "spec.staging.unbounded", true},
	{"unbounded staging on a claim", map[string]any{"staging.unbounded": true, "staging.volumeClaim.storageClassName": "fast"}, "spec.staging.unbounded", true},
	{"log level", map[string]any{"logging.level": "LOUD"}, "spec.logging.level", true},
	{"logger name", map[string]any{"logging.perLoggerLevels": map[string]any{"a,b": "INFO"}}, "spec.logging.perLoggerLevels", true},
	{"memory target", map[string]any{"autoscaling.maxReplicas": 3, "autoscaling.targetMemoryUtilization": 0}, "spec.autoscaling.targetMemoryUtilization", true},
	{"region", map[string]any{"region": "-east"}, "spec.region", true},
	{"credentials mode", map[string]any{"database.credentialsMode": "Sometimes"}, "spec.database.credentialsMode", true},
	{"staging below 1Mi", map[string]any{"staging.sizeLimit": "100m"}, "spec.staging.sizeLimit", false},
	{"harakiri beyond the drain window", map[string]any{"apiServer.uwsgi.harakiri": 30}, "spec.apiServer.uwsgi.harakiri", false},
	{"recreate with rolling parameters", map[string]any{"deployment.strategy": map[string]any{"type": "Recreate", "rollingUpdate": map[string]any{"maxSurge": 1}}}, "spec.deployment.strategy.rollingUpdate", false},
	{"cache backend", map[string]any{"cache.backend": "not a module"}, "spec.cache.backend", false},
	{"gateway not supported yet", map[string]any{"gateway": map[string]any{"hostname": "glance.example.com", "parentRef": map[string]any{"name": "gw"}}}, "spec.gateway", false},
	{"dynamic credentials not supported yet", map[string]any{"database.credentialsMode": "Dynamic"}, "spec.database.credentialsMode", false},
	{"extraConfig not supported yet", map[string]any{"extraConfig": map[string]any{"DEFAULT": map[string]any{"debug": "true"}}}, "spec.extraConfig", false},
	{"image cache below 1Mi", map[string]any{"imageCache.sizeLimit": "100m"}, "spec.imageCache.sizeLimit", false},
	{"image cache maintained more often than each minute", map[string]any{"imageCache.maintenanceInterval": "30s"}, "spec.imageCache.maintenanceInterval", false},
	{"purge retention below a day", map[string]any{"dbPurge.retentionDays": 0}, "spec.dbPurge.retentionDays", true},
	{"purge schedule not cron", map[string]any{"dbPurge.schedule": "every night"}, "spec.dbPurge.schedule", false},
	{"purge schedule with a time zone", map[string]any{"dbPurge.schedule": "CRON_TZ=Europe/Berlin 0 3 * * *"}, "spec.dbPurge.schedule", false},
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
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
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
