// Package gatewayapi holds nothing: its module pins sigs.k8s.io/gateway-api,
// whose CRDs (config/crd/standard) the integration tests install.
package gatewayapi
