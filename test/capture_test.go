package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/testcert"
)

// glanceController is the glance CompositeController of chain.Controllers.
func glanceController() chain.Controller {
	for _, c := range chain.Controllers() {
		if c.Name == "glance" {
			return c
		}
	}
	panic("no glance controller")
}

// capturedCase is a /sync/glance fixture whose request is captured from a
// scenario: the exact body Metacontroller would send in that state.
type capturedCase struct {
	name, description string
	// build drives a scenario into the state to capture and returns the Glance.
	build func(s *scenario) string
}

var capturedGlanceCases = []capturedCase{
	{"two-stores-ready", `
The guide's Step 2 after convergence: two stores, both rendered, the
Deployment rolled out. The answer re-renders the same ConfigMap
(default_backend = default, enabled_backends = default:s3,secondary:s3), the
same backends Secret, Deployment and Service; every condition is True.`,
		func(s *scenario) string {
			s.apply(credentials)
			s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
			s.converge()
			return "controlplane-glance"
		}},
	{"default-switched", `
The guide's Step 3: isDefault moved from default to secondary in one edit,
already projected onto the GlanceBackends; the Deployment still mounts the
old config. The answer has a new ConfigMap (default_backend = secondary), the
same backends Secret name, a Deployment mounting the new ConfigMap, and keeps
the ConfigMap the running pods mount until they rolled.`,
		func(s *scenario) string {
			s.apply(credentials)
			s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
			s.converge()
			s.apply(controlPlane(entry("default", "glance-images", false) + entry("secondary", "glance-images-2", true)))
			s.convergeWithout("glance")
			return "controlplane-glance"
		}},
	{"released-default-keeps-last-good", `
Standalone switch, patch 1: the old default was released, so no backend is the
default. BackendsReady=False/NoDefaultBackend; nothing is re-rendered: every
child comes back exactly as last applied, and the pods keep the last-good
config.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.converge()
			return "glance"
		}},
	{"promoted-default", `
Standalone switch, patch 2: secondary promoted after the release. The config
re-renders with default_backend = secondary, the backends Secret keeps its name,
and the Deployment rolls onto the new ConfigMap.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.converge()
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"first-install-no-default", `
First install: the only backend is the default, but its credentials Secret does
not exist, so its store section was never rendered. No ConfigMap, Secret or
Deployment is created; BackendsReady=False/NoDefaultBackend and
ConfigRendered=False/NotRendered say why.`,
		func(s *scenario) string {
			s.apply(glanceSecrets + "\n---\n" + standaloneGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"faulted-non-default-skipped", `
The non-default backend "archive" has no credentials Secret: it is skipped
(status.backends[] reason GlanceBackendSkipped), the default store keeps
projecting, BackendsReady=False/WaitingForBackends names it and why.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("archive", "glance-archive", "archive-credentials", false))
			s.converge()
			return "glance"
		}},
	{"faulted-default-keeps-last-good", `
The default's credentials Secret lost a key after install: its store Secret is
gone, so no default can be rendered. The config is not re-rendered (never a
default_backend missing from enabled_backends); the last-good children are
kept as last applied.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(`
apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001}
`)
			s.converge()
			return "glance"
		}},
	{"two-defaults", `
Two backends both claim isDefault (admission should have refused the second).
BackendsReady=False/NoDefaultBackend names both candidates; the last-good
config is kept.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"stale-store-secret", `
The secondary backend's bucket just changed; its store Secret still holds the
section rendered from the old spec (its spec-hash annotation differs). The
stale section is not taken as current, but dropping the store would take it
(and its images) out of glance-api and roll the pods twice: the running
[secondary] section is held, so the answer renders the same names as before
and status says the store waits for its re-render (StoreSecretOutdated).`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("secondary", "glance-images-3", "garage-s3-credentials", false))
			return "glance"
		}},
	{"rollout-in-progress", `
The default was switched while the Deployment's rollout of the previous
config has not finished (status shows old replicas). The ConfigMap the
template mounted and the older one still in use stay in the answer, so no
running pod loses its config; DeploymentReady=False/WaitingForDeployment.`,
		func(s *scenario) string {
			standalone(s)
			s.w.Rollouts = false
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", false))
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			return "glance"
		}},
	{"no-backends", `
A Glance with no GlanceBackend attached (another Glance's backends are in the
namespace and ignored), made a minute before the answer, so its first render
no longer waits for backends. Nothing is created; NoDefaultBackend says no
backend is attached.`,
		func(s *scenario) string {
			s.w.Now = FixtureNow.Add(-time.Minute)
			s.apply(standaloneGlance)
			s.apply(strings.ReplaceAll(standaloneBackend("other", "b", "garage-s3-credentials", true), "glanceRef: {name: glance}", "glanceRef: {name: another}"))
			s.converge()
			return "glance"
		}},
	{"first-render-waits", `
First install: the standalone Glance, backend primary (the default) rendered,
backend secondary just created and not synced yet. The first render waits for
it (at most glance.FirstRenderWait from its creation), so the config, the
schema Job and the Deployment are made once, with both stores: nothing is
created, BackendsReady=False/WaitingForBackends names no backend (the status
stays the same while they arrive), and resyncAfterSeconds asks for a sync
when the wait ends.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + "\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.convergeWithout("glance")
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", false))
			return "glance"
		}},
	{"invalid-spec-keeps-last-good", `
The Glance's keystoneEndpoint holds a newline (the API server's schema would
refuse it). Rendering it could inject config, so nothing is re-rendered:
ConfigRendered=False/InvalidSpec and the last-good children are kept.`,
		func(s *scenario) string {
			standalone(s)
			g := s.get("Glance", "glance")
			g["spec"].(map[string]any)["keystoneEndpoint"] = "http://keystone:5000/v3\n[DEFAULT]\ndebug = true"
			require.NoError(s.t, s.w.Apply(g))
			return "glance"
		}},
	{"first-install-schema-sync-running", `
First install: the guide's standalone Glance with its stores, database and
service-user Secrets. The db sync Job (db sync, then the metadata
definitions) is running. Nothing else may run yet: the config ConfigMap, the
backends Secret, the database URL's Secret, the Secret with the service
password escaped for oslo.config and the Service exist (the Job mounts or
reads them), the Deployment does not; DatabaseReady=False/DBSyncInProgress
names the Job.`,
		func(s *scenario) string {
			newSchemaLog(s).hold = true
			standalone(s)
			return "glance"
		}},
	{"first-install-schema-synced", `
First install, the moment the db sync Job has succeeded: the answer creates
the glance-api Deployment and writes status.installedRelease 2025.2 and
status.installedImage; DatabaseReady=True/DatabaseSynced. The Job stays, for
its logs.`,
		func(s *scenario) string {
			newSchemaLog(s).hold = true
			standalone(s)
			job := s.names("Job")[0]
			s.w.SetStatus(chain.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "openstack", Name: job},
				map[string]any{"succeeded": 1, "conditions": []any{map[string]any{"type": "Complete", "status": "True"}}})
			return "glance"
		}},
	{"schema-sync-failed", `
The first db sync Job failed (its backoff is spent).
DatabaseReady=False/DBSyncFailed names the Job, how to read its logs and
that deleting it runs it again; still no Deployment.`,
		func(s *scenario) string {
			newSchemaLog(s).fail = "sync"
			standalone(s)
			return "glance"
		}},
	{"waiting-for-db-credentials", `
The database Secret glance-db has a username but no password key.
DatabaseReady=False/WaitingForDBCredentials names the Secret and the key,
never a value; no URL can be built, so nothing is rendered, no schema Job
starts and no Deployment is created.`,
		func(s *scenario) string {
			s.apply(strings.Split(credentials, "\n---\n")[0])
			s.apply(strings.Replace(glanceSecrets, `stringData: {username: glance, password: "db-secret@:/%0001"}`, `stringData: {username: glance}`, 1))
			s.apply(standaloneGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"service-user-secret-missing", `
After install the service user's Secret was deleted. glance-api needs its
password to check tokens, so ServiceUserReady=False/WaitingForCredentials
names the Secret and nothing is re-rendered: every child comes back as last
applied and the running pods keep their config and credentials.`,
		func(s *scenario) string {
			newSchemaLog(s)
			standalone(s)
			s.w.Delete(chain.Ref{APIVersion: "v1", Kind: "Secret", Namespace: "openstack", Name: "glance-service-user"})
			return "glance"
		}},
	{"credentials-rotated", `
The database password in glance-db was changed. The database URL's Secret
glance-db-connection gets the new URL and the pod template's
glance.openstack.c5c3.io/credentials-digest annotation a new value (a keyed
digest, never the password), so the pods roll and read it; no schema Job runs.`,
		func(s *scenario) string {
			newSchemaLog(s)
			standalone(s)
			s.apply(strings.Replace(glanceSecrets, `password: "db-secret@:/%0001"`, `password: "rotated-secret/0002"`, 1))
			return "glance"
		}},
	{"database-tls", `
spec.database.tls asks for verify-full with a CA bundle Secret and a
kubernetes.io/tls client certificate Secret. The database URL's Secret
glance-db-connection carries ssl_ca, ssl_cert, ssl_key and
ssl_check_hostname=true naming the files under /etc/glance/database-tls; the
Deployment and the db sync Job project both Secrets there read-only (mode
0440) and mount them into every glance container. No certificate or key is
in a ConfigMap, the status or an event.`,
		func(s *scenario) string {
			newSchemaLog(s)
			glance := strings.Replace(standaloneGlance, "    secretRef: {name: glance-db}\n", `    secretRef: {name: glance-db}
    tls:
      mode: verify-full
      caBundleSecretRef: {name: glance-db-ca}
      clientCertSecretRef: {name: glance-db-client}
`, 1)
			s.apply(credentials + "\n---\n" + databaseTLSSecrets + "\n---\n" + glance + "\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"patch-bump-sync-running", `
spec.image.tag moved from 2025.2 to 2025.2-p1, a new image of the same
release: a db sync Job for it runs first, and the Deployment keeps the
installed image until it has succeeded. DatabaseReady=False/DBSyncInProgress.`,
		func(s *scenario) string {
			log := newSchemaLog(s)
			standalone(s)
			log.hold = true
			s.apply(strings.Replace(standaloneGlance, `tag: "2025.2"`, `tag: "2025.2-p1"`, 1))
			s.converge()
			return "glance"
		}},
	{"upgrade-expanding", `
openStackRelease (and with it the image) moved from 2025.2 to 2026.1, the next
release. The upgrade starts: status.upgrade is phase Expanding towards 2026.1,
the db expand Job runs with the new image, and glance-api keeps running 2025.2
under the eventlet server. DatabaseReady=False/ExpandInProgress.`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(log *schemaLog) { log.hold = true })
			return "glance"
		}},
	{"upgrade-rolling-update", `
The db expand and db migrate Jobs of the upgrade to 2026.1 have succeeded:
phase RollingUpdate. The Deployment now runs the 2026.1 image under uWSGI
(command uwsgi, the ConfigMap holds glance-api-uwsgi.ini and no workers
option), but the rollout has not finished, so db contract waits.`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(*schemaLog) { s.w.Rollouts = false })
			return "glance"
		}},
	{"upgrade-contracting", `
Every pod runs the 2026.1 image: phase Contracting, the db contract Job (then
the new release's metadata definitions) runs. When it has succeeded, 2026.1 is
the installed release.`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(log *schemaLog) { log.holdAction = "contract" })
			return "glance"
		}},
	{"upgrade-failed", `
The db migrate Job of the upgrade to 2026.1 failed.
DatabaseReady=False/MigrateFailed names it and how to retry; the phase
stays Migrating and glance-api keeps the 2025.2 image: no pod runs a release
whose schema is not migrated.`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(log *schemaLog) { log.fail = "migrate" })
			return "glance"
		}},
	{"upgrade-target-changed", `
During the upgrade to 2026.1 (phase Expanding) openStackRelease was set to
2026.2. Nothing moves on: DatabaseReady=False/UpgradeTargetChanged says to
set it back to 2026.1 to finish, or to 2025.2 to abandon the upgrade. (The
webhook refuses this edit; the hook holds even if it gets through.)`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(log *schemaLog) { log.hold = true })
			s.apply(strings.ReplaceAll(standaloneGlance, `"2025.2"`, `"2026.2"`))
			return "glance"
		}},
	{"upgrade-skips-releases", `
openStackRelease moved from the installed 2025.2 to 2026.2, past 2026.1.
DatabaseReady=False/UpgradePathInvalid says which release comes first;
nothing runs, glance-api keeps 2025.2.`,
		func(s *scenario) string {
			newSchemaLog(s)
			standalone(s)
			s.apply(strings.ReplaceAll(standaloneGlance, `"2025.2"`, `"2026.2"`))
			return "glance"
		}},
	{"downgrade-refused", `
2026.1 is installed (upgraded from 2025.2) and openStackRelease went back to
2025.2. A contracted schema cannot go back: DatabaseReady=False/
DowngradeNotSupported, and glance-api keeps running 2026.1.`,
		func(s *scenario) string {
			upgradeTo(s, "2026.1", func(*schemaLog) {})
			s.apply(standaloneGlance)
			return "glance"
		}},
	{"image-release-mismatch", `
spec.image.tag is 2026.1 while openStackRelease stays 2025.2: the image is of
another release than the schema is prepared for, a rule admission and the
sync hook share. Nothing is re-rendered and it is never run, not even as a
schema Job: ConfigRendered=False/InvalidSpec names spec.image.tag with
admission's message, glance-api keeps the installed image.`,
		func(s *scenario) string {
			newSchemaLog(s)
			standalone(s)
			s.apply(strings.Replace(standaloneGlance, `tag: "2025.2"`, `tag: "2026.1"`, 1))
			return "glance"
		}},
	{"entry-removed-store-retiring", `
The backends entry "secondary" was removed from the ControlPlane:
Metacontroller deleted its GlanceBackend and the store Secret went with it.
The running backends.conf still holds [secondary], and images in that store
would fail to download without it, so the answer keeps the section (same
backends Secret, no roll), enabled but never the default, and reports it in
status.retiringStores until spec.dropRetiredStores lists "secondary".`,
		func(s *scenario) string {
			s.apply(credentials)
			s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
			s.converge()
			s.apply(controlPlane(entry("default", "glance-images", true)))
			s.convergeWithout("glance")
			return "controlplane-glance"
		}},
	{"several-replicas-disruption-budget", `
spec.deployment.replicas: 3. The Deployment runs three pods spread over nodes, then
zones (ScheduleAnyway), and a PodDisruptionBudget (maxUnavailable: 1) lets a
drain take one at a time. Every pod names itself to the others
(OS_DEFAULT__WORKER_SELF_REFERENCE_URL=http://$(POD_IP):9292) for imports
staged on another pod; enabled_import_methods is explicit.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + "  deployment: {replicas: 3}\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"autoscaled-keeps-observed-replicas", `
spec.autoscaling {maxReplicas: 6}: a HorizontalPodAutoscaler (minReplicas 2,
80% of the CPU request) owns the number of pods. It has scaled the
Deployment to 4; the answer returns replicas: 4, as observed, so
Metacontroller's apply neither resets it to spec.deployment.replicas nor drops it (which
would have the API server default it to 1). A PodDisruptionBudget too.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + "  autoscaling: {maxReplicas: 6}\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			d := s.get("Deployment", "glance")
			d["spec"].(map[string]any)["replicas"] = int64(4)
			require.NoError(s.t, s.w.Apply(d))
			return "glance"
		}},
	{"placement-and-staging-claim", `
spec.deployment's placement (node selector, toleration, node affinity, a
spread constraint without labelSelector, priority class) and spec.staging with a
volume claim: the glance-api pods get all of it (the spread constraint
selects the Glance's pods) and their staging area is a generic ephemeral
volume of 50Gi in class fast, one per pod; the tasks area is an emptyDir of
50Gi. A schema Job would run on the same nodes (selector, toleration, node
affinity, priority), without the spread.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + `  staging: {sizeLimit: 50Gi, volumeClaim: {storageClassName: fast}}
  deployment:
    nodeSelector: {node-role.kubernetes.io/control-plane: ""}
    tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [a, b]}]}]
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]
    priorityClassName: openstack-control
---
` + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"gateway-and-network-policy", `
spec.gateway and spec.networkPolicy on a running Glance, its route accepted by
its Gateway, and a backend on another S3 endpoint just attached: the HTTPRoute
glance routes images.example.com to the Service on 9292 with a 4h request
timeout; status.endpoint is https://images.example.com/. The NetworkPolicy
glance admits TCP 9292 from the gateways' namespace only and lets the pods
reach DNS, the database, memcached, Keystone and both S3 endpoints, the new
one included; the observed policy does not allow the new one yet, so its store
waits (StorePending, "waiting for NetworkPolicy") and the running config stays.
The NetworkPolicy glance-jobs lets the Job pods reach DNS and the database.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + reachGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			require.True(s.t, s.w.SetStatus(routeRef, map[string]any{"parents": []any{map[string]any{
				"parentRef": map[string]any{"name": "edge", "namespace": "gateways", "sectionName": "https"}, "controllerName": "example.com/gateway",
				"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}}}))
			s.converge()
			s.apply(archiveBackend)
			s.convergeWithout("glance")
			return "glance"
		}},
	{"operator-config", `
A Glance with everything an operator sets by hand: spec.extraConfig opening
anonymous access and overriding [keystone_authtoken] memcached_servers (a key
the hooks own), glance's unauthenticated-context filter after the pipeline's
own, a plugin section, and a policy override. glance-api.conf has the plugin's
section, the override in place of the rendered value and [oslo_policy]
policy_file; the paste file has the filter; policy.yaml the rule.
ExtraConfigHealthy is False naming the owned key, and Ready stays True.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + `  extraConfig:
    DEFAULT: {allow_anonymous_access: "true"}
    keystone_authtoken: {memcached_servers: "cache-0.openstack.svc:11211"}
  middleware:
  - {name: unauthenticated-context, filterFactory: "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory", position: after}
  plugins:
  - {name: example, configSection: example_driver, config: {enabled: "true"}}
  policyOverrides:
    rules: {delete_image: "role:admin"}
---
` + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"secret-store-ready", `
spec.secretStoreRef names the ClusterSecretStore openbao, which reports
Ready=True. Customize asked for it by name (cluster-scoped, keyed by its bare
name in related); the Glance renders as it would without the field, and
SecretsReady is True/SecretsAvailable naming ClusterSecretStore/openbao.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + storeGlance + "\n---\n" + clusterStore("True", "Valid", "store validated") + "\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"secret-store-not-ready-keeps-last-good", `
The running Glance's ClusterSecretStore openbao turned Ready=False
(InvalidProviderConfig): the credential Secrets it keeps may be stale or
about to go. SecretsReady is False/SecretStoreNotReady, quoting the store's
reason and message; nothing is re-rendered: every child comes back as last
applied (ConfigRendered=False/LastGoodKept) and Ready waits for SecretsReady.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + storeGlance + "\n---\n" + clusterStore("True", "Valid", "store validated") + "\n---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			require.True(s.t, s.w.SetStatus(storeRef, storeNotReady))
			return "glance"
		}},
}

// databaseTLSSecrets are a CA bundle and a client certificate that are the
// same bytes on every run, so regenerating the fixtures changes nothing.
var databaseTLSSecrets = func() string {
	ca, client := testcert.Fixed("db-ca", 1), testcert.Fixed("glance", 2)
	q := func(b []byte) string { j, _ := json.Marshal(string(b)); return string(j) }
	return `apiVersion: v1
kind: Secret
metadata: {name: glance-db-ca, namespace: openstack}
stringData: {ca.crt: ` + q(ca.CertPEM) + `}
---
apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata: {name: glance-db-client, namespace: openstack}
stringData: {tls.crt: ` + q(client.CertPEM) + `, tls.key: ` + q(client.KeyPEM) + `}
`
}()

// TestCaptureGlanceFixtures writes the request.json of every captured case
// (only with -update); TestFixtures then checks or writes the responses.
func TestCaptureGlanceFixtures(t *testing.T) {
	if !*update {
		t.Skip("captures requests only when regenerating fixtures (-update or UPDATE_FIXTURES=1)")
	}
	for _, c := range append(append(capturedGlanceCases, capturedPodCases...), capturedSchemaPodCases...) {
		t.Run(c.name, func(t *testing.T) {
			s := newScenario(t)
			name := c.build(s)
			req, err := s.w.SyncRequest(glanceController(), chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1",
				Kind: "Glance", Namespace: "openstack", Name: name})
			require.NoError(t, err)
			writeCase(t, filepath.Join("fixtures", "sync-glance", c.name), req, c.description)
		})
	}
}

func writeCase(t *testing.T, dir string, req any, description string) {
	require.NoError(t, os.MkdirAll(dir, 0o755))
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	var pretty any
	require.NoError(t, json.Unmarshal(raw, &pretty))
	out, err := json.MarshalIndent(pretty, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "request.json"), append(out, '\n'), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case.md"), []byte(strings.TrimSpace(description)+"\n\nCaptured from a scenario in test/capture_test.go.\n"), 0o644))
}
