package glance

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/extraconf"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
)

// glance-api.conf is layered, key by key: spec.plugins' sections first,
// then what the hooks render over them, then spec.extraConfig over both.
// An operator's last word wins, and what the hooks need holds against a
// plugin section that happens to name the same key.

// layerConf puts the plugins under the rendered sections and extraConfig
// over them. rendered starts with [DEFAULT]; sections keep the order they
// first appear in, rendered ones first. A section of extraConfig that is an
// S3 store's is left out: store sections are in backends.conf, which
// glance-api reads after glance-api.conf, so a line here would change
// nothing (admission refuses it; skippedStoreSections reports it).
func layerConf(in confInput, rendered []storeconf.Section) []storeconf.Section {
	out := rendered
	for _, p := range in.spec.Plugins {
		for _, o := range storeconf.SortedOptions(p.Config) {
			out = setOption(out, p.ConfigSection, o, false)
		}
	}
	stores := s3Sections(in.stores)
	for _, name := range slices.Sorted(maps.Keys(in.spec.ExtraConfig)) {
		if stores[name] {
			continue
		}
		for _, o := range storeconf.SortedOptions(in.spec.ExtraConfig[name]) {
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

// s3Sections are the store ids whose sections backends.conf holds.
func s3Sections(stores []*model.Store) map[string]bool {
	out := map[string]bool{}
	for _, s := range stores {
		if s.State.Rendered() {
			out[s.ID] = true
		}
	}
	return out
}

// extraConfigHealthy is ExtraConfigHealthy: False when spec.extraConfig
// sets keys the hooks own (named, so an operator sees what the hooks no
// longer decide) or sections of S3 stores, which it cannot reach. It is
// reported apart from Ready: the Glance may run as the operator wants it.
// Without extraConfig it is True, as the reference reports it.
func extraConfigHealthy(spec api.GlanceSpec, stores []*model.Store) hook.Condition {
	var owned, unreachable []string
	s3 := s3Sections(stores)
	for _, section := range slices.Sorted(maps.Keys(spec.ExtraConfig)) {
		for _, key := range slices.Sorted(maps.Keys(spec.ExtraConfig[section])) {
			name := fmt.Sprintf("[%s] %s", section, key)
			switch {
			case s3[section]:
				unreachable = append(unreachable, name)
			case extraconf.Owned(section, key):
				owned = append(owned, name)
			}
		}
	}
	c := hook.Condition{Type: model.CondExtraConfigHealthy}
	var why []string
	if len(owned) > 0 {
		c.Reason = model.ReasonOwnedKeysOverridden
		why = append(why, "spec.extraConfig overrides "+hook.Plural(len(owned), "key", "keys")+" the hooks render: "+strings.Join(owned, ", "))
	}
	if len(unreachable) > 0 {
		if c.Reason == "" {
			c.Reason = model.ReasonStoreSectionIgnored
		}
		why = append(why, "spec.extraConfig names S3 store sections, which are rendered from their GlanceBackends and are left out: "+
			strings.Join(unreachable, ", ")+"; set them in the GlanceBackend's spec.extraOptions")
	}
	if len(why) == 0 {
		c.Status, c.Reason = true, model.ReasonNoOwnedKeysOverridden
		c.Message = "spec.extraConfig overrides no key the hooks render"
		return c
	}
	c.Message = strings.Join(why, "; ")
	return c
}

// extraConfigOccurrences is the Warning Event of an ExtraConfigHealthy
// that is False: one per transition, so more keys overridden while it stays
// False make no second Event, and its return to True makes none.
func extraConfigOccurrences(st api.GlanceStatus) []occurrence {
	c, ok := hook.FindCondition(st.Conditions, model.CondExtraConfigHealthy)
	if !ok || c.Status != metav1.ConditionFalse {
		return nil
	}
	return []occurrence{{warning: true, reason: EventExtraConfigOwnedKey, action: "RenderConfig", note: c.Message, at: c.LastTransitionTime}}
}
