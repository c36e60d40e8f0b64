package admission

import (
	"context"
	"fmt"
	"sort"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
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
	var b api.GlanceBackend
	if err := decodeObject(req.Object.Raw, &b); err != nil {
		return undecodable(api.KindGlanceBackend, "object", err)
	}
	var old *api.GlanceBackend
	if req.Operation == admissionv1.Update {
		old = &api.GlanceBackend{}
		if err := decodeObject(req.OldObject.Raw, old); err != nil {
			return undecodable(api.KindGlanceBackend, "oldObject", err)
		}
	}
	// An object on its way out only loses finalizers; never block that.
	if b.DeletionTimestamp != nil {
		return decision{}
	}
	name := nameOf(req, &b.ObjectMeta)
	if problems := backendProblems(&b, old); len(problems) > 0 {
		return invalid(api.KindGlanceBackend, name, problems)
	}

	glance := b.Spec.GlanceRef.Name
	// The ControlPlane's list is the single source of truth for its
	// children: what it projects was admitted as the ControlPlane (one
	// default, unique entry names), and a hand-made sibling never blocks it.
	if ProjectedOnItsGlance(&b) {
		return decision{}
	}
	id := b.EffectiveStoreID()
	attachedBefore := old != nil && old.Spec.GlanceRef.Name == glance
	// Becoming the default of this Glance needs the siblings; staying the
	// default, or releasing it, never does.
	checkDefault := b.Spec.IsDefault && !(attachedBefore && old.Spec.IsDefault)
	// A store id new to this Glance must not be taken.
	checkID := !(attachedBefore && old.EffectiveStoreID() == id)
	if !checkDefault && !checkID {
		return decision{}
	}

	ns := namespaceOf(req, &b.ObjectMeta)
	siblings, err := l.ListGlanceBackends(ctx, ns)
	if err != nil {
		return unavailable(fmt.Sprintf(
			"GlanceBackend %s cannot be checked against the other backends of Glance %s, so it is refused: listing GlanceBackends in namespace %s failed: %v",
			excerpt.Name(name), excerpt.Name(glance), excerpt.Name(ns), err))
	}
	sort.Slice(siblings, func(i, j int) bool { return siblings[i].Name < siblings[j].Name })

	var problems []string
	if checkDefault {
		for _, s := range siblings {
			if s.Name == name || s.Spec.GlanceRef.Name != glance || s.DeletionTimestamp != nil {
				continue
			}
			if s.Spec.IsDefault {
				problems = append(problems, SiblingDefaultMessage(s.Name, glance))
				break
			}
		}
		// No sibling holds the default yet, but a ControlPlane's Glance
		// takes its default from the ControlPlane alone, whatever is
		// created first: a hand-made default there would block the
		// projected one.
		if len(problems) == 0 {
			cp, err := l.GlanceControlPlane(ctx, ns, glance)
			if err != nil {
				return unavailable(fmt.Sprintf(
					"GlanceBackend %s cannot be checked against the ControlPlane of Glance %s, so it is refused: reading Glance %s in namespace %s failed: %v",
					excerpt.Name(name), excerpt.Name(glance), excerpt.Name(glance), excerpt.Name(ns), err))
			}
			if cp != "" {
				problems = append(problems, ControlPlaneDefaultMessage(name, glance, cp))
			}
		}
	}
	if checkID {
		for _, s := range siblings {
			if s.Name == name || s.Spec.GlanceRef.Name != glance || s.EffectiveStoreID() != id {
				continue
			}
			msg := StoreIDCollisionMessage(id, name, s.Name, glance)
			if s.DeletionTimestamp != nil {
				msg += fmt.Sprintf(" (GlanceBackend %s is being deleted; retry once it is gone)", excerpt.Name(s.Name))
			}
			problems = append(problems, msg)
			break
		}
	}
	if len(problems) > 0 {
		return conflict(problems)
	}
	return decision{}
}

// backendProblems are the rules a GlanceBackend must meet on its own: its
// name and store id, the spec the renderer accepts (storeconf.SpecProblems,
// the same check its sync hook makes), and that an UPDATE keeps what may not
// change.
func backendProblems(b, old *api.GlanceBackend) problem.List {
	var l problem.List
	if b.Name != "" {
		if errs := validation.IsDNS1123Subdomain(b.Name); len(errs) > 0 {
			l = append(l, problem.New("the name is not a valid object name: %s", shortValidation(errs[0])))
		}
	}
	switch id := b.EffectiveStoreID(); {
	case b.Spec.StoreID != "":
		if err := storeconf.ValidateStoreID(id); err != nil {
			l = append(l, problem.At(specPath.Child("storeId"), "%v", err))
		}
	case b.Name == "":
		l = append(l, problem.Invalid(metadataName, "is the store id when spec.storeId is unset, so a generated name cannot be used; set spec.storeId or a fixed name"))
	default:
		if err := storeconf.ValidateBackendName(id); err != nil {
			l = append(l, problem.New("its name is its store id (spec.storeId is unset), and %v", err))
		}
	}

	glance, glanceRef := b.Spec.GlanceRef.Name, specPath.Child("glanceRef", "name")
	l = append(l, problem.Wrap(specPath, storeconf.GlanceRefProblems(glance))...)

	if s3 := b.Spec.S3; s3 != nil && s3.Endpoint != "" {
		l = append(l, problem.Invalid(specPath.Child("s3", "endpoint"), "%s", api.MisnamedS3Endpoint))
	}
	l = append(l, problem.Wrap(specPath, storeconf.SpecProblems(b.Spec, storeconf.HostField))...)

	if old != nil {
		if old.Spec.GlanceRef.Name != glance {
			l = append(l, problem.Invalid(glanceRef, "is immutable; create a new GlanceBackend to attach a store to another Glance"))
		}
		if old.Spec.Type != b.Spec.Type {
			l = append(l, problem.Invalid(specPath.Child("type"), "is immutable"))
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
