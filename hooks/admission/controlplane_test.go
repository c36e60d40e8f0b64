package admission

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func entry(name string, isDefault bool, bucket string) api.BackendEntry {
	return api.BackendEntry{
		Name: name, Type: api.BackendTypeS3, IsDefault: isDefault,
		S3: &api.S3EntryStore{
			Endpoint: "http://garage.shared-services.svc.cluster.local:3900",
			S3Options: api.S3Options{Bucket: bucket, Region: "garage",
				CredentialsSecretRef: api.LocalObjectReference{Name: "garage-s3-credentials"}},
		},
	}
}

// guideControlPlane is Step 2's ControlPlane: default and secondary.
func guideControlPlane(mods ...func(*api.ControlPlane)) *api.ControlPlane {
	cp := &api.ControlPlane{
		TypeMeta:   metav1.TypeMeta{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane},
		ObjectMeta: metav1.ObjectMeta{Name: "controlplane", Namespace: ns},
		Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{Backends: []api.BackendEntry{
			entry("default", true, "glance-images"),
			entry("secondary", false, "glance-images-2"),
		}}}},
	}
	for _, m := range mods {
		m(cp)
	}
	return cp
}

func TestControlPlaneGuideListIsAllowed(t *testing.T) {
	l := &fakeLister{}
	req := create(t, guideControlPlane())
	allowed(t, req, Review(context.Background(), req, l))

	// Step 3: the default moved in one edit.
	switched := guideControlPlane(func(cp *api.ControlPlane) {
		cp.Spec.Services.Glance.Backends[0].IsDefault = false
		cp.Spec.Services.Glance.Backends[1].IsDefault = true
	})
	req = update(t, switched, guideControlPlane())
	allowed(t, req, Review(context.Background(), req, l))
	assert.Zero(t, l.calls)

	// A ControlPlane without Glance is none of this hook's business.
	req = create(t, guideControlPlane(func(cp *api.ControlPlane) { cp.Spec.Services.Glance = nil }))
	allowed(t, req, Review(context.Background(), req, l))
}

func TestControlPlaneRules(t *testing.T) {
	backends := func(f func([]api.BackendEntry) []api.BackendEntry) func(*api.ControlPlane) {
		return func(cp *api.ControlPlane) { cp.Spec.Services.Glance.Backends = f(cp.Spec.Services.Glance.Backends) }
	}
	cases := []struct {
		name string
		mod  func(*api.ControlPlane)
		want []string
	}{
		{"two defaults", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].IsDefault = true; return b }),
			[]string{`ControlPlane "controlplane": exactly one backends entry must set isDefault (found 2)`}},
		{"zero defaults", backends(func(b []api.BackendEntry) []api.BackendEntry { b[0].IsDefault = false; return b }),
			[]string{"exactly one backends entry must set isDefault (found 0)"}},
		{"empty list", backends(func([]api.BackendEntry) []api.BackendEntry { return nil }),
			[]string{`ControlPlane "controlplane": spec.services.glance.backends: at least one backend must be declared`}},
		{"duplicate names", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].Name = "default"; return b }),
			[]string{`spec.services.glance.backends[1]: duplicate entry name "default"`}},
		{"reserved name", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].Name = "os_glance_staging_store"; return b }),
			[]string{`spec.services.glance.backends[1]: store id "os_glance_staging_store" uses the reserved os_glance_ store-section prefix`}},
		{"reserved section", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].Name = "glance_store"; return b }),
			[]string{`ControlPlane "controlplane": spec.services.glance.backends[1]: store id "glance_store" collides with a reserved store section`}},
		{"name that makes a bad child name", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].Name = "my_store"; return b }),
			[]string{`ControlPlane "controlplane": entry "my_store" makes the GlanceBackend name "controlplane-glance-my_store", which is not a valid object name`}},
		{"endpoint not a URL", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].S3.Endpoint = "garage:3900"; return b }),
			[]string{`ControlPlane "controlplane": spec.services.glance.backends[1].s3.endpoint: scheme must be http or https`}},
		{"missing bucket", backends(func(b []api.BackendEntry) []api.BackendEntry { b[1].S3.Bucket = ""; return b }),
			[]string{"spec.services.glance.backends[1].s3.bucket is required"}},
		{"option injection", backends(func(b []api.BackendEntry) []api.BackendEntry {
			b[0].ExtraOptions = map[string]string{"s3_store_thread_pools": "1\n[DEFAULT]"}
			return b
		}), []string{"spec.services.glance.backends[0].extraOptions[s3_store_thread_pools]: value must not contain newline or carriage-return characters"}},
		{"projected Glance name too long", func(cp *api.ControlPlane) { cp.Name = strings.Repeat("c", 57) },
			[]string{`the projected Glance "` + strings.Repeat("c", 57) + `-glance" is not a valid Service name: must be no more than 63 characters`}},
		{"owned option", backends(func(b []api.BackendEntry) []api.BackendEntry {
			b[1].ExtraOptions = map[string]string{"s3_store_secret_key": "AKIA-not-echoed"}
			return b
		}), []string{`spec.services.glance.backends[1].extraOptions[s3_store_secret_key]: option "s3_store_secret_key" is owned by s3.credentialsSecretRef and must not be set via extraOptions`}},
		{"endpoint with credentials", backends(func(b []api.BackendEntry) []api.BackendEntry {
			b[0].S3.Endpoint = "http://k:AKIA-not-echoed@garage:3900"
			return b
		}),
			[]string{"spec.services.glance.backends[0].s3.endpoint: must not carry credentials"}},
		{"projected Glance release", func(cp *api.ControlPlane) { cp.Spec.OpenStackRelease = "2025.2\n[DEFAULT]" },
			[]string{`ControlPlane "controlplane": spec.openStackRelease contains a newline`}},
		{"projected Glance database", func(cp *api.ControlPlane) { cp.Spec.Services.Glance.Database = &api.DatabaseSpec{Database: "glance"} },
			[]string{"spec.services.glance.database: exactly one of clusterRef or host must be set; spec.services.glance.database.secretRef.name is required"}},
		{"projected Glance keystone", func(cp *api.ControlPlane) { cp.Spec.Services.Glance.KeystoneEndpoint = "keystone" },
			[]string{`ControlPlane "controlplane": spec.services.glance.keystoneEndpoint: scheme must be http or https`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := create(t, guideControlPlane(tc.mod))
			msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
			assert.NotContains(t, msg, "AKIA")
		})
	}
	t.Run("the object is named once and each problem once", func(t *testing.T) {
		req := create(t, guideControlPlane(func(cp *api.ControlPlane) {
			cp.Spec.Services.Glance.Backends[1].Name = "glance_store"
			cp.Spec.Services.Glance.Backends[1].IsDefault = true
		}))
		msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
		assert.Equal(t, `ControlPlane "controlplane": spec.services.glance.backends[1]: store id "glance_store" collides with a reserved store section (a reserved or operator-managed Glance store section of the same name): [glance_store] holds options glance-api reads for itself; entry "glance_store" makes the GlanceBackend name "controlplane-glance-glance_store", which is not a valid object name; exactly one backends entry must set isDefault (found 2)`, msg)
	})
	t.Run("a 56-character name still fits a Service, for a ControlPlane admitted before", func(t *testing.T) {
		long := func(cp *api.ControlPlane) { cp.Name = strings.Repeat("c", 56) }
		req := update(t, guideControlPlane(long), guideControlPlane(long))
		allowed(t, req, Review(context.Background(), req, &fakeLister{}))
	})
}
