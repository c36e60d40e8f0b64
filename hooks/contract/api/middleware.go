package api

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/extraconf"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The middleware feature's part of a Glance spec (spec.middleware): its
// rules. Its type is MiddlewareSpec (glance_blocks.go); its behaviour (the
// filters in the paste pipeline) is hooks/glance/middleware.go. A
// ControlPlane does not set it.

// middlewareRules are the part's rules. Paths are relative to the Glance
// settings.
func middlewareRules(s GlanceSpec) problem.List { return middlewareProblems(s.Middleware) }

// middlewareProblems checks spec.middleware: unique names that are not the
// hooks' own filters, a filter factory, a position, writable settings.
func middlewareProblems(mw []MiddlewareSpec) problem.List {
	var l problem.List
	seen := map[string]bool{}
	for i, m := range mw {
		at := field.NewPath("middleware").Index(i)
		switch p := extraconf.FilterNameProblem(m.Name); {
		case p != "":
			l = append(l, problem.Invalid(at.Child("name"), "%s", p))
		case seen[m.Name]:
			l = append(l, problem.Invalid(at.Child("name"), "is the name of another entry: filter names are unique"))
		}
		seen[m.Name] = true
		if p := extraconf.FilterFactoryProblem(m.FilterFactory); p != "" {
			l = append(l, problem.Invalid(at.Child("filterFactory"), "%s", p))
		}
		if m.Position != MiddlewareBefore && m.Position != MiddlewareAfter {
			l = append(l, problem.Invalid(at.Child("position"), "must be before or after"))
		}
		for _, key := range slices.Sorted(maps.Keys(m.Config)) {
			if p := extraconf.FilterKeyProblem(key); p != "" {
				l = append(l, problem.At(at.Child("config"), "setting %s %s", excerpt.Value(key), p))
				continue
			}
			l = append(l, ValueProblems(at.Child("config").Key(key), m.Config[key])...)
		}
	}
	return l
}
