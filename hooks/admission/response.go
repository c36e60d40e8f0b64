package admission

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The status codes of a refusal. metav1.Status carries the HTTP status the
// API server answers its client with; they are spelled out here because the
// hooks never import net/http.
const (
	codeBadRequest  = 400
	codeForbidden   = 403
	codeInvalid     = 422
	codeUnavailable = 503
)

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
	// warnings reach the client of an allowed change (kubectl prints them).
	warnings []string
}

func (d decision) response(uid types.UID) *admissionv1.AdmissionResponse {
	if !d.denied {
		return &admissionv1.AdmissionResponse{UID: uid, Allowed: true, Warnings: d.warnings}
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
	return decision{denied: true, code: codeInvalid, reason: metav1.StatusReasonInvalid,
		message: fmt.Sprintf("%s %s: %s", kind, excerpt.Name(name), problems.String())}
}

// conflict refuses an object that clashes with another object (403). Not 409:
// kubectl and Metacontroller treat 409 as a stale read and retry it.
func conflict(problems []string) decision {
	return decision{denied: true, code: codeForbidden, reason: metav1.StatusReasonForbidden,
		message: strings.Join(problems, "; ")}
}

// unavailable refuses because the rule could not be checked (503).
func unavailable(msg string) decision {
	return decision{denied: true, code: codeUnavailable, reason: metav1.StatusReasonServiceUnavailable,
		message: msg}
}

// undecodable refuses an object that does not decode as its kind (400).
func undecodable(kind, which string, err error) decision {
	return decision{denied: true, code: codeBadRequest, reason: metav1.StatusReasonBadRequest,
		message: fmt.Sprintf("%s %s does not match its schema: %s", kind, which, hook.DescribeJSONError(err))}
}
