package api

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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

// GlanceSpec is what the Glance service needs besides its stores. Its shape
// and names are the reference Glance API's (the C5C3 glance-operator), so a
// Glance written for it applies here; the fields after DropRetiredStores'
// block are this project's own additions, placed where the reference would
// put them.
type GlanceSpec struct {
	// OpenStackRelease, e.g. "2025.2"; the default image tag, the launch
	// mode and the schema the database is prepared for.
	OpenStackRelease string `json:"openStackRelease"`
	// Deployment holds the pod-level knobs of the glance-api Deployment.
	Deployment *DeploymentSpec `json:"deployment,omitempty"`
	// Image of glance-api; defaults to ghcr.io/c5c3/glance:<openStackRelease>.
	Image *ImageSpec `json:"image,omitempty"`
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
	// Region is [keystone_authtoken] region_name; unset, the option is left
	// out and keystonemiddleware takes the catalog's first region.
	Region string `json:"region,omitempty"`
	// APIServer sizes the API server of the release's launch mode.
	APIServer *APIServerSpec `json:"apiServer,omitempty"`
	// Staging bounds each pod's scratch space for image imports.
	Staging *StagingSpec `json:"staging,omitempty"`
	// Autoscaling, when set, lets a HorizontalPodAutoscaler set the number
	// of glance-api pods; deployment.replicas is then not used.
	Autoscaling *AutoscalingSpec `json:"autoscaling,omitempty"`
	// Logging is how glance-api logs (oslo.log).
	Logging *LoggingSpec `json:"logging,omitempty"`

	// The reference's feature blocks (glance_blocks.go), each built by a
	// feature of hooks/glance. TargetClusterRef is part of the schema so a
	// reference CR decodes whole; admission refuses it as not supported yet
	// (LaterFields) rather than let it be ignored.
	ImportFiltering  *ImportFilteringSpec         `json:"importFiltering,omitempty"`
	ImportPlugins    *ImportPluginsSpec           `json:"importPlugins,omitempty"`
	DBPurge          *DBPurgeSpec                 `json:"dbPurge,omitempty"`
	ImageCache       *ImageCacheSpec              `json:"imageCache,omitempty"`
	Gateway          *GatewaySpec                 `json:"gateway,omitempty"`
	NetworkPolicy    *NetworkPolicySpec           `json:"networkPolicy,omitempty"`
	SecretStoreRef   *SecretStoreRefSpec          `json:"secretStoreRef,omitempty"`
	TargetClusterRef *LocalObjectReference        `json:"targetClusterRef,omitempty"`
	PolicyOverrides  *PolicySpec                  `json:"policyOverrides,omitempty"`
	Middleware       []MiddlewareSpec             `json:"middleware,omitempty"`
	Plugins          []PluginSpec                 `json:"plugins,omitempty"`
	ExtraConfig      map[string]map[string]string `json:"extraConfig,omitempty"`

	// MetadefsPath is where the image keeps Glance's metadata definitions,
	// which the schema Jobs load; default /var/lib/openstack/etc/glance/metadefs.
	MetadefsPath string `json:"metadefsPath,omitempty"`
	// ImportMethods are the interoperable image import methods glance-api
	// offers ([DEFAULT] enabled_import_methods); default glance-direct and
	// copy-image.
	ImportMethods []string `json:"importMethods,omitempty"`
	// DropRetiredStores lists store ids whose section may go once their
	// backend is gone. A store whose GlanceBackend is deleted (or whose
	// ControlPlane entry is removed) is retired: its section stays, never
	// as the default, so the images in it stay readable, until it is listed
	// here (after its images were moved, or are no longer needed).
	DropRetiredStores []string `json:"dropRetiredStores,omitempty"`
}

// Import methods glance-api knows (enabled_import_methods).
const (
	ImportGlanceDirect = "glance-direct"
	ImportWebDownload  = "web-download"
	ImportCopyImage    = "copy-image"
)

// ImportMethods are the methods a Glance may enable, in the order they are
// rendered.
var ImportMethods = []string{ImportGlanceDirect, ImportWebDownload, ImportCopyImage}

// DeploymentSpec is the glance-api Deployment's pod-level knobs. Placement
// (nodeSelector, affinity, tolerations) is this project's addition.
type DeploymentSpec struct {
	// Replicas of the glance-api Deployment; default 3, as the reference's, at least 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Resources of the glance-api container; default requests of 100m CPU
	// and 512Mi memory, and a limit of 1Gi memory. No request may exceed
	// its limit.
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// TerminationGracePeriodSeconds of the pods; default 30.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// PreStopSleepSeconds has each pod sleep that long before it is told to
	// stop, so it leaves the Service's endpoints first; default 5, 0 for
	// none.
	PreStopSleepSeconds *int64 `json:"preStopSleepSeconds,omitempty"`
	// Strategy replaces the default rollout (one surge pod, none unavailable).
	Strategy *appsv1.DeploymentStrategy `json:"strategy,omitempty"`
	// TopologySpreadConstraints replace the default spread (across nodes,
	// then zones, both ScheduleAnyway). A constraint without labelSelector
	// selects the Glance's glance-api pods; one with it must name them by
	// the Deployment's selector, as matchLabels only.
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// PriorityClassName of the pods.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// NodeSelector the nodes must match.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Affinity of the pods, as in a pod spec.
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations of the pods.
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// StagingSpec bounds the staging area of each glance-api pod: the image data
// a client stages (PUT /v2/images/{id}/stage) waits there for its import,
// which the pod that staged it runs. The tasks area gets the same bound.
type StagingSpec struct {
	// SizeLimit of each area; default 10Gi, at least 1Mi. An emptyDir's
	// sizeLimit (the kubelet evicts a pod whose staging grows beyond it),
	// or the size a volume claim asks for.
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
	// Unbounded leaves the emptyDirs without a sizeLimit; it excludes
	// sizeLimit and volumeClaim.
	Unbounded bool `json:"unbounded,omitempty"`
	// VolumeClaim, when set, puts each pod's staging area on a volume of
	// its own (a generic ephemeral volume: a PersistentVolumeClaim made
	// with the pod and deleted with it) instead of an emptyDir.
	VolumeClaim *StagingVolumeClaim `json:"volumeClaim,omitempty"`
}

// StagingVolumeClaim is the volume claim of each pod's staging area.
type StagingVolumeClaim struct {
	// StorageClassName of the claim; the cluster's default class when unset.
	StorageClassName string `json:"storageClassName,omitempty"`
}

// APIServerSpec sizes the glance-api server. Below 2026.1 glance-api is the
// eventlet server and Workers is its workers option; from 2026.1 it runs
// under uWSGI as UWSGI says. The knob of the other mode is inert, and
// admission warns when it is set.
type APIServerSpec struct {
	// Workers of the eventlet server; default 2.
	Workers *int32 `json:"workers,omitempty"`
	// UWSGI is the uWSGI server's settings.
	UWSGI *UWSGISpec `json:"uwsgi,omitempty"`
}

// UWSGISpec is the uWSGI launch mode's server.
type UWSGISpec struct {
	// Processes; default 2.
	Processes *int32 `json:"processes,omitempty"`
	// Threads per process; default 4.
	Threads *int32 `json:"threads,omitempty"`
	// HTTPKeepAlive keeps client connections open between requests
	// (HTTP/1.1); default off, each answer closes its connection.
	HTTPKeepAlive *bool `json:"httpKeepAlive,omitempty"`
	// Harakiri, in seconds, ends a worker whose request runs longer.
	Harakiri *int32 `json:"harakiri,omitempty"`
	// HTTPKeepAliveTimeout, in seconds, closes an idle kept-alive
	// connection; only with httpKeepAlive.
	HTTPKeepAliveTimeout *int32 `json:"httpKeepAliveTimeout,omitempty"`
}

// ImageSpec is a container image: a repository and either a tag or a digest.
type ImageSpec struct {
	Repository string `json:"repository,omitempty"`
	Tag        string `json:"tag,omitempty"`
	// Digest pins the image by content, sha256:<64 hex digits>; it excludes tag.
	Digest string `json:"digest,omitempty"`
}

// Reference is the image as a container runtime pulls it.
func (i ImageSpec) Reference() string {
	if i.Digest != "" {
		return i.Repository + "@" + i.Digest
	}
	return i.Repository + ":" + i.Tag
}

// DatabaseSpec is the MariaDB database glance-api keeps its catalogue in:
// a database cluster in the Glance's namespace (clusterRef), or an external
// server (host). Exactly one of the two is set.
type DatabaseSpec struct {
	// ClusterRef names the database cluster, reached as <name>.<namespace>.svc.
	ClusterRef *LocalObjectReference `json:"clusterRef,omitempty"`
	// Host is an external server's DNS name or IP address.
	Host string `json:"host,omitempty"`
	// Port of the server; default 3306.
	Port *int32 `json:"port,omitempty"`
	// Database is the schema's name, e.g. glance.
	Database string `json:"database"`
	// SecretRef names the Secret with the database user: its key username
	// holds the user name, and its key Key (default password, as the
	// reference's) the password. The hooks build the connection URL from
	// them into a Secret of their own; it reaches glance-api only as an
	// environment variable.
	SecretRef SecretKeyRef `json:"secretRef"`
	// CredentialsMode says who issues the user in the Secret: Static (the
	// default), a long-lived user; Dynamic, short-lived users a secrets
	// engine issues for the database cluster (clusterRef) and rotates. The
	// hooks provision no database user in either mode, and roll the pods
	// whenever the Secret changes (docs/hooks.md, "Database").
	CredentialsMode string `json:"credentialsMode,omitempty"`
	// TLS, when set, has the connection use TLS (docs/hooks.md, "Database
	// TLS").
	TLS *DatabaseTLSSpec `json:"tls,omitempty"`
	// Replicas and StorageSize size a database cluster the reference
	// operator creates; these hooks create none, and admission says so.
	Replicas    *int32 `json:"replicas,omitempty"`
	StorageSize string `json:"storageSize,omitempty"`
}

// Database credential modes.
const (
	CredentialsStatic  = "Static"
	CredentialsDynamic = "Dynamic"
)

// CredentialsModeFault is what is wrong with a database credentials mode,
// whatever words the field that holds it is refused in: the Glance's
// database.credentialsMode and the ControlPlane's
// services.glance.databaseCredentialsMode break the same two rules.
type CredentialsModeFault int

const (
	// CredentialsModeFine: unset (Static), Static, or Dynamic on a managed
	// database.
	CredentialsModeFine CredentialsModeFault = iota
	// CredentialsModeUnknown: neither Static nor Dynamic.
	CredentialsModeUnknown
	// CredentialsModeUnmanaged: Dynamic on a database no clusterRef names,
	// for which no secrets engine issues users.
	CredentialsModeUnmanaged
)

// CheckCredentialsMode judges mode for a database that is managed (names
// a clusterRef) or not.
func CheckCredentialsMode(mode string, managed bool) CredentialsModeFault {
	switch {
	case mode != "" && mode != CredentialsStatic && mode != CredentialsDynamic:
		return CredentialsModeUnknown
	case mode == CredentialsDynamic && !managed:
		return CredentialsModeUnmanaged
	}
	return CredentialsModeFine
}

// DatabaseTLSSpec is the database connection's TLS.
type DatabaseTLSSpec struct {
	// Mode is how the server is checked: disabled, prefer, require,
	// verify-ca or verify-full (default).
	Mode string `json:"mode,omitempty"`
	// CABundleSecretRef names the Secret key with the CA bundle the
	// server's certificate is checked against; key default ca.crt.
	CABundleSecretRef SecretKeyRef `json:"caBundleSecretRef"`
	// ClientCertSecretRef names a kubernetes.io/tls Secret whose tls.crt
	// and tls.key glance-api presents.
	ClientCertSecretRef SecretKeyRef `json:"clientCertSecretRef"`
}

// TLS modes of a database connection, as MariaDB's and libpq's ssl-mode
// name them.
const (
	DBTLSDisabled   = "disabled"
	DBTLSPrefer     = "prefer"
	DBTLSRequire    = "require"
	DBTLSVerifyCA   = "verify-ca"
	DBTLSVerifyFull = "verify-full"
)

// Data keys of the database Secret, as the guide's devstack writes it:
// the user name's, and the password's unless database.secretRef.key names
// another.
const (
	DatabaseUsernameKey = "username"
	DatabasePasswordKey = "password"
)

// CacheSpec is the memcached glance-api caches tokens in: a memcached
// cluster reachable as the Service <clusterRef.name>:11211 in the Glance's
// namespace, or explicit servers. Exactly one of the two is set.
type CacheSpec struct {
	// Backend is the oslo.cache backend; dogpile.cache.pymemcache is the
	// one keystonemiddleware's token cache uses here.
	Backend    string                `json:"backend,omitempty"`
	ClusterRef *LocalObjectReference `json:"clusterRef,omitempty"`
	// Servers are host:port addresses of memcached servers.
	Servers []string `json:"servers,omitempty"`
	// Replicas sizes a memcached cluster the reference operator creates;
	// these hooks create none, and admission says so.
	Replicas *int32 `json:"replicas,omitempty"`
}

// ServiceUserSpec is glance's Keystone service user.
type ServiceUserSpec struct {
	// The names default to glance, service, Default and Default.
	Username          string       `json:"username,omitempty"`
	ProjectName       string       `json:"projectName,omitempty"`
	UserDomainName    string       `json:"userDomainName,omitempty"`
	ProjectDomainName string       `json:"projectDomainName,omitempty"`
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
	// InstalledRelease is the release whose schema is complete in the
	// database, and InstalledImage the image its schema Job ran; glance-api
	// runs that image unless an upgrade has rolled it further.
	InstalledRelease string `json:"installedRelease,omitempty"`
	InstalledImage   string `json:"installedImage,omitempty"`
	// Upgrade is the release upgrade in progress, if any.
	Upgrade *UpgradeStatus `json:"upgrade,omitempty"`
	// LastUpgrade is how the last release upgrade ended, kept until another
	// one ends: the Event of an upgrade's end reads it, as nothing else in
	// the status says where the installed release came from.
	LastUpgrade *UpgradeEnd `json:"lastUpgrade,omitempty"`
	// TargetRelease and UpgradePhase repeat Upgrade's, where the reference
	// reports them; empty when no upgrade is under way.
	TargetRelease string `json:"targetRelease,omitempty"`
	UpgradePhase  string `json:"upgradePhase,omitempty"`
	// Endpoint is the URL of the glance-api Service.
	Endpoint string `json:"endpoint,omitempty"`
	// RetiringStores are stores whose backend is gone and whose section
	// the config keeps until spec.dropRetiredStores lists them.
	RetiringStores []RetiringStore `json:"retiringStores,omitempty"`
}

// RetiringStore is one store whose backend is gone.
type RetiringStore struct {
	StoreID string `json:"storeId"`
	// Kept says whether its section is still in the config.
	Kept    bool   `json:"kept"`
	Message string `json:"message"`
}

// UpgradeStatus is a release upgrade on its way: expand, migrate, roll the
// Deployment, contract.
type UpgradeStatus struct {
	// Phase is Expanding, Migrating, RollingUpdate or Contracting.
	Phase         string `json:"phase"`
	TargetRelease string `json:"targetRelease"`
	TargetImage   string `json:"targetImage"`
}

// UpgradeEnd is how a release upgrade ended: Complete once its contract
// step succeeded, Aborted when the spec went back to the installed release
// before it.
type UpgradeEnd struct {
	// Result is Complete or Aborted.
	Result string `json:"result"`
	// FromRelease was installed when the upgrade began (and, once
	// Aborted, still is); ToRelease is its target.
	FromRelease string `json:"fromRelease"`
	ToRelease   string `json:"toRelease"`
	// EndedAt is DatabaseReady's lastTransitionTime of the end: an Event is
	// made for that transition, not for a later one (a patch bump's sync).
	EndedAt metav1.Time `json:"endedAt"`
}

// Results of a release upgrade.
const (
	UpgradeComplete = "Complete"
	UpgradeAborted  = "Aborted"
)

// Phases of a release upgrade, in order.
const (
	PhaseExpanding     = "Expanding"
	PhaseMigrating     = "Migrating"
	PhaseRollingUpdate = "RollingUpdate"
	PhaseContracting   = "Contracting"
)

// BackendStatus reports one attached GlanceBackend; a skipped one also gets a
// GlanceBackendSkipped Warning Event, made from this entry.
type BackendStatus struct {
	Name      string `json:"name"`
	StoreID   string `json:"storeId"`
	IsDefault bool   `json:"isDefault"`
	Projected bool   `json:"projected"`
	// Reason is set when the store is not projected, e.g. GlanceBackendSkipped.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}
