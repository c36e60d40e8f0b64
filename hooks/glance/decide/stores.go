package decide

import (
	"fmt"
	"slices"
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
// bundle is kept with the bundle the running Deployment mounts for it. A
// store held is a copy put in its place in stores (Own).
func HoldOutdated(stores []*model.Store, running func() string, current *appsv1.Deployment) {
	text, read := "", false
	for i, s := range stores {
		if s.State != storestate.Outdated {
			continue
		}
		if !read {
			text, read = running(), true
		}
		// The running section is copied only if it still reads as the
		// service writes it; otherwise the store waits for its Secret.
		if section, ok := observe.SectionOf(text, s.ID); ok && storeconf.CheckSection(section, s.ID) == nil {
			s = Own(stores, i)
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

// RetiringStores are the stores the running backends.conf holds and no
// attached backend names any more. Dropping such a section would make every
// image in the store unreadable without a word, so each is kept, from the
// running config (its backend and store Secret may be gone), as long as
// spec.dropRetiredStores does not list it. A kept store is rendered and
// enabled, never the default: the default is chosen among attached stores.
// A section that no longer reads as the service writes it is not carried;
// the store is reported and left out. A section that names a CA bundle is
// kept with the bundle the running Deployment mounts for it, or not at all;
// before 2025.1 that bundle also takes part in choosing the process-wide one,
// and goes before an attached store's (processWideCABundle).
func RetiringStores(attached []*model.Store, running string, drop []string, current *appsv1.Deployment) []*model.Store {
	if running == "" {
		return nil
	}
	named := make(map[string]bool, len(attached))
	for _, s := range attached {
		named[s.ID] = true
	}
	var out []*model.Store
	for _, id := range sectionIDs(running) {
		if named[id] {
			continue
		}
		s := &model.Store{ID: id, Retired: true}
		s.Move(storestate.BackendGone, "")
		section, ok := observe.SectionOf(running, id)
		switch {
		case slices.Contains(drop, id):
			s.Move(storestate.DropListed, "its backend is gone and spec.dropRetiredStores lists it: its section is dropped")
		case !ok:
			continue
		default:
			if err := storeconf.CheckSection(section, id); err != nil {
				s.Skipped = fmt.Sprintf("its backend is gone and its running section cannot be kept: %v", err)
				break
			}
			if observe.NamesCACert(section) {
				ca, mounted := observe.RunningCA(current, id)
				if !mounted {
					s.Skipped = "its backend is gone and its running section names a CA bundle the running Deployment does not mount: its section cannot be kept"
					break
				}
				s.CA = ca
			}
			s.Section = section
			s.Move(storestate.RunningKept, "its backend is gone; its section is kept, never as the default, so images in it stay readable, until spec.dropRetiredStores lists it")
		}
		out = append(out, s)
	}
	return out
}

// sectionIDs are the ids of the [id] headers of a backends.conf, in order.
// The lines are walked in place: the file holds a section per store, and
// splitting it made a slice of every line each sync.
func sectionIDs(text string) []string {
	ids := make([]string, 0, strings.Count(text, "\n[")+1)
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") && len(line) > 2 {
			ids = append(ids, line[1:len(line)-1])
		}
	}
	return ids
}

// WithRetired is every store the config renders: the attached ones and the
// retiring ones kept, sorted by store id.
func WithRetired(attached, retired []*model.Store) []*model.Store {
	all := make([]*model.Store, 0, len(attached)+len(retired))
	all = append(append(all, attached...), retired...)
	// Sorted without reflection: it runs three times a sync over every
	// store (render, the reach of the features, extraConfig's condition).
	slices.SortStableFunc(all, func(a, b *model.Store) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// Own is the store at i of stores made decide's to move: a copy put in
// place of the observed one. A step copies only the store it moves, when
// it moves it: copying every store each sync cost half a megabyte at a
// thousand stores, and a sync seldom moves any.
func Own(stores []*model.Store, i int) *model.Store {
	own := *stores[i]
	stores[i] = &own
	return &own
}

// OwnAll makes every store of stores decide's, in one backing array, for a
// step that reaches the stores it moves other than by their place in
// Decision.Stores.
func OwnAll(stores []*model.Store) {
	values := make([]model.Store, len(stores))
	for i, s := range stores {
		values[i] = *s
		stores[i] = &values[i]
	}
}
