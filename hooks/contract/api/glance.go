package api

import (
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
	// MetadefsPath is where the image keeps Glance's metadata definitions,
	// which the schema Jobs load; default /var/lib/openstack/etc/glance/metadefs.
	MetadefsPath string `json:"metadefsPath,omitempty"`
	// Resources of the glance-api container; default requests of 250m CPU
	// and 512Mi memory, and a limit of 1Gi memory.
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`
	// ImportMethods are the interoperable image import methods glance-api
	// offers ([DEFAULT] enabled_import_methods); default glance-direct and
	// copy-image.
	ImportMethods []string `json:"importMethods,omitempty"`
	// Staging is where each pod keeps image data between stage and import.
	Staging *StagingSpec `json:"staging,omitempty"`
	// Scheduling places the glance-api pods on nodes.
	Scheduling *SchedulingSpec `json:"scheduling,omitempty"`
	// Autoscaling, when set, lets a HorizontalPodAutoscaler set the number
	// of glance-api pods; replicas is then not used.
	Autoscaling *AutoscalingSpec `json:"autoscaling,omitempty"`
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

// StagingSpec sizes the staging area of each glance-api pod: the image data
// a client stages (PUT /v2/images/{id}/stage) waits there for its import,
// which the pod that staged it runs.
type StagingSpec struct {
	// Size of the staging area of one pod; default 10Gi. An emptyDir's
	// sizeLimit (the kubelet evicts a pod whose staging grows beyond it),
	// or the size a volume claim asks for.
	Size *resource.Quantity `json:"size,omitempty"`
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

// SchedulingSpec is where glance-api pods may run, as in a pod spec.
type SchedulingSpec struct {
	// NodeSelector the nodes must match.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// Affinity of the pods, as in a pod spec.
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// Tolerations of the pods.
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// TopologySpreadConstraints replace the default spread (across nodes,
	// then zones, both ScheduleAnyway). A constraint without labelSelector
	// selects the Glance's glance-api pods.
	TopologySpreadConstraints []corev1.TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// PriorityClassName of the pods.
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// AutoscalingSpec is the HorizontalPodAutoscaler of the glance-api pods.
type AutoscalingSpec struct {
	// MinReplicas; default 2.
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas, at least minReplicas.
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetCPUUtilizationPercentage of the CPU request; default 80.
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`
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
	// SecretRef names the Secret with the keys username and password. The
	// hooks build the connection URL from them into a Secret of their own;
	// it reaches glance-api only as an environment variable.
	SecretRef LocalObjectReference `json:"secretRef"`
}

// Data keys of the database Secret, as the guide's devstack writes it.
const (
	DatabaseUsernameKey = "username"
	DatabasePasswordKey = "password"
)

// CacheSpec is the memcached glance-api caches tokens in: a memcached
// cluster reachable as the Service <clusterRef.name>:11211 in the Glance's
// namespace, or explicit servers. Exactly one of the two is set.
type CacheSpec struct {
	ClusterRef *LocalObjectReference `json:"clusterRef,omitempty"`
	// Servers are host:port addresses of memcached servers.
	Servers []string `json:"servers,omitempty"`
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
	// InstalledRelease is the release whose schema is complete in the
	// database, and InstalledImage the image its schema Job ran; glance-api
	// runs that image unless an upgrade has rolled it further.
	InstalledRelease string `json:"installedRelease,omitempty"`
	InstalledImage   string `json:"installedImage,omitempty"`
	// Upgrade is the release upgrade in progress, if any.
	Upgrade *UpgradeStatus `json:"upgrade,omitempty"`
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
