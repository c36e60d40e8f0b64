package decide

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// ChooseDefault returns the one rendered store marked isDefault, or a message
// naming the candidates when there are zero or several.
func ChooseDefault(stores []*model.Store) (*model.Store, string) {
	var rendered, candidates []*model.Store
	for _, s := range stores {
		if s.WantsDefault() {
			candidates = append(candidates, s)
			if s.State.Rendered() {
				rendered = append(rendered, s)
			}
		}
	}
	if len(rendered) == 1 {
		return rendered[0], ""
	}
	if len(stores) == 0 {
		return nil, "no GlanceBackend is attached to this Glance"
	}
	if len(rendered) > 1 {
		var names []string
		for _, s := range rendered {
			names = append(names, fmt.Sprintf("%q (store %s)", s.Backend.Name, s.ID))
		}
		return nil, fmt.Sprintf("%d credential-ready backends are marked isDefault: %s; exactly one must be",
			len(rendered), strings.Join(names, ", "))
	}
	if len(candidates) == 0 {
		return nil, "no attached backend is marked isDefault"
	}
	var why []string
	for _, s := range candidates {
		why = append(why, fmt.Sprintf("%q (store %s): %s", s.Backend.Name, s.ID, s.Skipped))
	}
	return nil, "no credential-ready, rendered backend is marked isDefault; candidates: " + strings.Join(why, "; ")
}

// HoldOutdated keeps the running section of stores whose store Secret lags
// behind a spec change: dropping them would take the store (and every image
// in it) out of glance-api for the moment it takes the backend's own hook to
// re-render, and roll the pods twice. running reads the running
// backends.conf, which holds every store's section: it is read only when a
// store is outdated, which is seldom. A running section that names a CA
// bundle is kept with the bundle the running Deployment mounts for it.
func HoldOutdated(stores []*model.Store, running func() string, current *appsv1.Deployment) {
	text, read := "", false
	for _, s := range stores {
		if s.State != storestate.Outdated {
			continue
		}
		if !read {
			text, read = running(), true
		}
		// The running section is copied only if it still reads as the
		// service writes it; otherwise the store waits for its Secret.
		if section, ok := observe.SectionOf(text, s.ID); ok && storeconf.CheckSection(section, s.ID) == nil {
			s.CA = nil
			if observe.NamesCACert(section) {
				ca, mounted := observe.RunningCA(current, s.ID)
				if !mounted {
					continue
				}
				s.CA = ca
			}
			s.Section = section
			s.Move(storestate.RunningHeld, fmt.Sprintf("its store Secret was rendered from an older spec; the running [%s] section is kept until it is re-rendered", s.ID))
		}
	}
}
