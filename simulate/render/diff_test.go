package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// transition renders before, applies after on top, and compares.
func transition(t *testing.T, before, after []string) *Difference {
	t.Helper()
	s := mustRender(t, before...)
	b := s.Objects()
	require.NoError(t, s.Update(parse(t, after...), Options{}))
	require.True(t, s.Converged)
	return Compare(b, s.Objects(), OutputOptions{})
}

func actions(d *Difference) map[string]string {
	out := map[string]string{}
	for _, c := range d.Changes {
		key := c.Ref.Kind + " " + c.Ref.Name
		if strings.Contains(c.Ref.Name, "-config-") || strings.Contains(c.Ref.Name, "-backends-") {
			// hashed names: key by prefix and action
			key = c.Ref.Kind + " " + c.Ref.Name[:strings.LastIndex(c.Ref.Name, "-")] + " " + c.Action
		}
		out[key] = c.Action
	}
	return out
}

func TestDiffSwitchingTheDefaultStore(t *testing.T) {
	d := transition(t, []string{credentials, controlPlane("default")}, []string{credentials, controlPlane("secondary")})
	require.True(t, d.Different())
	assert.Equal(t, map[string]string{
		"ConfigMap controlplane-glance-config created": Created,
		"ConfigMap controlplane-glance-config deleted": Deleted,
		"ControlPlane controlplane":                    Changed,
		// The purge's pods mount the config glance-api runs with.
		"CronJob controlplane-glance-db-purge": Changed,
		"Deployment controlplane-glance":       Changed,
		// DatabaseSynced: switching the default makes no Event.
		"Event controlplane-glance.cbc813c01289f84e":    Unchanged,
		"Glance controlplane-glance":                    Unchanged,
		"GlanceBackend controlplane-glance-default":     Changed,
		"GlanceBackend controlplane-glance-secondary":   Changed,
		"Job controlplane-glance-db-sync-734c34ff0f":    Unchanged,
		"PodDisruptionBudget controlplane-glance":       Unchanged,
		"Secret controlplane-glance-authtoken":          Unchanged,
		"Secret controlplane-glance-db-connection":      Unchanged,
		"Secret glance-db":                              Unchanged,
		"Secret glance-service-user":                    Unchanged,
		"Secret controlplane-glance-backends unchanged": Unchanged,
		"Secret controlplane-glance-default-store":      Unchanged,
		"Secret controlplane-glance-secondary-store":    Unchanged,
		"Secret garage-s3-credentials":                  Unchanged,
		"Service controlplane-glance":                   Unchanged,
		"ServiceAccount controlplane-glance-keystone":   Unchanged,
	}, actions(d))
	var created, deleted Change
	for _, c := range d.Changes {
		if c.Ref.Kind == "ConfigMap" && c.Action == Created {
			created = c
		}
		if c.Ref.Kind == "ConfigMap" && c.Action == Deleted {
			deleted = c
		}
	}
	assert.Equal(t, deleted.Ref.Name, created.Replaces)
	assert.Contains(t, created.Diff, "-    default_backend = default\n+    default_backend = secondary\n")
	require.Len(t, d.Rollouts, 1)
	assert.True(t, d.Rollouts[0].Rolls)
	assert.Equal(t, "pods roll: the pod template changed (volume config: "+deleted.Ref.Name+" -> "+created.Ref.Name+")", d.Rollouts[0].Verdict)

	var out bytes.Buffer
	require.NoError(t, WriteDiff(&out, d))
	assert.Contains(t, out.String(), "Glance openstack/controlplane-glance: pods roll")
	assert.Regexp(t, `\ncreated +ConfigMap +openstack/controlplane-glance-config-[0-9a-f]{10}  \(replaces controlplane-glance-config-[0-9a-f]{10}\)\n`, out.String())
	assert.Regexp(t, `\nunchanged +Secret +openstack/controlplane-glance-backends-[0-9a-f]{10}\n`, out.String())
	assert.Contains(t, out.String(), "+++ Deployment openstack/controlplane-glance (after)")
	assert.NotContains(t, out.String(), "plaintext-secret-0001")
	report, _, _ := strings.Cut(out.String(), "\n--- ")
	for _, l := range strings.Split(report, "\n") {
		assert.Equal(t, strings.TrimRight(l, " "), l, "no trailing blanks in the table")
	}
}

func TestDiffSameInputChangesNothing(t *testing.T) {
	d := transition(t, []string{credentials, controlPlane("default")}, []string{credentials, controlPlane("default")})
	assert.False(t, d.Different())
	assert.Empty(t, d.Conditions)
	require.Len(t, d.Rollouts, 1)
	assert.False(t, d.Rollouts[0].Rolls)
	assert.Equal(t, "pods do not roll: the pod template is unchanged", d.Rollouts[0].Verdict)
}

// TestDiffSwitchToAFaultedDefaultKeepsLastGood: the incoming default's
// credentials are not there, so nothing is re-rendered and no pod rolls;
// the conditions say why. Rendering the second input alone would instead
// show no Deployment at all, which is why --diff applies AFTER on top of
// BEFORE.
func TestDiffSwitchToAFaultedDefaultKeepsLastGood(t *testing.T) {
	before := []string{credentials, glance, backend("primary", "glance", "garage-s3-credentials", true),
		backend("archive", "glance", "archive-credentials", false)}
	after := []string{credentials, glance, backend("primary", "glance", "garage-s3-credentials", false),
		backend("archive", "glance", "archive-credentials", true)}
	d := transition(t, before, after)
	for _, c := range d.Changes {
		switch c.Ref.Kind {
		case "ConfigMap", "Deployment", "Service":
			assert.Equal(t, Unchanged, c.Action, c.Ref.String())
		}
	}
	require.Len(t, d.Rollouts, 1)
	assert.False(t, d.Rollouts[0].Rolls)
	var got []string
	for _, c := range d.Conditions {
		if c.Ref.Kind == "Glance" {
			got = append(got, c.Type+" "+condState(c.Before)+" -> "+condState(c.After))
		}
	}
	assert.Contains(t, got, "BackendsReady False/WaitingForBackends -> False/NoDefaultBackend")
	assert.Contains(t, got, "ConfigRendered True/Rendered -> False/LastGoodKept")

	alone := mustRender(t, after...)
	assert.Nil(t, find(alone.Objects(), "Deployment", "glance"), "a first install without a valid default has no Deployment")
}

func TestDiffMarksASecretValueThatKeepsItsLength(t *testing.T) {
	rotated := strings.ReplaceAll(credentials, "plaintext-secret-0001", "plaintext-secret-0002")
	d := transition(t, []string{credentials, glance, backend("primary", "glance", "garage-s3-credentials", true)},
		[]string{rotated, glance, backend("primary", "glance", "garage-s3-credentials", true)})
	var creds Change
	for _, c := range d.Changes {
		if c.Ref.Name == "garage-s3-credentials" {
			creds = c
		}
	}
	assert.Equal(t, Changed, creds.Action)
	assert.Contains(t, creds.Diff, "-  secret-access-key: '<redacted: 21 bytes>'\n+  secret-access-key: '<redacted: 21 bytes> (changed)'\n")
	assert.NotContains(t, creds.Diff, "plaintext-secret")
	assert.Contains(t, creds.Diff, "   access-key-id: '<redacted: 13 bytes>'\n", "an unchanged key is context")
	require.Len(t, d.Rollouts, 1)
	assert.True(t, d.Rollouts[0].Rolls, "new credentials re-render the backends Secret, so pods roll")
}

func TestDiffDeletedAndCreatedGlances(t *testing.T) {
	d := transition(t, []string{credentials, glance, backend("primary", "glance", "garage-s3-credentials", true)},
		[]string{credentials, strings.ReplaceAll(glance, "name: glance,", "name: images,"), backend("images-a", "images", "garage-s3-credentials", true)})
	verdicts := map[string]string{}
	for _, r := range d.Rollouts {
		verdicts[r.Glance.Name] = r.Verdict
	}
	assert.Equal(t, map[string]string{"glance": "pods stop: the Glance is deleted", "images": "pods start: the Deployment is created"}, verdicts)
}

func TestUnifiedDiff(t *testing.T) {
	assert.Equal(t, "", unifiedDiff("a", "b", "x\ny\n", "x\ny\n"))
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\nsixteen\n"
	assert.Equal(t, `--- a
+++ b
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
@@ -13,3 +13,4 @@
 13
 14
 15
+sixteen
`, unifiedDiff("a", "b", a, b))
	// Changes six lines apart share one hunk.
	c := strings.Replace(strings.Replace(a, "2\n", "two\n", 1), "9\n", "nine\n", 1)
	assert.Equal(t, `--- a
+++ b
@@ -1,12 +1,12 @@
 1
-2
+two
 3
 4
 5
 6
 7
 8
-9
+nine
 10
 11
 12
`, unifiedDiff("a", "b", a, c))
	assert.Equal(t, "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n", unifiedDiff("a", "b", "", "x\n"))
}
