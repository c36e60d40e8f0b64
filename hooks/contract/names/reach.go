package names

import "github.com/c5c3/glance-hooks/hooks/contract/metacontroller"

// The objects that let clients reach a Glance and bound what its pods
// reach: the Gateway API route and the NetworkPolicies.
const (
	// HTTPRouteAPIVersion is the Gateway API version of the route: v1 is
	// in the standard channel since Gateway API v1.0.
	HTTPRouteAPIVersion = "gateway.networking.k8s.io/v1"
	// NetworkPolicyAPIVersion is the NetworkPolicy's.
	NetworkPolicyAPIVersion = "networking.k8s.io/v1"
)

// Keys of the route and the NetworkPolicies in Metacontroller's children.
var (
	HTTPRoutesKey      = metacontroller.Key("HTTPRoute", HTTPRouteAPIVersion)
	NetworkPoliciesKey = metacontroller.Key("NetworkPolicy", NetworkPolicyAPIVersion)
)

// JobsNetworkPolicyName is the NetworkPolicy of a Glance's Job pods: its
// own name, so the glance-api pods' keeps the Glance's.
func JobsNetworkPolicyName(glance string) string { return glance + "-jobs" }
