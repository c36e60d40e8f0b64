package api

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ControlPlane is the whole OpenStack control plane; this service reconciles
// only its services.glance part.
type ControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ControlPlaneSpec   `json:"spec"`
	Status ControlPlaneStatus `json:"status,omitzero"`
}

// ControlPlaneSpec holds the release and the services.
type ControlPlaneSpec struct {
	// OpenStackRelease of every service; default "2025.2".
	OpenStackRelease string `json:"openStackRelease,omitempty"`
	// Region of every service: the Glance's region_name and the region its
	// Keystone endpoints are registered in (unless keystone.region says
	// otherwise); default RegionOne.
	Region string `json:"region,omitempty"`
	// GlobalExtraConfig is config every service takes, under its own
	// extraConfig (the service's key wins), checked as extraConfig is.
	GlobalExtraConfig map[string]map[string]string `json:"globalExtraConfig,omitempty"`
	// SecretStoreRef is projected onto the Glance as its own.
	SecretStoreRef *SecretStoreRefSpec `json:"secretStoreRef,omitempty"`
	// Infrastructure is the reference ControlPlane's shared backing
	// services; only the database and cache are read, as the defaults of
	// services.glance.database and services.glance.cache (SharedDatabase,
	// SharedCache). The CRD keeps the block as written.
	Infrastructure *Infrastructure `json:"infrastructure,omitempty"`
	Services       Services        `json:"services,omitempty"`
}

// Release is the OpenStack release of every service: as written, else
// DefaultOpenStackRelease, as the projected Glance's defaults make it.
func (s ControlPlaneSpec) Release() string {
	if s.OpenStackRelease == "" {
		return DefaultOpenStackRelease
	}
	return s.OpenStackRelease
}

// Infrastructure holds the database and memcached every service of a
// reference ControlPlane shares, unless the service names its own.
type Infrastructure struct {
	Database *SharedDatabaseSpec `json:"database,omitempty"`
	Cache    *CacheSpec          `json:"cache,omitempty"`
}

// SharedDatabaseSpec is a DatabaseSpec as the reference ControlPlane
// writes it for every service: each field may be left out, since its
// webhook fills in a database name and a Secret the Glance does not use.
type SharedDatabaseSpec struct {
	ClusterRef      *LocalObjectReference `json:"clusterRef,omitempty"`
	Host            string                `json:"host,omitempty"`
	Port            *int32                `json:"port,omitempty"`
	Database        string                `json:"database,omitempty"`
	SecretRef       *SecretKeyRef         `json:"secretRef,omitempty"`
	CredentialsMode string                `json:"credentialsMode,omitempty"`
	TLS             *DatabaseTLSSpec      `json:"tls,omitempty"`
	Replicas        *int32                `json:"replicas,omitempty"`
	StorageSize     string                `json:"storageSize,omitempty"`
}

// SharedDatabase is the database of the Glance named glance as the
// reference derives it from spec.infrastructure.database: the same server,
// the Glance's own schema (DefaultDatabaseName). A server named by host is
// reached with the shared Secret and credentials mode it names (the
// reference's brownfield mode). On a managed cluster (clusterRef, named
// openstack-db when the block names neither) the reference's operator
// issues the Glance a user of its own, in Secret
// <glance>-db-credentials, short-lived (Dynamic) unless the block says
// Static: the Glance reads that Secret in that mode, so a ControlPlane
// moved from the reference keeps the user its Glance had. What only
// creates the cluster (replicas, storageSize) is left behind. Nil without
// the block.
func (i *Infrastructure) SharedDatabase(glance string) *DatabaseSpec {
	if i == nil || i.Database == nil {
		return nil
	}
	in := i.Database
	db := DatabaseSpec{Database: DefaultDatabaseName, Port: in.Port, TLS: in.TLS}
	if in.Host != "" {
		db.Host, db.CredentialsMode = in.Host, in.CredentialsMode
		if in.SecretRef != nil {
			db.SecretRef = *in.SecretRef
		}
		return &db
	}
	db.ClusterRef = &LocalObjectReference{Name: DefaultDatabaseCluster}
	if in.ClusterRef != nil && in.ClusterRef.Name != "" {
		db.ClusterRef.Name = in.ClusterRef.Name
	}
	db.SecretRef = SecretKeyRef{Name: glance + SharedDatabaseSecretSuffix, Key: DatabasePasswordKey}
	db.CredentialsMode = CredentialsDynamic
	if in.CredentialsMode == CredentialsStatic {
		db.CredentialsMode = CredentialsStatic
	}
	return &db
}

// SharedDatabaseSecretSuffix names, after the Glance's name, the Secret
// the reference's operator puts the Glance's own database user in.
const SharedDatabaseSecretSuffix = "-db-credentials"

// SharedCache is the Glance's token cache as the reference derives it
// from spec.infrastructure.cache: its servers, or its managed memcached
// (clusterRef, named openstack-memcached when the block names neither).
// Its backend is not taken: the reference renders nothing of it for
// Glance, and here a backend set turns on oslo.cache. Nil without the
// block.
func (i *Infrastructure) SharedCache() *CacheSpec {
	if i == nil || i.Cache == nil {
		return nil
	}
	in := i.Cache
	if len(in.Servers) > 0 {
		return &CacheSpec{Servers: in.Servers}
	}
	c := CacheSpec{ClusterRef: &LocalObjectReference{Name: DefaultCacheCluster}}
	if in.ClusterRef != nil && in.ClusterRef.Name != "" {
		c.ClusterRef.Name = in.ClusterRef.Name
	}
	return &c
}

// Services lists the OpenStack services the ControlPlane runs; these hooks
// reconcile Glance only, and the CRD keeps the others as written.
type Services struct {
	Glance *GlanceService `json:"glance,omitempty"`
	// The reference's other services, kept as written and never read
	// here: the CRD lists them so that any other key is refused
	// (ServiceKey).
	Barbican  json.RawMessage `json:"barbican,omitempty"`
	Horizon   json.RawMessage `json:"horizon,omitempty"`
	Keystone  json.RawMessage `json:"keystone,omitempty"`
	Placement json.RawMessage `json:"placement,omitempty"`
}

// KnownServices are the services a reference ControlPlane knows; a key
// under spec.services outside this list is most likely a typo.
var KnownServices = []string{"barbican", "glance", "horizon", "keystone", "placement"}

// GlanceService is the Glance part of a ControlPlane: the knobs the
// reference ControlPlane projects onto its Glance, plus the Glance's own
// blocks this project lets a ControlPlane set, under the Glance's names.
// Everything but backends has a conventional default, so the guide's short
// ControlPlane is complete.
type GlanceService struct {
	Backends []BackendEntry `json:"backends"`
	// Image overrides ghcr.io/c5c3/glance:<openStackRelease>.
	Image *ImageSpec `json:"image,omitempty"`
	// Replicas of the glance-api Deployment; it excludes deployment.replicas.
	Replicas *int32       `json:"replicas,omitempty"`
	Staging  *StagingSpec `json:"staging,omitempty"`
	// PublicEndpoint is the image endpoint clients reach; the default of
	// keystone.publicURL.
	PublicEndpoint string `json:"publicEndpoint,omitempty"`
	// The Glance's blocks, projected onto it as written (extraConfig merged
	// over spec.globalExtraConfig).
	ExtraConfig     map[string]map[string]string `json:"extraConfig,omitempty"`
	Gateway         *GatewaySpec                 `json:"gateway,omitempty"`
	ImageCache      *ImageCacheSpec              `json:"imageCache,omitempty"`
	ImportFiltering *ImportFilteringSpec         `json:"importFiltering,omitempty"`
	ImportPlugins   *ImportPluginsSpec           `json:"importPlugins,omitempty"`
	// NetworkPolicy is projected onto the Glance as it is.
	NetworkPolicy *NetworkPolicySpec `json:"networkPolicy,omitempty"`

	Database *DatabaseSpec `json:"database,omitempty"`
	Cache    *CacheSpec    `json:"cache,omitempty"`
	// KeystoneEndpoint defaults to http://keystone.<namespace>.svc.cluster.local:5000/v3.
	KeystoneEndpoint       string           `json:"keystoneEndpoint,omitempty"`
	KeystonePublicEndpoint string           `json:"keystonePublicEndpoint,omitempty"`
	ServiceUser            *ServiceUserSpec `json:"serviceUser,omitempty"`
	APIServer              *APIServerSpec   `json:"apiServer,omitempty"`
	Deployment             *DeploymentSpec  `json:"deployment,omitempty"`
	Autoscaling            *AutoscalingSpec `json:"autoscaling,omitempty"`
	Logging                *LoggingSpec     `json:"logging,omitempty"`
	MetadefsPath           string           `json:"metadefsPath,omitempty"`
	ImportMethods          []string         `json:"importMethods,omitempty"`
	DropRetiredStores      []string         `json:"dropRetiredStores,omitempty"`
	// Keystone is how the ControlPlane registers its Glance in Keystone.
	Keystone *KeystoneRegistration `json:"keystone,omitempty"`
	// DatabaseCredentialsMode is the reference's name for
	// database.credentialsMode (Static or Dynamic), projected there; it
	// excludes database.credentialsMode.
	DatabaseCredentialsMode string `json:"databaseCredentialsMode,omitempty"`
	// The reference's placement and backing-service blocks, never read:
	// the schema knows them so that a ControlPlane setting one is refused
	// with why (ControlPlaneLaterFields), not run with the block dropped.
	DedicatedBackingServices json.RawMessage `json:"dedicatedBackingServices,omitempty"`
	Namespace                json.RawMessage `json:"namespace,omitempty"`
	TargetClusterRef         json.RawMessage `json:"targetClusterRef,omitempty"`
}

// KeystoneRegistration says how a ControlPlane registers its Glance in
// Keystone (the service user with its role, the image service and its
// endpoints) and what happens to the registration when it is deleted.
type KeystoneRegistration struct {
	// AdminCredentialsSecretRef names the Secret holding an admin's
	// credentials under the keys of the admin exports: OS_AUTH_URL,
	// OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, optionally
	// OS_USER_DOMAIN_NAME and OS_PROJECT_DOMAIN_NAME (or their *_ID forms);
	// default keystone-admin.
	AdminCredentialsSecretRef *LocalObjectReference `json:"adminCredentialsSecretRef,omitempty"`
	// Region of the endpoints; default RegionOne.
	Region string `json:"region,omitempty"`
	// PublicURL of the image endpoint; default the Glance Service's cluster
	// DNS name, http://<controlplane>-glance.<namespace>.svc.cluster.local:9292.
	PublicURL string `json:"publicURL,omitempty"`
	// InternalURL of the image endpoint; default as PublicURL.
	InternalURL string `json:"internalURL,omitempty"`
	// OnDelete is what deleting the ControlPlane does to the endpoints and
	// the service it created: Deregister (default) removes them, Keep
	// leaves them. The service user always stays.
	OnDelete string `json:"onDelete,omitempty"`
}

// What deleting a ControlPlane does to its catalog entries.
const (
	OnDeleteDeregister = "Deregister"
	OnDeleteKeep       = "Keep"
)

// BackendEntry is one store in services.glance.backends[].
type BackendEntry struct {
	// Name is the store id and the suffix of the projected GlanceBackend.
	Name      string        `json:"name"`
	Type      string        `json:"type"`
	IsDefault bool          `json:"isDefault,omitempty"`
	S3        *S3EntryStore `json:"s3,omitempty"`
	// ExtraOptions are passed to the projected GlanceBackend.
	ExtraOptions map[string]string `json:"extraOptions,omitempty"`
}

// S3EntryStore is an entry's S3 settings; endpoint becomes the child's s3.host.
type S3EntryStore struct {
	// Endpoint is required, as S3Store.Host is.
	Endpoint  string `json:"endpoint,omitempty"`
	S3Options `json:",inline"`
	// Host is a GlanceBackend's name for Endpoint, never valid here (see
	// S3Store.Endpoint; refused with MisnamedS3Host).
	Host string `json:"host,omitempty"`
}

// ControlPlaneStatus is written by the ControlPlane sync hook.
type ControlPlaneStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	// Services is the reference's per-service readiness, keyed by name:
	// here the one service these hooks run, glance, while
	// spec.services.glance is set.
	Services []ServiceStatus `json:"services,omitempty"`
}

// ServiceStatus is one service of a ControlPlane's status.services.
type ServiceStatus struct {
	// Name of the service: glance.
	Name string `json:"name"`
	// Ready is whether the service is Ready: the GlanceReady condition.
	Ready bool `json:"ready"`
	// Release is the OpenStack release the service runs.
	Release string `json:"release,omitempty"`
}

// GlanceServiceKey names the Glance in status.services, as the reference does.
const GlanceServiceKey = "glance"

// MaxBackendEntries is the most services.glance.backends[] entries a
// ControlPlane may have (the CRD's maxItems). The sync hook holds a list
// the API server should have refused to it too: each entry becomes a
// GlanceBackend in its answer.
const MaxBackendEntries = 32

// ControlPlaneController is the controller owner reference among refs when
// it is a ControlPlane: a projected Glance's or GlanceBackend's.
func ControlPlaneController(refs []metav1.OwnerReference) (metav1.OwnerReference, bool) {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller && r.Kind == KindControlPlane && r.APIVersion == ControlPlaneAPIVersion {
			return r, true
		}
	}
	return metav1.OwnerReference{}, false
}
