// Package reach proves on a real kube-apiserver what spec.gateway and
// spec.networkPolicy render: the in-process Metacontroller chain runs the
// hooks, and the HTTPRoute and NetworkPolicies it applied are created on an
// API server that serves the Gateway API's CRDs of the pinned release.
package reach
