package controlplane

import (
	"fmt"
	"testing"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

// TestUnmanagedKeepsWhatWasProjected: a ControlPlane without
// spec.services.glance keeps the Glance it projected unless its annotation
// reads as true, as strconv.ParseBool reads it (the reference's test); and
// says GlanceNotManaged, True, either way.
func TestUnmanagedKeepsWhatWasProjected(t *testing.T) {
	const glance = `{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"cp-glance","namespace":"openstack",` +
		`"annotations":{"metacontroller.k8s.io/last-applied-configuration":"{\"apiVersion\":\"glance.openstack.c5c3.io/v1alpha1\",\"kind\":\"Glance\",\"metadata\":{\"name\":\"cp-glance\",\"namespace\":\"openstack\"}}"}}}`
	cases := map[string]struct {
		annotation string // "" when absent
		kept       bool
	}{
		"absent":     {"", true},
		"true":       {"true", false},
		"one":        {"1", false},
		"upper case": {"TRUE", false},
		"false":      {"false", true},
		"yes":        {"yes", true}, // not a boolean to ParseBool: kept, as the reference keeps it
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			body := fmt.Sprintf(`{"parent":{"apiVersion":"c5c3.io/v1alpha1","kind":"ControlPlane","metadata":{"name":"cp","namespace":"openstack","generation":2%s},"spec":{}},`+
				`"children":{"Glance.glance.openstack.c5c3.io/v1alpha1":{"cp-glance":%s}},"related":{}}`, annotation(tc.annotation), glance)
			resp := syncBody(t, body)
			if kept := len(resp.Children) == 1; kept != tc.kept || len(resp.Children) > 1 {
				t.Errorf("annotation %q: %d children, want the Glance kept: %v", tc.annotation, len(resp.Children), tc.kept)
			}
			status := resp.Status.(api.ControlPlaneStatus)
			c, found := hook.FindCondition(status.Conditions, CondGlanceReady)
			if !found || c.Reason != ReasonGlanceNotManaged || string(c.Status) != "True" {
				t.Errorf("GlanceReady = %+v, want True/%s", c, ReasonGlanceNotManaged)
			}
			if r, _ := hook.FindCondition(status.Conditions, hook.ConditionReady); r.Reason != hook.ReasonAllReady {
				t.Errorf("Ready = %+v, want True/%s", r, hook.ReasonAllReady)
			}
		})
	}
}

func annotation(v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(`,"annotations":{%q:%q}`, AnnotationAllowGlanceDeletion, v)
}
