package storeconf

import (
	"fmt"
	"sort"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
)

// ReservedPrefixes returns the store id prefixes glance-api keeps for its own
// stores. The CRDs in schemas/ refuse the same prefixes; a test keeps the two
// lists in step.
func ReservedPrefixes() []string {
	return append([]string(nil), reservedPrefixes...)
}

// ReservedSections returns, sorted, the config sections a store id may not
// take. The CRDs in schemas/ refuse the same ids; a test keeps the two lists
// in step.
func ReservedSections() []string {
	out := make([]string, 0, len(reservedSections))
	for s := range reservedSections {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// reservedNames are names a GlanceBackend may not take while its name is
// its store id: "default" reads, in the guide's listings, as the default
// store whatever store it is. A ControlPlane entry named default projects
// the store id default on a child named <controlplane>-glance-default, as
// the guide's walkthrough shows; only a standalone backend's name is refused.
var reservedNames = []string{"default"}

// ReservedNames returns, sorted, the names a GlanceBackend whose name is
// its store id may not take, on top of ReservedSections. The CRD refuses
// the same names; a test keeps the lists in step.
func ReservedNames() []string { return append([]string(nil), reservedNames...) }

// ValidateBackendName is ValidateStoreID for a GlanceBackend whose name is
// its store id: the reserved names are refused too.
func ValidateBackendName(name string) error {
	for _, r := range reservedNames {
		if name == r {
			return fmt.Errorf("store id %s collides with a reserved store section (a reserved or operator-managed Glance store section of the same name): a GlanceBackend's name becomes its store id, and %s is kept for the store a ControlPlane entry of that name projects",
				excerpt.Name(name), excerpt.Name(name))
		}
	}
	return ValidateStoreID(name)
}
