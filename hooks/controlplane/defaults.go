package controlplane

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/api"
)

// Conventional defaults for what the guide's short ControlPlane leaves out.
// They are the names the guide's standalone Glance uses, so a ControlPlane and
// a hand-written Glance point at the same infrastructure.
const (
	DefaultOpenStackRelease   = "2025.2"
	DefaultImageRepository    = "ghcr.io/c5c3/glance"
	DefaultReplicas           = int32(1)
	DefaultDatabaseCluster    = "openstack-db"
	DefaultDatabaseName       = "glance"
	DefaultDatabaseSecret     = "glance-db"
	DefaultDatabaseSecretKey  = "connection"
	DefaultCacheCluster       = "openstack-memcached"
	DefaultServiceUsername    = "glance"
	DefaultServiceProject     = "service"
	DefaultServiceDomain      = "Default"
	DefaultServiceUserSecret  = "glance-service-user"
	DefaultServiceUserPassKey = "password"
)

// DefaultKeystoneEndpoint is the in-cluster Keystone of the ControlPlane's namespace.
func DefaultKeystoneEndpoint(namespace string) string {
	return fmt.Sprintf("http://keystone.%s.svc.cluster.local:5000/v3", namespace)
}

// GlanceSpec is the spec of the Glance projected for cp; admission checks it
// the way it checks a hand-written Glance.
func GlanceSpec(cp *api.ControlPlane) api.GlanceSpec { return glanceSpec(cp) }

// glanceSpec fills the projected Glance's spec: every field explicit, so the
// child says exactly what it runs and a default changed later in this service
// shows up as a diff on the child.
func glanceSpec(cp *api.ControlPlane) api.GlanceSpec {
	svc := cp.Spec.Services.Glance
	release := cp.Spec.OpenStackRelease
	if release == "" {
		release = DefaultOpenStackRelease
	}
	image := api.ImageSpec{Repository: DefaultImageRepository, Tag: release}
	if svc.Image != nil {
		if svc.Image.Repository != "" {
			image.Repository = svc.Image.Repository
		}
		if svc.Image.Tag != "" {
			image.Tag = svc.Image.Tag
		}
	}
	replicas := DefaultReplicas
	if svc.Replicas != nil {
		replicas = *svc.Replicas
	}
	db := api.DatabaseSpec{
		ClusterRef: api.LocalObjectReference{Name: DefaultDatabaseCluster},
		Database:   DefaultDatabaseName,
		SecretRef:  api.SecretKeyRef{Name: DefaultDatabaseSecret, Key: DefaultDatabaseSecretKey},
	}
	if svc.Database != nil {
		db = *svc.Database
		if db.SecretRef.Key == "" {
			db.SecretRef.Key = DefaultDatabaseSecretKey
		}
	}
	cache := api.CacheSpec{ClusterRef: api.LocalObjectReference{Name: DefaultCacheCluster}}
	if svc.Cache != nil {
		cache = *svc.Cache
	}
	keystone := svc.KeystoneEndpoint
	if keystone == "" {
		keystone = DefaultKeystoneEndpoint(cp.Namespace)
	}
	user := api.ServiceUserSpec{
		Username:          DefaultServiceUsername,
		ProjectName:       DefaultServiceProject,
		UserDomainName:    DefaultServiceDomain,
		ProjectDomainName: DefaultServiceDomain,
		SecretRef:         api.SecretKeyRef{Name: DefaultServiceUserSecret, Key: DefaultServiceUserPassKey},
	}
	if svc.ServiceUser != nil {
		user = *svc.ServiceUser
		if user.SecretRef.Key == "" {
			user.SecretRef.Key = DefaultServiceUserPassKey
		}
	}
	return api.GlanceSpec{
		OpenStackRelease:       release,
		Image:                  &image,
		Replicas:               &replicas,
		Database:               &db,
		Cache:                  &cache,
		KeystoneEndpoint:       keystone,
		KeystonePublicEndpoint: svc.KeystonePublicEndpoint,
		ServiceUser:            &user,
		Resources:              svc.Resources,
	}
}
