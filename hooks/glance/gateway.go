package glance

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// RouteRequestTimeout is the HTTPRoute's request timeout. An image upload
// streams the whole image through the gateway in one request, and a
// gateway's own default (15 s on Envoy Gateway) would cut it off; "0s"
// (no timeout) would leave a stalled request holding a glance-api worker
// for ever. Four hours moves tens of GiB over a slow link and still ends
// a stalled one, as the reference's route does.
const RouteRequestTimeout = "4h"

// httpRouteChild is the Gateway API HTTPRoute the hook returns: the fields
// it sets, typed here so the service does not depend on the Gateway API's
// Go module.
type httpRouteChild struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              httpRouteSpec `json:"spec"`
}

type httpRouteSpec struct {
	ParentRefs []observe.RouteParentRef `json:"parentRefs"`
	Hostnames  []string                 `json:"hostnames"`
	Rules      []routeRule              `json:"rules"`
}

type routeRule struct {
	Matches     []routeMatch      `json:"matches"`
	Filters     []routeFilter     `json:"filters,omitempty"`
	BackendRefs []routeBackendRef `json:"backendRefs"`
	Timeouts    routeTimeouts     `json:"timeouts"`
}

type routeMatch struct {
	Path routePathMatch `json:"path"`
}

type routePathMatch struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type routeFilter struct {
	Type       string           `json:"type"`
	URLRewrite *routeURLRewrite `json:"urlRewrite,omitempty"`
}

type routeURLRewrite struct {
	Path routePathModifier `json:"path"`
}

type routePathModifier struct {
	Type               string `json:"type"`
	ReplacePrefixMatch string `json:"replacePrefixMatch"`
}

type routeBackendRef struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

type routeTimeouts struct {
	Request string `json:"request"`
}

// httpRoute routes the gateway's listener for the spec's host name to the
// glance-api Service. Under a path other than "/" the prefix is replaced by
// "/": glance-api serves its API at the root only.
func httpRoute(g *api.Glance, gw api.GatewaySpec) *httpRouteChild {
	path := gw.RoutePath()
	rule := routeRule{
		Matches:     []routeMatch{{Path: routePathMatch{Type: "PathPrefix", Value: path}}},
		BackendRefs: []routeBackendRef{{Name: g.Name, Port: render.APIPort}},
		Timeouts:    routeTimeouts{Request: RouteRequestTimeout},
	}
	if path != "/" {
		rule.Filters = []routeFilter{{Type: "URLRewrite", URLRewrite: &routeURLRewrite{
			Path: routePathModifier{Type: "ReplacePrefixMatch", ReplacePrefixMatch: "/"}}}}
	}
	return &httpRouteChild{
		TypeMeta: metav1.TypeMeta{APIVersion: names.HTTPRouteAPIVersion, Kind: "HTTPRoute"},
		ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, Labels: model.ObjectLabels(g),
			Annotations: gw.Annotations},
		Spec: httpRouteSpec{
			ParentRefs: []observe.RouteParentRef{{Name: gw.ParentRef.Name, Namespace: gw.ParentRef.Namespace, SectionName: gw.ParentRef.SectionName}},
			Hostnames:  []string{gw.Hostname},
			Rules:      []routeRule{rule},
		},
	}
}

// observeRoute reads the Glance's HTTPRoute, only when spec.gateway is set.
// The route's status is the gateway controller's: one this hook cannot
// read says not accepted rather than failing the Glance's sync.
func observeRoute(children metacontroller.ObjectMap, g *api.Glance, spec api.GlanceSpec) observe.ObservedRoute {
	var r observe.ObservedRoute
	if _, r.Managed = children[names.HTTPRoutesKey]; !r.Managed || spec.Gateway == nil {
		return r
	}
	r.Status, r.Found, r.Err = metacontroller.DecodeOne[observe.ObservedRouteStatus](children, names.HTTPRoutesKey, g.Name)
	return r
}

// observeGatewayRoute is the gateway feature's observation.
func observeGatewayRoute(o *observe.Observed, children metacontroller.ObjectMap) error {
	o.Route = observeRoute(children, o.Glance, o.Spec)
	return nil
}

// gatewayChildren are the HTTPRoute of spec.gateway and its condition.
// Without the Gateway API's CRDs the route is not returned.
func gatewayChildren(g *api.Glance, spec api.GlanceSpec, observed observe.ObservedRoute) ([]any, *hook.Condition) {
	gw := spec.Gateway
	if gw == nil {
		return nil, nil
	}
	c := hook.Condition{Type: model.CondHTTPRouteReady, Reason: model.ReasonGatewayAPINotInstalled,
		Message: "the Glance's controller does not manage HTTPRoutes: install the Gateway API CRDs, then upgrade the chart so it registers them"}
	if !observed.Managed {
		return nil, &c
	}
	route := httpRoute(g, *gw)
	c = routeAccepted(observed.Found, observed.Status, route.Spec.ParentRefs[0])
	if observed.Err != nil {
		c = hook.Condition{Type: model.CondHTTPRouteReady, Reason: model.ReasonHTTPRouteNotAccepted, Message: "the HTTPRoute's status cannot be read"}
	}
	return []any{route}, &c
}

// routeAccepted is HTTPRouteReady from the route's status: True once the
// controller of the Gateway it names accepted it.
func routeAccepted(found bool, st observe.ObservedRouteStatus, parent observe.RouteParentRef) hook.Condition {
	c := hook.Condition{Type: model.CondHTTPRouteReady, Reason: model.ReasonHTTPRouteNotAccepted}
	if !found {
		c.Message = "the HTTPRoute is not created yet"
		return c
	}
	for _, p := range st.Status.Parents {
		if p.ParentRef.Name != parent.Name || p.ParentRef.SectionName != parent.SectionName {
			continue
		}
		a, ok := hook.FindCondition(p.Conditions, "Accepted")
		switch {
		case !ok:
		case a.Status == metav1.ConditionTrue:
			c.Status, c.Reason = true, model.ReasonHTTPRouteAccepted
			c.Message = fmt.Sprintf("Gateway %q accepted the route", parent.Name)
			return c
		default:
			c.Message = fmt.Sprintf("Gateway %q did not accept the route: %s: %s", parent.Name, a.Reason, a.Message)
			return c
		}
	}
	c.Message = fmt.Sprintf("no controller of Gateway %q has accepted the route yet", parent.Name)
	return c
}

// httpRouteReady is HTTPRouteReady: the route's, or, without spec.gateway,
// True under the reference's HTTPRouteNotRequired.
func httpRouteReady(in report.StatusInput) (hook.Condition, error) {
	if c, ok := report.FindCondition(in.Out.Reach, model.CondHTTPRouteReady); ok {
		return c, nil
	}
	return hook.Condition{Type: model.CondHTTPRouteReady, Status: true, Reason: model.ReasonHTTPRouteNotRequired,
		Message: "spec.gateway is not set: glance-api is reached inside the cluster at " + report.ServiceEndpoint(in.Observed.Glance)}, nil
}

// gatewayReach is spec.gateway's route and its condition.
func gatewayReach(o *observe.Observed, _ []*model.Store) ([]any, *hook.Condition, error) {
	if len(o.Invalid) > 0 {
		return render.KeptWhileInvalid(o.Applied, names.HTTPRoutesKey, o.Spec.Gateway != nil, model.CondHTTPRouteReady, "the HTTPRoute is")
	}
	route, c := gatewayChildren(o.Glance, o.Spec, o.Route)
	return route, c, nil
}
