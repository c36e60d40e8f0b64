package glancebackend

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// TestReferenceConditions names every condition type and reason the
// reference's GlanceBackend reports and shows when each is set here, or,
// for one not reported under that name, that docs/conditions.md's table of
// the reference's words says so.
func TestReferenceConditions(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("k"))
	complete := rawSecret{Data: map[string]string{api.AccessKeyIDKey: key, api.SecretAccessKeyKey: key}}
	credentials := func(s rawSecret, found bool) func(*testing.T) hook.Condition {
		return func(*testing.T) hook.Condition {
			_, c := checkCredentials(s, found, "creds")
			return c
		}
	}
	projected := func(glanceFound bool, conf string) func(*testing.T) hook.Condition {
		return func(t *testing.T) hook.Condition {
			c, err := checkProjected(related(t, "glance-backends-1", map[string]string{"glance-backends-1": conf}), "glance", glanceFound, "archive")
			require.NoError(t, err)
			return c
		}
	}
	cases := map[string]struct {
		reason string
		status bool
		set    func(*testing.T) hook.Condition // nil: not reported under this name here
	}{
		"CredentialsReady/CredentialsAvailable":     {"the Secret carries both keys", true, credentials(complete, true)},
		"CredentialsReady/WaitingForCredentials":    {"the Secret is missing", false, credentials(rawSecret{}, false)},
		"CredentialsReady/WaitingForParent":         {reason: "credentials are checked without the Glance; ConfigProjected names it"},
		"CredentialsReady/TargetClusterUnavailable": {reason: "no target clusters here"},
		"ConfigProjected/ConfigProjected":           {"the mounted backends Secret holds the section", true, projected(true, "[archive]\nk = v\n")},
		"ConfigProjected/WaitingForProjection":      {"the Glance does not exist", false, projected(false, "")},
		"Ready/AllReady": {"both are True", true, func(*testing.T) hook.Condition {
			return hook.Ready("m", hook.Condition{Status: true}, hook.Condition{Status: true})
		}},
		"Ready/NotAllReady": {"one is not", false, func(t *testing.T) hook.Condition {
			return hook.Ready("m", credentials(rawSecret{}, false)(t))
		}},
	}
	raw, err := os.ReadFile("../../docs/conditions.md")
	require.NoError(t, err)
	_, differences, ok := strings.Cut(string(raw), "## The reference's words that differ")
	require.True(t, ok, "docs/conditions.md has the table of the reference's words")
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, reason, _ := strings.Cut(name, "/")
			if tc.set == nil {
				assert.Contains(t, differences, reason, "%s is not reported here (%s); docs/conditions.md says so", name, tc.reason)
				return
			}
			c := tc.set(t)
			assert.Equal(t, reason, c.Reason, "%s: %s", tc.reason, c.Message)
			assert.Equal(t, tc.status, c.Status, "%s: %s", tc.reason, c.Message)
		})
	}
}
