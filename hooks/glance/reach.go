package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// reach is what spec.gateway and spec.networkPolicy add to a sync: the
// route and the NetworkPolicies, and their conditions.
type reach struct {
	children   []any
	conditions []hook.Condition
}

// reachChildren renders the route and the NetworkPolicies whatever the
// config decision: neither is mounted by a pod, and a store waiting for
// its egress (awaitEgress) must not wait for a config render that waits
// for it. A spec they cannot be rendered from keeps the observed ones as
// last applied.
func reachChildren(o *observed, stores []*store) (reach, error) {
	var r reach
	if len(o.invalid) > 0 {
		return keptReach(o)
	}
	route, rc := gatewayChildren(o.glance, o.spec, o.route)
	r.children = append(r.children, route...)
	if rc != nil {
		r.conditions = append(r.conditions, *rc)
	}
	policies, pc, err := networkPolicyChildren(o.glance, o.spec, stores, o.allowedEgress)
	if isSpecError(err) {
		kept, kerr := o.applied.keep(names.NetworkPoliciesKey)
		if kerr != nil {
			return r, kerr
		}
		policies = kept
		pc = &hook.Condition{Type: CondNetworkPolicyReady, Reason: ReasonInvalidSpec,
			Message: "the NetworkPolicies are kept as last applied: " + err.Error()}
	} else if err != nil {
		return r, err
	}
	r.children = append(r.children, policies...)
	if pc != nil {
		r.conditions = append(r.conditions, *pc)
	}
	return r, nil
}

// keptReach keeps the route and the NetworkPolicies as last applied while
// the spec is invalid: a hostname or a rule it holds is not rendered.
func keptReach(o *observed) (reach, error) {
	var r reach
	kept, err := o.applied.keep(names.HTTPRoutesKey, names.NetworkPoliciesKey)
	if err != nil {
		return r, err
	}
	r.children = kept
	why := "kept as last applied: the Glance spec is invalid"
	if o.spec.Gateway != nil {
		r.conditions = append(r.conditions, hook.Condition{Type: CondHTTPRouteReady, Reason: ReasonInvalidSpec, Message: "the HTTPRoute is " + why})
	}
	if o.spec.NetworkPolicy != nil {
		r.conditions = append(r.conditions, hook.Condition{Type: CondNetworkPolicyReady, Reason: ReasonInvalidSpec, Message: "the NetworkPolicies are " + why})
	}
	return r, nil
}
