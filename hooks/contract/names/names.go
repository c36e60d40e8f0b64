// Package names holds every name two parts of this service (or the service
// and the people reading its objects) must agree on: the names of projected
// and rendered objects, labels and annotations, the volumes and files of the
// glance-api Deployment, condition types read across kinds, and the keys of
// Metacontroller's object maps. A name defined twice can drift apart with no
// build or test noticing; defined here, a rename reaches every reader.
package names

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// Labels on every object the hooks create. The app.kubernetes.io ones are
// Kubernetes' recommended labels; the Glance hook also selects its pods by
// name, instance and component.
const (
	LabelName      = "app.kubernetes.io/name"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of LabelManagedBy.
	ManagedBy = "glance-hooks"
)

// The values of LabelName on everything a Glance renders and of
// LabelComponent on its glance-api pods.
const (
	AppGlance    = "glance"
	ComponentAPI = "api"
)

// APISelectorLabels select the glance-api pods of the Glance named glance:
// the Deployment's selector, which a spread constraint's labelSelector must
// equal (rules) and the Glance hook labels its objects with.
func APISelectorLabels(glance string) map[string]string {
	return map[string]string{LabelName: AppGlance, LabelInstance: glance, LabelComponent: ComponentAPI}
}

// LabelControlPlane on a projected Glance or GlanceBackend names its
// ControlPlane, so people can tell projected objects from hand-made ones.
const LabelControlPlane = "c5c3.io/controlplane"

// GlanceName is the Glance a ControlPlane projects.
func GlanceName(controlPlane string) string { return controlPlane + "-glance" }

// BackendName is the GlanceBackend a ControlPlane projects for one
// services.glance.backends[] entry.
func BackendName(controlPlane, entry string) string { return GlanceName(controlPlane) + "-" + entry }

// The store Secret is how a GlanceBackend hands its rendered section to its
// Glance. A Glance's customize hook may depend on its own spec only, and it
// cannot name the credentials Secrets of backends it has not seen; so each
// backend renders its own [<storeId>] section (credentials included) into a
// Secret it owns, labelled with its Glance's name, and the Glance selects
// those by label.
const (
	// LabelGlance on a store Secret names the Glance it is for.
	LabelGlance = api.GlanceGroup + "/glance"
	// LabelBackendsOf on a Glance's hashed backends Secret names that Glance.
	// It is distinct from LabelGlance so the two sets never overlap.
	LabelBackendsOf = api.GlanceGroup + "/backends-of"
	// AnnotationStoreID records the store id the section was rendered for.
	AnnotationStoreID = api.GlanceGroup + "/store-id"
	// AnnotationSpecHash records the hash of the backend spec the section was
	// rendered from; the Glance renders the section only when it matches the
	// spec it sees.
	AnnotationSpecHash = api.GlanceGroup + "/spec-hash"
	// StoreSecretKey is the data key holding the section.
	StoreSecretKey = "store.conf"
)

// StoreSecretName is the store Secret of a backend.
func StoreSecretName(backend string) string { return backend + "-store" }

// The glance-api Deployment mounts the hashed ConfigMap and backends Secret
// as two volumes, one file each. The Glance hook writes them; a GlanceBackend
// reads the backends volume back to tell whether its section is in the
// running config, and the guide reads both volume names with kubectl.
const (
	VolumeConfig   = "config"
	VolumeBackends = "backends"
	// ConfigFile is the ConfigMap's data key, glance-api.conf.
	ConfigFile = "glance-api.conf"
	// BackendsFile is the backends Secret's data key, every store section.
	BackendsFile = "backends.conf"
)

// LabelConfigBase on a hashed ConfigMap or backends Secret names its family,
// the name before the hash (`<glance>-config`, `<glance>-backends`). It is
// the reference's key: a script written for the reference finds the current
// and the older objects of a family by it, never by the hash.
const LabelConfigBase = "cobaltcore.c5c3.io/config-base"

// ConfigBase is the family of the hashed ConfigMap of the Glance named glance.
func ConfigBase(glance string) string { return glance + "-config" }

// BackendsBase is the family of the hashed backends Secret of the Glance
// named glance.
func BackendsBase(glance string) string { return glance + "-backends" }

// The Glance hook builds the database URL from the Secret the spec names
// (keys username and password) into a Secret of its own, which the pods read
// as OS_DATABASE__CONNECTION. The webhook refuses a database or service-user
// Secret of that name: it belongs to the hook.
const DBConnectionKey = "connection"

// DBConnectionSecretName is the Secret holding a Glance's database URL.
func DBConnectionSecretName(glance string) string { return glance + "-db-connection" }

// The Glance hook copies the service user's password, escaped for
// oslo.config, into a Secret of its own, which the pods read as
// OS_KEYSTONE_AUTHTOKEN__PASSWORD: oslo.config interpolates '$' in
// environment values as in files, so the user's Secret cannot be read
// directly. The webhook refuses a database or service-user Secret of that
// name too.
const AuthtokenPasswordKey = "password"

// AuthtokenSecretName is the Secret holding a Glance's escaped service
// password.
func AuthtokenSecretName(glance string) string { return glance + "-authtoken" }

// AnnotationCredentialsDigest on the glance pod templates (the Deployment's
// and the schema Jobs') changes when the database URL or the service user's
// password does, so rotated credentials roll the pods; only a keyed digest
// of them is there (see the Glance hook's credentials).
const AnnotationCredentialsDigest = api.GlanceGroup + "/credentials-digest"

// LabelSchemaAction on a schema Job says what it does: sync, expand,
// migrate or contract.
const LabelSchemaAction = api.GlanceGroup + "/schema-action"

// ConditionCredentialsReady is the GlanceBackend condition its Glance reads
// to tell whether the backend's store can be rendered.
const ConditionCredentialsReady = "CredentialsReady"

// ConditionCABundleReady is the GlanceBackend condition that says whether
// the CA bundle its spec names exists and holds certificates; its Glance
// reads it for a store that names one.
const ConditionCABundleReady = "CABundleReady"

// A store's CA bundle reaches glance-api as a file: the GlanceBackend checks
// the bundle its spec names and records its digest on the store Secret; the
// Glance mounts that ConfigMap or Secret key, read-only, at a directory
// derived from the store id, and the store section names the file
// (s3_store_cacert). The digests of every mounted bundle are annotated on
// the pod template, so a new bundle content rolls the pods.
const (
	// CABundleDir holds one directory per store with a CA bundle.
	CABundleDir = "/etc/glance/s3-ca"
	// CABundleFile is the file name of a bundle in its store's directory.
	CABundleFile = "ca.crt"
	// AnnotationCABundleDigest on a store Secret is the SHA-256 of the CA
	// bundle the backend checked, "sha256:<hex>".
	AnnotationCABundleDigest = api.GlanceGroup + "/ca-bundle-digest"
	// AnnotationCABundles on the glance-api pod template lists
	// "<storeId>=<digest>" of every mounted bundle, sorted, comma-separated.
	AnnotationCABundles = api.GlanceGroup + "/ca-bundles"
)

// CABundleMountDir is where a store's CA bundle is mounted.
func CABundleMountDir(storeID string) string { return CABundleDir + "/" + storeID }

// CABundlePath is the file s3_store_cacert names for a store.
func CABundlePath(storeID string) string { return CABundleMountDir(storeID) + "/" + CABundleFile }

// CABundleVolume is the pod volume of a store's CA bundle. Store ids may
// hold '.' and '_' and 63 characters, which a volume name (a DNS label) may
// not, so the name carries a hash of the id; the mount path carries the id.
func CABundleVolume(storeID string) string {
	sum := sha256.Sum256([]byte(storeID))
	return "s3-ca-" + hex.EncodeToString(sum[:])[:10]
}

// Keys of Metacontroller's children and related object maps, one per type
// the hooks read or write.
var (
	GlancesKey        = metacontroller.Key(api.KindGlance, api.GlanceAPIVersion)
	GlanceBackendsKey = metacontroller.Key(api.KindGlanceBackend, api.GlanceAPIVersion)
	SecretsKey        = metacontroller.Key("Secret", "v1")
	ConfigMapsKey     = metacontroller.Key("ConfigMap", "v1")
	ServicesKey       = metacontroller.Key("Service", "v1")
	DeploymentsKey    = metacontroller.Key("Deployment", "apps/v1")
	JobsKey           = metacontroller.Key("Job", "batch/v1")

	PodDisruptionBudgetsKey     = metacontroller.Key("PodDisruptionBudget", "policy/v1")
	HorizontalPodAutoscalersKey = metacontroller.Key("HorizontalPodAutoscaler", "autoscaling/v2")
	// PodsKey: pods are related objects, never children: the Glance's
	// pods, and the pods of a ControlPlane's registration Jobs.
	PodsKey            = metacontroller.Key("Pod", "v1")
	ServiceAccountsKey = metacontroller.Key("ServiceAccount", "v1")
	// EventsKey: the Glance's Events are its children, in the
	// events.k8s.io form (EventAPIVersion) its registration declares.
	EventsKey = metacontroller.Key("Event", EventAPIVersion)
)

// EventAPIVersion is the API of the Events the Glance returns. A child of
// another apiVersion than the registration's would be deleted and created
// again on every sync.
const EventAPIVersion = "events.k8s.io/v1"

// MaxJobName is the longest Job name: the Job controller labels its pods
// with the name, and a label value has at most 63 characters.
const MaxJobName = 63

// JobName is prefix + suffix, the prefix cut (and any '-' it then ends in
// dropped) so the name fits MaxJobName. The suffix carries a hash, so two
// prefixes cut to the same text still give different names.
func JobName(prefix, suffix string) string {
	if len(prefix)+len(suffix) > MaxJobName {
		prefix = strings.TrimRight(prefix[:MaxJobName-len(suffix)], "-")
	}
	return prefix + suffix
}

// The objects a ControlPlane's registration in Keystone consists of.
const (
	// ComponentRegistration labels the registration Job, its pods and its
	// ServiceAccount; ComponentDeregistration the deregistration Job.
	ComponentRegistration   = "keystone-registration"
	ComponentDeregistration = "keystone-deregistration"
	// LabelJobName is the label the Job controller puts on a Job's pods.
	LabelJobName = "batch.kubernetes.io/job-name"
)

// RegistrationServiceAccount runs a ControlPlane's registration Jobs.
func RegistrationServiceAccount(controlPlane string) string {
	return GlanceName(controlPlane) + "-keystone"
}

// RegistrationJobPrefix and DeregistrationJobPrefix start the names of a
// ControlPlane's registration and deregistration Jobs; a hash follows.
func RegistrationJobPrefix(controlPlane string) string { return GlanceName(controlPlane) + "-register" }

// DeregistrationJobPrefix: see RegistrationJobPrefix.
func DeregistrationJobPrefix(controlPlane string) string {
	return GlanceName(controlPlane) + "-deregister"
}
