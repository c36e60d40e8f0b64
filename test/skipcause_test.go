package test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
)

// secondaryCredentials is the secondary store's own key pair, so it can
// break alone.
func secondaryCredentials(secretKey string) string {
	return `
apiVersion: v1
kind: Secret
metadata: {name: secondary-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0002, secret-access-key: "` + secretKey + `"}
`
}

// ownCredentials is the guide's Step 2 secondary entry on
// secondaryCredentials.
var ownCredentials = strings.Replace(entry("secondary", "glance-images-2", false),
	"credentialsSecretRef: {name: garage-s3-credentials}", "credentialsSecretRef: {name: secondary-s3-credentials}", 1)

// skipMessages records, on every intermediate state, what the Glance's
// status says of the secondary store whenever it leaves it out, as
// "<reason>: <message>".
func skipMessages(s *scenario) *[]string {
	return skipMessagesOf(s, "controlplane-glance", "secondary")
}

// skipMessagesOf is skipMessages for one store of one Glance.
func skipMessagesOf(s *scenario, glanceName, storeID string) *[]string {
	var seen []string
	s.w.ReactAtOnce, s.w.ReactBetweenWrites = true, true
	check := s.w.AfterSync
	s.w.AfterSync = func(w *chain.World, r chain.Ref) error {
		if g, ok := w.Get(chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: "openstack", Name: glanceName}); ok {
			raw, _ := json.Marshal(g["status"])
			var st struct {
				Backends []struct{ StoreID, Reason, Message string } `json:"backends"`
			}
			_ = json.Unmarshal(raw, &st)
			for _, b := range st.Backends {
				if m := b.Reason + ": " + b.Message; b.StoreID == storeID && b.Reason != "" && (len(seen) == 0 || seen[len(seen)-1] != m) {
					seen = append(seen, m)
				}
			}
		}
		return check(w, r)
	}
	return &seen
}

// countNamedSkips checks what skipMessages recorded: every skip names the
// cause, and anything else is the store on its way (before its backend
// reported). It counts both.
func countNamedSkips(t *testing.T, seen []string) (skips, pending int) {
	t.Helper()
	for _, m := range seen {
		if strings.HasPrefix(m, glance.ReasonBackendSkipped+": ") {
			skips++
			assert.Contains(t, m, `its credentials are not ready: credentials Secret "secondary-s3-credentials" key secret-access-key`,
				"from the first skip, the cause is named")
			continue
		}
		pending++
		assert.Equal(t, glance.ReasonStorePending+": its store is not rendered yet", m, "before the backend reports, its store is on its way, not skipped")
	}
	return skips, pending
}

// A backend whose credentials break is skipped naming the cause from the
// first status that skips it, even when the Glance syncs between the
// backend's writes (its store Secret deleted, its status not yet updated):
// the backend keeps its store Secret until its status says why.
func TestBrokenCredentialsNamedFromTheStart(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + secondaryCredentials("secretexample0002"))
	seen := skipMessages(s)
	s.apply(controlPlane(entry("default", "glance-images", true) + ownCredentials))
	s.converge()
	require.Equal(t, "True/AllBackendsProjected", s.condition("Glance", "controlplane-glance", "BackendsReady"))
	*seen = nil

	s.apply(secondaryCredentials("secret\\nwith a newline"))
	s.converge()
	skips, pending := countNamedSkips(t, *seen)
	assert.Positive(t, skips, "the broken store is skipped")
	assert.Zero(t, pending, "a store that was rendered is never called on its way because its Secret went first")
	assert.False(t, s.exists("Secret", "controlplane-glance-secondary-store"), "the store Secret is gone in the end")
	assert.Equal(t, "False/WaitingForBackends", s.condition("Glance", "controlplane-glance", "BackendsReady"))
}

// On first install, a backend whose credentials are broken from the start is
// skipped as soon as it reports, naming the cause: before that it is on its
// way (never "skipped" without a cause), and once it reported it holds
// nothing back.
func TestBrokenCredentialsOnFirstInstall(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + secondaryCredentials("secret\\nwith a newline"))
	seen := skipMessages(s)
	s.apply(controlPlane(entry("default", "glance-images", true) + ownCredentials))
	s.converge()
	skips, _ := countNamedSkips(t, *seen)
	assert.Positive(t, skips, "the broken store is skipped")
	cfg, _ := mounts(s.get("Deployment", "controlplane-glance"))
	assert.Contains(t, configText(t, s.get("ConfigMap", cfg)), "enabled_backends = default:s3\n", "the healthy store is rendered")
	created := s.get("Deployment", "controlplane-glance")["metadata"].(map[string]any)["creationTimestamp"].(string)
	assert.Less(t, created, FixtureNow.Add(glance.FirstRenderWait).Format(time.RFC3339), "the faulted store held nothing back")
}

// The same when a CA bundle breaks: the store is skipped naming the bundle's
// fault from the first status that skips it, never taken for one on its way.
func TestBrokenCABundleNamedFromTheStart(t *testing.T) {
	s := newScenario(t)
	standalone(s)
	s.apply(caConfigMap("storage-ca", storageCA) + "\n---\n" + tlsBackend("archive", "glance-archive", "storage-ca"))
	s.converge()
	require.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
	seen := skipMessagesOf(s, "glance", "archive")

	s.apply(caConfigMap("storage-ca", "not a certificate\n"))
	s.converge()
	require.NotEmpty(t, *seen, "the broken store is left out")
	for _, m := range *seen {
		assert.True(t, strings.HasPrefix(m, glance.ReasonBackendSkipped+": its CA bundle is not ready: "),
			"from the first skip, the cause is named: %s", m)
	}
	assert.False(t, s.exists("Secret", "archive-store"), "the store Secret is gone in the end")
}
