package storeconf

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The rules of spec.importPlugins and spec.importFiltering that keep what
// is written into glance-api.conf what the spec says. Admission refuses a
// spec breaking them; the Glance hook renders nothing from one. Paths are
// relative to the Glance's settings.

// reservedPropertyPrefix is Glance's own namespace of image properties:
// the inject plugin drops (and logs) a property in it.
const reservedPropertyPrefix = "os_glance"

// maxPropertyLength is the longest property name or value Glance stores.
const maxPropertyLength = 255

// ImportPluginsProblems checks spec.importPlugins.
func ImportPluginsProblems(p *api.ImportPluginsSpec) problem.List {
	if p == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("importPlugins")
	if c := p.Conversion; c != nil && c.OutputFormat != "" && !slices.Contains(api.ConversionFormats, c.OutputFormat) {
		l = append(l, problem.Invalid(at.Child("conversion", "outputFormat"), "must be one of %s", strings.Join(api.ConversionFormats, ", ")))
	}
	if m := p.InjectMetadata; m != nil {
		l = append(l, problem.Wrap(at.Child("injectMetadata"), injectProblems(*m))...)
	}
	return l
}

// injectProblems checks the inject plugin's properties and roles. They
// are written as oslo.config's dict (name:value pairs joined by ',') and
// list, so a name holds neither ':' nor ',', and a value no ','.
func injectProblems(m api.ImportInjectMetadataSpec) problem.List {
	var l problem.List
	props := field.NewPath("properties")
	if len(m.Properties) == 0 {
		l = append(l, problem.Invalid(props, "must name at least one property"))
	}
	for _, k := range slices.Sorted(maps.Keys(m.Properties)) {
		at := props.Key(k)
		switch {
		case len(k) > maxPropertyLength:
			l = append(l, problem.At(at, "a property name must be at most %d characters", maxPropertyLength))
		case strings.HasPrefix(k, reservedPropertyPrefix):
			l = append(l, problem.At(at, "a property name must not start with %s: Glance reserves it and the plugin drops such a property", reservedPropertyPrefix))
		default:
			if p := DictKeyProblem(k); p != "" {
				l = append(l, problem.At(at, "the property name %s", p))
			}
		}
		v := m.Properties[k]
		if len(v) > maxPropertyLength {
			l = append(l, problem.Invalid(at, "must be at most %d characters", maxPropertyLength))
		} else if p := DictValueProblem(v); p != "" {
			l = append(l, problem.Invalid(at, "%s", p))
		}
	}
	for i, r := range m.IgnoreUserRoles {
		if p := ListItemProblem(r); p != "" {
			l = append(l, problem.Invalid(field.NewPath("ignoreUserRoles").Index(i), "%s", p))
		}
	}
	if len(l) > 0 {
		return l
	}
	// Each part may be fine and the line not: a first name starting with
	// a quote and a last value ending with it read as one quoted value.
	if p := inivalue.ValueProblem(DictValue(m.Properties)); p != "" {
		l = append(l, problem.Invalid(props, "written as one line, %s", p))
	}
	if p := inivalue.ValueProblem(strings.Join(m.IgnoreUserRoles, ",")); p != "" {
		l = append(l, problem.Invalid(field.NewPath("ignoreUserRoles"), "written as one line, %s", p))
	}
	return l
}

// filterPair is one attribute's allow and deny list.
type filterPair struct {
	allow, deny string
	set         func(*api.ImportFilteringSpec) (allow, deny bool)
}

var filterPairs = []filterPair{
	{"allowedSchemes", "disallowedSchemes", func(f *api.ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedSchemes) > 0, len(f.DisallowedSchemes) > 0
	}},
	{"allowedHosts", "disallowedHosts", func(f *api.ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedHosts) > 0, len(f.DisallowedHosts) > 0
	}},
	{"allowedPorts", "disallowedPorts", func(f *api.ImportFilteringSpec) (bool, bool) {
		return len(f.AllowedPorts) > 0, len(f.DisallowedPorts) > 0
	}},
}

// ImportFilterProblems checks spec.importFiltering: each list's items as
// Glance's option types take them, and no attribute with both lists set,
// since Glance would ignore the deny list without a word.
func ImportFilterProblems(f *api.ImportFilteringSpec) problem.List {
	if f == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("importFiltering")
	for _, pair := range filterPairs {
		if allow, deny := pair.set(f); allow && deny {
			l = append(l, problem.At(at.Child(pair.deny), "%s and %s are mutually exclusive: glance ignores the deny-list when the allow-list is non-empty", pair.allow, pair.deny))
		}
	}
	// In the spec's field order, so the same spec gives the same message.
	l = append(l, itemProblems(at.Child("allowedSchemes"), f.AllowedSchemes, schemeProblem)...)
	l = append(l, itemProblems(at.Child("disallowedSchemes"), f.DisallowedSchemes, schemeProblem)...)
	l = append(l, itemProblems(at.Child("allowedHosts"), f.AllowedHosts, HostAddressProblem)...)
	l = append(l, itemProblems(at.Child("disallowedHosts"), f.DisallowedHosts, HostAddressProblem)...)
	l = append(l, itemProblems(at.Child("allowedPorts"), f.AllowedPorts, portProblem)...)
	l = append(l, itemProblems(at.Child("disallowedPorts"), f.DisallowedPorts, portProblem)...)
	return l
}

// itemProblems refuses each item of a list that check finds a problem in,
// at its index.
func itemProblems[T any](at *field.Path, items []T, check func(T) string) problem.List {
	var l problem.List
	for i, v := range items {
		if p := check(v); p != "" {
			l = append(l, problem.Invalid(at.Index(i), "%s", p))
		}
	}
	return l
}

func schemeProblem(s string) string {
	if s != api.SchemeHTTP && s != api.SchemeHTTPS {
		return "must be http or https"
	}
	return ""
}

func portProblem(p int32) string {
	if p < 1 || p > 65535 {
		return "must be a port, 1 to 65535"
	}
	return ""
}
