package test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzHooks posts arbitrary bodies to every hook and holds each answer to
// the same promises as the battery (brokenPromises): no 5xx, an answer
// within AnswerBound, errors and log lines that show no more than an
// excerpt of any value. The seeds are every fixture request and the
// battery's kinds of values; `make fuzz` explores further.
func FuzzHooks(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("fixtures", "*", "*", "request.json"))
	for _, d := range dirs {
		body, err := os.ReadFile(d)
		if err == nil {
			f.Add(hookPath(filepath.Base(filepath.Dir(filepath.Dir(d)))), body)
		}
	}
	f.Add("/sync/glance", []byte(`{"parent":{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"g","namespace":"n"}},"related":{"GlanceBackend.glance.openstack.c5c3.io/v1alpha1":{"b":{"spec":{"glanceRef":{"name":"g"}}}}}}`))
	f.Add("/sync/controlplane", []byte(`{"parent":{"apiVersion":`+string(mustJSON(echoValue))+`,"kind":"ControlPlane"}}`))
	f.Add("/validate", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","kind":{"group":"glance.openstack.c5c3.io","version":"v1alpha1","kind":"GlanceBackend"},"object":{"metadata":{"name":"b","creationTimestamp":"yesterday"},"spec":{"s3":{"host":"http://u:p%zz@h:39x0"}}}}}`))
	var logs bytes.Buffer
	h := newTestServer(f, &logs)
	paths := []string{"/sync/controlplane", "/customize/glancebackend", "/sync/glancebackend", "/customize/glance", "/sync/glance", "/validate"}
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		for _, p := range paths {
			if p != path && path != "" {
				continue
			}
			logs.Reset()
			rec := post(h, p, body)
			for _, broken := range brokenPromises(body, rec.Code, rec.Body.Bytes(), logs.String()) {
				t.Errorf("%s: %s", p, broken)
			}
		}
	})
}
