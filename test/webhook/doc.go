// Package webhook holds the integration tests of the validate webhook
// (POST /validate) on a real kube-apiserver: the glance-hooks binary is built,
// served over TLS on loopback with a kubeconfig for its sibling reads, and
// registered as a ValidatingWebhookConfiguration; kubectl and client calls
// then meet the guide's rules and messages. The tests carry the build tag
// `integration` and run under `make integration`.
package webhook
