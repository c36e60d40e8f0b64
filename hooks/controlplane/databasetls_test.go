package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// TestProjectionCarriesDatabaseTLS: services.glance.database.tls reaches
// the Glance child as written; the child's hooks mount and render it.
func TestProjectionCarriesDatabaseTLS(t *testing.T) {
	tls := &api.DatabaseTLSSpec{Mode: api.DBTLSVerifyCA, CABundleSecretRef: api.SecretKeyRef{Name: "db-ca", Key: "bundle.pem"},
		ClientCertSecretRef: api.SecretKeyRef{Name: "db-client"}}
	cp := &api.ControlPlane{Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{
		Database: &api.DatabaseSpec{Host: "db.example.com", Database: "glance", SecretRef: api.SecretKeyRef{Name: "glance-db"}, TLS: tls}}}}}
	cp.Name, cp.Namespace = "cp", "openstack"
	spec := GlanceSpec(cp)
	if spec.Database == nil {
		t.Fatal("no database projected")
	}
	if diff := cmp.Diff(tls, spec.Database.TLS); diff != "" {
		t.Errorf("database.tls: -want +got:\n%s", diff)
	}
}
