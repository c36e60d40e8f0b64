package admission

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func TestDecodeMalformed(t *testing.T) {
	const head = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"`
	obj := `{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"GlanceBackend","metadata":{"name":"b"}}`
	gb := `"kind":{"group":"glance.openstack.c5c3.io","version":"v1alpha1","kind":"GlanceBackend"}`
	cases := []struct {
		name, body, want string
	}{
		{"empty", ``, "expected a JSON object"},
		{"not JSON", `hello`, "expected a JSON object"},
		{"array", `[1]`, "expected a JSON object"},
		{"truncated", head + `,"request":{`, "truncated JSON"},
		{"syntax", head + `,"request":x}`, "malformed JSON at byte"},
		{"trailing data", head + `,"request":{"uid":"u","operation":"DELETE"}} {}`, "unexpected data after the JSON object"},
		{"no kind", `{"request":{"uid":"u"}}`, "got an object without apiVersion and kind, this hook answers admission.k8s.io/v1 AdmissionReview"},
		{"v1beta1", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}}`, "got admission.k8s.io/v1beta1 AdmissionReview"},
		{"wrong kind", `{"apiVersion":"admission.k8s.io/v1","kind":"Pod"}`, "got admission.k8s.io/v1 Pod"},
		{"no request", head + `}`, "AdmissionReview has no request"},
		{"null request", head + `,"request":null}`, "AdmissionReview has no request"},
		{"no uid", head + `,"request":{"operation":"CREATE"}}`, "AdmissionReview request has no uid"},
		{"no operation", head + `,"request":{"uid":"u"}}`, "AdmissionReview request has no operation"},
		{"uid of wrong type", head + `,"request":{"uid":5}}`, "field request.uid must be"},
		{"no object", head + `,"request":{"uid":"u","operation":"CREATE",` + gb + `}}`, "AdmissionReview CREATE request for GlanceBackend has no object"},
		{"null object", head + `,"request":{"uid":"u","operation":"UPDATE",` + gb + `,"object":null,"oldObject":` + obj + `}}`, "AdmissionReview UPDATE request for GlanceBackend has no object"},
		{"no oldObject", head + `,"request":{"uid":"u","operation":"UPDATE",` + gb + `,"object":` + obj + `}}`, "AdmissionReview UPDATE request for GlanceBackend has no oldObject"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := Decode([]byte(tc.body))
			require.Nil(t, rev)
			var m *MalformedError
			require.True(t, errors.As(err, &m), "want a MalformedError, got %v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestDecodeAndAnswer(t *testing.T) {
	b := backend("secondary", "glance", false)
	req := create(t, &b)
	body, err := json.Marshal(map[string]any{"apiVersion": ReviewAPIVersion, "kind": ReviewKind, "request": req})
	require.NoError(t, err)
	rev, err := Decode(body)
	require.NoError(t, err)
	require.Equal(t, req.UID, rev.Request.UID)

	out, err := json.Marshal(Answer(Review(context.Background(), rev.Request, &fakeLister{})))
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+string(req.UID)+`","allowed":true}}`, string(out))

	// A DELETE needs no object, and is allowed.
	body = []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"DELETE","kind":{"group":"glance.openstack.c5c3.io","version":"v1alpha1","kind":"GlanceBackend"},"oldObject":null}}`)
	rev, err = Decode(body)
	require.NoError(t, err)
	resp := Review(context.Background(), rev.Request, nil)
	assert.True(t, resp.Allowed)
	assert.EqualValues(t, "u", resp.UID)
}

func TestDeniedAnswerShape(t *testing.T) {
	b := backend("secondary", "glance", true)
	req := create(t, &b)
	out, err := json.Marshal(Answer(Review(context.Background(), req, &fakeLister{items: []api.GlanceBackend{backend("primary", "glance", true)}})))
	require.NoError(t, err)
	var got struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Response   struct {
			UID     string `json:"uid"`
			Allowed *bool  `json:"allowed"`
			Status  struct {
				Status, Message, Reason string
				Code                    int
			} `json:"status"`
		} `json:"response"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "admission.k8s.io/v1", got.APIVersion)
	assert.Equal(t, "AdmissionReview", got.Kind)
	assert.Equal(t, string(req.UID), got.Response.UID)
	require.NotNil(t, got.Response.Allowed)
	assert.False(t, *got.Response.Allowed)
	assert.Equal(t, "Failure", got.Response.Status.Status)
	assert.Equal(t, "Forbidden", got.Response.Status.Reason)
	assert.Equal(t, 403, got.Response.Status.Code)
	assert.Equal(t, exactSiblingDefault, got.Response.Status.Message)
}
