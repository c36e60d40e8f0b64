package glance

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/hook"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
)

// storeObject is a store as External Secrets' controller leaves it, with
// the given status conditions (type, status, reason, message each).
func storeObject(t *testing.T, kind, name string, conds ...[4]string) json.RawMessage {
	t.Helper()
	var cs []any
	for _, c := range conds {
		cs = append(cs, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3],
			"lastTransitionTime": "2026-01-01T00:00:00Z"})
	}
	meta := map[string]any{"name": name}
	if kind == api.KindSecretStore {
		meta["namespace"] = "openstack"
	}
	raw, err := json.Marshal(map[string]any{"apiVersion": SecretStoreAPIVersion, "kind": kind, "metadata": meta,
		"spec":   map[string]any{"provider": map[string]any{"fake": map[string]any{"data": []any{}}}},
		"status": map[string]any{"conditions": cs, "capabilities": "ReadWrite"}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestSecretStoreGate(t *testing.T) {
	ready := [4]string{"Ready", "True", "Valid", "store validated"}
	invalid := [4]string{"Ready", "False", "InvalidProviderConfig", "unable to validate store: token\nexpired"}
	other := [4]string{"Synced", "True", "", ""}
	cluster := &api.SecretStoreRefSpec{Name: "openbao"}
	namespaced := &api.SecretStoreRefSpec{Kind: api.KindSecretStore, Name: "openbao"}
	clusterKey := metacontroller.Key(api.KindClusterSecretStore, SecretStoreAPIVersion)
	nsKey := metacontroller.Key(api.KindSecretStore, SecretStoreAPIVersion)
	cases := map[string]struct {
		reason  string
		ref     *api.SecretStoreRefSpec
		related metacontroller.ObjectMap
		want    *hook.Condition
	}{
		"Unset": {"no field, no gate", nil, nil, nil},
		"Missing": {"a store that is not there (or no CRDs to ask for it) closes the gate", cluster, metacontroller.ObjectMap{clusterKey: {}},
			&hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady,
				Message: "spec.secretStoreRef: ClusterSecretStore/openbao is not found (or External Secrets' CRDs are not installed)"}},
		"NotReady": {"a store that is not Ready is quoted: its reason and message, escaped", cluster, metacontroller.ObjectMap{clusterKey: {"openbao": storeObject(t, api.KindClusterSecretStore, "openbao", invalid)}},
			&hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady,
				Message: `spec.secretStoreRef: ClusterSecretStore/openbao is not Ready ("InvalidProviderConfig": "unable to validate store: token\nexpired")`}},
		"NoReadyCondition": {"a store its controller has not looked at yet is not Ready", cluster, metacontroller.ObjectMap{clusterKey: {"openbao": storeObject(t, api.KindClusterSecretStore, "openbao", other)}},
			&hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady,
				Message: "spec.secretStoreRef: ClusterSecretStore/openbao reports no Ready condition yet"}},
		"Ready": {"a Ready store opens the gate", cluster, metacontroller.ObjectMap{clusterKey: {"openbao": storeObject(t, api.KindClusterSecretStore, "openbao", other, ready)}},
			&hook.Condition{Type: model.CondSecretsReady, Status: true, Reason: model.ReasonSecretsAvailable, Message: "spec.secretStoreRef: ClusterSecretStore/openbao is Ready"}},
		"SecretStoreReady": {"a SecretStore is read under its own kind", namespaced, metacontroller.ObjectMap{nsKey: {"openbao": storeObject(t, api.KindSecretStore, "openbao", ready)}},
			&hook.Condition{Type: model.CondSecretsReady, Status: true, Reason: model.ReasonSecretsAvailable, Message: "spec.secretStoreRef: SecretStore/openbao is Ready"}},
		"KindsKeptApart": {"a ClusterSecretStore of the name does not stand in for the SecretStore named", namespaced, metacontroller.ObjectMap{clusterKey: {"openbao": storeObject(t, api.KindClusterSecretStore, "openbao", ready)}},
			&hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady,
				Message: "spec.secretStoreRef: SecretStore/openbao is not found (or External Secrets' CRDs are not installed)"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := &observe.Observed{Spec: api.GlanceSpec{SecretStoreRef: tc.ref}}
			got, err := secretStoreGate(o, tc.related)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nsecretStoreGate: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestSecretStoreGateBoundsTheMessage: a store's message is cut, and a store
// that does not decode is an input error naming it, quoting nothing of it.
func TestSecretStoreGateBoundsTheMessage(t *testing.T) {
	key := metacontroller.Key(api.KindClusterSecretStore, SecretStoreAPIVersion)
	long := [4]string{"Ready", "False", "ValidationFailed", strings.Repeat("x", 10000)}
	o := &observe.Observed{Spec: api.GlanceSpec{SecretStoreRef: &api.SecretStoreRefSpec{Name: "openbao"}}}
	related := metacontroller.ObjectMap{key: {"openbao": storeObject(t, api.KindClusterSecretStore, "openbao", long)}}
	c, err := secretStoreGate(o, related)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Message) > 400 || !strings.Contains(c.Message, "(10000 bytes)") {
		t.Errorf("the store's message is cut and says how long it was: %d bytes: %.120s", len(c.Message), c.Message)
	}
	related[key]["openbao"] = json.RawMessage(`{"status":{"conditions":"s3cr3t"}}`)
	_, err = secretStoreGate(o, related)
	if !hook.IsInputError(err) || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a store that does not decode is an input error quoting nothing of it: %v", err)
	}
}

// TestSecretStoreCustomize: customize asks for the store by name, a
// ClusterSecretStore with no namespace (cluster-scoped: Metacontroller
// looks it up across the cluster and keys it by name), a SecretStore in the
// Glance's namespace; with the field unset, nothing of External Secrets.
func TestSecretStoreCustomize(t *testing.T) {
	cases := map[string]struct {
		ref  *api.SecretStoreRefSpec
		want []metacontroller.RelatedResource
	}{
		"Unset": {nil, nil},
		"ClusterSecretStoreByDefault": {&api.SecretStoreRefSpec{Name: "openbao"},
			[]metacontroller.RelatedResource{{APIVersion: "external-secrets.io/v1", Resource: "clustersecretstores", Names: []string{"openbao"}}}},
		"ClusterSecretStore": {&api.SecretStoreRefSpec{Kind: api.KindClusterSecretStore, Name: "openbao"},
			[]metacontroller.RelatedResource{{APIVersion: "external-secrets.io/v1", Resource: "clustersecretstores", Names: []string{"openbao"}}}},
		"SecretStore": {&api.SecretStoreRefSpec{Kind: api.KindSecretStore, Name: "vault"},
			[]metacontroller.RelatedResource{{APIVersion: "external-secrets.io/v1", Resource: "secretstores", Namespace: "openstack", Names: []string{"vault"}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := api.Glance{TypeMeta: metav1.TypeMeta{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlance},
				ObjectMeta: metav1.ObjectMeta{Name: "glance", Namespace: "openstack"}, Spec: testSpec()}
			g.Spec.SecretStoreRef = tc.ref
			raw, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := Customize(&metacontroller.CustomizeRequest{Parent: raw})
			if err != nil {
				t.Fatal(err)
			}
			var got []metacontroller.RelatedResource
			for _, rr := range resp.RelatedResources {
				if strings.HasPrefix(rr.APIVersion, "external-secrets.io/") {
					got = append(got, rr)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("customize's External Secrets part: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestSecretStoreGateKeepsLastGood: a closed SecretsReady holds the render
// of a Glance that would render otherwise, naming the store (the scenario
// in test/secretstore_scenario_test.go shows the children kept and Ready
// False).
func TestSecretStoreGateKeepsLastGood(t *testing.T) {
	closed := hook.Condition{Type: model.CondSecretsReady, Reason: model.ReasonSecretStoreNotReady, Message: "spec.secretStoreRef: ClusterSecretStore/openbao is not Ready"}
	glance := &api.Glance{}
	glance.Spec.OpenStackRelease = "2025.2"
	o := observe.Observed{Glance: glance, Spec: glance.Spec, Now: time.Unix(1000, 0), Stores: []*model.Store{attached("a", true, "")},
		Creds: observe.CredentialsRead{Creds: &observe.Credentials{}}, Deployment: &appsv1.Deployment{}, Gates: []hook.Condition{closed}}
	d := decide.Decide(&o, deciders())
	if d.Keep.Reason != model.ReasonLastGoodKept || d.Keep.Why != closed.Message {
		t.Errorf("a closed SecretsReady keeps the last-good config, saying why: %+v", d.Keep)
	}
}
