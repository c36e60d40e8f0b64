package storeconf

import "sort"

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
