package storeconf

import (
	"encoding/json"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
)

// SpecHash hashes the parts of a backend spec its section is rendered from;
// the store Secret carries it (names.AnnotationSpecHash) so its Glance can
// tell a section rendered from an older spec. isDefault is left out on
// purpose: switching the default must not make any store section stale,
// only the Glance's config.
func SpecHash(spec api.GlanceBackendSpec, storeID string) string {
	rendered, _ := json.Marshal(struct {
		StoreID      string            `json:"storeId"`
		Type         string            `json:"type"`
		S3           *api.S3Store      `json:"s3"`
		ExtraOptions map[string]string `json:"extraOptions"`
	}{storeID, spec.Type, spec.S3, spec.ExtraOptions})
	return contenthash.OfOne("spec", rendered)
}
