package rules

import (
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The rules of a ControlPlane that lie below its hook: hooks/controlplane
// (Problems) puts them together with its own backends[] and Keystone
// checks, and admission and the sync hook both call that.

// ProjectedGlanceName checks the name of the Glance ControlPlane cp
// projects, which is also its Service's.
func ProjectedGlanceName(cp string) problem.List {
	glance := names.GlanceName(cp)
	if errs := validation.IsDNS1035Label(glance); len(errs) > 0 {
		return problem.List{problem.New("the projected Glance %s is not a valid Service name: %s", excerpt.Name(glance), shortValidation(errs[0]))}
	}
	return nil
}

// ControlPlaneOwn checks what a ControlPlane holds in the reference's shape
// before it is projected (controlPlaneReferenceProblems, and its warnings
// of a cleartext image endpoint) and the two extraConfig blocks it merges
// into its Glance's, each where it is written.
func ControlPlaneOwn(cp *api.ControlPlane) (problem.List, []string) {
	l := controlPlaneReferenceProblems(cp)
	extraProblems, extraWarnings := controlPlaneExtraConfigProblems(cp)
	return append(l, extraProblems...), append(cleartextEndpointWarnings(cp), extraWarnings...)
}

// Projection is the spec of the Glance a ControlPlane projects, twice:
// as the ControlPlane writes it (Written) and with its defaults (Spec, as
// controlplane.GlanceSpec builds it). The spec parts' rules judge Spec,
// and Written where a default would hide what was written.
type Projection struct {
	Written, Spec api.GlanceSpec
}

// ProjectedGlance checks the Glance a ControlPlane projects (p) with the
// rules a hand-made Glance passes, each named where the ControlPlane sets
// it: the Glance Metacontroller would create must pass them, or every sync
// would fail. raw is the ControlPlane as written.
func ProjectedGlance(cp *api.ControlPlane, p Projection, raw []byte) (problem.List, []string) {
	glance, spec := names.GlanceName(cp.Name), p.Spec
	l := append(requiredValue(releasePath, spec.OpenStackRelease), projectedAt(cp, glanceServiceProblems(p.Written, spec))...)
	l = append(l, releaseProblems(spec, releaseWords{tag: glanceServicePath.Child("image", "tag"), bad: controlPlaneBadRelease})...)
	l = append(l, problem.Wrap(glanceServicePath, schedulingProblems(rawScheduling(raw, "spec", "services", "glance"), glance))...)
	l = append(l, problem.Wrap(glanceServicePath, networkPolicyBlockProblems(spec, rawAt(raw, "spec", "services", "glance", "networkPolicy", "additionalEgress")))...)
	l = append(l, problem.Wrap(glanceServicePath, ownedSecretProblems(glance, spec))...)
	warnings := apiServerWarnings(glanceServicePath.Child("apiServer"), cp.Spec.Services.Glance.APIServer, spec.OpenStackRelease)
	warnings = append(warnings, unusedSizingWarnings(glanceServicePath, spec)...)
	return l, append(warnings, importWarnings(glanceServicePath, spec)...)
}

// projectedAt names the problems of the projected Glance's settings (l,
// relative to them) where the ControlPlane writes them: under
// services.glance, but those of a database or cache taken from
// spec.infrastructure (services.glance naming none) under it, and none of
// a credentials mode services.glance.databaseCredentialsMode sets.
func projectedAt(cp *api.ControlPlane, l problem.List) problem.List {
	svc, infra := cp.Spec.Services.Glance, cp.Spec.Infrastructure
	fromInfra := map[string]bool{
		"database": svc.Database == nil && infra != nil && infra.Database != nil,
		"cache":    svc.Cache == nil && infra != nil && infra.Cache != nil,
	}
	out := make(problem.List, 0, len(l))
	for _, p := range l {
		if svc.DatabaseCredentialsMode != "" && p.Field != nil && p.Field.String() == "database.credentialsMode" {
			continue // credentialsModeProblems says it where the mode is written
		}
		root := glanceServicePath
		if p.Field != nil && fromInfra[p.Field.Root().String()] {
			root = specPath.Child("infrastructure")
		}
		out = append(out, problem.Wrap(root, problem.List{p})...)
	}
	return out
}

// ControlPlaneServices judges the keys of spec.services as written
// (serviceKeyReview): the problems refuse the object, the warnings admit it.
func ControlPlaneServices(raw []byte) (problem.List, []string) {
	return serviceKeyReview(raw)
}

// ControlPlaneUpdateWarnings tell what an edit of the backends[] list and
// dropRetiredStores does to the stores of the projected Glance (spec, with
// its defaults); old is the ControlPlane as it was.
func ControlPlaneUpdateWarnings(old, cp *api.ControlPlane, spec api.GlanceSpec) []string {
	if old.Spec.Services.Glance == nil {
		return nil
	}
	return retirementWarnings(names.GlanceName(cp.Name), glanceServicePath,
		storeLists{stores: storeIDs(old.Spec.Services.Glance.Backends), drop: old.Spec.Services.Glance.DropRetiredStores},
		storeLists{stores: storeIDs(cp.Spec.Services.Glance.Backends), drop: spec.DropRetiredStores})
}

// storeIDs are the store ids of backends[] entries: their names.
func storeIDs(entries []api.BackendEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}
