package glance

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// lastApplied holds the observed children so that one can be returned
// exactly as Metacontroller last applied it: the last-good config, the
// schema Jobs, the history a pod may mount, the Events. Nothing reads
// their content through it; what a decision or the status needs of a
// child, observe decodes into a typed field of observed.
type lastApplied struct{ objs metacontroller.ObjectMap }

// keep returns every observed child of the given types as last applied.
func (l lastApplied) keep(keys ...string) ([]any, error) {
	kept, err := l.objs.KeepAsLastApplied(keys...)
	if err != nil {
		return nil, hook.Invalid("%v", err)
	}
	return kept, nil
}

// one returns one observed child as last applied; found is false when it
// is absent.
func (l lastApplied) one(key, name string) (obj any, found bool, err error) {
	raw, found := l.objs.Get(key, name)
	if !found {
		return nil, false, nil
	}
	applied, err := metacontroller.AsLastApplied(raw)
	return applied, true, err
}

// anyOf returns one listed child as last applied, found or not: a name
// that lists null is returned as null, as observed.
func (l lastApplied) anyOf(key, name string) (any, error) {
	raw, _ := l.objs.Get(key, name)
	return metacontroller.AsLastApplied(raw)
}

// hashedChild is an observed hashed ConfigMap or backends Secret: its name
// and creation time, or why the time cannot be read (an error only when the
// history needs the time).
type hashedChild struct {
	name    string
	created metav1.Time
	err     error
}

// observeHashed lists the observed children of one type whose name has the
// hashed prefix ("<glance>-config-"), in name order; the Glance's other
// children of the type are not history. The creation time of a mounted
// one is never read, so it is not decoded.
func observeHashed(children metacontroller.ObjectMap, key, prefix string, mounted []string) []hashedChild {
	var out []hashedChild
	for _, name := range children.Names(key) {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		c := hashedChild{name: name}
		if !slices.Contains(mounted, name) {
			c.created, c.err = children.CreationTimestamp(key, name)
		}
		out = append(out, c)
	}
	return out
}

// listedChild is an observed child listed by name: present is false for a
// name the request lists as null.
type listedChild struct {
	name    string
	present bool
}

// observeListed lists the observed children of one type, in name order.
func observeListed(children metacontroller.ObjectMap, key string) []listedChild {
	names := children.Names(key)
	out := make([]listedChild, len(names))
	for i, name := range names {
		_, present := children.Get(key, name)
		out[i] = listedChild{name, present}
	}
	return out
}
