package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServiceKey(t *testing.T) {
	type want struct {
		msg    string
		refuse bool
	}
	cases := map[string]struct {
		reason string
		name   string
		want   want
	}{
		"glance":       {"the service these hooks run", "glance", want{}},
		"other known":  {"a service of the reference's ControlPlane is kept, said to be left alone", "keystone", want{"is not reconciled here: these hooks run Glance only", false}},
		"misspelt":     {"near a known service: refused with the service meant", "glanse", want{"is not a known service: did you mean glance?", true}},
		"case":         {"the CRD's keys are case-sensitive, so Glance is no glance", "Glance", want{"is not a known service: did you mean glance?", true}},
		"far from all": {"near nothing: refused with the list", "zzzzzzzz", want{"is not a known service (one of barbican, glance, horizon, keystone, placement)", true}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			msg, refuse := ServiceKey(c.name)
			if diff := cmp.Diff(c.want, want{msg, refuse}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.reason, diff)
			}
		})
	}
}
