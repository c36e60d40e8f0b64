package glance

import (
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// HistoryLimit bounds how many older hashed ConfigMaps (and as many backends
// Secrets) stay while a rollout is in progress, besides the desired ones and
// the ones the Deployment's template mounts.
const HistoryLimit = 3

// rolledOut reports whether every pod of the Deployment runs its current
// template, so no pod can still mount an older ConfigMap or Secret.
func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want &&
		s.Replicas == want && s.AvailableReplicas == want
}

// hashedKind is one type of hashed object: its object-map key, the prefix
// of its names, the name desired now and the names pods mount.
type hashedKind struct {
	key, prefix, desired string
	mounted              []string
}

// retained returns the observed hashed objects of one type that must stay
// besides the desired one: Metacontroller deletes what a sync stops
// returning before it creates anything new, so everything a running pod may
// still mount is returned as it was last applied. That is what the
// Deployment's template and unfinished schema Jobs mount and, while the
// rollout is in progress, the HistoryLimit newest others. Only names with
// prefix (the hashed objects: "<glance>-config-") count; the Glance's other
// children of the type are not history.
func retained(children metacontroller.ObjectMap, h hashedKind, rolling bool) ([]any, error) {
	key, prefix, desired, mounted := h.key, h.prefix, h.desired, h.mounted
	type observed struct {
		name    string
		created metav1.Time
	}
	var others []observed
	var out []any
	keep := func(name string) error {
		raw, ok := children.Get(key, name)
		if !ok {
			return nil
		}
		applied, err := metacontroller.AsLastApplied(raw)
		if err != nil {
			return hook.Invalid("observed %s %s: %v", key, excerpt.Name(name), err)
		}
		out = append(out, applied)
		return nil
	}
	for _, name := range children.Names(key) {
		if name == desired || !strings.HasPrefix(name, prefix) {
			continue
		}
		if slices.Contains(mounted, name) {
			if err := keep(name); err != nil {
				return nil, err
			}
			continue
		}
		created, err := children.CreationTimestamp(key, name)
		if err != nil {
			return nil, hook.Invalid("observed %s %s: %v", key, excerpt.Name(name), err)
		}
		others = append(others, observed{name, created})
	}
	if !rolling {
		return out, nil
	}
	sort.Slice(others, func(i, j int) bool {
		if !others[i].created.Equal(&others[j].created) {
			return others[j].created.Before(&others[i].created)
		}
		return others[i].name > others[j].name
	})
	for i, o := range others {
		if i == HistoryLimit {
			break
		}
		if err := keep(o.name); err != nil {
			return nil, err
		}
	}
	return out, nil
}
