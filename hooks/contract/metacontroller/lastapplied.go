package metacontroller

import (
	"encoding/json"
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/internal/rawjson"
)

// LastAppliedAnnotation is where Metacontroller records what a hook last
// returned for a child.
const LastAppliedAnnotation = "metacontroller.k8s.io/last-applied-configuration"

// serverFields are metadata fields the API server sets; they never belong in
// a desired object.
var serverFields = []string{"uid", "resourceVersion", "generation", "creationTimestamp",
	"managedFields", "selfLink", "ownerReferences", "deletionTimestamp", "deletionGracePeriodSeconds"}

// AsLastApplied returns an observed child as the hook last desired it: the
// last-applied configuration Metacontroller recorded on it. Returning that
// makes Metacontroller's three-way merge a no-op, so the child stays exactly as
// observed; returning the whole observed object instead would put server-set
// fields into the desired state and into the next last-applied record. A child
// without the record (not made by Metacontroller) is returned without its
// server-set fields and status.
func AsLastApplied(raw json.RawMessage) (json.RawMessage, error) {
	if s, ok := recordAt(raw); ok {
		return fromRecord(s)
	}
	return decodedAsLastApplied(raw)
}

// decodedAsLastApplied is AsLastApplied with the object decoded whole.
func decodedAsLastApplied(raw json.RawMessage) (json.RawMessage, error) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	meta, _ := obj["metadata"].(map[string]any)
	if ann, ok := meta["annotations"].(map[string]any); ok {
		if s, ok := ann[LastAppliedAnnotation].(string); ok && s != "" {
			return fromRecord(s)
		}
	}
	for _, f := range serverFields {
		delete(meta, f)
	}
	if ann, ok := meta["annotations"].(map[string]any); ok {
		delete(ann, LastAppliedAnnotation)
	}
	delete(obj, "status")
	return json.Marshal(obj)
}

// recordAt reads the last-applied record where it is written, without
// decoding the object around it (a Job's pod template is most of it): ok is
// false when there is none or MemberAt cannot tell, and AsLastApplied then
// decodes the object whole, as it always did.
func recordAt(raw []byte) (string, bool) {
	v, sure := MemberAt(raw, "metadata", "annotations", LastAppliedAnnotation)
	if !sure || v == nil {
		return "", false
	}
	s, ok := rawjson.String(v)
	return s, ok && s != ""
}

// fromRecord is the last-applied record as the object it holds.
func fromRecord(s string) (json.RawMessage, error) {
	var last map[string]any
	if err := json.Unmarshal([]byte(s), &last); err != nil {
		return nil, fmt.Errorf("its %s annotation is not JSON", LastAppliedAnnotation)
	}
	return json.Marshal(last)
}

// KeepAsLastApplied returns every observed object of the given types, in
// type order then name order, as last applied: answering with them changes
// nothing.
func (m ObjectMap) KeepAsLastApplied(keys ...string) ([]any, error) {
	out := []any{}
	for _, key := range keys {
		for _, name := range m.Names(key) {
			raw, _ := m.Get(key, name)
			applied, err := AsLastApplied(raw)
			if err != nil {
				return nil, fmt.Errorf("observed %s %s: %w", excerpt.Bare(key), excerpt.Name(name), err)
			}
			out = append(out, applied)
		}
	}
	return out, nil
}
