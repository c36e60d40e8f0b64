package admission

import (
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
)

// glanceServicePath is where a ControlPlane holds what it projects into its Glance.
var glanceServicePath = specPath.Child("services", "glance")

func reviewControlPlane(req *admissionv1.AdmissionRequest) decision {
	var cp api.ControlPlane
	if err := decodeObject(req.Object.Raw, &cp); err != nil {
		return undecodable(api.KindControlPlane, "object", err)
	}
	if cp.DeletionTimestamp != nil {
		return decision{}
	}
	serviceProblems, serviceWarnings := serviceKeyReview(req.Object.Raw)
	name := nameOf(req, &cp.ObjectMeta)
	if len(serviceProblems) > 0 {
		return invalid(api.KindControlPlane, name, serviceProblems)
	}
	if cp.Spec.Services.Glance == nil {
		return decision{warnings: serviceWarnings}
	}
	cp.Name, cp.Namespace = name, namespaceOf(req, &cp.ObjectMeta)
	if name == "" {
		return invalid(api.KindControlPlane, name, problem.List{
			problem.Invalid(metadataName, "is required: it names the projected Glance, so it cannot be generated")})
	}
	var l problem.List
	glance := names.GlanceName(name)
	if errs := validation.IsDNS1035Label(glance); len(errs) > 0 {
		l = append(l, problem.New("the projected Glance %s is not a valid Service name: %s", excerpt.Name(glance), shortValidation(errs[0])))
	}
	// The rules the sync hook applies too, with the guide's messages; they
	// include the checks of a hand-made GlanceBackend on each projected one.
	l = append(l, problem.Wrap(glanceServicePath, controlplane.ValidateBackends(name, cp.Spec.Services.Glance.Backends))...)
	l = append(l, problem.Wrap(glanceServicePath.Child("keystone"), controlplane.ValidateKeystone(cp.Spec.Services.Glance.Keystone))...)
	l = append(l, controlPlaneReferenceProblems(&cp)...)
	extraProblems, extraWarnings := controlPlaneExtraConfigProblems(&cp)
	l = append(l, extraProblems...)
	if len(l) > 0 {
		return invalid(api.KindControlPlane, name, l)
	}
	// The Glance Metacontroller would create must pass the rules a
	// hand-made Glance passes, or every sync would fail.
	spec := controlplane.GlanceSpec(&cp)
	l = append(requiredValue(releasePath, spec.OpenStackRelease), problem.Wrap(glanceServicePath, glanceServiceProblems(spec))...)
	l = append(l, releaseProblems(spec, glanceServicePath.Child("image", "tag"))...)
	l = append(l, problem.Wrap(glanceServicePath, schedulingProblems(rawScheduling(req.Object.Raw, "spec", "services", "glance")))...)
	l = append(l, problem.Wrap(glanceServicePath, reachProblems(spec, rawAt(req.Object.Raw, "spec", "services", "glance", "networkPolicy", "additionalEgress")))...)
	l = append(l, problem.Wrap(glanceServicePath, ownedSecretProblems(glance, spec))...)
	if len(l) > 0 {
		return invalid(api.KindControlPlane, name, l)
	}
	warnings := append(serviceWarnings, apiServerWarnings(glanceServicePath.Child("apiServer"), cp.Spec.Services.Glance.APIServer, spec.OpenStackRelease)...)
	warnings = append(warnings, unusedSizingWarnings(glanceServicePath, spec)...)
	warnings = append(warnings, importWarnings(glanceServicePath, spec)...)
	warnings = append(warnings, extraWarnings...)
	if req.Operation == admissionv1.Update {
		var old api.ControlPlane
		if err := decodeObject(req.OldObject.Raw, &old); err == nil && old.Spec.Services.Glance != nil {
			warnings = append(warnings, retirementWarnings(glance, glanceServicePath, storeIDs(old.Spec.Services.Glance.Backends),
				storeIDs(cp.Spec.Services.Glance.Backends), old.Spec.Services.Glance.DropRetiredStores, spec.DropRetiredStores)...)
		}
	}
	return decision{warnings: warnings}
}

// storeIDs are the store ids of backends[] entries: their names.
func storeIDs(entries []api.BackendEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}
