package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// credentials are the stores' S3 key pair and glanceSecrets.
const credentials = `
apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001, secret-access-key: secretexample0001}
---
` + glanceSecrets

// glanceSecrets are the Secrets a Glance names, as the guide's devstack
// writes them: the database's username and password, and the service
// user's password. The database password holds what a URL must encode.
const glanceSecrets = `
apiVersion: v1
kind: Secret
metadata: {name: glance-db, namespace: openstack}
stringData: {username: glance, password: "db-secret@:/%0001"}
---
apiVersion: v1
kind: Secret
metadata: {name: glance-service-user, namespace: openstack}
stringData: {password: service-secret-0001}
`

// controlPlane is the guide's Step 2 ControlPlane with the given entries.
func controlPlane(entries string) string {
	return `
apiVersion: c5c3.io/v1alpha1
kind: ControlPlane
metadata: {name: controlplane, namespace: openstack}
spec:
  services:
    glance:
      backends:` + entries
}

func entry(name, bucket string, isDefault bool) string {
	d := "false"
	if isDefault {
		d = "true"
	}
	return `
        - name: ` + name + `
          type: S3
          isDefault: ` + d + `
          s3:
            endpoint: http://garage.shared-services.svc.cluster.local:3900
            bucket: ` + bucket + `
            region: garage
            credentialsSecretRef: {name: garage-s3-credentials}`
}

// TestGuideControlPlaneWalkthrough follows the guide: the devstack's single
// default store, Step 2 (attach a second store) and Step 3 (switch the
// default in one edit).
func TestGuideControlPlaneWalkthrough(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	s.apply(controlPlane(entry("default", "glance-images", true)))
	s.converge()
	assert.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "controlplane-glance", "BackendsReady"))
	assert.Equal(t, "True/GlanceReady", s.condition("ControlPlane", "controlplane", "GlanceReady"))

	// Step 2: attach the second store.
	s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
	s.converge()
	for _, b := range []string{"controlplane-glance-default", "controlplane-glance-secondary"} {
		assert.Equal(t, "True/AllReady", s.condition("GlanceBackend", b, "Ready"), b)
	}
	assert.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "controlplane-glance", "BackendsReady"))
	assert.Equal(t, "True/AllReady", s.condition("Glance", "controlplane-glance", "Ready"))
	cfg1, backends1 := mounts(s.get("Deployment", "controlplane-glance"))
	assert.True(t, strings.HasPrefix(cfg1, "controlplane-glance-config-"), cfg1)
	assert.True(t, strings.HasPrefix(backends1, "controlplane-glance-backends-"), backends1)
	conf := configText(t, s.get("ConfigMap", cfg1))
	assert.Contains(t, conf, "enabled_backends = default:s3,secondary:s3\n")
	assert.Contains(t, conf, "[glance_store]\ndefault_backend = default\n")
	backendsConf := secretText(t, s.get("Secret", backends1), "backends.conf")
	assert.Contains(t, backendsConf, "[default]\n")
	assert.Contains(t, backendsConf, "[secondary]\n")
	assert.Contains(t, backendsConf, "s3_store_bucket = glance-images-2\n")
	assert.NotContains(t, conf, "secretexample0001", "credentials must stay out of the ConfigMap")

	// Step 3: move isDefault in one edit.
	s.apply(controlPlane(entry("default", "glance-images", false) + entry("secondary", "glance-images-2", true)))
	s.converge()
	cfg2, backends2 := mounts(s.get("Deployment", "controlplane-glance"))
	assert.NotEqual(t, cfg1, cfg2, "switching the default renders a new config")
	assert.Equal(t, backends1, backends2, "switching the default keeps the backends Secret")
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg2)), "default_backend = secondary\n")
	assert.Equal(t, "True/AllReady", s.condition("Glance", "controlplane-glance", "Ready"))
	assert.False(t, s.exists("ConfigMap", cfg1), "the old config is pruned once the rollout finished")
}

const standaloneGlance = `
apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: Glance
metadata: {name: glance, namespace: openstack}
spec:
  openStackRelease: "2025.2"
  image: {repository: ghcr.io/c5c3/glance, tag: "2025.2"}
  database:
    clusterRef: {name: openstack-db}
    database: glance
    secretRef: {name: glance-db}
  cache:
    clusterRef: {name: openstack-memcached}
  keystoneEndpoint: http://keystone.openstack.svc.cluster.local:5000/v3
  serviceUser:
    username: glance
    projectName: service
    userDomainName: Default
    projectDomainName: Default
    secretRef: {name: glance-service-user, key: password}
`

func standaloneBackend(name, bucket, secret string, isDefault bool) string {
	d := "false"
	if isDefault {
		d = "true"
	}
	return `
apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata: {name: ` + name + `, namespace: openstack}
spec:
  glanceRef: {name: glance}
  type: S3
  isDefault: ` + d + `
  s3:
    host: http://garage.shared-services.svc.cluster.local:3900
    bucket: ` + bucket + `
    region: garage
    credentialsSecretRef: {name: ` + secret + `}
`
}

// standalone converges the guide's standalone Glance with two backends.
func standalone(s *scenario) {
	s.apply(credentials + "\n---\n" + standaloneGlance + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
		standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", false))
	s.converge()
}

// childrenOf returns the Glance's Deployment, ConfigMaps and Secrets as they
// are stored, for byte-for-byte comparisons.
func childrenOf(s *scenario) []chain.Object {
	var out []chain.Object
	for _, o := range s.w.Objects() {
		switch chain.RefOf(o).Kind {
		case "Deployment", "ConfigMap", "Service":
			out = append(out, o)
		case "Secret":
			if !strings.HasSuffix(chain.RefOf(o).Name, "-store") && chain.RefOf(o).Name != "garage-s3-credentials" {
				out = append(out, o)
			}
		}
	}
	return out
}

// TestStandaloneTwoPatchSwitch is the guide's standalone default switch:
// release (last-good kept byte for byte), then promote (re-render and roll).
func TestStandaloneTwoPatchSwitch(t *testing.T) {
	s := newScenario(t)
	standalone(s)
	require.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	before := childrenOf(s)
	cfg1, backends1 := mounts(s.get("Deployment", "glance"))

	// 1. release the current default.
	s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
	s.converge()
	assert.Equal(t, "False/NoDefaultBackend", s.condition("Glance", "glance", "BackendsReady"))
	assert.Equal(t, "False/LastGoodKept", s.condition("Glance", "glance", "ConfigRendered"))
	assert.Equal(t, before, childrenOf(s), "the last-good Deployment, ConfigMap and Secret are kept exactly")
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "BackendsReady"), "no attached backend is marked isDefault")

	// 2. promote the new default.
	s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
	s.converge()
	cfg2, backends2 := mounts(s.get("Deployment", "glance"))
	assert.NotEqual(t, cfg1, cfg2)
	assert.Equal(t, backends1, backends2)
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg2)), "default_backend = secondary\n")
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}

// TestFaultedNonDefaultBackendIsSkipped: a backend whose credentials Secret
// is missing is skipped and reported while its sibling keeps projecting.
func TestFaultedNonDefaultBackendIsSkipped(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true) + "\n---\n" +
		standaloneBackend("archive", "glance-archive", "archive-credentials", false))
	s.converge()
	assert.Equal(t, "False/WaitingForCredentials", s.condition("GlanceBackend", "archive", "CredentialsReady"))
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "glance", "BackendsReady"))
	msg := conditionMessage(s.get("Glance", "glance"), "BackendsReady")
	assert.Contains(t, msg, `"archive"`)
	assert.Contains(t, msg, "credentials")
	cfg, backends := mounts(s.get("Deployment", "glance"))
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg)), "enabled_backends = primary:s3\n")
	assert.NotContains(t, secretText(t, s.get("Secret", backends), "backends.conf"), "[archive]")
	st := s.get("Glance", "glance")["status"].(map[string]any)["backends"].([]any)
	require.Len(t, st, 2)
	assert.Equal(t, "GlanceBackendSkipped", st[0].(map[string]any)["reason"], "archive sorts first")

	// The Secret appears: the store is projected on the next syncs.
	s.apply(strings.ReplaceAll(credentials, "garage-s3-credentials", "archive-credentials"))
	s.converge()
	assert.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "glance", "BackendsReady"))
	assert.Equal(t, "True/AllReady", s.condition("GlanceBackend", "archive", "Ready"))
}

// TestFaultedDefaultBackend: a default whose credentials are missing never
// yields a default_backend missing from enabled_backends. On first install
// nothing is created; later, the last-good config is kept.
func TestFaultedDefaultBackend(t *testing.T) {
	s := newScenario(t)
	s.apply(standaloneGlance + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	assert.False(t, s.exists("Deployment", "glance"), "no Deployment without a valid default")
	assert.Equal(t, "False/NoDefaultBackend", s.condition("Glance", "glance", "BackendsReady"))
	assert.Equal(t, "False/NotRendered", s.condition("Glance", "glance", "ConfigRendered"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "BackendsReady"), "credentials")

	s.apply(credentials)
	s.converge()
	require.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	before := childrenOf(s)

	// The credentials Secret loses a key: the store is no longer rendered,
	// and the running config stays.
	s.apply(`
apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001}
`)
	s.converge()
	assert.Equal(t, "False/WaitingForCredentials", s.condition("GlanceBackend", "primary", "CredentialsReady"))
	assert.Equal(t, "False/NoDefaultBackend", s.condition("Glance", "glance", "BackendsReady"))
	assert.Equal(t, before, childrenOf(s))
}

// TestRolloutHistoryRetention: while the Deployment has not rolled out, the
// configs its pods may still mount stay; once it has, they go.
func TestRolloutHistoryRetention(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + "\n---\n" +
		standaloneBackend("a", "bucket-a", "garage-s3-credentials", true) + "\n---\n" +
		standaloneBackend("b", "bucket-b", "garage-s3-credentials", false))
	s.converge()
	first, _ := mounts(s.get("Deployment", "glance"))

	s.w.Rollouts = false // pods never finish rolling
	flip := func(aDefault bool) {
		s.apply(standaloneBackend("a", "bucket-a", "garage-s3-credentials", false) + "\n---\n" +
			standaloneBackend("b", "bucket-b", "garage-s3-credentials", false))
		s.converge()
		s.apply(standaloneBackend("a", "bucket-a", "garage-s3-credentials", aDefault) + "\n---\n" +
			standaloneBackend("b", "bucket-b", "garage-s3-credentials", !aDefault))
		s.converge()
	}
	flip(false)
	assert.True(t, s.exists("ConfigMap", first), "the previous config stays while the rollout is in progress")
	assert.Equal(t, "False/WaitingForDeployment", s.condition("Glance", "glance", "DeploymentReady"))
	// Each edit of a store makes a new backends Secret while the pods still
	// run older ones. Once a step has converged the template mounts the
	// newest, and the hook keeps it and the HistoryLimit newest others: the
	// history fills up to that bound and never passes it.
	backendsSecrets := func() []string {
		var out []string
		for _, n := range s.names("Secret") {
			if strings.HasPrefix(n, "glance-backends-") {
				out = append(out, n)
			}
		}
		return out
	}
	most := 0
	for i := 0; i < 2*glance.HistoryLimit+2; i++ {
		s.apply(standaloneBackend("a", "bucket-a", "garage-s3-credentials", true) + "\n---\n" +
			standaloneBackend("b", "bucket-b-"+string(rune('a'+i)), "garage-s3-credentials", false))
		s.converge()
		kept := backendsSecrets()
		assert.LessOrEqual(t, len(kept), glance.HistoryLimit+1, "step %d: history is bounded: %v", i, kept)
		most = max(most, len(kept))
	}
	assert.Equal(t, glance.HistoryLimit+1, most, "older backends Secrets are kept up to the bound while the rollout is unfinished")
	assert.LessOrEqual(t, len(s.names("ConfigMap")), glance.HistoryLimit+2, "history is bounded: %v", s.names("ConfigMap"))

	s.w.Rollouts = true
	s.converge()
	assert.Len(t, s.names("ConfigMap"), 1, "only the current config remains after the rollout")
	assert.Len(t, backendsSecrets(), 1, "only the current backends Secret remains after the rollout")
	assert.Equal(t, "True/DeploymentReady", s.condition("Glance", "glance", "DeploymentReady"))
}

// TestCredentialRotationRollsPods: new Secret data gives a new backends
// Secret name, so the pods roll onto the new keys.
func TestCredentialRotationRollsPods(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	cfg1, backends1 := mounts(s.get("Deployment", "glance"))
	s.apply(strings.ReplaceAll(credentials, "secretexample0001", "rotatedsecret0002"))
	s.converge()
	cfg2, backends2 := mounts(s.get("Deployment", "glance"))
	assert.Equal(t, cfg1, cfg2)
	assert.NotEqual(t, backends1, backends2)
	assert.Contains(t, secretText(t, s.get("Secret", backends2), "backends.conf"), "rotatedsecret0002")
}

// TestHandMadeBackendOnProjectedGlance: a non-default backend attached by
// hand to the projected Glance is projected and never touched by the
// ControlPlane; a hand edit of a projected child is reverted.
func TestHandMadeBackendOnProjectedGlance(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	s.apply(controlPlane(entry("default", "glance-images", true)))
	s.converge()
	hand := strings.ReplaceAll(standaloneBackend("archive", "glance-archive", "garage-s3-credentials", false),
		"glanceRef: {name: glance}", "glanceRef: {name: controlplane-glance}")
	s.apply(hand)
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("GlanceBackend", "archive", "Ready"))
	cfg, _ := mounts(s.get("Deployment", "controlplane-glance"))
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg)), "enabled_backends = archive:s3,default:s3\n")

	edited := s.get("GlanceBackend", "controlplane-glance-default")
	edited["spec"].(map[string]any)["s3"].(map[string]any)["bucket"] = "hand-edited"
	require.NoError(t, s.w.Apply(edited))
	s.converge()
	assert.Equal(t, "glance-images", s.get("GlanceBackend", "controlplane-glance-default")["spec"].(map[string]any)["s3"].(map[string]any)["bucket"])
	assert.True(t, s.exists("GlanceBackend", "archive"), "the hand-made backend is left alone")

	s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
	s.converge()
	assert.ElementsMatch(t, []string{"archive", "controlplane-glance-default", "controlplane-glance-secondary"}, s.names("GlanceBackend"))
}

// TestHandMadeDefaultBeforeTheControlPlane: a hand-made default on
// controlplane-glance that got in before the ControlPlane existed (no
// admission could tell then) does not take the default: the ControlPlane's
// list is the single source of truth on its Glance, the projected default
// is rendered, and the hand-made store is attached as a non-default store
// with the reason in the Glance's status.
func TestHandMadeDefaultBeforeTheControlPlane(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	s.apply(strings.ReplaceAll(standaloneBackend("archive", "glance-archive", "garage-s3-credentials", true),
		"glanceRef: {name: glance}", "glanceRef: {name: controlplane-glance}"))
	s.apply(controlPlane(entry("default", "glance-images", true)))
	s.converge()

	g := s.get("Glance", "controlplane-glance")
	assert.Equal(t, "default", g["status"].(map[string]any)["defaultBackend"])
	cfg, _ := mounts(s.get("Deployment", "controlplane-glance"))
	text := configText(t, s.get("ConfigMap", cfg))
	assert.Contains(t, text, "enabled_backends = archive:s3,default:s3\n")
	assert.Contains(t, text, "default_backend = default\n")
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "controlplane-glance", "BackendsReady"))
	assert.Contains(t, conditionMessage(g, "BackendsReady"),
		`"archive" (store archive): isDefault is ignored: ControlPlane "controlplane" sets the default store of this Glance`)
	var reasons []string
	for _, b := range g["status"].(map[string]any)["backends"].([]any) {
		b := b.(map[string]any)
		reasons = append(reasons, fmt.Sprintf("%s:%v:%v", b["name"], b["projected"], b["reason"]))
	}
	assert.Equal(t, []string{"archive:true:DefaultSetByControlPlane", "controlplane-glance-default:true:<nil>"}, reasons)
}

// TestAutoscalerOwnsReplicas: with spec.autoscaling the autoscaler sets the
// Deployment's replicas and the hooks never take them back, through
// Metacontroller's three-way apply: not when autoscaling is turned on
// (dropping the field would have the API server default it to 1), not on
// later syncs. Turned off, spec.replicas counts again and the autoscaler
// goes.
func TestAutoscalerOwnsReplicas(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + "  deployment: {replicas: 3}\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	replicas := func() any { return s.get("Deployment", "glance")["spec"].(map[string]any)["replicas"] }
	assert.EqualValues(t, 3, replicas())
	assert.Equal(t, "minAvailable=1", budget(t, s), "three pods: a drain leaves one serving")
	assert.False(t, s.exists("HorizontalPodAutoscaler", "glance"))

	s.apply(standaloneGlance + "  deployment: {replicas: 3}\n  autoscaling: {minReplicas: 2, maxReplicas: 8}\n")
	s.converge()
	assert.True(t, s.exists("HorizontalPodAutoscaler", "glance"))
	assert.EqualValues(t, 3, replicas(), "turning autoscaling on keeps the running pods")
	assert.Equal(t, "minAvailable=1", budget(t, s), "the autoscaler leaves at least two pods")

	// The autoscaler scales the Deployment (its scale subresource).
	d := s.get("Deployment", "glance")
	d["spec"].(map[string]any)["replicas"] = int64(6)
	require.NoError(t, s.w.Apply(d))
	s.converge()
	assert.EqualValues(t, 6, replicas(), "the hooks leave the autoscaler's number")

	s.apply(standaloneGlance + "  deployment: {replicas: 2}\n")
	s.converge()
	assert.False(t, s.exists("HorizontalPodAutoscaler", "glance"))
	assert.EqualValues(t, 2, replicas(), "without autoscaling, spec.replicas")
	assert.Equal(t, "minAvailable=1", budget(t, s))

	s.apply(standaloneGlance + "  deployment: {replicas: 1}\n")
	s.converge()
	assert.Equal(t, "maxUnavailable=1", budget(t, s), "one pod: a budget that never holds a drain, as the reference's")
}

// budget is the PodDisruptionBudget's bound, "minAvailable=1" or
// "maxUnavailable=1".
func budget(t *testing.T, s *scenario) string {
	t.Helper()
	require.True(t, s.exists("PodDisruptionBudget", "glance"), "every Glance has its budget")
	spec := s.get("PodDisruptionBudget", "glance")["spec"].(map[string]any)
	var out []string
	for _, f := range []string{"minAvailable", "maxUnavailable"} {
		if v, ok := spec[f]; ok {
			out = append(out, fmt.Sprintf("%s=%v", f, v))
		}
	}
	return strings.Join(out, ",")
}

// TestRemovedEntryRetiresItsStore: removing a backends[] entry (the
// projected GlanceBackend and its store Secret are deleted) does not drop
// the store's section: images in it stay readable. The section is carried
// from the running config, never as the default, and reported as retiring,
// until spec.services.glance.dropRetiredStores lists the store.
func TestRemovedEntryRetiresItsStore(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
	s.converge()
	backendsText := func() string {
		_, sec := mounts(s.get("Deployment", "controlplane-glance"))
		return secretText(t, s.get("Secret", sec), "backends.conf")
	}
	before := backendsText()
	require.Contains(t, before, "[secondary]\n")

	s.apply(controlPlane(entry("default", "glance-images", true)))
	s.converge()
	assert.False(t, s.exists("GlanceBackend", "controlplane-glance-secondary"), "Metacontroller deleted the child")
	assert.False(t, s.exists("Secret", "controlplane-glance-secondary-store"), "and its store Secret went with it")
	assert.Equal(t, before, backendsText(), "the running backends.conf is kept as it was: same section, same name, no roll")
	cfg, _ := mounts(s.get("Deployment", "controlplane-glance"))
	text := configText(t, s.get("ConfigMap", cfg))
	assert.Contains(t, text, "enabled_backends = default:s3,secondary:s3\n")
	assert.Contains(t, text, "default_backend = default\n")
	g := s.get("Glance", "controlplane-glance")
	retiring := g["status"].(map[string]any)["retiringStores"].([]any)
	require.Len(t, retiring, 1)
	assert.Equal(t, "secondary", retiring[0].(map[string]any)["storeId"])
	assert.Equal(t, true, retiring[0].(map[string]any)["kept"])
	assert.Contains(t, conditionMessage(g, "BackendsReady"), `retiring, kept readable until spec.dropRetiredStores lists them: "secondary"`)

	// The user confirms the store is empty: its section goes.
	s.apply(strings.Replace(controlPlane(entry("default", "glance-images", true)), "      backends:",
		"      dropRetiredStores: [secondary]\n      backends:", 1))
	s.converge()
	after := backendsText()
	assert.NotContains(t, after, "[secondary]")
	assert.Contains(t, after, "[default]\n")
	cfg, _ = mounts(s.get("Deployment", "controlplane-glance"))
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg)), "enabled_backends = default:s3\n")
	_, has := s.get("Glance", "controlplane-glance")["status"].(map[string]any)["retiringStores"]
	assert.False(t, has, "nothing retires any more")
}

// TestDeletedBackendRetiresItsStore: the same for a standalone Glance whose
// GlanceBackend is deleted; a new backend with the store id takes it back.
func TestDeletedBackendRetiresItsStore(t *testing.T) {
	s := newScenario(t)
	standalone(s)
	s.w.Delete(chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "GlanceBackend", Namespace: "openstack", Name: "secondary"})
	s.converge()
	_, sec := mounts(s.get("Deployment", "glance"))
	assert.Contains(t, secretText(t, s.get("Secret", sec), "backends.conf"), "[secondary]\n")
	assert.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "glance", "BackendsReady"))

	s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", false))
	s.converge()
	_, has := s.get("Glance", "glance")["status"].(map[string]any)["retiringStores"]
	assert.False(t, has, "attached again, the store is no longer retiring")
}
