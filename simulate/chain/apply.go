package chain

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// Cluster is what applying a sync's answer reads and writes: the World in
// memory, or a real API server through a client (an integration test's
// Metacontroller). ApplySync holds Metacontroller's rules once, for both.
type Cluster interface {
	// Observed is the object under r as the cluster holds it now, JSON-shaped;
	// the caller never modifies it.
	Observed(r Ref) (Object, bool, error)
	// Create creates a child.
	Create(o Object) error
	// Update replaces a child with o, which carries the observed
	// resourceVersion (a write since then is a conflict).
	Update(o Object) error
	// Delete deletes a child.
	Delete(r Ref) error
	// UpdateStatus writes a parent's status through the status
	// subresource when it differs from the stored one.
	UpdateStatus(r Ref, status map[string]any) error
}

// ApplySync writes what a sync of the parent (as read for the sync)
// answered, as Metacontroller does: children the answer stops returning are
// deleted first; a new child is created with its last-applied record and
// controller reference; an existing one is updated with the three-way merge
// of mergeApplied, and only when that changes it; the status, with
// observedGeneration, is written only when it differs from the stored one.
// observed are the children the request carried.
func ApplySync(cl Cluster, c Controller, parent Object, observed metacontroller.ObjectMap, resp *metacontroller.SyncResponse) error {
	r := RefOf(parent)
	desired, err := desiredChildren(r, observed, resp.Children)
	if err != nil {
		return err
	}
	if err := deleteUndesired(cl, r, observed, desired); err != nil {
		return err
	}
	uid, _ := metadataOf(parent)["uid"].(string)
	p := owner{ref: r, uid: uid, onDelete: c.OnDelete}
	for _, cr := range SortedRefs(desired) {
		if err := applyChild(cl, p, cr, desired[cr]); err != nil {
			return err
		}
	}
	return writeStatus(cl, r, parent, resp.Status)
}

// desiredChildren reads the children a sync answered, each placed in the
// parent's namespace; one elsewhere, of an undeclared type, or returned
// twice fails the sync, as Metacontroller refuses it.
func desiredChildren(r Ref, observed metacontroller.ObjectMap, children []any) (map[Ref]Object, error) {
	desired := map[Ref]Object{}
	for i, child := range children {
		o, ok := toJSONShape(child).(map[string]any)
		if !ok {
			return nil, fmt.Errorf("sync %s: child %d is not an object", r, i)
		}
		cr := RefOf(o)
		if cr.Namespace == "" {
			cr.Namespace = r.Namespace
			metadataOf(o)["namespace"] = r.Namespace
		}
		if cr.Namespace != r.Namespace {
			return nil, fmt.Errorf("sync %s: child %s is in another namespace", r, cr)
		}
		if _, declared := observed[metacontroller.Key(cr.Kind, cr.APIVersion)]; !declared {
			return nil, fmt.Errorf("sync %s: child %s is not of a declared child type", r, cr)
		}
		if _, dup := desired[cr]; dup {
			return nil, fmt.Errorf("sync %s: child %s returned twice", r, cr)
		}
		desired[cr] = o
	}
	return desired, nil
}

// deleteUndesired deletes the observed children the answer no longer
// returns, skipping those already on their way out.
func deleteUndesired(cl Cluster, r Ref, observed metacontroller.ObjectMap, desired map[Ref]Object) error {
	for key, objs := range observed {
		kind, apiVersion, _ := strings.Cut(key, ".")
		for name := range objs {
			cr := Ref{APIVersion: apiVersion, Kind: kind, Namespace: r.Namespace, Name: name}
			if _, keep := desired[cr]; keep {
				continue
			}
			o, ok, err := cl.Observed(cr)
			if err != nil {
				return err
			}
			if !ok || metadataOf(o)["deletionTimestamp"] != nil {
				continue
			}
			if err := cl.Delete(cr); err != nil {
				return fmt.Errorf("sync %s: delete %s: %w", r, cr, err)
			}
		}
	}
	return nil
}

// owner is the parent a sync's children are written for.
type owner struct {
	ref Ref
	uid string
	// onDelete are the child types Metacontroller creates but never
	// updates (the controller's updateStrategy OnDelete).
	onDelete []Type
}

// applyChild creates or updates one desired child: a new one with its
// last-applied record and controller reference, an existing one with the
// three-way merge, and only when that changes it.
func applyChild(cl Cluster, p owner, cr Ref, o Object) error {
	labelController(o, p.uid)
	existing, exists, err := cl.Observed(cr)
	if err != nil {
		return err
	}
	if exists && controllerUID(existing) != p.uid {
		return fmt.Errorf("sync %s: child %s exists and belongs to another owner", p.ref, cr)
	}
	if exists && slices.Contains(p.onDelete, Type{cr.APIVersion, cr.Kind}) {
		return nil
	}
	if !exists {
		setLastApplied(o, o)
		meta := metadataOf(o)
		refs, _ := meta["ownerReferences"].([]any)
		meta["ownerReferences"] = append(refs, map[string]any{
			"apiVersion": p.ref.APIVersion, "kind": p.ref.Kind, "name": p.ref.Name, "uid": p.uid,
			"controller": true, "blockOwnerDeletion": true,
		})
		if err := cl.Create(o); err != nil {
			return fmt.Errorf("sync %s: %w", p.ref, err)
		}
		return nil
	}
	merged, err := mergeApplied(existing, o)
	if err != nil {
		return fmt.Errorf("sync %s: child %s: %w", p.ref, cr, err)
	}
	if reflect.DeepEqual(merged, existing) || metadataOf(existing)["deletionTimestamp"] != nil {
		return nil
	}
	if err := cl.Update(merged); err != nil {
		return fmt.Errorf("sync %s: %w", p.ref, err)
	}
	return nil
}

// labelController labels a child with its parent's uid unless the hook
// did, as Metacontroller does with generateSelector before it records the
// last-applied configuration.
func labelController(o Object, uid string) {
	meta := metadataOf(o)
	l, _ := meta["labels"].(map[string]any)
	if l == nil {
		l = map[string]any{}
	}
	if _, ok := l["controller-uid"]; !ok {
		l["controller-uid"] = uid
	}
	meta["labels"] = l
}

// writeStatus writes the answered status with observedGeneration, only
// when it differs from the parent's.
func writeStatus(cl Cluster, r Ref, parent Object, answered any) error {
	status, ok := toJSONShape(answered).(map[string]any)
	if !ok {
		status = map[string]any{}
	}
	status["observedGeneration"] = toInt(metadataOf(parent)["generation"])
	if err := cl.UpdateStatus(r, status); err != nil {
		return fmt.Errorf("sync %s: status: %w", r, err)
	}
	return nil
}

// StatusDiffers reports whether a status (JSON-shaped) differs from the
// one stored on o, as Metacontroller compares them before it writes.
func StatusDiffers(o Object, status map[string]any) bool {
	return !reflect.DeepEqual(toJSONShape(o["status"]), any(status))
}
