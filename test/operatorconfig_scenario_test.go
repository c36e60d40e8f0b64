package test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// withSpec is the standalone Glance with lines added to its spec.
func withSpec(lines string) string {
	return standaloneGlance + lines
}

// policyConfigMap is a ConfigMap holding policy rules at key policy.yaml.
func policyConfigMap(rules string) string {
	return `
apiVersion: v1
kind: ConfigMap
metadata: {name: glance-policy, namespace: openstack}
data:
  policy.yaml: |
` + indent(rules, "    ")
}

// A Glance whose policyOverrides names a ConfigMap waits for it, then
// renders its rules under the inline ones, and an edit of the ConfigMap
// alone rolls the pods onto a new config.
func TestPolicyConfigMapRulesRollThePods(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + withSpec("  policyOverrides:\n    configMapRef: {name: glance-policy}\n    rules: {delete_image: \"!\"}\n") + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	assert.Equal(t, "False/InvalidSpec", s.condition("Glance", "glance", "ConfigRendered"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "ConfigRendered"), `ConfigMap "glance-policy" does not exist`)
	assert.False(t, s.exists("Deployment", "glance"), "nothing runs without its policy")

	s.apply(policyConfigMap("get_images: role:reader\ndelete_image: role:admin\n"))
	s.converge()
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	cfg, _ := mounts(s.get("Deployment", "glance"))
	data := s.get("ConfigMap", cfg)["data"].(map[string]any)
	assert.Equal(t, "\"delete_image\": \"!\"\n\"get_images\": \"role:reader\"\n", data["policy.yaml"], "inline rules over the ConfigMap's")
	assert.Contains(t, data["glance-api.conf"], "policy_file = /etc/glance/config/policy.yaml\n")

	s.apply(policyConfigMap("get_images: role:member\n"))
	s.converge()
	cfg2, _ := mounts(s.get("Deployment", "glance"))
	assert.NotEqual(t, cfg, cfg2, "the ConfigMap's new rules are a new config: the pods roll")
	assert.Contains(t, s.get("ConfigMap", cfg2)["data"].(map[string]any)["policy.yaml"], `"get_images": "role:member"`)
}

// An extraConfig override of a key the hooks own is reported, apart from
// Ready, with one Warning Event; removed, the condition is True and no
// other Event is made.
func TestExtraConfigOwnedKeyOverride(t *testing.T) {
	s := newScenario(t)
	override := "  extraConfig:\n    keystone_authtoken: {memcached_servers: \"cache-0:11211\"}\n    DEFAULT: {allow_anonymous_access: \"true\"}\n"
	s.apply(credentials + "\n---\n" + withSpec(override) + "\n---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	g := s.get("Glance", "glance")
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"), "not part of Ready")
	assert.Equal(t, "False/OwnedKeysOverridden", s.condition("Glance", "glance", "ExtraConfigHealthy"))
	assert.Equal(t, "spec.extraConfig overrides 1 key the hooks render: [keystone_authtoken] memcached_servers",
		conditionMessage(g, "ExtraConfigHealthy"))
	cfg, _ := mounts(s.get("Deployment", "glance"))
	conf := configText(t, s.get("ConfigMap", cfg))
	assert.Contains(t, conf, "memcached_servers = cache-0:11211\n")
	assert.Equal(t, 1, strings.Count(conf, "memcached_servers"), "replaced in place, not added twice")
	assert.Contains(t, conf, "allow_anonymous_access = true\n")
	events := extraConfigEventNames(s)
	require.Len(t, events, 1, "one Warning Event")

	s.apply(credentials + "\n---\n" + standaloneGlance)
	s.converge()
	assert.Equal(t, "True/NoOwnedKeysOverridden", s.condition("Glance", "glance", "ExtraConfigHealthy"))
	assert.Equal(t, events, extraConfigEventNames(s), "no other Event")
}

func extraConfigEventNames(s *scenario) []string {
	var out []string
	for _, e := range s.w.ObjectsIn("openstack", "Event") {
		if e["reason"] == "ExtraConfigOwnedKeyOverride" {
			out = append(out, chain.RefOf(e).Name)
		}
	}
	return out
}
