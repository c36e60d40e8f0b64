package controlplane

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

// infraControlPlane is a reference ControlPlane with one backend and the
// spec.infrastructure and services.glance blocks given (YAML, indented
// under spec).
func infraControlPlane(t *testing.T, infrastructure, glance string) *api.ControlPlane {
	t.Helper()
	doc := `metadata: {name: cp, namespace: openstack}
spec:
  openStackRelease: "2025.2"
` + infrastructure + `
  services:
    glance:
` + glance + `
      backends:
      - {name: default, type: S3, isDefault: true, s3: {endpoint: "http://s3:9000", bucket: b, credentialsSecretRef: {name: s3}}}
`
	var cp api.ControlPlane
	require.NoError(t, yaml.Unmarshal([]byte(doc), &cp), doc)
	return &cp
}

// TestInfrastructureIsTheGlancesDefault: with services.glance naming no
// database or cache, the projected Glance takes them from the reference's
// spec.infrastructure as the reference derives them (on a managed cluster
// the user its operator issues, short-lived unless the block or
// services.glance says Static); services.glance's own blocks win; without
// either, the conventional defaults.
func TestInfrastructureIsTheGlancesDefault(t *testing.T) {
	// The Secret the reference's operator issues the Glance cp-glance a
	// user of its own in, on a managed cluster.
	issued := api.SecretKeyRef{Name: "cp-glance-db-credentials", Key: "password"}
	for _, c := range []struct {
		name, infrastructure, glance string
		database                     api.DatabaseSpec
		cache                        api.CacheSpec
	}{
		{"a brownfield server and servers", `  infrastructure:
    database: {host: db.example.com, port: 3307, database: openstack, secretRef: {name: shared-db}}
    cache: {backend: dogpile.cache.pymemcache, servers: ["mc-0.example.com:11211"]}`, "",
			api.DatabaseSpec{Host: "db.example.com", Port: ptr(int32(3307)), Database: "glance", SecretRef: api.SecretKeyRef{Name: "shared-db", Key: "password"}},
			api.CacheSpec{Servers: []string{"mc-0.example.com:11211"}}},
		{"managed clusters named", `  infrastructure:
    database: {clusterRef: {name: shared-db}, database: keystone, secretRef: {name: keystone-db}, replicas: 3, storageSize: 10Gi}
    cache: {clusterRef: {name: shared-mc}}`, "",
			api.DatabaseSpec{ClusterRef: &api.LocalObjectReference{Name: "shared-db"}, Port: ptr(int32(3306)), Database: "glance", SecretRef: issued, CredentialsMode: "Dynamic"},
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "shared-mc"}}},
		{"a managed cluster of long-lived users", `  infrastructure:
    database: {credentialsMode: Static}`, "",
			api.DatabaseSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-db"}, Port: ptr(int32(3306)), Database: "glance", SecretRef: issued, CredentialsMode: "Static"},
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}}},
		{"services.glance's credentials mode wins", `  infrastructure:
    database: {credentialsMode: Dynamic}`, `      databaseCredentialsMode: Static`,
			api.DatabaseSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-db"}, Port: ptr(int32(3306)), Database: "glance", SecretRef: issued, CredentialsMode: "Static"},
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}}},
		{"managed clusters the operator names (the quick start's)", `  infrastructure:
    database: {replicas: 1, storageSize: 512Mi}
    cache: {replicas: 1}`, "",
			api.DatabaseSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-db"}, Port: ptr(int32(3306)), Database: "glance", SecretRef: issued, CredentialsMode: "Dynamic"},
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}}},
		{"services.glance's own blocks win", `  infrastructure:
    database: {host: db.example.com, database: openstack, secretRef: {name: shared-db}}
    cache: {servers: ["mc-0.example.com:11211"]}`, `      database: {host: glance-db.example.com, database: images, secretRef: {name: images-db}}
      cache: {servers: ["mc-9.example.com:11211"]}`,
			api.DatabaseSpec{Host: "glance-db.example.com", Port: ptr(int32(3306)), Database: "images", SecretRef: api.SecretKeyRef{Name: "images-db", Key: "password"}},
			api.CacheSpec{Servers: []string{"mc-9.example.com:11211"}}},
		{"no infrastructure", "", "",
			api.DatabaseSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-db"}, Port: ptr(int32(3306)), Database: "glance", SecretRef: api.SecretKeyRef{Name: "glance-db", Key: "password"}},
			api.CacheSpec{ClusterRef: &api.LocalObjectReference{Name: "openstack-memcached"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cp := infraControlPlane(t, c.infrastructure, c.glance)
			problems, _ := Problems(cp, nil)
			require.Empty(t, problems)
			spec := GlanceSpec(cp)
			assert.Equal(t, c.database, *spec.Database)
			assert.Equal(t, c.cache, *spec.Cache)
		})
	}
}

// TestInfrastructureProblemsNameIt: a database or cache taken from
// spec.infrastructure that the Glance cannot use is refused there, not
// under services.glance, which names none.
func TestInfrastructureProblemsNameIt(t *testing.T) {
	cp := infraControlPlane(t, `  infrastructure:
    database: {host: "db example", database: openstack, secretRef: {name: shared-db}}
    cache: {servers: ["mc-0.example.com"]}`, "")
	problems, _ := Problems(cp, nil)
	msg := problems.String()
	assert.Contains(t, msg, "spec.infrastructure.database.host")
	assert.Contains(t, msg, "spec.infrastructure.cache.servers[0]")
	assert.False(t, strings.Contains(msg, "spec.services.glance.database"), msg)
}
