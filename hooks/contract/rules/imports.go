package rules

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// importWarnings are the warnings of a spec's import blocks, with the
// defaults filled in.
func importWarnings(at *field.Path, s api.GlanceSpec) []string {
	out := importFilterWarnings(at, s.ImportFiltering)
	if p := s.ImportPlugins; p != nil && p.Decompression != nil && slices.Contains(s.ImportMethods, api.ImportGlanceDirect) {
		out = append(out, fmt.Sprintf("%s does not work alone with glance-direct: staging records the packed size on the image, the plugin does not correct it, and the import fails Glance's size check unless a conversion rewrites the image; web-download imports are unpacked",
			at.Child("importPlugins", "decompression")))
	}
	return out
}

// importFilterWarnings name filter settings that are valid but do less
// than they seem to, when and in the words the reference warns of them: a
// deny list beside an unset allow list, which resolves to the default
// (Glance reads a deny list only while its allow list is empty), and an
// allow list wider than its default, which leaves the host deny list,
// matched literally, as the only control. The lists a warning quotes are
// schemes of the enum and port numbers: a scheme outside the enum is
// refused, and its warning left out.
func importFilterWarnings(at *field.Path, f *api.ImportFilteringSpec) []string {
	if f == nil {
		return nil
	}
	at = at.Child("importFiltering")
	var out []string
	if len(f.DisallowedSchemes) > 0 && f.AllowedSchemes == nil {
		out = append(out, inertDenyList(at, "disallowedSchemes", "allowedSchemes", api.DefaultAllowedSchemes()))
	}
	if len(f.DisallowedPorts) > 0 && f.AllowedPorts == nil {
		out = append(out, inertDenyList(at, "disallowedPorts", "allowedPorts", api.DefaultAllowedPorts()))
	}
	if widens(f.AllowedSchemes, api.DefaultAllowedSchemes()) && !slices.ContainsFunc(f.AllowedSchemes, func(s string) bool { return !api.KnownScheme(s) }) {
		out = append(out, widenedAllowList(at.Child("allowedSchemes"), f.AllowedSchemes, api.DefaultAllowedSchemes()))
	}
	if widens(f.AllowedPorts, api.DefaultAllowedPorts()) {
		out = append(out, widenedAllowList(at.Child("allowedPorts"), f.AllowedPorts, api.DefaultAllowedPorts()))
	}
	return out
}

// inertDenyList is the reference's warning of a deny list Glance never
// reads.
func inertDenyList(at *field.Path, deny, allow string, defaults any) string {
	return fmt.Sprintf("%s is set while %s is unset and therefore resolves to the operator default %v. "+
		"Glance evaluates a deny-list only while the matching allow-list is empty, so this list is inert; "+
		"set %s to an explicitly empty list ([]) to make the deny-list authoritative.",
		at.Child(deny), at.Child(allow), defaults, at.Child(allow))
}

// widenedAllowList is the reference's warning of an allow list wider than
// its default; it names the network policy as the reference does, on a
// ControlPlane too.
func widenedAllowList(at *field.Path, set, defaults any) string {
	return fmt.Sprintf("%s is set to %v, widening the operator default %v. The scheme and port pin "+
		"is the primary web-download control — the link-local metadata endpoint answers on http/80 — and once "+
		"widened only the host denylist remains, which matches literally: alternate spellings of the same "+
		"address (an integer or IPv4-mapped form, a raw ClusterIP, a trailing-dot FQDN) are not covered. "+
		"Confine the reachable endpoints with spec.networkPolicy.additionalEgress, or pin allowedHosts to the "+
		"mirrors imports are supposed to use.", at, set, defaults)
}

// widens says whether an allow list as written admits more than its
// default: an empty one lifts the restriction, and any entry the default
// lacks admits what it refused. An unset one is the default.
func widens[T comparable](set, defaults []T) bool {
	if set == nil {
		return false
	}
	return len(set) == 0 || slices.ContainsFunc(set, func(v T) bool { return !slices.Contains(defaults, v) })
}
