package admission

import (
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
)

func reviewControlPlane(req *admissionv1.AdmissionRequest) decision {
	var cp api.ControlPlane
	if err := decodeObject(req.Object.Raw, &cp); err != nil {
		return undecodable(api.KindControlPlane, "object", err)
	}
	if cp.DeletionTimestamp != nil {
		return decision{}
	}
	name := nameOf(req, &cp.ObjectMeta)
	serviceProblems, serviceWarnings := rules.ControlPlaneServices(req.Object.Raw)
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
	// The rules the sync hook applies too, with the guide's messages.
	l, warnings := controlplane.Problems(&cp, req.Object.Raw)
	// The purge CronJob's name limit holds for a new projected Glance only,
	// as the reference's: a new ControlPlane, or an update that starts
	// running Glance. One that runs it already keeps accepting updates.
	if newGlance(req) {
		l = append(l, rules.ControlPlaneDBPurgeNameProblems(name)...)
	}
	if len(l) > 0 {
		return invalid(api.KindControlPlane, name, l)
	}
	warnings = append(serviceWarnings, warnings...)
	if req.Operation == admissionv1.Update {
		var old api.ControlPlane
		if err := decodeObject(req.OldObject.Raw, &old); err == nil {
			warnings = append(warnings, rules.ControlPlaneUpdateWarnings(&old, &cp, controlplane.GlanceSpec(&cp))...)
		}
	}
	return decision{warnings: warnings}
}

// newGlance says whether the request makes a ControlPlane run Glance that
// did not: a CREATE, or an UPDATE of one without services.glance. An old
// object that does not decode is taken to run it, so nothing admitted
// before is refused for its name.
func newGlance(req *admissionv1.AdmissionRequest) bool {
	if req.Operation == admissionv1.Create {
		return true
	}
	var old api.ControlPlane
	return req.Operation == admissionv1.Update && decodeObject(req.OldObject.Raw, &old) == nil && old.Spec.Services.Glance == nil
}
