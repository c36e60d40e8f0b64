package glance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

func TestHTTPRoute(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	cases := map[string]struct {
		reason   string
		gw       api.GatewaySpec
		want     string
		endpoint string
	}{
		"Root": {
			reason: "no path: the whole host, no rewrite, the 4h timeout",
			gw:     api.GatewaySpec{Hostname: "images.example.com", ParentRef: api.GatewayParentRef{Name: "edge"}},
			want: `{"parentRefs":[{"name":"edge"}],"hostnames":["images.example.com"],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/"}}],` +
				`"backendRefs":[{"name":"glance","port":9292}],"timeouts":{"request":"4h"}}]}`,
			endpoint: "https://images.example.com/",
		},
		"UnderAPath": {
			reason: "a path: the prefix is replaced by / before glance-api sees it; the endpoint ends in /",
			gw:     api.GatewaySpec{Hostname: "cloud.example.com", Path: "/image", ParentRef: api.GatewayParentRef{Name: "edge", Namespace: "gw", SectionName: "https"}},
			want: `{"parentRefs":[{"name":"edge","namespace":"gw","sectionName":"https"}],"hostnames":["cloud.example.com"],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/image"}}],` +
				`"filters":[{"type":"URLRewrite","urlRewrite":{"path":{"type":"ReplacePrefixMatch","replacePrefixMatch":"/"}}}],"backendRefs":[{"name":"glance","port":9292}],"timeouts":{"request":"4h"}}]}`,
			endpoint: "https://cloud.example.com/image/",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := httpRoute(g, tc.gw)
			got, err := json.Marshal(r.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
			if got := report.StatusEndpoint(g, api.GlanceSpec{Gateway: &tc.gw}); got != tc.endpoint {
				t.Errorf("%s: endpoint %q, want %q", tc.reason, got, tc.endpoint)
			}
		})
	}
	if got := report.StatusEndpoint(g, api.GlanceSpec{}); got != "http://glance.openstack.svc.cluster.local:9292/" {
		t.Errorf("without a gateway the endpoint is the Service's, with the reference's trailing /, got %q", got)
	}
}

func TestRouteAccepted(t *testing.T) {
	parent := observe.RouteParentRef{Name: "edge", SectionName: "https"}
	status := func(name, section, accepted string) observe.ObservedRouteStatus {
		var st observe.ObservedRouteStatus
		st.Status.Parents = append(st.Status.Parents, struct {
			ParentRef      observe.RouteParentRef `json:"parentRef"`
			ControllerName string                 `json:"controllerName"`
			Conditions     []metav1.Condition     `json:"conditions"`
		}{ParentRef: observe.RouteParentRef{Name: name, SectionName: section},
			Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionStatus(accepted), Reason: "NotAllowedByListeners", Message: "listener refuses"}}})
		return st
	}
	cases := map[string]struct {
		reason string
		found  bool
		st     observe.ObservedRouteStatus
		want   string
	}{
		"NotCreated":     {reason: "no route observed yet", want: "False/HTTPRouteNotAccepted"},
		"NoParentStatus": {reason: "no controller wrote a status", found: true, want: "False/HTTPRouteNotAccepted"},
		"Accepted":       {reason: "its Gateway accepted it", found: true, st: status("edge", "https", "True"), want: "True/HTTPRouteAccepted"},
		"Refused":        {reason: "its Gateway refused it: the message says why", found: true, st: status("edge", "https", "False"), want: "False/HTTPRouteNotAccepted"},
		"OtherParent":    {reason: "another Gateway's acceptance does not count", found: true, st: status("other", "https", "True"), want: "False/HTTPRouteNotAccepted"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := routeAccepted(tc.found, tc.st, parent)
			got := map[bool]string{true: "True", false: "False"}[c.Status] + "/" + c.Reason
			if got != tc.want {
				t.Errorf("%s: got %s (%s), want %s", tc.reason, got, c.Message, tc.want)
			}
		})
	}
}

// TestGatewayWithoutTheGatewayAPI: a controller that does not manage
// HTTPRoutes gets none, and the condition says what to install.
func TestGatewayWithoutTheGatewayAPI(t *testing.T) {
	g := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}}
	spec := api.GlanceSpec{Gateway: &api.GatewaySpec{Hostname: "images.example.com", ParentRef: api.GatewayParentRef{Name: "edge"}}}
	children, c := gatewayChildren(g, spec, observeRoute(metacontroller.ObjectMap{}, g, spec))
	if len(children) != 0 || c == nil || c.Reason != model.ReasonGatewayAPINotInstalled {
		t.Fatalf("want no route and %s, got %v %+v", model.ReasonGatewayAPINotInstalled, children, c)
	}
	children, c = gatewayChildren(g, spec, observeRoute(metacontroller.ObjectMap{names.HTTPRoutesKey: {}}, g, spec))
	if len(children) != 1 || c.Reason != model.ReasonHTTPRouteNotAccepted {
		t.Fatalf("managed: want the route, not accepted yet; got %v %+v", children, c)
	}
	children, c = gatewayChildren(g, spec, observeRoute(metacontroller.ObjectMap{names.HTTPRoutesKey: {"glance": []byte(`{"status":{"parents":"not a list"}}`)}}, g, spec))
	if len(children) != 1 || c.Status || c.Message != "the HTTPRoute's status cannot be read" {
		t.Fatalf("a status the hook cannot read: the route, not accepted; got %v %+v", children, c)
	}
	children, c = gatewayChildren(g, api.GlanceSpec{}, observeRoute(metacontroller.ObjectMap{names.HTTPRoutesKey: {}}, g, api.GlanceSpec{}))
	if children != nil || c != nil {
		t.Fatalf("no gateway: nothing, no condition; got %v %+v", children, c)
	}
}
