package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// middlewareFilters are spec.middleware's filters, in the spec's order.
func middlewareFilters(spec api.GlanceSpec) []pasteFilter {
	out := make([]pasteFilter, 0, len(spec.Middleware))
	for _, m := range spec.Middleware {
		out = append(out, pasteFilter{name: m.Name, factory: m.FilterFactory, position: m.Position, options: storeconf.SortedOptions(m.Config)})
	}
	return out
}
