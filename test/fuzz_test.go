package test

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzHooks posts arbitrary bodies to every hook: the answer is a 200 or a
// 4xx, never a 500 (a panic or an unclassified error). The seeds are every
// fixture request; `go test -fuzz FuzzHooks ./test/` explores further.
func FuzzHooks(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("fixtures", "*", "*", "request.json"))
	for _, d := range dirs {
		body, err := os.ReadFile(d)
		if err == nil {
			f.Add(hookPath(filepath.Base(filepath.Dir(filepath.Dir(d)))), body)
		}
	}
	f.Add("/sync/glance", []byte(`{"parent":{"apiVersion":"glance.openstack.c5c3.io/v1alpha1","kind":"Glance","metadata":{"name":"g","namespace":"n"}},"related":{"GlanceBackend.glance.openstack.c5c3.io/v1alpha1":{"b":{"spec":{"glanceRef":{"name":"g"}}}}}}`))
	h := newTestServer(f, nil)
	paths := []string{"/sync/controlplane", "/customize/glancebackend", "/sync/glancebackend", "/customize/glance", "/sync/glance", "/validate"}
	f.Fuzz(func(t *testing.T, path string, body []byte) {
		for _, p := range paths {
			if p != path && path != "" {
				continue
			}
			rec := post(h, p, body)
			if rec.Code >= 500 {
				t.Fatalf("%s answered %d: %s", p, rec.Code, rec.Body.String())
			}
		}
	})
}
