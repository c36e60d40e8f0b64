package chain

import (
	"encoding/json"
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// listMapKeys are the item fields that make a list of objects a map, in the
// order Metacontroller guesses them: its apply has no type knowledge, so a
// list whose items are all objects sharing one of these fields is merged
// item by item, any other list is replaced whole.
var listMapKeys = []string{"containerPort", "port", "mountPath", "name", "uid", "ip", "path"}

// mergeApplied is the object Metacontroller sends when it updates a child
// (updateStrategy InPlace): the observed object, with the change from what it
// last applied to what the hook answers now applied on top (a three-way
// merge in the style of kubectl apply), the server-owned metadata and the
// status left as observed, and the desired object recorded as the new last
// applied. Metacontroller sends it only when it differs from the observed
// object, so an answer equal to the last applied one costs no write.
func mergeApplied(observed, desired Object) (Object, error) {
	var last any
	if s, _ := annotationsOf(observed)[metacontroller.LastAppliedAnnotation].(string); s != "" {
		if err := json.Unmarshal([]byte(s), &last); err != nil {
			return nil, fmt.Errorf("%s annotation: %w", metacontroller.LastAppliedAnnotation, err)
		}
		last = normalizeNumbers(last)
	}
	merged := deepCopy(observed)
	mergeMap(merged, asMap(last), deepCopy(desired))
	keepObserved(merged, observed, "metadata", "selfLink")
	for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		keepObserved(merged, observed, "metadata", f)
	}
	keepObserved(merged, observed, "status")
	setLastApplied(merged, desired)
	return merged, nil
}

// mergeInto applies the change from last to desired onto dst and returns the
// new value of dst: objects key by key (a key last had and desired lacks is
// removed), lists of keyed objects item by item, anything else replaced by
// the desired value. As in Metacontroller, a last or desired value of
// another type than the one in the cluster counts as absent.
func mergeInto(dst, last, desired any) any {
	switch d := dst.(type) {
	case map[string]any:
		l, _ := last.(map[string]any)
		w, _ := desired.(map[string]any)
		return mergeMap(d, l, w)
	case []any:
		l, _ := last.([]any)
		w, _ := desired.([]any)
		if key := listMapKey(d, l, w); key != "" {
			return mergeListMap(key, d, l, w)
		}
		return w
	default:
		return desired
	}
}

func mergeMap(dst, last, desired map[string]any) map[string]any {
	for k := range last {
		if _, ok := desired[k]; !ok {
			delete(dst, k)
		}
	}
	for k, v := range desired {
		dst[k] = mergeInto(dst[k], last[k], v)
	}
	return dst
}

// listMapKey is the first of listMapKeys every item of the three lists has,
// when every item is an object; "" otherwise.
func listMapKey(lists ...[]any) string {
	var common map[string]bool
	for _, list := range lists {
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return ""
			}
			if common == nil {
				common = map[string]bool{}
				for k := range m {
					common[k] = true
				}
				continue
			}
			for k := range common {
				if _, ok := m[k]; !ok {
					delete(common, k)
				}
			}
		}
	}
	for _, k := range listMapKeys {
		if common[k] {
			return k
		}
	}
	return ""
}

// mergeListMap merges lists of objects as maps by key, then lists the items
// the cluster had in its order, then the new desired ones in theirs.
func mergeListMap(key string, dst, last, desired []any) []any {
	byKey := func(list []any) map[string]any {
		m := make(map[string]any, len(list))
		for _, item := range list {
			m[keyString(item.(map[string]any)[key])] = item
		}
		return m
	}
	merged := mergeMap(byKey(dst), byKey(last), byKey(desired))
	out := make([]any, 0, len(merged))
	listed := map[string]bool{}
	for _, item := range dst {
		k := keyString(item.(map[string]any)[key])
		if v, ok := merged[k]; ok {
			out = append(out, v)
			listed[k] = true
		}
	}
	for _, item := range desired {
		k := keyString(item.(map[string]any)[key])
		if !listed[k] {
			out = append(out, merged[k])
			listed[k] = true
		}
	}
	return out
}

func keyString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// keepObserved sets the field at path in o to its value in observed, or
// removes it when observed has none.
func keepObserved(o, observed Object, path ...string) {
	parent, src := any(o), any(observed)
	for _, p := range path[:len(path)-1] {
		sm, _ := src.(map[string]any)
		src = sm[p]
		pm, ok := parent.(map[string]any)
		if !ok {
			return
		}
		next, ok := pm[p].(map[string]any)
		if !ok {
			if src == nil {
				return
			}
			next = map[string]any{}
			pm[p] = next
		}
		parent = next
	}
	last := path[len(path)-1]
	pm := parent.(map[string]any)
	if sm, _ := src.(map[string]any); sm != nil {
		if v, ok := sm[last]; ok {
			pm[last] = toJSONShape(v)
			return
		}
	}
	delete(pm, last)
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func annotationsOf(o Object) map[string]any {
	a, _ := metadataOf(o)["annotations"].(map[string]any)
	return a
}

// setLastApplied records desired as the object's last-applied configuration,
// as Metacontroller does: its JSON with sorted keys.
func setLastApplied(o, desired Object) {
	raw, _ := json.Marshal(desired)
	meta := metadataOf(o)
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[metacontroller.LastAppliedAnnotation] = string(raw)
	meta["annotations"] = ann
}
