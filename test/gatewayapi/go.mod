// This module only pins the Gateway API release whose CRDs the integration
// tests install into the test kube-apiserver (kubetest.ApplyGatewayAPI reads
// them from the module cache). v1.6 is the newest line that builds with this
// project's Go; its standard channel's HTTPRoute has rules[].timeouts.
module github.com/c5c3/glance-hooks/test/gatewayapi

go 1.26.0

require sigs.k8s.io/gateway-api v1.6.3
