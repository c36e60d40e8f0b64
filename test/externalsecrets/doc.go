// Package externalsecrets holds nothing: its module pins
// github.com/external-secrets/external-secrets, whose store CRDs
// (config/crds/bases) the integration tests install.
package externalsecrets
