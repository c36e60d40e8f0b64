package reference

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Checks of the cases of spec.policyOverrides and spec.middleware, which
// render files beside glance-api.conf.

// policyRendered: glance-api.conf names the policy file, and the config
// ConfigMap carries it with the rule (as JSON-escaped in r.all).
func policyRendered(rule string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, r.conf, "policy_file = /etc/glance/config/policy.yaml\n")
		assert.Contains(t, r.all, `"policy.yaml":"`+rule)
	}
}

// waitsForPolicyConfigMap: the example has no ConfigMap "policy", so
// nothing is rendered and the condition says which ConfigMap is missing.
func waitsForPolicyConfigMap(t *testing.T, r result) {
	t.Helper()
	conds, _ := r.status["conditions"].([]any)
	for _, c := range conds {
		c := c.(map[string]any)
		if c["type"] == "ConfigRendered" {
			assert.Equal(t, "False", c["status"])
			assert.Contains(t, c["message"], `ConfigMap "policy" does not exist`)
			return
		}
	}
	t.Fatal("no ConfigRendered condition")
}

// pasteHas: the paste file holds each piece (JSON-escaped in r.all).
func pasteHas(pieces ...string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		i := strings.Index(r.all, `"glance-api-paste.ini":"`)
		if !assert.GreaterOrEqual(t, i, 0, "no paste file") {
			return
		}
		for _, p := range pieces {
			assert.Contains(t, r.all[i:], p)
		}
	}
}
