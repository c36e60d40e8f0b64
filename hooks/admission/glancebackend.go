package admission

import (
	"context"
	"fmt"
	"sort"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/c5c3/glance-hooks/hooks/api"
	"github.com/c5c3/glance-hooks/hooks/storeconf"
)

// SiblingDefaultMessage is the guide's refusal of a second default among the
// backends attached to one Glance.
func SiblingDefaultMessage(other, glance string) string {
	return fmt.Sprintf("GlanceBackend %q attached to the same Glance %q is already marked isDefault; exactly one default store is allowed", other, glance)
}

// StoreIDCollisionMessage refuses a store id another backend of the same
// Glance already uses; it names both backends.
func StoreIDCollisionMessage(id, name, other, glance string) string {
	return fmt.Sprintf("store id %q of GlanceBackend %q is already used by GlanceBackend %q attached to the same Glance %q; store ids must be unique per Glance", id, name, other, glance)
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
			"GlanceBackend %q cannot be checked against the other backends of Glance %q, so it is refused: listing GlanceBackends in namespace %q failed: %v",
			name, glance, ns, err))
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
	}
	if checkID {
		for _, s := range siblings {
			if s.Name == name || s.Spec.GlanceRef.Name != glance || s.EffectiveStoreID() != id {
				continue
			}
			msg := StoreIDCollisionMessage(id, name, s.Name, glance)
			if s.DeletionTimestamp != nil {
				msg += fmt.Sprintf(" (GlanceBackend %q is being deleted; retry once it is gone)", s.Name)
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

// backendProblems are the rules a GlanceBackend must meet on its own.
func backendProblems(b, old *api.GlanceBackend) []string {
	var out []string
	add := func(p string) { out = append(out, p) }

	switch {
	case b.Spec.StoreID != "":
		if err := storeconf.ValidateStoreID(b.Spec.StoreID); err != nil {
			add("spec.storeId: " + err.Error())
		}
	case b.Name == "":
		add("metadata.name is the store id when spec.storeId is unset, so a generated name cannot be used; set spec.storeId or a fixed name")
	default:
		if err := storeconf.ValidateStoreID(b.Name); err != nil {
			add("its name is its store id (spec.storeId is unset), and " + err.Error())
		}
	}

	glance := b.Spec.GlanceRef.Name
	if glance == "" {
		add("spec.glanceRef.name is required")
	} else if errs := validation.IsDNS1035Label(glance); len(errs) > 0 {
		add(fmt.Sprintf("spec.glanceRef.name %q cannot name a Glance: %s", glance, shortValidation(errs[0])))
	}

	switch {
	case b.Spec.Type != api.BackendTypeS3:
		add("spec.type must be S3")
	case b.Spec.S3 == nil:
		add("spec.s3 is required when spec.type is S3")
	default:
		s := b.Spec.S3
		if s.Host == "" {
			add("spec.s3.host is required")
		}
		if s.Bucket == "" {
			add("spec.s3.bucket is required")
		}
		if s.CredentialsSecretRef.Name == "" {
			add("spec.s3.credentialsSecretRef.name is required")
		}
		for _, p := range checkS3Values("spec.s3", s3Fields{hostField: "host", host: s.Host, bucket: s.Bucket,
			region: s.Region, format: s.BucketURLFormat, largeSize: s.LargeObjectSize, largeChunk: s.LargeObjectChunkSize}) {
			add(p)
		}
	}
	for _, p := range checkExtraOptions("spec.extraOptions", b.Spec.ExtraOptions) {
		add(p)
	}

	if old != nil {
		if old.Spec.GlanceRef.Name != glance {
			add("spec.glanceRef.name is immutable; create a new GlanceBackend to attach a store to another Glance")
		}
		if old.Spec.Type != b.Spec.Type {
			add("spec.type is immutable")
		}
	}
	return out
}
