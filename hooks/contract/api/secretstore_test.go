package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSecretStoreRules: a store reference names a store, of a kind
// External Secrets has, in the reference's words.
func TestSecretStoreRules(t *testing.T) {
	cases := map[string]struct {
		reason string
		ref    *SecretStoreRefSpec
		want   string
	}{
		"Unset":      {"no gate", nil, ""},
		"Cluster":    {"the default kind", &SecretStoreRefSpec{Name: "openbao"}, ""},
		"Namespaced": {"a store in the namespace", &SecretStoreRefSpec{Kind: KindSecretStore, Name: "vault"}, ""},
		"NoName":     {"a store without a name", &SecretStoreRefSpec{Kind: KindClusterSecretStore}, "secretStoreRef.name: store name must be set"},
		"Kind": {"a kind External Secrets does not have, without the value", &SecretStoreRefSpec{Kind: "VaultStore", Name: "v"},
			`secretStoreRef.kind: Unsupported value: supported values: "ClusterSecretStore", "SecretStore"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := secretStoreRules(GlanceSpec{SecretStoreRef: tc.ref}).String()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
