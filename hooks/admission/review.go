// Package admission is the validate hook: it answers an AdmissionReview v1 for
// ControlPlane, Glance and GlanceBackend objects. Rules that need only the
// object are pure; the GlanceBackend sibling rules read the other backends of
// the namespace through a Lister, and refuse when that read fails (the webhook
// fails closed). The package never touches net/http: the transport serves it.
package admission

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

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
