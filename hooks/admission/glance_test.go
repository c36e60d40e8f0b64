package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// guideGlance is the standalone Glance of the guide.
func guideGlance(mods ...func(*api.Glance)) *api.Glance {
	g := &api.Glance{
		TypeMeta:   metav1.TypeMeta{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance},
		ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: ns},
		Spec: api.GlanceSpec{
			OpenStackRelease: "2025.2",
			Image:            &api.ImageSpec{Repository: "ghcr.io/c5c3/glance", Tag: "2025.2"},
			Database: &api.DatabaseSpec{
				ClusterRef: api.LocalObjectReference{Name: "openstack-db"},
				Database:   "glance",
				SecretRef:  api.SecretKeyRef{Name: "glance-db"},
			},
			Cache:            &api.CacheSpec{ClusterRef: api.LocalObjectReference{Name: "openstack-memcached"}},
			KeystoneEndpoint: "http://keystone.openstack.svc.cluster.local:5000/v3",
			ServiceUser: &api.ServiceUserSpec{
				Username: "glance", ProjectName: "service", UserDomainName: "Default", ProjectDomainName: "Default",
				SecretRef: api.SecretKeyRef{Name: "glance-service-user", Key: "password"},
			},
		},
	}
	for _, m := range mods {
		m(g)
	}
	return g
}

func TestGlanceGuideCRIsAllowed(t *testing.T) {
	req := create(t, guideGlance())
	l := &fakeLister{}
	allowed(t, req, Review(context.Background(), req, l))
	assert.Zero(t, l.calls, "Glance rules need no API read")

	// Every field the service has a conventional default for may be left
	// out: the same defaults a projected Glance gets.
	req = create(t, guideGlance(func(g *api.Glance) { g.Spec = api.GlanceSpec{} }))
	allowed(t, req, Review(context.Background(), req, l))
}

func TestGlanceRules(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*api.Glance)
		want string
	}{
		{"name too long for a Service", func(g *api.Glance) { g.Name = strings.Repeat("g", 64) },
			"the name is also the name of its glance-api Service, which must be a DNS-1035 label: must be no more than 63 characters"},
		{"name starts with a digit", func(g *api.Glance) { g.Name = "1glance" },
			"the name is also the name of its glance-api Service, which must be a DNS-1035 label"},
		{"generated name", func(g *api.Glance) { g.Name = ""; g.GenerateName = "glance-" },
			"metadata.name is required: it is also the name of the glance-api Service"},
		{"keystone not a URL", func(g *api.Glance) { g.Spec.KeystoneEndpoint = "keystone:5000" }, "spec.keystoneEndpoint must be an http:// or https:// URL"},
		{"public keystone with password", func(g *api.Glance) { g.Spec.KeystonePublicEndpoint = "https://admin:hunter2@keystone" },
			"spec.keystonePublicEndpoint must not carry credentials"},
		{"database without its cluster and secret", func(g *api.Glance) { g.Spec.Database = &api.DatabaseSpec{Database: "glance"} },
			"spec.database.clusterRef.name is required; spec.database.secretRef.name is required"},
		{"release injection", func(g *api.Glance) { g.Spec.OpenStackRelease = "2025.2\n[DEFAULT]" }, "spec.openStackRelease contains a newline"},
		{"username injection", func(g *api.Glance) { g.Spec.ServiceUser.Username = "glance\n[DEFAULT]" }, "spec.serviceUser.username contains a newline"},
		{"negative replicas", func(g *api.Glance) { g.Spec.Replicas = ptr(int32(-1)) }, "spec.replicas must not be negative"},
		{"empty cache ref", func(g *api.Glance) { g.Spec.Cache.ClusterRef.Name = "" }, "spec.cache.clusterRef.name is required"},
		{"no such release", func(g *api.Glance) { g.Spec.OpenStackRelease = "2025.3" },
			"spec.openStackRelease must be an OpenStack release, YYYY.1 or YYYY.2"},
		{"image of another release", func(g *api.Glance) { g.Spec.Image.Tag = "2026.1" },
			"spec.image.tag names release 2026.1, not 2025.2 (spec.openStackRelease): the schema Jobs prepare the database for spec.openStackRelease"},
		{"default tag of another release", func(g *api.Glance) { g.Spec.OpenStackRelease = "2026.1" },
			"spec.image.tag names release 2025.2, not 2026.1"},
		{"no processes", func(g *api.Glance) { g.Spec.API = &api.APISpec{Processes: ptr(int32(0))} },
			"spec.api.processes must be between 1 and 64"},
		{"too many threads", func(g *api.Glance) { g.Spec.API = &api.APISpec{Threads: ptr(int32(65))} },
			"spec.api.threads must be between 1 and 64"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := guideGlance(tc.mod)
			req := create(t, g)
			msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
			assert.Contains(t, msg, tc.want)
			assert.True(t, strings.HasPrefix(msg, "Glance "), msg)
			assert.NotContains(t, msg, "hunter2")
		})
	}
	t.Run("UPDATE is checked too", func(t *testing.T) {
		old := guideGlance()
		nw := guideGlance(func(g *api.Glance) { g.Spec.ServiceUser.Username = "" })
		req := update(t, nw, old)
		assert.Equal(t, `Glance "glance": spec.serviceUser.username is required`, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422))
	})
}
