package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
)

// Glance checks a Glance as written: its name, and its spec with the
// conventional defaults of its namespace filled in, the way its sync hook
// will use it. raw is the whole object as written: the deployment block and
// the extra egress rules are checked as written, refusing a field their
// types do not have. The problems are rooted at the object; the warnings
// say what is accepted but deserves a look.
func Glance(name, namespace string, written api.GlanceSpec, raw []byte) (problem.List, []string) {
	spec := written.WithDefaults(namespace)
	l := glanceNameProblems(name)
	l = append(l, requiredValue(releasePath, spec.OpenStackRelease)...)
	l = append(l, releaseProblems(spec, releaseWords{tag: specPath.Child("image", "tag"), bad: glanceBadRelease})...)
	l = append(l, problem.Wrap(specPath, glanceServiceProblems(written, spec))...)
	l = append(l, problem.Wrap(specPath, schedulingProblems(rawScheduling(raw, "spec"), name))...)
	l = append(l, problem.Wrap(specPath, ownedSecretProblems(name, spec))...)
	l = append(l, problem.Wrap(specPath, notSupportedProblems(spec))...)
	l = append(l, problem.Wrap(specPath, networkPolicyBlockProblems(spec, rawAt(raw, "spec", "networkPolicy", "additionalEgress")))...)
	operatorProblems, operatorWarnings := operatorConfigProblems(spec)
	l = append(l, problem.Wrap(specPath, operatorProblems)...)
	warnings := append(apiServerWarnings(specPath.Child("apiServer"), written.APIServer, spec.OpenStackRelease), unusedSizingWarnings(specPath, spec)...)
	warnings = append(warnings, importWarnings(specPath, spec)...)
	return l, append(warnings, operatorWarnings...)
}

// GlanceUpdate checks what an UPDATE changes of a Glance (old as it was,
// spec the new spec with its defaults): the release step the schema must
// take, and warnings for a shorter retention and for retired stores. These
// rules need the object as it was, so only admission has them: the sync
// hook sees one object, and its schema plan refuses what it cannot take.
// valid says the new object passed Glance; the store warnings are given
// only then.
func GlanceUpdate(name string, old *api.Glance, oldNamespace string, spec api.GlanceSpec, valid bool) (problem.List, []string) {
	l := releaseStepProblems(old.Status, old.Spec.WithDefaults(oldNamespace), spec)
	warnings := dbPurgeWarnings(old.Spec, spec)
	if valid && len(l) == 0 {
		warnings = append(warnings, retirementWarnings(name, specPath,
			storeLists{drop: old.Spec.DropRetiredStores}, storeLists{drop: spec.DropRetiredStores})...)
	}
	return l, warnings
}

// glanceNameProblems checks a Glance's name, which is also its Service's.
func glanceNameProblems(name string) problem.List {
	if name == "" {
		return problem.List{problem.Invalid(metadataName, "is required: it is also the name of the glance-api Service, so it cannot be generated")}
	}
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return problem.List{problem.New("the name is also the name of its glance-api Service, which must be a DNS-1035 label: %s", shortValidation(errs[0]))}
	}
	return nil
}

// The refusals of a release that is none, after spec.openStackRelease:
// a Glance's in this project's words (the reference's Glance leaves it to
// its CRD's pattern), a ControlPlane's in the reference ControlPlane's.
var (
	glanceBadRelease       = problem.Invalid(releasePath, "must be an OpenStack release, YYYY.1 or YYYY.2")
	controlPlaneBadRelease = problem.At(releasePath, `must match the OpenStack release pattern ^\d{4}\.[12]$ (e.g. 2025.2)`)
)

// releaseWords are where an object holds its image tag, and how it
// refuses a release that is none (glanceBadRelease, controlPlaneBadRelease).
type releaseWords struct {
	tag *field.Path
	bad problem.Problem
}

// releaseProblems checks the release, at releasePath, and that the image
// tag, at w.tag, names no other release: the schema Jobs prepare the
// database for the release, and the release picks the launch mode.
func releaseProblems(s api.GlanceSpec, w releaseWords) problem.List {
	if s.OpenStackRelease == "" {
		return nil // requiredValue says so
	}
	rel, err := release.Parse(s.OpenStackRelease)
	if err != nil {
		return problem.List{w.bad}
	}
	if p := release.TagProblem(s.Image.Tag, rel); p != "" {
		return problem.List{problem.Invalid(w.tag, "%s (%s): the schema Jobs prepare the database for %s, so the image must be of that release",
			p, releasePath, releasePath)}
	}
	return nil
}

// glanceServiceProblems checks a Glance spec, with the conventional defaults
// filled in (s), the way its sync hook will use it: what glance-api needs
// must be there, in values that can be written into glance-api.conf;
// written is the same spec before its defaults, for the rules a default
// would hide. Paths are relative to where the settings are (a Glance's
// spec, a ControlPlane's spec.services.glance); the release, which a
// ControlPlane holds on its spec, is checked at releasePath.
func glanceServiceProblems(written, s api.GlanceSpec) problem.List {
	return partProblems(written, s)
}

// partProblems runs the rules of the spec's parts (api.GlanceParts), in
// their order: each part's Rules on the spec with its defaults (s), then
// its WrittenRules on the spec as written. Paths are relative to the
// Glance settings, as glanceServiceProblems's.
func partProblems(written, s api.GlanceSpec) problem.List {
	var l problem.List
	for _, part := range api.GlanceParts() {
		if part.Rules != nil {
			l = append(l, part.Rules(s)...)
		}
		if part.WrittenRules != nil {
			l = append(l, part.WrittenRules(written)...)
		}
	}
	return l
}

// ownedSecretProblems refuses a Secret the spec names that the Glance hook
// writes itself: the database URL's and the escaped service password's
// Secrets of the Glance named glance.
func ownedSecretProblems(glance string, s api.GlanceSpec) problem.List {
	var l problem.List
	for _, ref := range []struct {
		at   *field.Path
		name string
	}{
		{field.NewPath("database", "secretRef", "name"), s.Database.SecretRef.Name},
		{field.NewPath("serviceUser", "secretRef", "name"), s.ServiceUser.SecretRef.Name},
	} {
		switch {
		case glance == "":
		case ref.name == names.DBConnectionSecretName(glance):
			l = append(l, problem.Invalid(ref.at, "names %q, the Secret the hooks write the database URL into; name the Secret that holds the credentials", ref.name))
		case ref.name == names.AuthtokenSecretName(glance):
			l = append(l, problem.Invalid(ref.at, "names %q, the Secret the hooks write the escaped service password into; name the Secret that holds the credentials", ref.name))
		}
	}
	return l
}

// releaseStepProblems refuses a change of the release the database schema
// cannot follow (see release.CheckStep): a downgrade or a skip from the
// installed release, or a third release while an upgrade is under way. A
// Glance whose schema is not installed yet may take any release. Only a
// Glance carries its status; a ControlPlane's change reaches this check
// when Metacontroller updates the projected Glance.
func releaseStepProblems(old api.GlanceStatus, oldSpec, spec api.GlanceSpec) problem.List {
	if spec.OpenStackRelease == oldSpec.OpenStackRelease || old.InstalledRelease == "" {
		return nil
	}
	to, err := release.Parse(spec.OpenStackRelease)
	if err != nil {
		return nil // releaseProblems says so
	}
	from, err := release.Parse(old.InstalledRelease)
	if err != nil {
		return nil // not a status this service wrote; the sync hook treats it as none
	}
	if up := old.Upgrade; up != nil {
		if spec.OpenStackRelease == up.TargetRelease || (to == from && up.Phase != api.PhaseContracting) {
			return nil
		}
		back := fmt.Sprintf("; before its contract step it can also go back to %s", from)
		if up.Phase == api.PhaseContracting {
			back = ""
		}
		return problem.List{problem.At(releasePath, "an upgrade from %s to %s is in phase %s: finish it first%s", from, up.TargetRelease, up.Phase, back)}
	}
	switch step, why := release.CheckStep(from, to); step {
	case release.Downgrade, release.Skip:
		return problem.List{problem.At(releasePath, "%s", why)}
	}
	return nil
}
