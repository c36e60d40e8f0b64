// This module only pins the External Secrets release whose ClusterSecretStore
// and SecretStore CRDs the integration tests install into the test
// kube-apiserver (kubetest.ApplyExternalSecrets reads them from the module
// cache). v0.16 serves external-secrets.io/v1 and stores it.
module github.com/c5c3/glance-hooks/test/externalsecrets

go 1.26.0

require github.com/external-secrets/external-secrets v0.16.2
