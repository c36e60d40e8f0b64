// Package secretstore proves spec.secretStoreRef on a real kube-apiserver
// that serves External Secrets' store CRDs of the pinned release: the
// Glance waits for the ClusterSecretStore it names, and renders once the
// store's status says Ready.
package secretstore
