package glancebackend

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// When the credentials break, the store Secret stays for the one sync whose
// status says why: the Glance must never see it gone while the backend
// still reports usable credentials (and CA bundle). The next sync drops it.
func TestStoreSecretKeptUntilTheFaultIsReported(t *testing.T) {
	const lastApplied = `{"apiVersion":"v1","data":{"store.conf":"W2JdCg=="},"kind":"Secret","metadata":{"name":"b-store","namespace":"openstack"}}`
	observedSecret := mustJSON(t, map[string]any{"apiVersion": "v1", "kind": "Secret", "data": map[string]any{"store.conf": "W2JdCg=="},
		"metadata": map[string]any{"name": "b-store", "namespace": "openstack", "uid": "u1",
			"annotations": map[string]any{metacontroller.LastAppliedAnnotation: lastApplied}}})
	broken := json.RawMessage(`{"data":{"access-key-id":"YWs=","secret-access-key":"c2sK"}}`) // "sk\n"
	cases := map[string]struct {
		reason   string
		reported string // the observed CredentialsReady status, "" for none
		caFault  bool   // the observed status reports CABundleReady False
		secret   bool
		want     []string // the children answered, as JSON
	}{
		"NotReportedYet": {
			reason:   "the status still says the credentials are usable: the Secret stays, as last applied",
			reported: "True", secret: true,
			want: []string{lastApplied},
		},
		"Reported": {
			reason:   "the status says why: the Secret goes",
			reported: "False", secret: true,
		},
		"OtherFaultReported": {
			reason:   "the status already names another fault (its CA bundle): the Secret goes",
			reported: "True", caFault: true, secret: true,
		},
		"NoStatus": {
			reason: "a backend that never reported had no Secret to keep",
			secret: false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			parent := map[string]any{
				"apiVersion": api.GlanceAPIVersion, "kind": api.KindGlanceBackend,
				"metadata": map[string]any{"name": "b", "namespace": "openstack"},
				"spec": map[string]any{"glanceRef": map[string]any{"name": "glance"}, "type": "S3",
					"s3": map[string]any{"host": "http://s3:3900", "bucket": "b", "credentialsSecretRef": map[string]any{"name": "c"}}},
			}
			if tc.reported != "" {
				conds := []any{map[string]any{"type": CondCredentialsReady, "status": tc.reported,
					"reason": "x", "message": "x", "lastTransitionTime": "2026-01-01T00:00:00Z"}}
				if tc.caFault {
					conds = append(conds, map[string]any{"type": CondCABundleReady, "status": "False",
						"reason": "x", "message": "x", "lastTransitionTime": "2026-01-01T00:00:00Z"})
				}
				parent["status"] = map[string]any{"conditions": conds}
			}
			children := metacontroller.ObjectMap{names.SecretsKey: {}}
			if tc.secret {
				children[names.SecretsKey]["b-store"] = observedSecret
			}
			resp, err := Sync(&metacontroller.SyncRequest{Parent: mustJSON(t, parent), Children: children,
				Related: metacontroller.ObjectMap{names.SecretsKey: {"c": broken}}}, time.Unix(0, 0))
			require.NoError(t, err)
			var got []string
			for _, c := range resp.Children {
				got = append(got, string(mustJSON(t, c)))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nchildren: -want, +got:\n%s", tc.reason, diff)
			}
			creds, _ := hook.FindCondition(resp.Status.(api.GlanceBackendStatus).Conditions, CondCredentialsReady)
			require.Equal(t, ReasonInvalidCredentials, creds.Reason, "the status names the fault in the same answer")
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}
