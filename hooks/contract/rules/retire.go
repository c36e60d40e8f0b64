package rules

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// storeLists are the store ids an edit changes, as they were or as they
// become: the ids of a ControlPlane's entries (none for a Glance, which
// names no entries) and dropRetiredStores.
type storeLists struct {
	stores, drop []string
}

// retirementWarnings tell whoever edits stores what the edit does to the
// images in them: a store no longer named is retired, kept readable until
// at (the Glance settings) .dropRetiredStores lists it; a store newly
// listed there goes once it is retired, with the images left in it. The
// edit is allowed: these are warnings, which kubectl prints.
func retirementWarnings(glance string, at *field.Path, before, after storeLists) []string {
	drop := at.Child("dropRetiredStores").String()
	var out []string
	for _, id := range before.stores {
		if slices.Contains(after.stores, id) {
			continue
		}
		if slices.Contains(after.drop, id) {
			out = append(out, fmt.Sprintf("store %s of Glance %s is removed and %s lists it: its section is dropped, and images still in it can no longer be read",
				excerpt.Name(id), excerpt.Name(glance), drop))
			continue
		}
		out = append(out, fmt.Sprintf("store %s of Glance %s is retired, not dropped: its section stays readable, never the default, until %s lists it; move its images first",
			excerpt.Name(id), excerpt.Name(glance), drop))
	}
	for _, id := range after.drop {
		if slices.Contains(before.drop, id) || (slices.Contains(before.stores, id) && !slices.Contains(after.stores, id)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s lists store %s: once its backend is gone, its section is dropped from Glance %s, and images still in it can no longer be read",
			drop, excerpt.Name(id), excerpt.Name(glance)))
	}
	return out
}
