// Package metacontroller holds the request and response envelopes of
// Metacontroller's CompositeController hooks (hook version v1), exactly as a
// real Metacontroller sends and reads them.
package metacontroller

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// SyncRequest is the body Metacontroller posts to a sync hook.
type SyncRequest struct {
	// Controller is the whole CompositeController object; hooks do not need it
	// and keep it raw.
	Controller json.RawMessage `json:"controller,omitempty"`
	Parent     json.RawMessage `json:"parent"`
	// Children and Related are keyed "<Kind>.<apiVersion>", then by name.
	Children   ObjectMap `json:"children"`
	Related    ObjectMap `json:"related"`
	Finalizing bool      `json:"finalizing"`
}

// SyncResponse is what a sync hook answers. Status replaces the parent's
// status whole; children not listed are deleted.
type SyncResponse struct {
	Status             any   `json:"status"`
	Children           []any `json:"children"`
	ResyncAfterSeconds int   `json:"resyncAfterSeconds,omitempty"`
	Finalized          bool  `json:"finalized,omitempty"`
}

// CustomizeRequest is the body Metacontroller posts to a customize hook.
type CustomizeRequest struct {
	Controller json.RawMessage `json:"controller,omitempty"`
	Parent     json.RawMessage `json:"parent"`
}

// CustomizeResponse names the related objects the sync hook will receive.
// Metacontroller caches it per parent UID and generation, so it may depend on
// the parent's spec only.
type CustomizeResponse struct {
	RelatedResources []RelatedResource `json:"relatedResources"`
}

// RelatedResource selects related objects by names or by label selector.
type RelatedResource struct {
	APIVersion    string                `json:"apiVersion"`
	Resource      string                `json:"resource"`
	Namespace     string                `json:"namespace,omitempty"`
	Names         []string              `json:"names,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// ObjectMap is Metacontroller's children/related map: "<Kind>.<apiVersion>"
// -> object name -> object. Objects stay raw so an object returned as
// observed keeps every field byte for byte. Each is one valid JSON value:
// the transport decodes the whole body with encoding/json, which checks all
// of it, and the in-process chain writes them with encoding/json (readers
// such as rawjson rely on it).
type ObjectMap map[string]map[string]json.RawMessage

// Key is the ObjectMap key of a kind and apiVersion, e.g. "Secret.v1".
func Key(kind, apiVersion string) string { return kind + "." + apiVersion }

// Names returns the names of the objects of one type, sorted, so callers
// iterate in a deterministic order whatever the JSON map order was.
func (m ObjectMap) Names(key string) []string {
	objs := m[key]
	names := make([]string, 0, len(objs))
	for name := range objs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Get returns the raw object of a type and name, if present.
func (m ObjectMap) Get(key, name string) (json.RawMessage, bool) {
	raw, ok := m[key][name]
	return raw, ok && len(raw) > 0 && string(raw) != "null"
}

// Decode unmarshals the objects of one type into T, in name order, and keeps
// those keep accepts. Each is decoded into its place in the result and
// judged before the next, so an object a hook does not want leaves its
// place to the next one: a request may relate hundreds of thousands of
// objects. The result is sized for all of them up to upfrontBytes (where
// most are kept, as a Glance's related backends are, it is never grown,
// and no T is copied), and grows beyond. An object that does not decode
// is an error naming it.
func Decode[T any](m ObjectMap, key string, keep func(*T) bool) ([]T, error) {
	names := m.Names(key)
	var zero T
	out := make([]T, 0, min(len(names), upfrontBytes/max(1, int(reflect.TypeFor[T]().Size()))))
	for _, name := range names {
		raw, ok := m.Get(key, name)
		if !ok {
			continue
		}
		n := len(out)
		out = append(out, zero)
		if err := rawjson.Unmarshal(raw, &out[n]); err != nil {
			return nil, decodeError(key, name, err)
		}
		if !keep(&out[n]) {
			// Zero, for the next object to decode into, and so as not
			// to hold what it refers to.
			out[n] = zero
			out = out[:n]
		}
	}
	return out, nil
}

// upfrontBytes bounds the memory Decode sets aside before it knows how
// many objects it keeps: 256 KiB is a thousand related backends as the
// Glance reads them, or two hundred whole pods.
const upfrontBytes = 256 << 10

// DecodeOne unmarshals one named object of a type; found is false when it is absent.
func DecodeOne[T any](m ObjectMap, key, name string) (obj T, found bool, err error) {
	raw, ok := m.Get(key, name)
	if !ok {
		return obj, false, nil
	}
	if err := rawjson.Unmarshal(raw, &obj); err != nil {
		return obj, true, decodeError(key, name, err)
	}
	return obj, true, nil
}

// decodeError names the object that did not decode and why, quoting no value
// from it; the name comes from the request too, so it is an excerpt.
func decodeError(key, name string, err error) error {
	return fmt.Errorf("%s %s: %s", excerpt.Bare(key), excerpt.Name(name), excerpt.JSONError(err))
}
