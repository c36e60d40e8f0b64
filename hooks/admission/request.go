package admission

import (
	"encoding/json"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

var (
	specPath     = field.NewPath("spec")
	metadataName = field.NewPath("metadata", "name")
)

// AdmissionReview's apiVersion and kind, the only ones this hook answers.
const (
	ReviewAPIVersion = "admission.k8s.io/v1"
	ReviewKind       = "AdmissionReview"
)

// validated reports whether this hook has rules for the kind.
func validated(gvk metav1.GroupVersionKind) bool {
	switch {
	case gvk.Group == controlPlaneGroup() && gvk.Kind == api.KindControlPlane:
		return true
	case gvk.Group == api.GlanceGroup && (gvk.Kind == api.KindGlance || gvk.Kind == api.KindGlanceBackend):
		return true
	}
	return false
}

func controlPlaneGroup() string {
	group, _, _ := strings.Cut(api.ControlPlaneAPIVersion, "/")
	return group
}

// decodeObject decodes a request's object into obj.
func decodeObject(raw []byte, obj any) error {
	return json.Unmarshal(raw, obj)
}

// namespaceOf is the request's namespace, or the object's when the request
// does not carry one.
func namespaceOf(req *admissionv1.AdmissionRequest, meta *metav1.ObjectMeta) string {
	if req.Namespace != "" {
		return req.Namespace
	}
	return meta.Namespace
}

// nameOf is the object's name, or the request's when the object has none.
func nameOf(req *admissionv1.AdmissionRequest, meta *metav1.ObjectMeta) string {
	if meta.Name != "" {
		return meta.Name
	}
	return req.Name
}

// ControlPlaneOfGlance decides GlanceControlPlane from what was read: the
// Glance (nil when it does not exist) and, only when it does not, the
// ControlPlane CandidateControlPlane names (nil when there is none).
func ControlPlaneOfGlance(glance *api.Glance, cp *api.ControlPlane) string {
	if glance != nil {
		if ref, ok := api.ControlPlaneController(glance.OwnerReferences); ok {
			return ref.Name
		}
		return ""
	}
	if cp != nil && cp.DeletionTimestamp == nil && cp.Spec.Services.Glance != nil {
		return cp.Name
	}
	return ""
}

// CandidateControlPlane is the ControlPlane that would project a Glance of
// this name (<cp>-glance), "" when no ControlPlane can.
func CandidateControlPlane(glance string) string {
	cp, ok := strings.CutSuffix(glance, names.GlanceName(""))
	if !ok || cp == "" {
		return ""
	}
	return cp
}
