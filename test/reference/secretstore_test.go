package reference

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// The cases of spec.secretStoreRef. The render harness holds no External
// Secrets store, so the one named is never Ready: the status says
// SecretsReady False, naming it, and nothing is rendered.
func init() {
	addCases(map[string]fieldCase{
		"secretStoreRef.kind": {true, map[string]any{"secretStoreRef.kind": "SecretStore", "secretStoreRef.name": "openbao"}, rendered,
			secretsWaitFor("SecretStore/openbao")},
		"secretStoreRef.name": {true, map[string]any{"secretStoreRef.name": "vault-backend"}, rendered,
			secretsWaitFor("ClusterSecretStore/vault-backend")},
	})
}

// secretsWaitFor checks the status names the store the Glance waits for,
// and that Ready waits for it.
func secretsWaitFor(store string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		c := condition(t, r, glance.CondSecretsReady)
		assert.Equal(t, "False", c["status"])
		assert.Equal(t, glance.ReasonSecretStoreNotReady, c["reason"])
		assert.Contains(t, c["message"], store+" is not found")
		ready := condition(t, r, "Ready")
		assert.Equal(t, "False", ready["status"])
		assert.Contains(t, ready["message"], glance.CondSecretsReady+" ("+glance.ReasonSecretStoreNotReady+")")
		assert.Nil(t, r.deployment, "nothing is rendered before the store is Ready")
	}
}

// condition is the status condition of a type.
func condition(t *testing.T, r result, typ string) map[string]any {
	t.Helper()
	c, ok := chain.Condition(chain.Object{"status": r.status}, typ)
	require.True(t, ok, "the status has no %s condition", typ)
	return c
}
