package admission

import (
	"bytes"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
)

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
		got := "an object without apiVersion and kind"
		if rev.APIVersion != "" || rev.Kind != "" {
			got = excerpt.Token(rev.APIVersion, excerpt.MaxKind) + " " + excerpt.Token(rev.Kind, excerpt.MaxKind)
		}
		return nil, malformed("%s: got %s, this hook answers %s %s", what, got, ReviewAPIVersion, ReviewKind)
	}
	if err := checkRequest(rev.Request); err != nil {
		return nil, err
	}
	return &rev, nil
}

// checkRequest checks the review's request has what Review reads.
func checkRequest(req *admissionv1.AdmissionRequest) error {
	if req == nil {
		return malformed("AdmissionReview has no request")
	}
	if req.UID == "" {
		return malformed("AdmissionReview request has no uid")
	}
	if req.Operation == "" {
		return malformed("AdmissionReview request has no operation")
	}
	// A subresource (status, scale) carries no spec this hook validates.
	if !validated(req.Kind) || req.SubResource != "" {
		return nil
	}
	switch req.Operation {
	case admissionv1.Create, admissionv1.Update:
		if isEmptyRaw(req.Object.Raw) {
			return malformed("AdmissionReview %s request for %s has no object", req.Operation, req.Kind.Kind)
		}
	}
	if req.Operation == admissionv1.Update && isEmptyRaw(req.OldObject.Raw) {
		return malformed("AdmissionReview UPDATE request for %s has no oldObject", req.Kind.Kind)
	}
	return nil
}

func isEmptyRaw(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}
