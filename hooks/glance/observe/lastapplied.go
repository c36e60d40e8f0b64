// Package observe is the first stage of the Glance hook's sync: a
// request's children and related objects decoded once into typed values,
// so no stage after it reads the request's maps.
package observe

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// LastApplied holds the observed children so that one can be returned
// exactly as Metacontroller last applied it: the last-good config, the
// schema Jobs, the history a pod may mount, the Events. Nothing reads
// their content through it; what a decision or the status needs of a
// child, observe decodes into a typed field of observed.
type LastApplied struct{ objs metacontroller.ObjectMap }

// Applied holds the observed children to return as last applied.
func Applied(children metacontroller.ObjectMap) LastApplied { return LastApplied{children} }

// Keep returns every observed child of the given types as last applied.
func (l LastApplied) Keep(keys ...string) ([]any, error) {
	kept, err := l.objs.KeepAsLastApplied(keys...)
	if err != nil {
		return nil, hook.Invalid("%v", err)
	}
	return kept, nil
}

// One returns one observed child as last applied; found is false when it
// is absent.
func (l LastApplied) One(key, name string) (obj any, found bool, err error) {
	raw, found := l.objs.Get(key, name)
	if !found {
		return nil, false, nil
	}
	applied, err := metacontroller.AsLastApplied(raw)
	return applied, true, err
}

// AnyOf returns one listed child as last applied, found or not: a name
// that lists null is returned as null, as observed.
func (l LastApplied) AnyOf(key, name string) (any, error) {
	raw, _ := l.objs.Get(key, name)
	return metacontroller.AsLastApplied(raw)
}

// HashedChild is an observed hashed ConfigMap or backends Secret: its name
// and creation time, or why the time cannot be read (an error only when the
// history needs the time).
type HashedChild struct {
	Name    string
	Created metav1.Time
	Err     error
}

// ObserveHashed lists the observed children of one type whose name has the
// hashed prefix ("<glance>-config-"), in name order; the Glance's other
// children of the type are not history. The creation time of a mounted
// one is never read, so it is not decoded.
func ObserveHashed(children metacontroller.ObjectMap, key, prefix string, mounted []string) []HashedChild {
	var out []HashedChild
	for _, name := range children.Names(key) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		c := HashedChild{Name: name}
		if !slices.Contains(mounted, name) {
			c.Created, c.Err = children.CreationTimestamp(key, name)
		}
		out = append(out, c)
	}
	return out
}

// ListedChild is an observed child listed by name: present is false for a
// name the request lists as null.
type ListedChild struct {
	Name    string
	Present bool
}

// ObserveListed lists the observed children of one type, in name order.
func ObserveListed(children metacontroller.ObjectMap, key string) []ListedChild {
	names := children.Names(key)
	out := make([]ListedChild, len(names))
	for i, name := range names {
		_, present := children.Get(key, name)
		out[i] = ListedChild{name, present}
	}
	return out
}
