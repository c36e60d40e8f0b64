package glancebackend

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// A glanceRef.name becomes a label value on the store Secret and in the
// selector customize asks Metacontroller for: one that cannot name a Glance
// (so is no valid label value either) is copied into neither.
func TestGlanceRefThatIsNoLabelValue(t *testing.T) {
	for name, ref := range map[string]string{
		"too long":      strings.Repeat("g", 64),
		"not a label":   "glance/one",
		"upper case":    "Glance",
		"control chars": "g\x00\n",
	} {
		t.Run(name, func(t *testing.T) {
			parent, err := json.Marshal(map[string]any{
				"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlanceBackend,
				"metadata": map[string]any{"name": "b", "namespace": "openstack"},
				"spec": map[string]any{"glanceRef": map[string]any{"name": ref}, "type": "S3",
					"s3": map[string]any{"host": "http://s3:3900", "bucket": "b", "credentialsSecretRef": map[string]any{"name": "c"}}},
			})
			require.NoError(t, err)

			_, err = Customize(&metacontroller.CustomizeRequest{Parent: parent})
			require.Error(t, err, "no selector is built from it")
			assert.True(t, hook.IsInputError(err))
			assert.Contains(t, err.Error(), "spec.glanceRef.name cannot name a Glance")

			creds := json.RawMessage(`{"data":{"access-key-id":"YWs=","secret-access-key":"c2s="}}`)
			resp, err := Sync(&metacontroller.SyncRequest{Parent: parent,
				Related: metacontroller.ObjectMap{names.SecretsKey: {"c": creds}}}, time.Unix(0, 0))
			require.NoError(t, err)
			assert.Empty(t, resp.Children, "no store Secret labelled with it")
			status := resp.Status.(api.GlanceBackendStatus)
			rendered, ok := hook.FindCondition(status.Conditions, CondStoreRendered)
			require.True(t, ok)
			assert.Equal(t, ReasonInvalidSpec, rendered.Reason)
			assert.Contains(t, rendered.Message, "spec.glanceRef.name cannot name a Glance")
		})
	}
}
