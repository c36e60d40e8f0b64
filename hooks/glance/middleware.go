package glance

import (
	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// middlewareFilters are spec.middleware's filters, in the spec's order.
func middlewareFilters(spec api.GlanceSpec) []render.PasteFilter {
	out := make([]render.PasteFilter, 0, len(spec.Middleware))
	for _, m := range spec.Middleware {
		out = append(out, render.PasteFilter{Name: m.Name, Factory: m.FilterFactory, Position: m.Position, Options: storeconf.SortedOptions(m.Config)})
	}
	return out
}
