package kubechain

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

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
