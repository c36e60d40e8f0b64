// Package admission is the validate hook: it answers an AdmissionReview v1 for
// ControlPlane, Glance and GlanceBackend objects. Rules that need only the
// object are pure; the GlanceBackend sibling rules read the other backends of
// the namespace through a Lister, and refuse when that read fails (the webhook
// fails closed). The package never touches net/http.
package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// AdmissionReview's apiVersion and kind, the only ones this hook answers.
const (
	ReviewAPIVersion = "admission.k8s.io/v1"
	ReviewKind       = "AdmissionReview"
)

// Lister reads the GlanceBackends of a namespace from the API server.
type Lister interface {
	ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error)
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

// MalformedError is a body that is not an AdmissionReview this hook can
// answer. The transport answers it with 400; the message never quotes the body.
type MalformedError struct {
	Msg string
}

func (e *MalformedError) Error() string { return e.Msg }

func malformed(format string, args ...any) error {
	return &MalformedError{Msg: fmt.Sprintf(format, args...)}
}

// Decode parses an AdmissionReview v1 and checks it has what Review needs: a
// request with a uid, an operation, and for CREATE and UPDATE of a kind this
// hook validates, the object (and on UPDATE the old object). Every failure is
// a *MalformedError.
func Decode(body []byte) (*admissionv1.AdmissionReview, error) {
	const what = "body is not an AdmissionReview"
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, malformed("%s: expected a JSON object", what)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var rev admissionv1.AdmissionReview
	if err := dec.Decode(&rev); err != nil {
		return nil, malformed("%s: %s", what, hook.DescribeJSONError(err))
	}
	if dec.More() {
		return nil, malformed("%s: unexpected data after the JSON object", what)
	}
	if rev.APIVersion != ReviewAPIVersion || rev.Kind != ReviewKind {
		got := strings.TrimSpace(rev.APIVersion + " " + rev.Kind)
		if got == "" {
			got = "an object without apiVersion and kind"
		}
		return nil, malformed("%s: got %s, this hook answers %s %s", what, got, ReviewAPIVersion, ReviewKind)
	}
	req := rev.Request
	if req == nil {
		return nil, malformed("AdmissionReview has no request")
	}
	if req.UID == "" {
		return nil, malformed("AdmissionReview request has no uid")
	}
	if req.Operation == "" {
		return nil, malformed("AdmissionReview request has no operation")
	}
	if validated(req.Kind) && req.SubResource == "" {
		switch req.Operation {
		case admissionv1.Create, admissionv1.Update:
			if isEmptyRaw(req.Object.Raw) {
				return nil, malformed("AdmissionReview %s request for %s has no object", req.Operation, req.Kind.Kind)
			}
		}
		if req.Operation == admissionv1.Update && isEmptyRaw(req.OldObject.Raw) {
			return nil, malformed("AdmissionReview UPDATE request for %s has no oldObject", req.Kind.Kind)
		}
	}
	return &rev, nil
}

func isEmptyRaw(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
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

// Answer wraps a response in the AdmissionReview the API server expects back.
func Answer(resp *admissionv1.AdmissionResponse) *admissionv1.AdmissionReview {
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: ReviewAPIVersion, Kind: ReviewKind},
		Response: resp,
	}
}

// decision is allow (the zero value) or a refusal with its code and message.
type decision struct {
	denied  bool
	code    int32
	reason  metav1.StatusReason
	message string
}

func (d decision) response(uid types.UID) *admissionv1.AdmissionResponse {
	if !d.denied {
		return &admissionv1.AdmissionResponse{UID: uid, Allowed: true}
	}
	return &admissionv1.AdmissionResponse{
		UID:     uid,
		Allowed: false,
		Result: &metav1.Status{
			Status:  metav1.StatusFailure,
			Message: d.message,
			Reason:  d.reason,
			Code:    d.code,
		},
	}
}

// invalid refuses an object whose own content breaks a rule (422). The
// message names the object once, then every problem.
func invalid(kind, name string, problems problem.List) decision {
	return decision{denied: true, code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		message: fmt.Sprintf("%s %q: %s", kind, name, problems.String())}
}

// shortValidation drops the example and regex from an apimachinery
// validation message; what the rule is stays.
func shortValidation(msg string) string {
	if i := strings.Index(msg, " (e.g. "); i > 0 {
		return msg[:i]
	}
	return msg
}

// conflict refuses an object that clashes with another object (403). Not 409:
// kubectl and Metacontroller treat 409 as a stale read and retry it.
func conflict(problems []string) decision {
	return decision{denied: true, code: http.StatusForbidden, reason: metav1.StatusReasonForbidden,
		message: strings.Join(problems, "; ")}
}

// unavailable refuses because the rule could not be checked (503).
func unavailable(msg string) decision {
	return decision{denied: true, code: http.StatusServiceUnavailable, reason: metav1.StatusReasonServiceUnavailable,
		message: msg}
}

// undecodable refuses an object that does not decode as its kind (400).
func undecodable(kind, which string, err error) decision {
	return decision{denied: true, code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: fmt.Sprintf("%s %s does not match its schema: %s", kind, which, hook.DescribeJSONError(err))}
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
