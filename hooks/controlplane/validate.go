package controlplane

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// MessageExactlyOneDefault is the guide's text for zero or several defaults.
const MessageExactlyOneDefault = "exactly one backends entry must set isDefault"

// ValidateBackends checks the services.glance.backends[] of ControlPlane cp
// the way admission does, so the sync hook never projects a list the API
// server should have refused. Each entry must make a usable store id and
// GlanceBackend name, and the GlanceBackend it projects must pass the checks
// a hand-made one passes. Every problem is listed, entry by entry, then the
// count of defaults; paths are relative to spec.services.glance.
func ValidateBackends(cp string, backends []api.BackendEntry) problem.List {
	if len(backends) == 0 {
		// The reference's words, then the guide's: an empty list is one
		// with zero defaults too.
		return problem.List{problem.At(field.NewPath("backends"), "at least one backend must be declared"),
			problem.New("%s (found 0)", MessageExactlyOneDefault)}
	}
	var l problem.List
	if len(backends) > api.MaxBackendEntries {
		// The CRD's maxItems, in the API server's words, which are the reference's.
		l = append(l, problem.TooMany(field.NewPath("backends"), len(backends), api.MaxBackendEntries))
		backends = backends[:api.MaxBackendEntries]
	}
	defaults := 0
	seen := map[string]bool{}
	for i, e := range backends {
		at := field.NewPath("backends").Index(i)
		if e.Name == "" {
			l = append(l, problem.Required(at.Child("name")))
		} else {
			if err := storeconf.ValidateStoreID(e.Name); err != nil {
				l = append(l, problem.At(at, "%v", err))
			}
			if seen[e.Name] {
				l = append(l, problem.At(at, "duplicate entry name %s", excerpt.Name(e.Name)))
			}
			seen[e.Name] = true
			if child := names.BackendName(cp, e.Name); len(validation.IsDNS1123Subdomain(child)) > 0 {
				l = append(l, problem.New("entry %s makes the GlanceBackend name %s, which is not a valid object name", excerpt.Name(e.Name), excerpt.Name(child)))
			}
		}
		if e.IsDefault {
			defaults++
		}
		l = append(l, problem.Wrap(at, storeconf.SpecProblems(backendSpec(names.GlanceName(cp), e), storeconf.EndpointField))...)
	}
	if defaults != 1 {
		l = append(l, problem.New("%s (found %d)", MessageExactlyOneDefault, defaults))
	}
	return l
}

// ValidateKeystone checks services.glance.keystone the way the CRD does, so
// the sync hook never renders a registration Job the API server should
// have refused; paths are relative to it. k may be nil.
func ValidateKeystone(k *api.KeystoneRegistration) problem.List {
	if k == nil {
		return nil
	}
	var l problem.List
	for _, u := range []struct {
		name, value string
	}{{"publicURL", k.PublicURL}, {"internalURL", k.InternalURL}} {
		if u.value == "" {
			continue
		}
		for _, p := range inivalue.URLProblems(u.value, "an endpoint URL carries none") {
			l = append(l, problem.At(field.NewPath(u.name), "%s", p))
		}
	}
	if k.Region != "" && !regionPattern.MatchString(k.Region) {
		l = append(l, problem.Invalid(field.NewPath("region"), "must be letters, digits, '.', '_' or '-', starting with a letter or digit"))
	}
	if k.OnDelete != "" && k.OnDelete != api.OnDeleteDeregister && k.OnDelete != api.OnDeleteKeep {
		l = append(l, problem.Invalid(field.NewPath("onDelete"), "must be %s or %s", api.OnDeleteDeregister, api.OnDeleteKeep))
	}
	return l
}

// regionPattern is the CRD's pattern of a region id.
var regionPattern = regexp.MustCompile(`^[A-Za-z0-9][-._A-Za-z0-9]*$`)

// glanceServicePath is where a ControlPlane holds what it projects into its Glance.
var glanceServicePath = field.NewPath("spec", "services", "glance")

// Problems checks a ControlPlane that runs Glance the way admission does
// and the sync hook does before it projects: the projected Glance's name,
// backends[] and the Keystone block (paths under spec.services.glance),
// what only a ControlPlane holds (hooks/contract/rules), then the Glance it
// would project, with the rules a hand-made Glance passes. raw is the
// ControlPlane as written. The warnings say what is accepted but
// deserves a look.
func Problems(cp *api.ControlPlane, raw []byte) (problem.List, []string) {
	svc := cp.Spec.Services.Glance
	l := rules.ProjectedGlanceName(cp.Name)
	l = append(l, problem.Wrap(glanceServicePath, ValidateBackends(cp.Name, svc.Backends))...)
	l = append(l, problem.Wrap(glanceServicePath.Child("keystone"), ValidateKeystone(svc.Keystone))...)
	own, ownWarnings := rules.ControlPlaneOwn(cp)
	if l = append(l, own...); len(l) > 0 {
		return l, nil
	}
	l, warnings := rules.ProjectedGlance(cp, rules.Projection{Written: writtenGlanceSpec(cp), Spec: GlanceSpec(cp)}, raw)
	if len(l) > 0 {
		return l, nil
	}
	return nil, append(warnings, ownWarnings...)
}
