package render

import (
	"maps"
	"slices"

	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// LayerConf puts the plugins under the rendered sections and extraConfig
// over them. rendered starts with [DEFAULT]; sections keep the order they
// first appear in, rendered ones first. A section of extraConfig that is an
// S3 store's is left out: store sections are in backends.conf, which
// glance-api reads after glance-api.conf, so a line here would change
// nothing (admission refuses it; skippedStoreSections reports it).
func LayerConf(in ConfInput, rendered []storeconf.Section) []storeconf.Section {
	out := rendered
	for _, p := range in.Spec.Plugins {
		for _, o := range storeconf.SortedOptions(p.Config) {
			out = setOption(out, p.ConfigSection, o, false)
		}
	}
	stores := S3Sections(in.Stores)
	for _, name := range slices.Sorted(maps.Keys(in.Spec.ExtraConfig)) {
		if stores[name] {
			continue
		}
		for _, o := range storeconf.SortedOptions(in.Spec.ExtraConfig[name]) {
			out = setOption(out, name, o, true)
		}
	}
	return out
}

// setOption sets o in section name: appended when the key is not there
// (and the section, when it is not), replaced only when override is set.
// The sections are copied on write, so what a feature returned is never
// changed underneath it.
func setOption(sections []storeconf.Section, name string, o storeconf.Option, override bool) []storeconf.Section {
	for i, s := range sections {
		if s.Name != name {
			continue
		}
		opts := slices.Clone(s.Options)
		for j := range opts {
			if opts[j].Key == o.Key {
				if override {
					opts[j].Value = o.Value
				}
				sections[i].Options = opts
				return sections
			}
		}
		sections[i].Options = append(opts, o)
		return sections
	}
	return append(sections, storeconf.Section{Name: name, Options: []storeconf.Option{o}})
}

// S3Sections are the store ids whose sections backends.conf holds.
func S3Sections(stores []*model.Store) map[string]bool {
	out := map[string]bool{}
	for _, s := range stores {
		if s.State.Rendered() {
			out[s.ID] = true
		}
	}
	return out
}
