package api

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The secret-store feature's part of a Glance spec (spec.secretStoreRef):
// its rules. Its type is SecretStoreRefSpec (glance_blocks.go); its
// behaviour (the store asked for, its gate, SecretsReady) is
// hooks/glance/secretstore.go. It has no defaults: unset, there is no
// gate.

// The kinds spec.secretStoreRef.kind names; unset is ClusterSecretStore.
const (
	KindClusterSecretStore = "ClusterSecretStore"
	KindSecretStore        = "SecretStore"
)

// secretStoreRules are the part's rules: spec.secretStoreRef's. Paths are
// relative to the Glance settings.
func secretStoreRules(s GlanceSpec) problem.List { return SecretStoreRefProblems(s.SecretStoreRef) }

// SecretStoreRefProblems checks a store reference at secretStoreRef (a
// Glance's, a ControlPlane's), as the reference's webhook checks it and in
// its words: a name, and a kind of External Secrets'. The CRDs hold the
// same (the name's minLength, the kind's enum); this holds when no CRD
// stood in the way, for the sync hooks too.
func SecretStoreRefProblems(ref *SecretStoreRefSpec) problem.List {
	if ref == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("secretStoreRef")
	if ref.Name == "" {
		l = append(l, problem.At(at.Child("name"), "store name must be set"))
	}
	switch ref.Kind {
	case "", KindClusterSecretStore, KindSecretStore:
	default:
		l = append(l, problem.NotSupported(at.Child("kind"), KindClusterSecretStore, KindSecretStore))
	}
	return l
}
