package metacontroller

import (
	"encoding/json"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// This file is where the objects of a request are read as values: the
// hooks call these functions and read no bytes themselves. Each gives the
// answer, and the error, that decoding with encoding/json gives; where a
// faster reading of the bytes can tell it, that reading is used.

// DecodeObject decodes one object of a request, such as a hook's parent,
// into obj, as encoding/json's Unmarshal does. obj must point to a zero
// value.
func DecodeObject(raw json.RawMessage, obj any) error { return rawjson.Unmarshal(raw, obj) }

// CreationTimestamp returns the metadata.creationTimestamp of the object of
// a type and name as decoding its whole metadata (a metav1.ObjectMeta)
// gives it, and that decoding's error as encoding/json reports it, for the
// caller to name the object. The type and name are one that Names lists.
func (m ObjectMap) CreationTimestamp(key, name string) (metav1.Time, error) {
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := rawjson.Unmarshal(m[key][name], &obj); err != nil {
		return metav1.Time{}, err
	}
	return obj.Metadata.CreationTimestamp, nil
}

// StringKeys names the members ReadStrings reads of an object's
// metadata.labels, metadata.annotations and data.
type StringKeys struct {
	Labels, Annotations, Data []string
}

// ObjectStrings is what ReadStrings read of an object: the value of each
// key asked for, in the order asked ("" for one that is absent or null),
// and the object's metadata.ownerReferences.
type ObjectStrings struct {
	Labels, Annotations, Data []string
	OwnerReferences           []metav1.OwnerReference
}

// ReadStrings reads the named object's labels, annotations and data for
// the keys asked for, and its ownerReferences, as decoding the object with
// each of the three as a map[string]string gives them, with that
// decoding's error (naming the object, as DecodeOne does); found is false
// when it is absent. The maps are read for the keys asked for only: a
// Secret's annotations hold Metacontroller's last-applied record, as long
// as the Secret and full of escapes, and a hook that checks two
// annotations need not decode it. Where that reading cannot tell what
// encoding/json would make of the object, the object is decoded whole.
func (m ObjectMap) ReadStrings(key, name string, keys StringKeys) (s ObjectStrings, found bool, err error) {
	raw, found := m.Get(key, name)
	if !found {
		return s, false, nil
	}
	if s, ok := pickStrings(raw, keys); ok {
		return s, true, nil
	}
	whole, _, err := DecodeOne[stringMaps](m, key, name)
	if err != nil {
		return s, true, err
	}
	return ObjectStrings{
		Labels:          values(whole.Metadata.Labels, keys.Labels),
		Annotations:     values(whole.Metadata.Annotations, keys.Annotations),
		Data:            values(whole.Data, keys.Data),
		OwnerReferences: whole.Metadata.OwnerReferences,
	}, true, nil
}

// stringMaps is what ReadStrings decodes of an object whole.
type stringMaps struct {
	Metadata struct {
		Labels          map[string]string       `json:"labels"`
		Annotations     map[string]string       `json:"annotations"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

// values returns the values of keys in m, in their order.
func values(m map[string]string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// pickStrings is ReadStrings without decoding any map whole: ok is false
// where it cannot tell what decoding stringMaps gives, and always where
// that decoding fails.
func pickStrings(raw []byte, keys StringKeys) (ObjectStrings, bool) {
	// One slice holds the values of the three maps.
	values := make([]string, len(keys.Labels)+len(keys.Annotations)+len(keys.Data))
	var p pickedStrings
	p.Metadata.Labels = pickedMap{keys.Labels, values[:len(keys.Labels):len(keys.Labels)]}
	values = values[len(keys.Labels):]
	p.Metadata.Annotations = pickedMap{keys.Annotations, values[:len(keys.Annotations):len(keys.Annotations)]}
	p.Data = pickedMap{keys.Data, values[len(keys.Annotations):]}
	if !rawjson.Decode(raw, &p) {
		return ObjectStrings{}, false
	}
	return ObjectStrings{
		Labels:          p.Metadata.Labels.read(),
		Annotations:     p.Metadata.Annotations.read(),
		Data:            p.Data.read(),
		OwnerReferences: p.Metadata.OwnerReferences,
	}, true
}

// pickedStrings is stringMaps with each map read for the keys asked for.
// It is decoded with rawjson.Decode only, never with encoding/json: a
// pickedMap fails where rawjson.PickStrings cannot answer, and ReadStrings
// then decodes a stringMaps instead.
type pickedStrings struct {
	Metadata struct {
		Labels          pickedMap               `json:"labels"`
		Annotations     pickedMap               `json:"annotations"`
		OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	} `json:"metadata"`
	Data pickedMap `json:"data"`
}

// pickedMap is a map[string]string read for keys only: values are theirs,
// in their order, "" for a key the map does not hold or a map that is
// absent.
type pickedMap struct {
	keys, values []string
}

var errUnsure = errors.New("decode the map whole")

// UnmarshalJSON fails: a pickedMap is for rawjson.Decode, which reads it
// with DecodeJSONAt. With encoding/json, ReadStrings decodes stringMaps.
func (p *pickedMap) UnmarshalJSON([]byte) error { return errUnsure }

// DecodeJSONAt reads the map where rawjson.Decode finds it, for the keys
// only, in the one pass over the object that reads the rest of it.
func (p *pickedMap) DecodeJSONAt(data []byte, i int) (int, bool) {
	return rawjson.PickStringsAt(data, i, p.values, p.keys...)
}

// read returns the values of the keys.
func (p *pickedMap) read() []string { return p.values }

// SecretData returns one member of the named Secret's data, still base64,
// as decoding the Secret's data as a map[string]string gives it ("" for one
// that is absent or null), with that decoding's error (naming the Secret,
// as DecodeOne does); found is false when the Secret is absent. The member
// is read without decoding the rest of the Secret where that can tell
// (dataMember): one Secret may hold the store sections of a thousand
// backends, and each of them reads it.
func (m ObjectMap) SecretData(key, name, member string) (encoded []byte, found bool, err error) {
	raw, found := m.Get(key, name)
	if !found {
		return nil, false, nil
	}
	if encoded, ok := dataMember(raw, member); ok {
		return encoded, true, nil
	}
	secret, _, err := DecodeOne[secretData](m, key, name)
	if err != nil {
		return nil, true, err
	}
	return []byte(secret.Data[member]), true, nil
}

// secretData is what SecretData decodes of a Secret whole.
type secretData struct {
	Data map[string]string `json:"data"`
}

// dataMember reads the member of a Secret's data without decoding the
// rest of the Secret. ok is false when only decoding the Secret as
// secretData can tell what it holds (see rawjson), and always where that
// decoding would fail: a data value that is not a string.
func dataMember(secret []byte, member string) (encoded []byte, ok bool) {
	data, res := rawjson.Field(secret, "data")
	switch {
	case res == rawjson.Unsure:
		return nil, false
	case res == rawjson.Absent || rawjson.IsNull(data):
		return nil, true
	}
	exact := true
	whole := rawjson.Members(data, func(key []byte, plain bool, v []byte) bool {
		switch {
		case !plain:
			exact = false // it may spell the key with escapes
		case string(key) != member:
			// Any other value only has to be one secretData can hold.
			exact = v[0] == '"' || rawjson.IsNull(v)
		case rawjson.IsNull(v):
			encoded = nil
		default:
			encoded, exact = rawjson.StringBytes(v)
		}
		return exact
	})
	return encoded, whole && exact
}
