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
				ClusterRef: &api.LocalObjectReference{Name: "openstack-db"},
				Database:   "glance",
				SecretRef:  api.SecretKeyRef{Name: "glance-db"},
			},
			Cache:            &api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}},
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
		{"keystone not a URL", func(g *api.Glance) { g.Spec.KeystoneEndpoint = "keystone:5000" }, "spec.keystoneEndpoint: scheme must be http or https"},
		{"public keystone with password", func(g *api.Glance) { g.Spec.KeystonePublicEndpoint = "https://admin:hunter2@keystone" },
			"spec.keystonePublicEndpoint: must not carry credentials"},
		{"database without its cluster and secret", func(g *api.Glance) { g.Spec.Database = &api.DatabaseSpec{Database: "glance"} },
			"spec.database: exactly one of clusterRef or host must be set; spec.database.secretRef.name is required"},
		{"release injection", func(g *api.Glance) { g.Spec.OpenStackRelease = "2025.2\n[DEFAULT]" }, "spec.openStackRelease contains a newline"},
		{"username injection", func(g *api.Glance) { g.Spec.ServiceUser.Username = "glance\n[DEFAULT]" }, "spec.serviceUser.username contains a newline"},
		{"negative replicas", func(g *api.Glance) { g.Spec.Deployment = &api.DeploymentSpec{Replicas: ptr(int32(-1))} }, "spec.deployment.replicas: replicas must be at least 1"},
		{"no replicas", func(g *api.Glance) { g.Spec.Deployment = &api.DeploymentSpec{Replicas: ptr(int32(0))} }, "spec.deployment.replicas: replicas must be at least 1"},
		{"empty cache ref", func(g *api.Glance) { g.Spec.Cache.ClusterRef.Name = "" }, "spec.cache.clusterRef.name is required"},
		{"database cluster and host", func(g *api.Glance) { g.Spec.Database.Host = "db.example.com" },
			"spec.database: exactly one of clusterRef or host must be set"},
		{"database nowhere", func(g *api.Glance) { g.Spec.Database.ClusterRef = nil },
			"spec.database: exactly one of clusterRef or host must be set"},
		{"database host not a host", func(g *api.Glance) { g.Spec.Database.ClusterRef, g.Spec.Database.Host = nil, "db/x" },
			"spec.database.host must be a DNS name or an IP address"},
		{"database port", func(g *api.Glance) { g.Spec.Database.Port = ptr(int32(70000)) }, "spec.database.port must be between 1 and 65535"},
		{"database name in the URL", func(g *api.Glance) { g.Spec.Database.Database = "glance?x=1" },
			"spec.database.database must be 1 to 64 letters, digits or '_'"},
		{"database password key", func(g *api.Glance) { g.Spec.Database.SecretRef.Key = "db/password" },
			"spec.database.secretRef.key must be a Secret data key (letters, digits, '-', '_', '.')"},
		{"the hook's own Secret", func(g *api.Glance) { g.Spec.Database.SecretRef.Name = "glance-db-connection" },
			`spec.database.secretRef.name names "glance-db-connection", the Secret the hooks write the database URL into`},
		{"the hook's own password Secret", func(g *api.Glance) { g.Spec.ServiceUser.SecretRef.Name = "glance-authtoken" },
			`spec.serviceUser.secretRef.name names "glance-authtoken", the Secret the hooks write the escaped service password into`},
		{"cache cluster and servers", func(g *api.Glance) { g.Spec.Cache.Servers = []string{"127.0.0.1:11211"} },
			"spec.cache: exactly one of clusterRef or servers must be set"},
		{"cache server without port", func(g *api.Glance) { g.Spec.Cache = &api.CacheSpec{Servers: []string{"memcached"}} },
			"spec.cache.servers[0] must be host:port"},
		{"relative metadefs", func(g *api.Glance) { g.Spec.MetadefsPath = "etc/glance/metadefs" }, "spec.metadefsPath must be a clean absolute path"},
		{"no such release", func(g *api.Glance) { g.Spec.OpenStackRelease = "2025.3" },
			"spec.openStackRelease must be an OpenStack release, YYYY.1 or YYYY.2"},
		{"image of another release", func(g *api.Glance) { g.Spec.Image.Tag = "2026.1" },
			"spec.image.tag names release 2026.1, not 2025.2 (spec.openStackRelease): the schema Jobs prepare the database for spec.openStackRelease"},
		{"default tag of another release", func(g *api.Glance) { g.Spec.OpenStackRelease = "2026.1" },
			"spec.image.tag names release 2025.2, not 2026.1"},
		{"no processes", func(g *api.Glance) { g.Spec.APIServer = &api.APIServerSpec{Workers: ptr(int32(0))} },
			"spec.apiServer.workers must be between 1 and 64"},
		{"too many threads", func(g *api.Glance) {
			g.Spec.APIServer = &api.APIServerSpec{UWSGI: &api.UWSGISpec{Threads: ptr(int32(65))}}
		},
			"spec.apiServer.uwsgi.threads must be between 1 and 64"},
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
		nw := guideGlance(func(g *api.Glance) { g.Spec.ServiceUser.Username = "a\nb" })
		req := update(t, nw, old)
		assert.Contains(t, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422), `Glance "glance": spec.serviceUser.username `)
	})
}

func TestGlanceExternalDatabaseAndCache(t *testing.T) {
	req := create(t, guideGlance(func(g *api.Glance) {
		g.Spec.Database.ClusterRef, g.Spec.Database.Host, g.Spec.Database.Port = nil, "127.0.0.1", ptr(int32(33060))
		g.Spec.Cache = &api.CacheSpec{Servers: []string{"127.0.0.1:11211", "[::1]:11211", "memcached.example.com:11211"}}
		g.Spec.MetadefsPath = "/usr/share/glance-common/metadefs"
	}))
	allowed(t, req, Review(context.Background(), req, &fakeLister{}))
}

// TestGlanceReleaseSteps: on UPDATE the release may move as the installed
// schema can follow, read from the stored object's status.
func TestGlanceReleaseSteps(t *testing.T) {
	installed := func(rel string, up *api.UpgradeStatus) func(*api.Glance) {
		return func(g *api.Glance) {
			g.Spec.OpenStackRelease, g.Spec.Image.Tag = rel, rel
			g.Status.InstalledRelease, g.Status.Upgrade = rel, up
		}
	}
	to := func(rel string) func(*api.Glance) {
		return func(g *api.Glance) { g.Spec.OpenStackRelease, g.Spec.Image.Tag = rel, rel }
	}
	cases := map[string]struct {
		reason string
		old    func(*api.Glance)
		new    func(*api.Glance)
		want   string // "" when allowed
	}{
		"next release": {"2025.2 to 2026.1 is the next release", installed("2025.2", nil), to("2026.1"), ""},
		"slurp":        {"a SLURP release to the next one", installed("2025.1", nil), to("2026.1"), ""},
		"not installed": {"before the first schema is synced any release goes",
			func(g *api.Glance) {}, to("2027.2"), ""},
		"downgrade": {"a contracted schema cannot go back", installed("2026.1", nil), to("2025.2"),
			`Glance "glance": spec.openStackRelease: 2025.2 is older than the installed release 2026.1: downgrades are not supported, a contracted schema cannot go back`},
		"skip": {"two releases at once", installed("2025.2", nil), to("2026.2"),
			`Glance "glance": spec.openStackRelease: 2026.2 skips releases after the installed release 2025.2: upgrade to 2026.1 first`},
		"third release mid-upgrade": {"an upgrade under way is finished first",
			installed("2025.2", &api.UpgradeStatus{Phase: api.PhaseMigrating, TargetRelease: "2026.1"}), to("2026.2"),
			`Glance "glance": spec.openStackRelease: an upgrade from 2025.2 to 2026.1 is in phase Migrating: finish it first; before its contract step it can also go back to 2025.2`},
		"abandon before contract": {"going back before the contract step is allowed",
			func(g *api.Glance) {
				installed("2025.2", &api.UpgradeStatus{Phase: api.PhaseRollingUpdate, TargetRelease: "2026.1"})(g)
				to("2026.1")(g)
			}, to("2025.2"), ""},
		"no going back while contracting": {"the contract step cannot be undone",
			func(g *api.Glance) {
				installed("2025.2", &api.UpgradeStatus{Phase: api.PhaseContracting, TargetRelease: "2026.1"})(g)
				to("2026.1")(g)
			}, to("2025.2"),
			`Glance "glance": spec.openStackRelease: an upgrade from 2025.2 to 2026.1 is in phase Contracting: finish it first`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old := guideGlance(tc.old)
			nw := guideGlance(tc.new)
			req := update(t, nw, old)
			resp := Review(context.Background(), req, &fakeLister{})
			if tc.want == "" {
				allowed(t, req, resp)
				return
			}
			assert.Equal(t, tc.want, denied(t, req, resp, 422), tc.reason)
		})
	}
}
