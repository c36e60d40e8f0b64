package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// spec.secretStoreRef: the guide's standalone Glance waiting for the
// External Secrets store its credential Secrets arrive through.

// storeGlance is the standalone Glance naming the ClusterSecretStore
// "openbao".
const storeGlance = standaloneGlance + `  secretStoreRef: {kind: ClusterSecretStore, name: openbao}
`

// storeRef is the ClusterSecretStore storeGlance names.
var storeRef = chain.Ref{APIVersion: "external-secrets.io/v1", Kind: "ClusterSecretStore", Name: "openbao"}

// clusterStore is that store, with a fake provider, as External Secrets'
// controller leaves it: its Ready condition with the given status, reason
// and message.
func clusterStore(status, reason, message string) string {
	return `
apiVersion: external-secrets.io/v1
kind: ClusterSecretStore
metadata: {name: openbao}
spec:
  provider:
    fake:
      data: [{key: glance-db-password, value: unused}]
status:
  capabilities: ReadWrite
  conditions:
  - {type: Ready, status: "` + status + `", reason: ` + reason + `, message: "` + message + `", lastTransitionTime: "2026-01-01T00:00:00Z"}
`
}

// storeNotReady is what the store's controller writes when the provider
// refuses it.
var storeNotReady = map[string]any{"capabilities": "ReadWrite", "conditions": []any{map[string]any{"type": "Ready", "status": "False",
	"reason": "InvalidProviderConfig", "message": "unable to validate store", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}

// TestSecretStoreGatesTheRender walks a Glance through its store: missing,
// nothing is created and SecretsReady names it; Ready, the Glance renders
// and is Ready; not Ready again, the children stay as they are and Ready is
// False until the store is back.
func TestSecretStoreGatesTheRender(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + storeGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	assert.Equal(t, "False/SecretStoreNotReady", s.condition("Glance", "glance", "SecretsReady"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "SecretsReady"), "ClusterSecretStore/openbao is not found")
	assert.False(t, s.exists("Deployment", "glance"), "nothing is rendered before the store is Ready")
	assert.Equal(t, "False/NotAllReady", s.condition("Glance", "glance", "Ready"))

	s.apply(clusterStore("True", "Valid", "store validated"))
	s.converge()
	assert.Equal(t, "True/SecretsAvailable", s.condition("Glance", "glance", "SecretsReady"))
	assert.True(t, s.exists("Deployment", "glance"))
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	before := childrenOf(s)

	require.True(t, s.w.SetStatus(storeRef, storeNotReady))
	s.converge()
	assert.Equal(t, "False/SecretStoreNotReady", s.condition("Glance", "glance", "SecretsReady"))
	assert.Contains(t, conditionMessage(s.get("Glance", "glance"), "SecretsReady"), `is not Ready ("InvalidProviderConfig": "unable to validate store")`)
	assert.Equal(t, "False/LastGoodKept", s.condition("Glance", "glance", "ConfigRendered"))
	assert.Equal(t, "False/NotAllReady", s.condition("Glance", "glance", "Ready"))
	assert.Equal(t, before, childrenOf(s), "the last-good children are kept as they are")
}
