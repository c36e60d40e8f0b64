package kubetest

import (
	"context"
	"path/filepath"
	"testing"
)

// ExternalSecretsModule is the module test/externalsecrets pins; its store
// CRDs are what ApplyExternalSecrets installs.
const ExternalSecretsModule = "github.com/external-secrets/external-secrets"

// externalSecretsCRDs are the CRDs a Glance's spec.secretStoreRef names:
// the two stores, nothing else of External Secrets.
var externalSecretsCRDs = []string{"clustersecretstores", "secretstores"}

// ApplyExternalSecrets installs the ClusterSecretStore and SecretStore CRDs
// of the release test/externalsecrets pins, read from the Go module cache,
// and waits until they are served. A module that cannot be had is
// ErrAbsent: tests skip on it unless KUBETEST_REQUIRE=1.
func (e *Env) ApplyExternalSecrets(ctx context.Context) (version string, err error) {
	return e.applyPinnedCRDs(ctx, pinnedCRDs{nested: "externalsecrets", module: ExternalSecretsModule,
		dir: filepath.Join("config", "crds", "bases"), group: "external-secrets.io", resources: externalSecretsCRDs})
}

// ExternalSecrets is ApplyExternalSecrets for a test: it skips when the
// module cannot be had, unless KUBETEST_REQUIRE=1, and returns the version
// installed.
func (e *Env) ExternalSecrets(t testing.TB) string {
	t.Helper()
	v, err := e.ApplyExternalSecrets(context.Background())
	if err != nil {
		skipOrFail(t, err)
	}
	return v
}
