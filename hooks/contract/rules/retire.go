package rules

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// retirementWarnings tell whoever edits stores what the edit does to the
// images in them: a store no longer named (before, after: the store ids of
// a ControlPlane's entries) is retired, kept readable until at (the Glance
// settings) .dropRetiredStores lists it; a store newly listed there goes
// once it is retired, with the images left in it. The edit is allowed:
// these are warnings, which kubectl prints.
func retirementWarnings(glance string, at *field.Path, before, after, dropBefore, dropAfter []string) []string {
	drop := at.Child("dropRetiredStores").String()
	var out []string
	for _, id := range before {
		if slices.Contains(after, id) {
			continue
		}
		if slices.Contains(dropAfter, id) {
			out = append(out, fmt.Sprintf("store %s of Glance %s is removed and %s lists it: its section is dropped, and images still in it can no longer be read",
				excerpt.Name(id), excerpt.Name(glance), drop))
			continue
		}
		out = append(out, fmt.Sprintf("store %s of Glance %s is retired, not dropped: its section stays readable, never the default, until %s lists it; move its images first",
			excerpt.Name(id), excerpt.Name(glance), drop))
	}
	for _, id := range dropAfter {
		if slices.Contains(dropBefore, id) || (slices.Contains(before, id) && !slices.Contains(after, id)) {
			continue
		}
		out = append(out, fmt.Sprintf("%s lists store %s: once its backend is gone, its section is dropped from Glance %s, and images still in it can no longer be read",
			drop, excerpt.Name(id), excerpt.Name(glance)))
	}
	return out
}
