package api

import "fmt"

// Conventional defaults for what a Glance (or the guide's short ControlPlane)
// leaves out. They are the names the guide's standalone Glance uses, so a
// ControlPlane and a hand-written Glance point at the same infrastructure.
const (
	DefaultOpenStackRelease = "2025.2"
	DefaultImageRepository  = "ghcr.io/c5c3/glance"
	DefaultReplicas         = int32(1)
	DefaultDatabaseCluster  = "openstack-db"
	DefaultDatabaseName     = "glance"
	DefaultDatabaseSecret   = "glance-db"
	DefaultDatabasePort     = int32(3306)
	// DefaultMetadefsPath is where the image (glance installed with the
	// prefix /var/lib/openstack) keeps the metadata definitions.
	DefaultMetadefsPath       = "/var/lib/openstack/etc/glance/metadefs"
	DefaultCacheCluster       = "openstack-memcached"
	DefaultServiceUsername    = "glance"
	DefaultServiceProject     = "service"
	DefaultServiceDomain      = "Default"
	DefaultServiceUserSecret  = "glance-service-user"
	DefaultServiceUserPassKey = "password"
	DefaultAPIProcesses       = int32(2)
	DefaultAPIThreads         = int32(4)
)

// DefaultKeystoneEndpoint is the in-cluster Keystone of a namespace.
func DefaultKeystoneEndpoint(namespace string) string {
	return fmt.Sprintf("http://keystone.%s.svc.cluster.local:5000/v3", namespace)
}

// WithDefaults returns the spec with every unset field filled in, so what a
// Glance runs is fully spelled out in one place.
func (s GlanceSpec) WithDefaults(namespace string) GlanceSpec {
	if s.OpenStackRelease == "" {
		s.OpenStackRelease = DefaultOpenStackRelease
	}
	image := ImageSpec{Repository: DefaultImageRepository, Tag: s.OpenStackRelease}
	if s.Image != nil {
		if s.Image.Repository != "" {
			image.Repository = s.Image.Repository
		}
		if s.Image.Tag != "" {
			image.Tag = s.Image.Tag
		}
	}
	s.Image = &image
	if s.Replicas == nil {
		r := DefaultReplicas
		s.Replicas = &r
	}
	db := DatabaseSpec{
		ClusterRef: &LocalObjectReference{Name: DefaultDatabaseCluster},
		Database:   DefaultDatabaseName,
		SecretRef:  LocalObjectReference{Name: DefaultDatabaseSecret},
	}
	if s.Database != nil {
		db = *s.Database
	}
	if db.Port == nil {
		port := DefaultDatabasePort
		db.Port = &port
	}
	s.Database = &db
	if s.Cache == nil {
		s.Cache = &CacheSpec{ClusterRef: &LocalObjectReference{Name: DefaultCacheCluster}}
	}
	if s.KeystoneEndpoint == "" {
		s.KeystoneEndpoint = DefaultKeystoneEndpoint(namespace)
	}
	user := ServiceUserSpec{
		Username:          DefaultServiceUsername,
		ProjectName:       DefaultServiceProject,
		UserDomainName:    DefaultServiceDomain,
		ProjectDomainName: DefaultServiceDomain,
		SecretRef:         SecretKeyRef{Name: DefaultServiceUserSecret},
	}
	if s.ServiceUser != nil {
		user = *s.ServiceUser
	}
	if user.SecretRef.Key == "" {
		user.SecretRef.Key = DefaultServiceUserPassKey
	}
	s.ServiceUser = &user
	apiSpec := APISpec{}
	if s.API != nil {
		apiSpec = *s.API
	}
	if apiSpec.Processes == nil {
		p := DefaultAPIProcesses
		apiSpec.Processes = &p
	}
	if apiSpec.Threads == nil {
		t := DefaultAPIThreads
		apiSpec.Threads = &t
	}
	s.API = &apiSpec
	if s.MetadefsPath == "" {
		s.MetadefsPath = DefaultMetadefsPath
	}
	return s
}

// Address is where the database server listens: the cluster's Service
// <clusterRef>.<namespace>.svc, or the external host; the port as set.
// Call it on a spec with defaults.
func (d DatabaseSpec) Address(namespace string) (host string, port int32) {
	host = d.Host
	if d.ClusterRef != nil {
		host = d.ClusterRef.Name + "." + namespace + ".svc"
	}
	if d.Port != nil {
		port = *d.Port
	}
	return host, port
}
