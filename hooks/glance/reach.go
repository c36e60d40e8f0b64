package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// reach is what spec.gateway and spec.networkPolicy add to a sync: the
// route and the NetworkPolicies, and their conditions.
type reach struct {
	children   []any
	conditions []hook.Condition
}

// reachChildren renders each feature's reach (the route, the
// NetworkPolicies) whatever the config decision: neither is mounted by a
// pod, and a store waiting for its egress (awaitEgress) must not wait for
// a config render that waits for it.
func reachChildren(o *observe.Observed, stores []*model.Store) (reach, error) {
	var r reach
	for _, f := range features {
		if f.reach == nil {
			continue
		}
		children, c, err := f.reach(o, stores)
		if err != nil {
			return r, err
		}
		r.children = append(r.children, children...)
		if c != nil {
			r.conditions = append(r.conditions, *c)
		}
	}
	return r, nil
}

// keptWhileInvalid keeps a reach feature's children of one kind as last
// applied while the spec is invalid: a hostname or a rule it holds is not
// rendered. what names them in the condition, which is reported only when
// the feature's field is set.
func keptWhileInvalid(o *observe.Observed, key string, set bool, condType, what string) ([]any, *hook.Condition, error) {
	kept, err := o.Applied.Keep(key)
	if err != nil || !set {
		return kept, nil, err
	}
	return kept, &hook.Condition{Type: condType, Reason: model.ReasonInvalidSpec, Message: what + " kept as last applied: the Glance spec is invalid"}, nil
}

// gatewayReach is spec.gateway's route and its condition.
func gatewayReach(o *observe.Observed, _ []*model.Store) ([]any, *hook.Condition, error) {
	if len(o.Invalid) > 0 {
		return keptWhileInvalid(o, names.HTTPRoutesKey, o.Spec.Gateway != nil, model.CondHTTPRouteReady, "the HTTPRoute is")
	}
	route, c := gatewayChildren(o.Glance, o.Spec, o.Route)
	return route, c, nil
}

// networkPolicyReach is spec.networkPolicy's NetworkPolicies and their
// condition. A spec they cannot be rendered from keeps the observed ones
// as last applied.
func networkPolicyReach(o *observe.Observed, stores []*model.Store) ([]any, *hook.Condition, error) {
	if len(o.Invalid) > 0 {
		return keptWhileInvalid(o, names.NetworkPoliciesKey, o.Spec.NetworkPolicy != nil, model.CondNetworkPolicyReady, "the NetworkPolicies are")
	}
	policies, c, err := networkPolicyChildren(o.Glance, o.Spec, stores, o.AllowedEgress)
	if !model.IsSpecError(err) {
		return policies, c, err
	}
	kept, kerr := o.Applied.Keep(names.NetworkPoliciesKey)
	if kerr != nil {
		return nil, nil, kerr
	}
	return kept, &hook.Condition{Type: model.CondNetworkPolicyReady, Reason: model.ReasonInvalidSpec,
		Message: "the NetworkPolicies are kept as last applied: " + err.Error()}, nil
}
