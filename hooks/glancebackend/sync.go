package glancebackend

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/rules"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Sync answers /sync/glancebackend without checking the store.
func Sync(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	return Hook{}.Sync(req, now)
}

// Sync answers /sync/glancebackend: status, and the store Secret when the
// credentials are usable and the spec renders; with h.Check, whether the
// store's endpoint answers (reach.go), which renders nothing: a store that
// is down keeps its Secret and its place in the Glance's config.
func (h Hook) Sync(req *metacontroller.SyncRequest, now time.Time) (*metacontroller.SyncResponse, error) {
	b, err := decodeBackend(req.Parent)
	if err != nil {
		return nil, err
	}
	storeID := b.EffectiveStoreID()
	glance := b.Spec.GlanceRef.Name

	credName := credentialsName(b.Spec)
	secret, found, err := metacontroller.DecodeOne[rawSecret](req.Related, names.SecretsKey, credName)
	if err != nil {
		return nil, hook.Invalid("related %v", err)
	}
	creds, credCond := checkCredentials(secret, found && credName != "", credName)
	caCond, caDigest, err := checkCABundle(req.Related, b.Spec.S3)
	if err != nil {
		return nil, err
	}

	rendered := hook.Condition{Type: CondStoreRendered, Reason: ReasonInvalidSpec}
	var children []any
	if problems := rules.GlanceBackend(b); len(problems) > 0 {
		rendered.Message = "the store section cannot be rendered: " + problems.String()
	} else if !credCond.Status || !caCond.Status {
		rendered.Reason, rendered.Message = credCond.Reason, "waiting for usable credentials"
		if credCond.Status {
			rendered.Reason, rendered.Message = caCond.Reason, "waiting for a usable CA bundle"
		}
		if children, err = keepUntilReported(req.Children, b.Status.Conditions); err != nil {
			return nil, err
		}
	} else {
		section, err := storeconf.RenderSection(b.Spec, storeID, creds)
		if err != nil { // BackendProblems and the credential checks make this unreachable
			return nil, fmt.Errorf("rendering store %q: %w", storeID, err)
		}
		children = append(children, storeSecret(b, storeID, section, caDigest))
		rendered.Status, rendered.Reason = true, ReasonRendered
		rendered.Message = fmt.Sprintf("store section [%s] rendered into Secret %q", storeID, names.StoreSecretName(b.Name))
	}

	_, glanceFound := req.Related.Get(names.GlancesKey, glance)
	projected, err := checkProjected(req.Related, glance, glanceFound, storeID)
	if err != nil {
		return nil, err
	}

	conds, resync := h.withReach([]hook.Condition{credCond, caCond, rendered, projected}, b, now)
	ready := hook.Ready(fmt.Sprintf("store %q is rendered and in the running config of Glance %q", storeID, glance), conds...)
	return &metacontroller.SyncResponse{
		Status: api.GlanceBackendStatus{
			StoreID:    storeID,
			Conditions: hook.Conditions(b.Status.Conditions, b.Generation, now, append(conds, ready)...),
		},
		Children:           nonNil(children),
		ResyncAfterSeconds: resync,
	}, nil
}

// decodeBackend reads the parent; a backend attached to no Glance cannot be
// synced.
func decodeBackend(parent json.RawMessage) (*api.GlanceBackend, error) {
	var b api.GlanceBackend
	if err := hook.DecodeParent(parent, api.GlanceAPIVersion, api.KindGlanceBackend, &b); err != nil {
		return nil, err
	}
	if b.Spec.GlanceRef.Name == "" {
		return nil, hook.Invalid("GlanceBackend %q has no spec.glanceRef.name", b.Name)
	}
	return &b, nil
}

// credentialsName is the Secret the backend's S3 credentials are in; none
// without S3 settings.
func credentialsName(spec api.GlanceBackendSpec) string {
	if spec.S3 == nil {
		return ""
	}
	return spec.S3.CredentialsSecretRef.Name
}

// keepUntilReported returns the observed store Secret, as last applied,
// while the backend's status still reports usable credentials and CA
// bundle: the Glance would otherwise see the Secret gone before the status
// saying why (the delete is made before the status update, and a Glance
// reacts to each), and take the store for one on its way. The status
// written with this answer names the fault; the next sync, which that
// write triggers, drops the Secret. The Glance skips the store as soon as
// the status says so.
func keepUntilReported(observed metacontroller.ObjectMap, conditions []metav1.Condition) ([]any, error) {
	if c, ok := hook.FindCondition(conditions, CondCredentialsReady); !ok || c.Status != metav1.ConditionTrue {
		return nil, nil
	}
	if c, ok := hook.FindCondition(conditions, CondCABundleReady); ok && c.Status != metav1.ConditionTrue {
		return nil, nil
	}
	kept, err := observed.KeepAsLastApplied(names.SecretsKey)
	if err != nil {
		return nil, hook.Invalid("%v", err)
	}
	return kept, nil
}

// storeSecret is the child Secret holding the rendered section, labelled for
// its Glance and annotated with what it was rendered from: the spec, and the
// digest of the CA bundle when the store names one (its Glance mounts the
// bundle and rolls the pods when the digest changes).
func storeSecret(b *api.GlanceBackend, storeID, section, caDigest string) *corev1.Secret {
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      names.StoreSecretName(b.Name),
			Namespace: b.Namespace,
			Labels: map[string]string{
				names.LabelGlance:    b.Spec.GlanceRef.Name,
				names.LabelManagedBy: names.ManagedBy,
			},
			Annotations: map[string]string{
				names.AnnotationStoreID:  storeID,
				names.AnnotationSpecHash: storeconf.SpecHash(b.Spec, storeID),
			},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{names.StoreSecretKey: []byte(section)},
	}
	if caDigest != "" {
		s.Annotations[names.AnnotationCABundleDigest] = caDigest
	}
	return s
}

func nonNil(children []any) []any {
	if children == nil {
		return []any{}
	}
	return children
}
