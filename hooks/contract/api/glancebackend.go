package api

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// BackendTypeS3 is the only store type so far.
const BackendTypeS3 = "S3"

// Credential data keys every credentials Secret carries.
const (
	AccessKeyIDKey     = "access-key-id"
	SecretAccessKeyKey = "secret-access-key"
)

// GlanceBackend is one image store attached to a Glance.
type GlanceBackend struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GlanceBackendSpec   `json:"spec"`
	Status GlanceBackendStatus `json:"status,omitzero"`
}

// GlanceBackendSpec describes the store.
type GlanceBackendSpec struct {
	// GlanceRef names the Glance (same namespace) this store is attached to.
	GlanceRef LocalObjectReference `json:"glanceRef"`
	// Type of the store; only S3.
	Type string `json:"type"`
	// IsDefault marks the store images land in when a client names none.
	IsDefault bool `json:"isDefault"`
	// StoreID is the id glance-api knows the store by (its config section and
	// its id in /v2/info/stores). Defaults to metadata.name. A ControlPlane sets
	// it to the backends[] entry name.
	StoreID string `json:"storeId,omitempty"`
	// S3 settings; required when type is S3.
	S3 *S3Store `json:"s3,omitempty"`
	// ExtraOptions are added to the store's config section. They may not
	// override an option the service renders itself.
	ExtraOptions map[string]string `json:"extraOptions,omitempty"`
}

// S3Store is the S3 part of a GlanceBackend.
type S3Store struct {
	// Host is the S3 endpoint URL (http or https). Required (the CRD says
	// so with a rule rather than `required`, so that its rule for a
	// misnamed endpoint still runs).
	Host      string `json:"host,omitempty"`
	S3Options `json:",inline"`
	// Endpoint is a ControlPlane entry's name for Host, never valid here:
	// declared so the CRD and the webhook refuse a copied entry naming
	// Host (MisnamedS3Endpoint) instead of only calling it unknown.
	Endpoint string `json:"endpoint,omitempty"`
}

// The refusals of the S3 address under the other kind's name (one home:
// the webhook's messages and the CRDs' rules, which a test holds equal).
const (
	MisnamedS3Endpoint = "is how a ControlPlane's backends entry names the S3 address: a GlanceBackend names it s3.host"
	MisnamedS3Host     = "is how a GlanceBackend names the S3 address: a ControlPlane's backends entry names it s3.endpoint"
)

// S3Options are the S3 settings a GlanceBackend and a ControlPlane's
// backends[] entry share; the two differ only in the name of the endpoint
// field (host, endpoint). A ControlPlane projects them into its
// GlanceBackend unchanged, so a field added here reaches both kinds and the
// projection at once.
type S3Options struct {
	// Bucket holds the image data.
	Bucket string `json:"bucket"`
	// Region is the SigV4 region; omitted from the config when empty.
	Region string `json:"region,omitempty"`
	// BucketURLFormat is path or virtual; default path.
	BucketURLFormat string `json:"bucketURLFormat,omitempty"`
	// CredentialsSecretRef names a Secret in the same namespace with the keys
	// access-key-id and secret-access-key.
	CredentialsSecretRef LocalObjectReference `json:"credentialsSecretRef"`
	// CreateBucketOnPut lets glance-api create the bucket on first upload.
	CreateBucketOnPut *bool `json:"createBucketOnPut,omitempty"`
	// LargeObjectSize (MiB) above which uploads are multipart.
	LargeObjectSize *int64 `json:"largeObjectSize,omitempty"`
	// LargeObjectChunkSize (MiB) of each multipart chunk.
	LargeObjectChunkSize *int64 `json:"largeObjectChunkSize,omitempty"`
	// CABundleRef names the PEM certificates glance-api trusts for this
	// store's https:// endpoint instead of the system trust roots; unset,
	// the system trust roots are used.
	CABundleRef *CABundleRef `json:"caBundleRef,omitempty"`
}

// Kinds a CA bundle may be read from.
const (
	CABundleKindConfigMap = "ConfigMap"
	CABundleKindSecret    = "Secret"
	// DefaultCABundleKey is the data key cert-manager's Secrets and the
	// kube-root-ca.crt ConfigMap keep a CA certificate under.
	DefaultCABundleKey = "ca.crt"
)

// CABundleRef names a key of a ConfigMap or Secret in the same namespace
// that holds PEM CA certificates. A ConfigMap is the default: a CA bundle is
// public, and trust-manager's Bundle writes ConfigMaps; a Secret is taken
// for bundles that only exist in one (cert-manager's ca.crt).
type CABundleRef struct {
	// Kind is ConfigMap (default) or Secret.
	Kind string `json:"kind,omitempty"`
	// Name of the ConfigMap or Secret.
	Name string `json:"name"`
	// Key holding the PEM bundle; default ca.crt.
	Key string `json:"key,omitempty"`
}

// EffectiveKind is Kind, or ConfigMap when unset.
func (r CABundleRef) EffectiveKind() string {
	if r.Kind == "" {
		return CABundleKindConfigMap
	}
	return r.Kind
}

// EffectiveKey is Key, or ca.crt when unset.
func (r CABundleRef) EffectiveKey() string {
	if r.Key == "" {
		return DefaultCABundleKey
	}
	return r.Key
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	Name string `json:"name"`
}

// GlanceBackendStatus is written by the GlanceBackend sync hook.
type GlanceBackendStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	// StoreID is the resolved store id, for printer columns and debugging.
	StoreID string `json:"storeId,omitempty"`
}

// EffectiveStoreID is spec.storeId, or the object's name when unset.
func (b *GlanceBackend) EffectiveStoreID() string {
	if b.Spec.StoreID != "" {
		return b.Spec.StoreID
	}
	return b.Name
}
