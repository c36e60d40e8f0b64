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
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// glance-api.conf is layered, key by key: spec.plugins' sections first,
// then what the hooks render over them, then spec.extraConfig over both.
// An operator's last word wins, and what the hooks need holds against a
// plugin section that happens to name the same key.

// extraConfigHealthy is ExtraConfigHealthy: False when spec.extraConfig
// sets keys the hooks own (named, so an operator sees what the hooks no
// longer decide) or sections of S3 stores, which it cannot reach. It is
// reported apart from Ready: the Glance may run as the operator wants it.
// Without extraConfig it is True, as the reference reports it.
func extraConfigHealthy(spec api.GlanceSpec, stores []*model.Store) hook.Condition {
	var owned, unreachable []string
	s3 := render.S3Sections(stores, spec.ExtraConfig)
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
func extraConfigOccurrences(st api.GlanceStatus) []report.Occurrence {
	c, ok := hook.FindCondition(st.Conditions, model.CondExtraConfigHealthy)
	if !ok || c.Status != metav1.ConditionFalse {
		return nil
	}
	return []report.Occurrence{{Warning: true, Reason: report.EventExtraConfigOwnedKey, Action: "RenderConfig", Note: c.Message, At: c.LastTransitionTime}}
}

// extraConfigCondition is ExtraConfigHealthy over every store the config
// holds, the retiring ones too.
func extraConfigCondition(in report.StatusInput) (hook.Condition, error) {
	return extraConfigHealthy(in.Observed.Spec, decide.WithRetired(in.Decision.Stores, in.Decision.Retired)), nil
}
