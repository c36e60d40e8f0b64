package kubechain

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

func ptr[T any](v T) *T { return &v }

func TestHookURL(t *testing.T) {
	type service = struct {
		Name      string  `json:"name"`
		Namespace string  `json:"namespace"`
		Port      *int32  `json:"port"`
		Protocol  *string `json:"protocol"`
	}
	cases := map[string]struct {
		reason string
		spec   webhookSpec
		want   string
		err    bool
	}{
		"service": {"the chart's form: Metacontroller dials <name>.<namespace>:<port> with the protocol, then the path",
			webhookSpec{Service: &service{Name: "glance-hooks", Namespace: "ns", Port: ptr[int32](8443), Protocol: ptr("https")}, Path: ptr("/sync/glance")},
			"https://glance-hooks.ns:8443/sync/glance", false},
		"service defaults": {"without port and protocol Metacontroller uses http on 80",
			webhookSpec{Service: &service{Name: "h", Namespace: "ns"}, Path: ptr("/x")}, "http://h.ns:80/x", false},
		"url":  {"hookBaseURL renders a URL, taken as it is", webhookSpec{URL: ptr("https://example.test/sync")}, "https://example.test/sync", false},
		"none": {"neither is refused", webhookSpec{Path: ptr("/x")}, "", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := hookURL(tc.spec)
			if (err != nil) != tc.err {
				t.Fatalf("%s: error %v, want error %v", tc.reason, err, tc.err)
			}
			if got != tc.want {
				t.Errorf("%s: %q, want %q", tc.reason, got, tc.want)
			}
		})
	}
}

func TestDownstreamOrder(t *testing.T) {
	reg := func(name string, parent chain.Type, children ...chain.Type) *Registration {
		return &Registration{Controller: chain.Controller{Name: name, Parent: parent, Children: children}}
	}
	cp, g, b, s := chain.Type{Kind: "ControlPlane"}, chain.Type{Kind: "Glance"}, chain.Type{Kind: "GlanceBackend"}, chain.Type{Kind: "Secret"}
	cases := map[string]struct {
		reason string
		in     []*Registration
		want   []string
	}{
		"chart": {"the ControlPlane's controller first, as its children are the others' parents; siblings by name",
			[]*Registration{reg("glance", g, s), reg("glancebackend", b, s), reg("controlplane-glance", cp, g, b)},
			[]string{"controlplane-glance", "glance", "glancebackend"}},
		"chain": {"three levels keep their order whatever the listing order",
			[]*Registration{reg("c", s), reg("b", b, s), reg("a", cp, b)},
			[]string{"a", "b", "c"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, r := range downstreamOrder(tc.in) {
				got = append(got, r.Name)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}
