package admission

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
)

const backendsPath = "spec.services.glance."

func reviewControlPlane(req *admissionv1.AdmissionRequest) decision {
	var cp api.ControlPlane
	if err := decodeObject(req.Object.Raw, &cp); err != nil {
		return undecodable(api.KindControlPlane, "object", err)
	}
	if cp.DeletionTimestamp != nil || cp.Spec.Services.Glance == nil {
		return decision{}
	}
	name := nameOf(req, &cp.ObjectMeta)
	cp.Name, cp.Namespace = name, namespaceOf(req, &cp.ObjectMeta)
	if name == "" {
		return invalid(api.KindControlPlane, name, []string{"metadata.name is required: it names the projected Glance, so it cannot be generated"})
	}
	var out []string
	if errs := validation.IsDNS1035Label(names.GlanceName(name)); len(errs) > 0 {
		out = append(out, fmt.Sprintf("the projected Glance %q is not a valid Service name: %s", names.GlanceName(name), shortValidation(errs[0])))
	}
	// The rules the sync hook applies too, with the guide's messages.
	for _, p := range controlplane.ValidateBackends(cp.Spec.Services.Glance.Backends) {
		if strings.HasPrefix(p, "backends[") {
			p = backendsPath + p
		}
		out = append(out, p)
	}
	if len(out) > 0 {
		return invalid(api.KindControlPlane, name, out)
	}
	// The children Metacontroller would create must pass the rules a
	// hand-made Glance and GlanceBackend pass, or every sync would fail.
	entry := 0
	for _, child := range controlplane.Project(&cp) {
		switch c := child.(type) {
		case *api.Glance:
			for _, p := range glanceProblems(c.Name, c.Namespace, c.Spec) {
				out = append(out, asControlPlaneField(p))
			}
		case *api.GlanceBackend:
			at := fmt.Sprintf("%sbackends[%d]", backendsPath, entry)
			entry++
			for _, p := range backendProblems(c, nil) {
				out = append(out, at+": "+asEntryField(p, c.Name))
			}
		}
	}
	if len(out) > 0 {
		return invalid(api.KindControlPlane, name, out)
	}
	return decision{}
}

// asControlPlaneField names the ControlPlane field a projected Glance's
// field comes from: spec.openStackRelease stays, spec.X is
// spec.services.glance.X.
func asControlPlaneField(p string) string {
	if strings.HasPrefix(p, "spec.") && !strings.HasPrefix(p, "spec.openStackRelease") {
		return backendsPath + strings.TrimPrefix(p, "spec.")
	}
	return p
}

// entryFields maps a projected GlanceBackend's fields to its entry's.
var entryFields = strings.NewReplacer("spec.s3.host", "s3.endpoint", "spec.s3", "s3", "spec.extraOptions", "extraOptions", "spec.type", "type")

// asEntryField says a projected GlanceBackend's problem in the words of its
// backends[] entry.
func asEntryField(p, child string) string {
	if rest, ok := strings.CutPrefix(p, "the name is not"); ok {
		return fmt.Sprintf("the entry name makes the GlanceBackend name %q, which is not%s", child, rest)
	}
	return entryFields.Replace(p)
}
