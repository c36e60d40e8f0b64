package chain

import (
	"encoding/json"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// index finds the objects a request carries without walking the world:
// every GlanceBackend's request names a few objects by name and one label,
// and walking every object for each backend would make a round cost
// O(backends²) before any hook runs.
type index struct {
	byKind  map[string]map[Ref]struct{}
	byOwner map[string]map[Ref]struct{} // controller UID -> the objects it controls
	byLabel map[labelKey]map[Ref]struct{}
	labels  map[Ref]labels.Set
	// encoded is each object as JSON, made when a request first carries it
	// after a change: every GlanceBackend's request carries the same large
	// backends Secret, encoded once instead of once per backend.
	encoded map[Ref]json.RawMessage
}

// labelKey is one label of objects of one kind.
type labelKey struct{ kind, name, value string }

func newIndex() index {
	return index{byKind: map[string]map[Ref]struct{}{}, byOwner: map[string]map[Ref]struct{}{},
		byLabel: map[labelKey]map[Ref]struct{}{}, labels: map[Ref]labels.Set{}, encoded: map[Ref]json.RawMessage{}}
}

func add[K comparable](m map[K]map[Ref]struct{}, k K, r Ref) {
	set := m[k]
	if set == nil {
		set = map[Ref]struct{}{}
		m[k] = set
	}
	set[r] = struct{}{}
}

func (x *index) addIndex(r Ref, o Object) {
	add(x.byKind, r.Kind, r)
	if uid := controllerUID(o); uid != "" {
		add(x.byOwner, uid, r)
	}
	set := labels.Set(labelsOf(o))
	x.labels[r] = set
	for k, v := range set {
		add(x.byLabel, labelKey{r.Kind, k, v}, r)
	}
}

// unindex forgets o, the object stored under r until now.
func (x *index) unindex(r Ref, o Object) {
	delete(x.byKind[r.Kind], r)
	if uid := controllerUID(o); uid != "" {
		delete(x.byOwner[uid], r)
	}
	for k, v := range x.labels[r] {
		delete(x.byLabel[labelKey{r.Kind, k, v}], r)
	}
	delete(x.labels, r)
	delete(x.encoded, r)
}

// changed forgets the encoding of the object under r, changed in place.
func (x *index) changed(r Ref) { delete(x.encoded, r) }

// controlledBy lists the objects whose controller has the UID, sorted.
func (x *index) controlledBy(uid string) []Ref {
	refs := make([]Ref, 0, len(x.byOwner[uid]))
	for r := range x.byOwner[uid] {
		refs = append(refs, r)
	}
	SortRefs(refs)
	return refs
}

// selected are the objects of a kind a label selector may match: those
// carrying its most selective equality label, or every object of the kind
// when it has none. The caller still matches each.
func (x *index) selected(kind string, sel labels.Selector) map[Ref]struct{} {
	candidates := x.byKind[kind]
	reqs, _ := sel.Requirements()
	for _, req := range reqs {
		values := req.Values().UnsortedList()
		if len(values) != 1 || !slices.Contains([]selection.Operator{selection.Equals, selection.DoubleEquals, selection.In}, req.Operator()) {
			continue
		}
		if set := x.byLabel[labelKey{kind, req.Key(), values[0]}]; len(set) < len(candidates) {
			candidates = set
		}
	}
	return candidates
}
