package admission

import (
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
)

// reviewGlance runs the Glance rules (hooks/contract/rules, which the sync
// hook runs too) and, on UPDATE, the rules of the change, which need the
// object as it was.
func reviewGlance(req *admissionv1.AdmissionRequest) decision {
	var g api.Glance
	if err := decodeObject(req.Object.Raw, &g); err != nil {
		return undecodable(api.KindGlance, "object", err)
	}
	if g.DeletionTimestamp != nil {
		return decision{}
	}
	name := nameOf(req, &g.ObjectMeta)
	l, warnings := rules.Glance(name, namespaceOf(req, &g.ObjectMeta), g.Spec, req.Object.Raw)
	// The purge CronJob's name limit holds for a new Glance only, as the
	// reference's: one admitted before keeps taking updates, and its
	// CronJob gets a shortened name (names.DBPurgeCronJobName).
	if req.Operation == admissionv1.Create {
		l = append(l, rules.DBPurgeNameProblems(name)...)
	}
	if req.Operation == admissionv1.Update {
		var old api.Glance
		if err := decodeObject(req.OldObject.Raw, &old); err != nil {
			return undecodable(api.KindGlance, "oldObject", err)
		}
		spec := g.Spec.WithDefaults(namespaceOf(req, &g.ObjectMeta))
		changed, changeWarnings := rules.GlanceUpdate(name, &old, namespaceOf(req, &old.ObjectMeta), spec, len(l) == 0)
		l, warnings = append(l, changed...), append(warnings, changeWarnings...)
	}
	if len(l) > 0 {
		return invalid(api.KindGlance, name, l)
	}
	return decision{warnings: warnings}
}
