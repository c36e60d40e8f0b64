package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMiddlewareRules: the middleware part's rules, at paths relative to
// the Glance settings, in the words both gates give.
func TestMiddlewareRules(t *testing.T) {
	const factory = "glance.api.middleware.context:UnauthenticatedContextMiddleware.factory"
	cases := map[string]struct {
		reason string
		mw     []MiddlewareSpec
		want   string
	}{
		"Unset": {"no filter of the operator's", nil, ""},
		"Valid": {"a named filter with a factory, a position and a setting",
			[]MiddlewareSpec{{Name: "unauthenticated-context", FilterFactory: factory, Position: MiddlewareAfter, Config: map[string]string{"x": "1"}}}, ""},
		"Twice": {"filter names are unique",
			[]MiddlewareSpec{{Name: "a", FilterFactory: factory, Position: MiddlewareBefore}, {Name: "a", FilterFactory: factory, Position: MiddlewareBefore}},
			"middleware[1].name is the name of another entry: filter names are unique"},
		"Position": {"before or after", []MiddlewareSpec{{Name: "a", FilterFactory: factory, Position: "middle"}}, "middleware[0].position must be before or after"},
		"Value": {"a setting is written into the paste file as it is",
			[]MiddlewareSpec{{Name: "a", FilterFactory: factory, Position: MiddlewareBefore, Config: map[string]string{"x": "a\nb"}}}, "middleware[0].config[x] contains a newline"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, middlewareRules(GlanceSpec{Middleware: tc.mw}).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
