// Package admission is the validate hook: it answers an AdmissionReview v1 for
// ControlPlane, Glance and GlanceBackend objects. Rules that need only the
// object are pure; the GlanceBackend sibling rules read the other backends of
// the namespace through a Lister, and refuse when that read fails (the webhook
// fails closed). The package never touches net/http: the transport serves it.
package admission

import (
	"context"
	"encoding/json"
	"errors"
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

// Lister reads what the cross-object rules need from the API server.
type Lister interface {
	// ListGlanceBackends returns every GlanceBackend of the namespace.
	ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error)
	// GlanceControlPlane names the ControlPlane whose services.glance the
	// Glance is projected from: the controller of the Glance when it
	// exists, else the ControlPlane <name> of a Glance named
	// <name>-glance when it exists and runs Glance (it is about to
	// project it). "" when no ControlPlane owns the Glance.
	GlanceControlPlane(ctx context.Context, namespace, glance string) (string, error)
}

// Unavailable is the Lister used when no API access could be configured: every
// read fails with Reason, so every decision that needs the siblings is a
// refusal that says why.
type Unavailable struct {
	Reason string
}

// ListGlanceBackends always fails.
func (u Unavailable) ListGlanceBackends(context.Context, string) ([]api.GlanceBackend, error) {
	return nil, errors.New(u.Reason)
}

// GlanceControlPlane always fails.
func (u Unavailable) GlanceControlPlane(context.Context, string, string) (string, error) {
	return "", errors.New(u.Reason)
}

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

// Review decides one admission request. Operations other than CREATE and
// UPDATE, subresources and kinds without rules are allowed. A nil Lister is
// treated as one that cannot read the API.
func Review(ctx context.Context, req *admissionv1.AdmissionRequest, l Lister) *admissionv1.AdmissionResponse {
	if l == nil {
		l = Unavailable{Reason: "no Kubernetes API client is configured"}
	}
	var d decision
	switch {
	case req.Operation != admissionv1.Create && req.Operation != admissionv1.Update:
	case req.SubResource != "":
	case !validated(req.Kind):
	case req.Kind.Kind == api.KindControlPlane:
		d = reviewControlPlane(req)
	case req.Kind.Kind == api.KindGlance:
		d = reviewGlance(req)
	case req.Kind.Kind == api.KindGlanceBackend:
		d = reviewGlanceBackend(ctx, req, l)
	}
	return d.response(req.UID)
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
