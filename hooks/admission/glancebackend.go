package admission

import (
	"context"
	"fmt"
	"sort"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
)

// SiblingDefaultMessage is the guide's refusal of a second default among the
// backends attached to one Glance.
func SiblingDefaultMessage(other, glance string) string {
	return fmt.Sprintf("GlanceBackend %s attached to the same Glance %s is already marked isDefault; exactly one default store is allowed", excerpt.Name(other), excerpt.Name(glance))
}

// StoreIDCollisionMessage refuses a store id another backend of the same
// Glance already uses; it names both backends.
func StoreIDCollisionMessage(id, name, other, glance string) string {
	return fmt.Sprintf("store id %s of GlanceBackend %s is already used by GlanceBackend %s attached to the same Glance %s; store ids must be unique per Glance",
		excerpt.Name(id), excerpt.Name(name), excerpt.Name(other), excerpt.Name(glance))
}

func reviewGlanceBackend(ctx context.Context, req *admissionv1.AdmissionRequest, l Lister) decision {
	b, old, refused := decodeBackendReview(req)
	if refused != nil {
		return *refused
	}
	// An object on its way out only loses finalizers; never block that.
	if b.DeletionTimestamp != nil {
		return decision{}
	}
	name := nameOf(req, &b.ObjectMeta)
	if problems := backendProblems(b, old); len(problems) > 0 {
		return invalid(api.KindGlanceBackend, name, problems)
	}
	// The ControlPlane's list is the single source of truth for its
	// children: what it projects was admitted as the ControlPlane (one
	// default, unique entry names), and a hand-made sibling never blocks it.
	if ProjectedOnItsGlance(b) {
		return decision{}
	}
	a := attachmentOf(b, old, name, namespaceOf(req, &b.ObjectMeta))
	if !a.checkDefault && !a.checkID {
		return decision{}
	}
	return a.review(ctx, l)
}

// decodeBackendReview reads the object and, on an UPDATE, the old one; a
// non-nil decision refuses what does not decode.
func decodeBackendReview(req *admissionv1.AdmissionRequest) (b, old *api.GlanceBackend, refused *decision) {
	b = &api.GlanceBackend{}
	if err := decodeObject(req.Object.Raw, b); err != nil {
		d := undecodable(api.KindGlanceBackend, "object", err)
		return nil, nil, &d
	}
	if req.Operation != admissionv1.Update {
		return b, nil, nil
	}
	old = &api.GlanceBackend{}
	if err := decodeObject(req.OldObject.Raw, old); err != nil {
		d := undecodable(api.KindGlanceBackend, "oldObject", err)
		return nil, nil, &d
	}
	return b, old, nil
}

// attachment is a backend as its siblings on the same Glance see it, and
// which of the checks against them its change calls for.
type attachment struct {
	name, namespace, glance, id string
	// checkDefault: becoming the default of this Glance needs the
	// siblings; staying the default, or releasing it, never does.
	checkDefault bool
	// checkID: a store id new to this Glance must not be taken.
	checkID bool
}

func attachmentOf(b, old *api.GlanceBackend, name, namespace string) attachment {
	a := attachment{name: name, namespace: namespace, glance: b.Spec.GlanceRef.Name, id: b.EffectiveStoreID()}
	attachedBefore := old != nil && old.Spec.GlanceRef.Name == a.glance
	a.checkDefault = b.Spec.IsDefault && !(attachedBefore && old.Spec.IsDefault)
	a.checkID = !(attachedBefore && old.EffectiveStoreID() == a.id)
	return a
}

// review runs the checks the attachment calls for against the namespace's
// backends; what cannot be read refuses, since an unchecked default or id
// could break the Glance.
func (a attachment) review(ctx context.Context, l Lister) decision {
	siblings, err := l.ListGlanceBackends(ctx, a.namespace)
	if err != nil {
		return unavailable(fmt.Sprintf(
			"GlanceBackend %s cannot be checked against the other backends of Glance %s, so it is refused: listing GlanceBackends in namespace %s failed: %v",
			excerpt.Name(a.name), excerpt.Name(a.glance), excerpt.Name(a.namespace), err))
	}
	sort.Slice(siblings, func(i, j int) bool { return siblings[i].Name < siblings[j].Name })

	var problems []string
	if a.checkDefault {
		msg, err := a.defaultTaken(ctx, l, siblings)
		if err != nil {
			return unavailable(err.Error())
		}
		if msg != "" {
			problems = append(problems, msg)
		}
	}
	if a.checkID {
		if msg := a.idTaken(siblings); msg != "" {
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return conflict(problems)
	}
	return decision{}
}

// sibling reports whether s is another backend attached to the same Glance.
func (a attachment) sibling(s *api.GlanceBackend) bool {
	return s.Name != a.name && s.Spec.GlanceRef.Name == a.glance
}

// defaultTaken says why the backend cannot become the default: a live
// sibling holds it, or the Glance is a ControlPlane's.
func (a attachment) defaultTaken(ctx context.Context, l Lister, siblings []api.GlanceBackend) (string, error) {
	for i := range siblings {
		s := &siblings[i]
		if a.sibling(s) && s.DeletionTimestamp == nil && s.Spec.IsDefault {
			return SiblingDefaultMessage(s.Name, a.glance), nil
		}
	}
	// No sibling holds the default yet, but a ControlPlane's Glance takes
	// its default from the ControlPlane alone, whatever is created first: a
	// hand-made default there would block the projected one.
	cp, err := l.GlanceControlPlane(ctx, a.namespace, a.glance)
	if err != nil {
		return "", fmt.Errorf(
			"GlanceBackend %s cannot be checked against the ControlPlane of Glance %s, so it is refused: reading Glance %s in namespace %s failed: %w",
			excerpt.Name(a.name), excerpt.Name(a.glance), excerpt.Name(a.glance), excerpt.Name(a.namespace), err)
	}
	if cp != "" {
		return ControlPlaneDefaultMessage(a.name, a.glance, cp), nil
	}
	return "", nil
}

// idTaken names the first sibling that already uses the store id; one being
// deleted still holds it until it is gone.
func (a attachment) idTaken(siblings []api.GlanceBackend) string {
	for i := range siblings {
		s := &siblings[i]
		if !a.sibling(s) || s.EffectiveStoreID() != a.id {
			continue
		}
		msg := StoreIDCollisionMessage(a.id, a.name, s.Name, a.glance)
		if s.DeletionTimestamp != nil {
			msg += fmt.Sprintf(" (GlanceBackend %s is being deleted; retry once it is gone)", excerpt.Name(s.Name))
		}
		return msg
	}
	return ""
}

// backendProblems are the rules a GlanceBackend must meet on its own
// (rules.GlanceBackend, which its sync hook runs too), and that an UPDATE
// keeps what may not change.
func backendProblems(b, old *api.GlanceBackend) problem.List {
	l := rules.GlanceBackend(b)
	if old != nil {
		// The CRD's transition rules, in their words, which are the reference's.
		if old.Spec.GlanceRef.Name != b.Spec.GlanceRef.Name {
			l = append(l, problem.At(specPath.Child("glanceRef"), "glanceRef is immutable"))
		}
		if old.Spec.Type != b.Spec.Type {
			l = append(l, problem.At(specPath.Child("type"), "type is immutable"))
		}
	}
	return l
}

// ControlPlaneDefaultMessage refuses a hand-made default on a ControlPlane's
// Glance when no projected default exists yet to name.
func ControlPlaneDefaultMessage(name, glance, controlPlane string) string {
	return fmt.Sprintf("GlanceBackend %s cannot be the default store of Glance %s: ControlPlane %s projects that Glance, "+
		"and its spec.services.glance.backends[] alone sets the default; attach a hand-made backend as a non-default store",
		excerpt.Name(name), excerpt.Name(glance), excerpt.Name(controlPlane))
}

// ProjectedOnItsGlance reports whether a GlanceBackend is a ControlPlane's
// projected child (its controller is a ControlPlane) attached to that
// ControlPlane's own Glance.
func ProjectedOnItsGlance(b *api.GlanceBackend) bool {
	cp, ok := api.ControlPlaneController(b.OwnerReferences)
	return ok && b.Spec.GlanceRef.Name == names.GlanceName(cp.Name)
}
