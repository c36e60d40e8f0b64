package admission

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestEditsThatRetireAStoreWarn: an edit that retires or drops a store is
// allowed, and the answer carries warnings (kubectl prints them) saying
// what happens to the images in it.
func TestEditsThatRetireAStoreWarn(t *testing.T) {
	cp := func(drop []string, names ...string) *api.ControlPlane {
		c := &api.ControlPlane{}
		c.APIVersion, c.Kind, c.Name, c.Namespace = api.ControlPlaneAPIVersion, api.KindControlPlane, "controlplane", ns
		c.Spec.Services.Glance = &api.GlanceService{DropRetiredStores: drop}
		for i, n := range names {
			c.Spec.Services.Glance.Backends = append(c.Spec.Services.Glance.Backends, api.BackendEntry{Name: n, Type: api.BackendTypeS3, IsDefault: i == 0,
				S3: &api.S3EntryStore{Endpoint: "http://s3:3900", S3Options: api.S3Options{Bucket: "b-" + n, CredentialsSecretRef: api.LocalObjectReference{Name: "c"}}}})
		}
		return c
	}
	cases := map[string]struct {
		reason   string
		old, new *api.ControlPlane
		want     []string
	}{
		"entry removed": {
			reason: "the store is retired: readable until dropRetiredStores lists it",
			old:    cp(nil, "default", "secondary"), new: cp(nil, "default"),
			want: []string{`store "secondary" of Glance "controlplane-glance" is retired, not dropped: its section stays readable, never the default, ` +
				`until spec.services.glance.dropRetiredStores lists it; move its images first`},
		},
		"entry removed and dropped in one edit": {
			reason: "the images go at once",
			old:    cp(nil, "default", "secondary"), new: cp([]string{"secondary"}, "default"),
			want: []string{`store "secondary" of Glance "controlplane-glance" is removed and spec.services.glance.dropRetiredStores lists it: ` +
				`its section is dropped, and images still in it can no longer be read`},
		},
		"retired store dropped later": {
			reason: "the confirmation warns once, when the id is added",
			old:    cp(nil, "default"), new: cp([]string{"secondary"}, "default"),
			want: []string{`spec.services.glance.dropRetiredStores lists store "secondary": once its backend is gone, its section is dropped ` +
				`from Glance "controlplane-glance", and images still in it can no longer be read`},
		},
		"nothing retired": {
			reason: "adding an entry or keeping the list warns of nothing",
			old:    cp([]string{"old"}, "default"), new: cp([]string{"old"}, "default", "secondary"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := update(t, tc.new, tc.old)
			resp := Review(context.Background(), req, &fakeLister{})
			allowed(t, req, resp)
			assert.Equal(t, tc.want, resp.Warnings, tc.reason)
		})
	}

	g := &api.Glance{}
	g.APIVersion, g.Kind, g.Name, g.Namespace = api.GlanceAPIVersion, api.KindGlance, "glance", ns
	g.Spec.OpenStackRelease = "2025.2"
	dropped := *g
	dropped.Spec.DropRetiredStores = []string{"archive"}
	req := update(t, &dropped, g)
	resp := Review(context.Background(), req, &fakeLister{})
	allowed(t, req, resp)
	assert.Equal(t, []string{`spec.dropRetiredStores lists store "archive": once its backend is gone, its section is dropped from Glance "glance", ` +
		`and images still in it can no longer be read`}, resp.Warnings)
}
