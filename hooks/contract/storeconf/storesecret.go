package storeconf

import (
	"encoding/json"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
)

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
	// AnnotationSpecHash records SpecHash of the backend spec it was rendered
	// from; the Glance renders the section only when it matches the spec it sees.
	AnnotationSpecHash = api.GlanceGroup + "/spec-hash"
	// StoreSecretKey is the data key holding the section.
	StoreSecretKey = "store.conf"
	// StoreSecretSuffix makes the store Secret's name from the backend's.
	StoreSecretSuffix = "-store"
)

// StoreSecretName is the store Secret of a backend.
func StoreSecretName(backend string) string { return backend + StoreSecretSuffix }

// SpecHash hashes the parts of a backend spec its section is rendered from.
// isDefault is left out on purpose: switching the default must not make any
// store section stale, only the Glance's config.
func SpecHash(spec api.GlanceBackendSpec, storeID string) string {
	rendered, _ := json.Marshal(struct {
		StoreID      string            `json:"storeId"`
		Type         string            `json:"type"`
		S3           *api.S3Store      `json:"s3"`
		ExtraOptions map[string]string `json:"extraOptions"`
	}{storeID, spec.Type, spec.S3, spec.ExtraOptions})
	return contenthash.Of(map[string]string{"spec": string(rendered)})
}
