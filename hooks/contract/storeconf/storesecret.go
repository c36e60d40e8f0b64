package storeconf

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
)

// SpecHash hashes the parts of a backend spec its section is rendered from;
// the store Secret carries it (names.AnnotationSpecHash) so its Glance can
// tell a section rendered from an older spec. isDefault is left out on
// purpose: switching the default must not make any store section stale,
// only the Glance's config.
func SpecHash(spec api.GlanceBackendSpec, storeID string) string {
	// The JSON json.Marshal writes, encoded into a kept buffer: a Glance
	// hashes every attached store's spec each sync, and Marshal copied
	// each encoding out of its own buffer first. (Encode adds a newline,
	// which is not hashed; TestSpecHashIsOfMarshal holds the two equal.)
	buf := specBuffers.Get().(*bytes.Buffer)
	defer specBuffers.Put(buf)
	buf.Reset()
	_ = json.NewEncoder(buf).Encode(hashedSpec{storeID, spec.Type, spec.S3, spec.ExtraOptions})
	return contenthash.OfOne("spec", bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// hashedSpec is what SpecHash encodes, in this order.
type hashedSpec struct {
	StoreID      string            `json:"storeId"`
	Type         string            `json:"type"`
	S3           *api.S3Store      `json:"s3"`
	ExtraOptions map[string]string `json:"extraOptions"`
}

// specBuffers are SpecHash's buffers, one per hash running at once.
var specBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}
