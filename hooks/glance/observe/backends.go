package observe

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// observedBackend is a related GlanceBackend as far as the Glance reads it:
// identity, creation time, owner, spec, and the conditions it reads.
// The related backends are every one in the namespace, so the rest of their
// metadata, never read, is not decoded.
type observedBackend struct {
	Metadata struct {
		Name              string                  `json:"name,omitempty"`
		Namespace         string                  `json:"namespace,omitempty"`
		UID               types.UID               `json:"uid,omitempty"`
		CreationTimestamp metav1.Time             `json:"creationTimestamp,omitempty"`
		DeletionTimestamp *metav1.Time            `json:"deletionTimestamp,omitempty"`
		OwnerReferences   []metav1.OwnerReference `json:"ownerReferences,omitempty"`
	} `json:"metadata"`
	Spec   api.GlanceBackendSpec `json:"spec"`
	Status struct {
		Conditions []struct {
			Type               string                 `json:"type"`
			Status             metav1.ConditionStatus `json:"status"`
			LastTransitionTime metav1.Time            `json:"lastTransitionTime,omitempty"`
			Reason             string                 `json:"reason"`
			Message            string                 `json:"message"`
		} `json:"conditions,omitempty"`
	} `json:"status"`
}

// backend is the observed backend as the API type, with what was read.
func (o *observedBackend) backend() api.GlanceBackend {
	var b api.GlanceBackend
	b.Name, b.Namespace, b.UID, b.DeletionTimestamp = o.Metadata.Name, o.Metadata.Namespace, o.Metadata.UID, o.Metadata.DeletionTimestamp
	b.OwnerReferences = o.Metadata.OwnerReferences
	b.CreationTimestamp = o.Metadata.CreationTimestamp
	b.Spec = o.Spec
	// Only the conditions evaluate and StoresReachable read: each is a
	// metav1.Condition of its own, and a backend reports six. Counted
	// first, they take one slice of their size.
	kept := 0
	for _, c := range o.Status.Conditions {
		if readCondition(c.Type) {
			kept++
		}
	}
	if kept == 0 {
		return b
	}
	b.Status.Conditions = make([]metav1.Condition, 0, kept)
	for _, c := range o.Status.Conditions {
		if readCondition(c.Type) {
			b.Status.Conditions = append(b.Status.Conditions, metav1.Condition{Type: c.Type, Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
		}
	}
	return b
}

// readCondition reports whether the Glance reads a backend's condition of the type.
func readCondition(conditionType string) bool {
	return conditionType == names.ConditionCredentialsReady || conditionType == names.ConditionCABundleReady ||
		conditionType == names.ConditionStoreReachable
}

// AttachedStores returns the backends attached to this Glance (not being
// deleted), sorted by store id, each with its section when its store Secret
// exists, belongs to it, and was rendered from its current spec.
func AttachedStores(g *api.Glance, related metacontroller.ObjectMap) ([]*model.Store, error) {
	// The related backends are every one in the namespace; only those
	// attached to this Glance are kept.
	observed, err := metacontroller.Decode(related, names.GlanceBackendsKey, func(o *observedBackend) bool {
		return o.Spec.GlanceRef.Name == g.Name && o.Metadata.DeletionTimestamp == nil && o.Metadata.Namespace == g.Namespace
	})
	if err != nil {
		return nil, hook.Invalid("related %v", err)
	}
	// One backing array: a store each would cost an allocation per
	// backend.
	values := make([]model.Store, len(observed))
	stores := make([]*model.Store, len(observed))
	byID := make(map[string][]*model.Store, len(observed))
	for i, o := range observed {
		values[i] = newStore(g, o.backend())
		s := &values[i]
		stores[i] = s
		byID[s.ID] = append(byID[s.ID], s)
	}
	sort.Slice(stores, func(i, j int) bool {
		if stores[i].ID != stores[j].ID {
			return stores[i].ID < stores[j].ID
		}
		return stores[i].Backend.Name < stores[j].Backend.Name
	})
	// Once per store id: with n backends sharing one, asking for each of
	// them cost n².
	holders := make(map[string]*model.Store, len(byID))
	for id, sharing := range byID {
		holders[id] = projectedHolder(sharing)
	}
	for _, s := range stores {
		if why := sharedID(s, byID[s.ID], holders[s.ID]); why != "" {
			s.Skip(why)
			continue
		}
		if err := Evaluate(s, g, related); err != nil {
			return nil, err
		}
	}
	return stores, nil
}

// newStore is an attached backend as a store. On a ControlPlane's Glance,
// the ControlPlane's backends[] list is the single source of truth for the
// default and for the store ids it names.
func newStore(g *api.Glance, b api.GlanceBackend) model.Store {
	s := model.Store{Backend: b, ID: b.EffectiveStoreID()}
	owner, fromControlPlane := api.ControlPlaneController(g.OwnerReferences)
	if !fromControlPlane {
		return s
	}
	ref, ok := api.ControlPlaneController(b.OwnerReferences)
	s.Projected = ok && ref.UID == owner.UID
	s.DefaultIgnored = b.Spec.IsDefault && !s.Projected
	if s.DefaultIgnored {
		s.Ignored = fmt.Sprintf("isDefault is ignored: ControlPlane %q sets the default store of this Glance in spec.services.glance.backends[]; the store is attached as a non-default store", owner.Name)
	}
	return s
}

// sharedID says why a store whose id other backends use too is skipped, ""
// when it keeps the id: it is the only one, or the projected holder of it.
func sharedID(s *model.Store, sharing []*model.Store, holder *model.Store) string {
	if holder != nil && holder != s {
		return fmt.Sprintf("store id %q is the ControlPlane's entry, projected as GlanceBackend %q; a hand-made backend needs another id", s.ID, holder.Backend.Name)
	}
	if len(sharing) > 1 && holder == nil {
		// One other backend named, not all of them: with n backends
		// sharing an id, n messages naming n backends each made the
		// answer grow with n².
		other := sharing[0]
		if other == s {
			other = sharing[1]
		}
		return fmt.Sprintf("store id %q is also used by GlanceBackend %q (%d backends use it)", s.ID, other.Backend.Name, len(sharing))
	}
	return ""
}

// projectedHolder is the one projected backend among those sharing a store
// id, which keeps the id on a ControlPlane's Glance; nil when there is none
// or more than one.
func projectedHolder(sharing []*model.Store) *model.Store {
	var p *model.Store
	for _, s := range sharing {
		if s.Projected {
			if p != nil {
				return nil
			}
			p = s
		}
	}
	return p
}

// Why a store on its way is left out; one message for every step of the
// way, so the Glance's status does not change while it arrives.
const PendingMessage = "its store is not rendered yet"

// usableWhen is a GlanceBackend condition a store needs True, and what a
// store is skipped for when the backend reports it is not.
type usableWhen struct{ condition, fault string }

// Evaluate decides whether one store can be rendered, and why not: a fault
// (the backend's spec, its credentials or CA bundle as the backend reports
// them, a store Secret that is not its own or not as the service writes it)
// skips it, naming the cause; a store still on its way is pending.
func Evaluate(s *model.Store, g *api.Glance, related metacontroller.ObjectMap) error {
	if problems := storeconf.BackendProblems(s.Backend.Spec, s.ID); len(problems) > 0 {
		s.Skip("its spec cannot be rendered: " + problems.String())
		return nil
	}
	since, usable := usableSince(s)
	if !usable {
		return nil
	}
	name := names.StoreSecretName(s.Backend.Name)
	sec, found, err := ReadStoreSecret(related, name)
	if err != nil {
		return hook.Invalid("related %v", err)
	}
	if !found {
		s.Since = since
		s.Move(storestate.Awaited, PendingMessage)
		return nil
	}
	fromStoreSecret(s, g, sec, name, since)
	return nil
}

// usableSince reads the conditions a store needs True on its backend. With
// usable credentials (and CA bundle) the store Secret follows in the same
// sync of the backend, so until it is here (and current) the store is on
// its way, since the later of the backend's creation and the conditions'
// becoming usable. Not reported yet is not a fault either: what is wrong,
// if anything, is for the backend to say. usable is false when the store
// is left out (pending or skipped) for its conditions.
func usableSince(s *model.Store) (since time.Time, usable bool) {
	b := &s.Backend
	since = b.CreationTimestamp.Time
	required := []usableWhen{{names.ConditionCredentialsReady, "its credentials are not ready"}}
	if b.Spec.S3 != nil && b.Spec.S3.CABundleRef != nil {
		required = append(required, usableWhen{names.ConditionCABundleReady, "its CA bundle is not ready"})
	}
	for _, r := range required {
		c, reported := hook.FindCondition(b.Status.Conditions, r.condition)
		switch {
		case !reported:
			s.Since = b.CreationTimestamp.Time
			s.Move(storestate.Awaited, PendingMessage)
			return since, false
		case c.Status != metav1.ConditionTrue:
			why := r.fault
			if c.Message != "" {
				why += ": " + c.Message
			}
			s.Skip(why)
			return since, false
		case c.LastTransitionTime.After(since):
			since = c.LastTransitionTime.Time
		}
	}
	return since, true
}

// fromStoreSecret takes the store's section from its store Secret when the
// Secret is its own, current, and holds the section (and CA bundle digest)
// as the service writes them. name is the Secret's, as Evaluate read it.
func fromStoreSecret(s *model.Store, g *api.Glance, sec ObservedStoreSecret, name string, since time.Time) {
	b := &s.Backend
	switch {
	case sec.Glance != g.Name || !ownedBy(sec.Owners, b):
		s.Skip(fmt.Sprintf("Secret %q is not the store Secret of GlanceBackend %q", name, b.Name))
		return
	case sec.StoreID != s.ID || sec.SpecHash != storeconf.SpecHash(b.Spec, s.ID):
		// On its way; holdOutdated may keep its running section meanwhile.
		s.Since = since
		s.Move(storestate.SecretOutdated, fmt.Sprintf("its store Secret %q was rendered from an older spec", name))
		return
	}
	section, err := DecodeBase64(sec.Section)
	if err == nil {
		err = storeconf.CheckSection(section, s.ID)
	}
	if err != nil {
		s.Skip(fmt.Sprintf("its store Secret %q does not hold a [%s] section as the service writes it: %v", name, s.ID, err))
		return
	}
	if ref := b.Spec.S3.CABundleRef; ref != nil {
		digest := sec.CABundleDigest
		if !DigestPattern.MatchString(digest) {
			s.Skip(fmt.Sprintf("its store Secret %q carries no valid CA bundle digest (%s)", name, names.AnnotationCABundleDigest))
			return
		}
		s.CA = &model.CAMount{Ref: *ref, Digest: digest}
	}
	s.Section = section
	s.Move(storestate.SecretCurrent, "")
}

// ownedBy checks the Secret's controller is this backend. A backend without
// a uid (a hand-written request) accepts a controller of the same name.
func ownedBy(refs []metav1.OwnerReference, b *api.GlanceBackend) bool {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller && r.Kind == api.KindGlanceBackend && r.Name == b.Name {
			return b.UID == "" || r.UID == b.UID
		}
	}
	return false
}

// DecodeBase64 is standard base64's DecodeString as a string, in the one
// buffer it decodes into: that buffer is new and nothing else refers to
// it, so it is the string, not copied once more (a store section per
// backend and the backends.conf of every sync).
func DecodeBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if len(b) == 0 {
		return "", err
	}
	return unsafe.String(&b[0], len(b)), err
}

// ObservedStoreSecret is what evaluate reads of a store Secret.
type ObservedStoreSecret struct {
	Glance                            string // the LabelGlance label
	StoreID, SpecHash, CABundleDigest string // the annotations
	Owners                            []metav1.OwnerReference
	Section                           string // the StoreSecretKey data, base64
}

// storeSecretKeys are the members of a store Secret evaluate checks: its
// LabelGlance label, its annotations and its StoreSecretKey data.
var storeSecretKeys = metacontroller.StringKeys{
	Labels:      []string{names.LabelGlance},
	Annotations: []string{names.AnnotationStoreID, names.AnnotationSpecHash, names.AnnotationCABundleDigest},
	Data:        []string{names.StoreSecretKey},
}

// ReadStoreSecret reads the named store Secret. Every attached backend has
// one, and its annotations hold Metacontroller's last-applied record, as
// long as the Secret: only the members evaluate checks are read
// (metacontroller's ReadStrings), with the answer and the error of
// decoding the Secret whole.
func ReadStoreSecret(related metacontroller.ObjectMap, name string) (sec ObservedStoreSecret, found bool, err error) {
	s, found, err := related.ReadStrings(names.SecretsKey, name, storeSecretKeys)
	if !found || err != nil {
		return sec, found, err
	}
	return ObservedStoreSecret{Glance: s.Labels[0], StoreID: s.Annotations[0], SpecHash: s.Annotations[1],
		CABundleDigest: s.Annotations[2], Owners: s.OwnerReferences, Section: s.Data[0]}, true, nil
}

// SectionOf cuts one [id] section out of a backends.conf.
func SectionOf(text, id string) (string, bool) {
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "[") {
			if start >= 0 {
				return strings.TrimRight(strings.Join(lines[start:i], "\n"), "\n") + "\n", true
			}
			if l == "["+id+"]" {
				start = i
			}
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.TrimRight(strings.Join(lines[start:], "\n"), "\n") + "\n", true
}

var DigestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// RunningCA is the CA bundle a running Deployment mounts for a store, read
// back from its volume and the pod template's digests; false when it mounts
// none.
func RunningCA(d *appsv1.Deployment, storeID string) (*model.CAMount, bool) {
	if d == nil {
		return nil, false
	}
	digest := ""
	for _, entry := range strings.Split(d.Spec.Template.Annotations[names.AnnotationCABundles], ",") {
		if id, dg, ok := strings.Cut(entry, "="); ok && id == storeID && DigestPattern.MatchString(dg) {
			digest = dg
		}
	}
	vol := names.CABundleVolume(storeID)
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name != vol {
			continue
		}
		switch {
		case digest == "":
		case v.ConfigMap != nil && len(v.ConfigMap.Items) == 1:
			return &model.CAMount{Ref: api.CABundleRef{Kind: api.CABundleKindConfigMap, Name: v.ConfigMap.Name, Key: v.ConfigMap.Items[0].Key}, Digest: digest}, true
		case v.Secret != nil && len(v.Secret.Items) == 1:
			return &model.CAMount{Ref: api.CABundleRef{Kind: api.CABundleKindSecret, Name: v.Secret.SecretName, Key: v.Secret.Items[0].Key}, Digest: digest}, true
		}
	}
	return nil, false
}

// NamesCACert reports whether a store section sets s3_store_cacert.
func NamesCACert(section string) bool {
	_, ok := storeconf.OptionValue(section, "s3_store_cacert")
	return ok
}
