package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/c5c3/glance-hooks/hooks/api"
	"github.com/c5c3/glance-hooks/hooks/chain"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/hooks/storeconf"
)

// Validator is the validate hook's decision on one object about to be
// applied: nil admits it, an error refuses it and its text is the admission
// message. old is the stored object it replaces (nil when it is created);
// backends are the GlanceBackends stored in the object's namespace at that
// moment, the siblings the webhook lists.
type Validator func(obj, old chain.Object, backends []chain.Object) error

// SiblingDefaultMessage is the guide's refusal of a second default among the
// backends attached to one Glance.
func SiblingDefaultMessage(other, glance string) string {
	return fmt.Sprintf("GlanceBackend %q attached to the same Glance %q is already marked isDefault; exactly one default store is allowed", other, glance)
}

// DefaultValidator applies the rules the service shares between its hooks:
// the ControlPlane backends[] rules (controlplane.ValidateBackends), store
// ids (storeconf.ValidateStoreID), the GlanceBackend required fields,
// immutable fields, and the sibling rules (one default, unique store ids per
// Glance). Releasing a default is always allowed.
func DefaultValidator(obj, old chain.Object, backends []chain.Object) error {
	switch chain.RefOf(obj).Kind {
	case api.KindControlPlane:
		return validateControlPlane(obj)
	case api.KindGlanceBackend:
		return validateGlanceBackend(obj, old, backends)
	}
	return nil
}

type refusal string

func (r refusal) Error() string { return string(r) }

func refuse(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return refusal(strings.Join(problems, "; "))
}

func decode(o chain.Object, into any) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

func validateControlPlane(obj chain.Object) error {
	var cp api.ControlPlane
	if err := decode(obj, &cp); err != nil {
		return refusal(fmt.Sprintf("ControlPlane does not match its schema: %v", err))
	}
	if cp.Spec.Services.Glance == nil {
		return nil
	}
	var problems []string
	for _, p := range controlplane.ValidateBackends(cp.Spec.Services.Glance.Backends) {
		if strings.HasPrefix(p, "backends[") {
			p = "spec.services.glance." + p
		}
		problems = append(problems, p)
	}
	return refuse(problems)
}

func validateGlanceBackend(obj, oldObj chain.Object, siblingObjs []chain.Object) error {
	var b api.GlanceBackend
	if err := decode(obj, &b); err != nil {
		return refusal(fmt.Sprintf("GlanceBackend does not match its schema: %v", err))
	}
	var old *api.GlanceBackend
	if oldObj != nil {
		old = &api.GlanceBackend{}
		if err := decode(oldObj, old); err != nil {
			return refusal(fmt.Sprintf("stored GlanceBackend does not match its schema: %v", err))
		}
	}
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("GlanceBackend %q: ", b.Name)+fmt.Sprintf(format, args...))
	}
	id := b.EffectiveStoreID()
	if err := storeconf.ValidateStoreID(id); err != nil {
		add("%v", err)
	}
	glance := b.Spec.GlanceRef.Name
	if glance == "" {
		add("spec.glanceRef.name is required")
	}
	switch {
	case b.Spec.Type != api.BackendTypeS3:
		add("spec.type must be S3")
	case b.Spec.S3 == nil:
		add("spec.s3 is required when spec.type is S3")
	default:
		if b.Spec.S3.Host == "" {
			add("spec.s3.host is required")
		}
		if b.Spec.S3.Bucket == "" {
			add("spec.s3.bucket is required")
		}
		if b.Spec.S3.CredentialsSecretRef.Name == "" {
			add("spec.s3.credentialsSecretRef.name is required")
		}
	}
	if old != nil {
		if old.Spec.GlanceRef.Name != glance {
			add("spec.glanceRef.name is immutable; create a new GlanceBackend to attach a store to another Glance")
		}
		if old.Spec.Type != b.Spec.Type {
			add("spec.type is immutable")
		}
	}
	if len(problems) > 0 {
		return refuse(problems)
	}

	var siblings []api.GlanceBackend
	for _, o := range siblingObjs {
		var s api.GlanceBackend
		if err := decode(o, &s); err != nil {
			continue
		}
		if s.Name != b.Name && s.Spec.GlanceRef.Name == glance {
			siblings = append(siblings, s)
		}
	}
	sort.Slice(siblings, func(i, j int) bool { return siblings[i].Name < siblings[j].Name })
	attachedBefore := old != nil && old.Spec.GlanceRef.Name == glance
	if b.Spec.IsDefault && !(attachedBefore && old.Spec.IsDefault) {
		for _, s := range siblings {
			if s.Spec.IsDefault {
				problems = append(problems, SiblingDefaultMessage(s.Name, glance))
				break
			}
		}
	}
	if !(attachedBefore && old.EffectiveStoreID() == id) {
		for _, s := range siblings {
			if s.EffectiveStoreID() == id {
				problems = append(problems, fmt.Sprintf("store id %q of GlanceBackend %q is already used by GlanceBackend %q attached to the same Glance %q; store ids must be unique per Glance",
					id, b.Name, s.Name, glance))
				break
			}
		}
	}
	return refuse(problems)
}
