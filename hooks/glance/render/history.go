package render

import (
	"slices"
	"sort"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// HistoryLimit bounds how many older hashed ConfigMaps (and as many backends
// Secrets) stay while a rollout is in progress, besides the desired ones and
// the ones the Deployment's template mounts.
const HistoryLimit = 3

// RolledOut reports whether every pod of the Deployment runs its current
// template, so no pod can still mount an older ConfigMap or Secret.
func RolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want &&
		s.Replicas == want && s.AvailableReplicas == want
}

// HashedKind is one type of hashed object: its object-map key, the
// observed objects of the type with the hashed prefix, the name desired now
// and the names pods mount.
type HashedKind struct {
	Key      string
	Observed []observe.HashedChild
	Desired  string
	Mounted  []string
}

// Retained returns the observed hashed objects of one type that must stay
// besides the desired one: Metacontroller deletes what a sync stops
// returning before it creates anything new, so everything a running pod may
// still mount is returned as it was last applied. That is what the
// Deployment's template and unfinished schema Jobs mount and, while the
// rollout is in progress, the HistoryLimit newest others. Only names with
// the hashed prefix count (observeHashed).
func Retained(children observe.LastApplied, h HashedKind, rolling bool) ([]any, error) {
	var others []observe.HashedChild
	var out []any
	keep := func(name string) error {
		applied, found, err := children.One(h.Key, name)
		if err != nil {
			return hook.Invalid("observed %s %s: %v", h.Key, excerpt.Name(name), err)
		}
		if found {
			out = append(out, applied)
		}
		return nil
	}
	for _, c := range h.Observed {
		if c.Name == h.Desired {
			continue
		}
		if slices.Contains(h.Mounted, c.Name) {
			if err := keep(c.Name); err != nil {
				return nil, err
			}
			continue
		}
		if c.Err != nil {
			return nil, hook.Invalid("observed %s %s: %v", h.Key, excerpt.Name(c.Name), c.Err)
		}
		others = append(others, c)
	}
	if !rolling {
		return out, nil
	}
	sort.Slice(others, func(i, j int) bool {
		if !others[i].Created.Equal(&others[j].Created) {
			return others[j].Created.Before(&others[i].Created)
		}
		return others[i].Name > others[j].Name
	})
	for i, o := range others {
		if i == HistoryLimit {
			break
		}
		if err := keep(o.Name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// KeptWhileInvalid keeps a reach feature's children of one kind as last
// applied while the spec is invalid: a hostname or a rule it holds is not
// rendered. what names them in the condition, which is reported only when
// the feature's field is set.
func KeptWhileInvalid(children observe.LastApplied, key string, set bool, condType, what string) ([]any, *hook.Condition, error) {
	kept, err := children.Keep(key)
	if err != nil || !set {
		return kept, nil, err
	}
	return kept, &hook.Condition{Type: condType, Reason: model.ReasonInvalidSpec, Message: what + " kept as last applied: the Glance spec is invalid"}, nil
}
