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
// than they seem to: a deny list whose allow list resolves to the default
// (Glance ignores it), and an allow list wider than https on 443, which
// leaves the host deny list, matched literally, as the only control.
func importFilterWarnings(at *field.Path, f *api.ImportFilteringSpec) []string {
	if f == nil {
		return nil
	}
	at = at.Child("importFiltering")
	var out []string
	inert := func(deny, allow string) {
		out = append(out, fmt.Sprintf("%s has no effect: %s is unset and resolves to its default, and Glance reads a deny list only while its allow list is empty; set %s: [] to use the deny list",
			at.Child(deny), at.Child(allow), at.Child(allow)))
	}
	if f.DisallowedSchemes != nil && f.AllowedSchemes == nil {
		inert("disallowedSchemes", "allowedSchemes")
	}
	if f.DisallowedPorts != nil && f.AllowedPorts == nil {
		inert("disallowedPorts", "allowedPorts")
	}
	wide := slices.ContainsFunc(f.AllowedPorts, func(p int32) bool { return p != 443 }) || slices.Contains(f.AllowedSchemes, api.SchemeHTTP) ||
		(f.AllowedSchemes != nil && len(f.AllowedSchemes) == 0) || (f.AllowedPorts != nil && len(f.AllowedPorts) == 0)
	if wide && len(f.AllowedHosts) == 0 {
		out = append(out, fmt.Sprintf("%s allows more than https on port 443: the host deny list, which matches host names literally, is then all that keeps web-download off the metadata address and in-cluster services; name the mirrors in %s",
			at, at.Child("allowedHosts")))
	}
	return out
}
