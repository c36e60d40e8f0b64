package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Glance is one glance-api service; its stores are the GlanceBackends whose
// glanceRef names it.
type Glance struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GlanceSpec   `json:"spec"`
	Status GlanceStatus `json:"status,omitzero"`
}

// GlanceSpec is what the Glance service needs besides its stores.
type GlanceSpec struct {
	// OpenStackRelease, e.g. "2025.2"; the default image tag.
	OpenStackRelease string `json:"openStackRelease"`
	// Image of glance-api; defaults to ghcr.io/c5c3/glance:<openStackRelease>.
	Image *ImageSpec `json:"image,omitempty"`
	// Replicas of the glance-api Deployment; default 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Database glance-api keeps its catalogue in.
	Database *DatabaseSpec `json:"database,omitempty"`
	// Cache is the memcached cluster for token caching.
	Cache *CacheSpec `json:"cache,omitempty"`
	// KeystoneEndpoint is the internal Keystone v3 URL glance-api validates tokens against.
	KeystoneEndpoint string `json:"keystoneEndpoint,omitempty"`
	// KeystonePublicEndpoint is the browser-facing URL sent in WWW-Authenticate;
	// defaults to keystoneEndpoint.
	KeystonePublicEndpoint string `json:"keystonePublicEndpoint,omitempty"`
	// ServiceUser is the Keystone user glance-api authenticates as.
	ServiceUser *ServiceUserSpec `json:"serviceUser,omitempty"`
	// API is how many processes and threads serve the API.
	API *APISpec `json:"api,omitempty"`
	// Resources of the glance-api container.
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
}

// APISpec sizes the glance-api server. Below 2026.1 glance-api is the
// eventlet server and Processes is its workers option; from 2026.1 it runs
// under uWSGI with Processes processes of Threads threads each.
type APISpec struct {
	// Processes serving requests; default 2.
	Processes *int32 `json:"processes,omitempty"`
	// Threads per uWSGI process; default 4. The eventlet server ignores it.
	Threads *int32 `json:"threads,omitempty"`
}

// ImageSpec is a container image split into repository and tag.
type ImageSpec struct {
	Repository string `json:"repository,omitempty"`
	Tag        string `json:"tag,omitempty"`
}

// DatabaseSpec points at a database cluster, the schema and the Secret that
// holds the SQLAlchemy connection URL.
type DatabaseSpec struct {
	ClusterRef LocalObjectReference `json:"clusterRef"`
	Database   string               `json:"database"`
	// SecretRef names a Secret whose key (default "connection") holds the
	// full connection URL; it reaches glance-api only as an environment variable.
	SecretRef SecretKeyRef `json:"secretRef"`
}

// CacheSpec points at a memcached cluster reachable as the Service
// <clusterRef.name>:11211 in the Glance's namespace.
type CacheSpec struct {
	ClusterRef LocalObjectReference `json:"clusterRef"`
}

// ServiceUserSpec is glance's Keystone service user.
type ServiceUserSpec struct {
	Username          string       `json:"username"`
	ProjectName       string       `json:"projectName"`
	UserDomainName    string       `json:"userDomainName"`
	ProjectDomainName string       `json:"projectDomainName"`
	SecretRef         SecretKeyRef `json:"secretRef"`
}

// SecretKeyRef names a Secret in the same namespace and one of its keys.
type SecretKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key,omitempty"`
}

// GlanceStatus is written by the Glance sync hook.
type GlanceStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	// Backends lists every attached store and whether it is projected.
	Backends []BackendStatus `json:"backends,omitempty"`
	// DefaultBackend is the store id rendered as default_backend.
	DefaultBackend string `json:"defaultBackend,omitempty"`
	// ConfigMapName and BackendsSecretName are what the Deployment mounts.
	ConfigMapName      string `json:"configMapName,omitempty"`
	BackendsSecretName string `json:"backendsSecretName,omitempty"`
}

// BackendStatus reports one attached GlanceBackend, since hooks cannot emit events.
type BackendStatus struct {
	Name      string `json:"name"`
	StoreID   string `json:"storeId"`
	IsDefault bool   `json:"isDefault"`
	Projected bool   `json:"projected"`
	// Reason is set when the store is not projected, e.g. GlanceBackendSkipped.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}
