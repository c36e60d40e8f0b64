package glance

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/excerpt"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/report"
)

// spec.secretStoreRef names the External Secrets store the database and
// service-user Secrets arrive through. While it is set, the config is
// rendered only once that store reports Ready: until then the Secrets may
// be missing or hold what the store's last failed fetch left, and
// SecretsReady says which store the Glance waits for. The Secrets are
// still read as the spec names them; the store is only watched.

// SecretStoreAPIVersion is the External Secrets API version of the stores
// (external-secrets.io/v1, served since External Secrets v0.16).
const SecretStoreAPIVersion = "external-secrets.io/v1"

// secretStoreResources are the stores' resources, by kind.
var secretStoreResources = map[string]string{
	api.KindClusterSecretStore: "clustersecretstores",
	api.KindSecretStore:        "secretstores",
}

// maxStoreMessage is what SecretsReady keeps of the message of the store's
// own Ready condition.
const maxStoreMessage = 256

// secretStoreKind is the kind spec.secretStoreRef names, with its default.
func secretStoreKind(ref *api.SecretStoreRefSpec) string {
	if ref.Kind == "" {
		return api.KindClusterSecretStore
	}
	return ref.Kind
}

// secretStoreRelated asks for the store by name. A ClusterSecretStore is
// cluster-scoped: the rule names no namespace, Metacontroller looks it up
// across the cluster and keys it by its bare name. A SecretStore is looked
// up in the Glance's namespace. Nothing is asked while the field is unset,
// so a cluster without External Secrets' CRDs serves every other Glance
// (Metacontroller fails a sync whose related resource it cannot find).
func secretStoreRelated(spec api.GlanceSpec, namespace string) []metacontroller.RelatedResource {
	ref := spec.SecretStoreRef
	if ref == nil {
		return nil
	}
	kind := secretStoreKind(ref)
	resource, ok := secretStoreResources[kind]
	if !ok {
		return nil
	}
	rr := metacontroller.RelatedResource{APIVersion: SecretStoreAPIVersion, Resource: resource, Names: []string{ref.Name}}
	if kind == api.KindSecretStore {
		rr.Namespace = namespace
	}
	return []metacontroller.RelatedResource{rr}
}

// secretStore is what the gate reads of a store: the conditions External
// Secrets' controller writes into its status.
type secretStore struct {
	Status struct {
		Conditions []metav1.Condition `json:"conditions"`
	} `json:"status"`
}

// secretStoreGate is SecretsReady: True once the store spec.secretStoreRef
// names reports Ready=True, False while it is missing or not Ready; nil
// when the field is unset. A store that does not decode is an input error,
// as any observed object.
func secretStoreGate(o *observe.Observed, related metacontroller.ObjectMap) (*hook.Condition, error) {
	ref := o.Spec.SecretStoreRef
	if ref == nil {
		return nil, nil
	}
	kind := secretStoreKind(ref)
	named := excerpt.Token(kind, excerpt.MaxKind) + "/" + excerpt.Token(ref.Name, excerpt.MaxName)
	notReady := func(format string, args ...any) *hook.Condition {
		return &hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady,
			Message: "spec.secretStoreRef: " + named + " " + fmt.Sprintf(format, args...)}
	}
	if _, ok := secretStoreResources[kind]; !ok {
		return notReady("is not a ClusterSecretStore or a SecretStore"), nil
	}
	st, found, err := metacontroller.DecodeOne[secretStore](related, metacontroller.Key(kind, SecretStoreAPIVersion), ref.Name)
	switch {
	case err != nil:
		return nil, hook.Invalid("observed %v", err)
	case !found:
		return notReady("is not found (or External Secrets' CRDs are not installed)"), nil
	}
	c, ok := hook.FindCondition(st.Status.Conditions, hook.ConditionReady)
	switch {
	case !ok:
		return notReady("reports no Ready condition yet"), nil
	case c.Status == metav1.ConditionTrue:
		return &hook.Condition{Type: model.CondSecretsReady, Status: true, Reason: model.ReasonSecretsAvailable,
			Message: "spec.secretStoreRef: " + named + " is Ready"}, nil
	}
	return notReady("is not Ready (%s: %s)",
		excerpt.Quote(c.Reason, excerpt.MaxKind), excerpt.Quote(c.Message, maxStoreMessage)), nil
}

// secretsReady is SecretsReady as the reference reports it: the gate's
// condition while the store is not Ready; then whether the database and
// service-user Secrets are complete (their own conditions say what is
// missing); else True. Without spec.secretStoreRef the Secrets alone are
// checked: the hooks read them, however they were made.
func secretsReady(in report.StatusInput) (hook.Condition, error) {
	o := in.Observed
	store := ""
	if c, ok := report.FindCondition(o.Gates, model.CondSecretsReady); ok {
		if !c.Status {
			return c, nil
		}
		store = "; " + c.Message
	}
	c := hook.Condition{Type: model.CondSecretsReady}
	switch {
	case o.Creds.DBProblem != nil:
		c.Reason, c.Message = model.ReasonWaitingForDBCredentials, "the database Secret is not complete (DatabaseReady says what is missing)"
	case o.Creds.Creds == nil:
		c.Reason, c.Message = model.ReasonWaitingForServiceUserCredentials, "the service user's Secret is not complete (ServiceUserReady says what is missing)"
	default:
		c.Status, c.Reason = true, model.ReasonSecretsAvailable
		c.Message = fmt.Sprintf("Secrets %s and %s are complete", excerpt.Name(o.Spec.Database.SecretRef.Name), excerpt.Name(o.Spec.ServiceUser.SecretRef.Name))
	}
	c.Message += store
	return c, nil
}
