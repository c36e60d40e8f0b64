package chain

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// labelled is a controller whose parents own ConfigMaps and relate to the
// Secrets labelled with their name and to the Secret "shared" by name.
func labelled() Controller {
	return Controller{
		Name: "labelled", Parent: Type{"example.com/v1", "Parent"}, Children: []Type{{"v1", "ConfigMap"}},
		Customize: func(req *metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
			var p struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if err := json.Unmarshal(req.Parent, &p); err != nil {
				return nil, err
			}
			return &metacontroller.CustomizeResponse{RelatedResources: []metacontroller.RelatedResource{
				{APIVersion: "v1", Resource: "secrets", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"for": p.Metadata.Name}}},
				{APIVersion: "v1", Resource: "secrets", Names: []string{"shared", "missing"}},
			}}, nil
		},
		Sync: func(req *metacontroller.SyncRequest, _ time.Time) (*metacontroller.SyncResponse, error) {
			var p struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if err := json.Unmarshal(req.Parent, &p); err != nil {
				return nil, err
			}
			child := Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": p.Metadata.Name + "-seen"}}
			return &metacontroller.SyncResponse{Status: map[string]any{"ok": true}, Children: []any{child}}, nil
		},
	}
}

func namespaced(apiVersion, kind, name string, labels map[string]any) Object {
	meta := map[string]any{"name": name, "namespace": "ns"}
	if labels != nil {
		meta["labels"] = labels
	}
	return Object{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
}

// TestSyncRequestCarriesWhatAScanFinds compares the request built from the
// world's index with one built by walking every object, after the world
// changed in every way the index follows: new objects, changed labels,
// deletions (with what the deleted object controlled), an object of the
// same name without an owner.
func TestSyncRequestCarriesWhatAScanFinds(t *testing.T) {
	w := NewWorld(t0)
	for _, o := range []Object{
		namespaced("example.com/v1", "Parent", "a", nil), namespaced("example.com/v1", "Parent", "b", nil),
		namespaced("v1", "Secret", "a-1", map[string]any{"for": "a"}), namespaced("v1", "Secret", "b-1", map[string]any{"for": "b"}),
		namespaced("v1", "Secret", "shared", nil), namespaced("v2", "Secret", "a-2", map[string]any{"for": "a"}),
	} {
		if err := w.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	c := labelled()
	if _, err := w.Run([]Controller{c}, 10); err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(namespaced("v1", "Secret", "a-1", map[string]any{"for": "b"})); err != nil {
		t.Fatal(err)
	}
	if !w.Delete(Ref{APIVersion: "v1", Kind: "Secret", Namespace: "ns", Name: "shared"}) {
		t.Fatal("shared was not there to delete")
	}
	if !w.Delete(Ref{APIVersion: "example.com/v1", Kind: "Parent", Namespace: "ns", Name: "b"}) {
		t.Fatal("b was not there to delete")
	}
	if err := w.Apply(namespaced("example.com/v1", "Parent", "b", nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(namespaced("v1", "ConfigMap", "a-seen", nil)); err != nil { // a's child, updated by hand
		t.Fatal(err)
	}
	if _, ok := w.Get(Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "b-seen"}); ok {
		t.Error("deleting b deleted the ConfigMap it controlled")
	}
	for _, name := range []string{"a", "b"} {
		r := Ref{APIVersion: "example.com/v1", Kind: "Parent", Namespace: "ns", Name: name}
		got, err := w.SyncRequest(c, r)
		if err != nil {
			t.Fatal(err)
		}
		want := metacontroller.SyncRequest{Parent: mustJSON(t, w.objects[r]),
			Children: metacontroller.ObjectMap{"ConfigMap.v1": {}}, Related: metacontroller.ObjectMap{"Secret.v1": {}}}
		uid := metadataOf(w.objects[r])["uid"]
		for _, o := range w.objects {
			or := RefOf(o)
			switch {
			case or.Kind == "ConfigMap" && controllerUID(o) == uid:
				want.Children["ConfigMap.v1"][or.Name] = mustJSON(t, o)
			case or.Kind == "Secret" && or.APIVersion == "v1" && (labelsOf(o)["for"] == name || or.Name == "shared"):
				want.Related["Secret.v1"][or.Name] = mustJSON(t, o)
			}
		}
		if diff := cmp.Diff(string(mustJSON(t, want)), string(mustJSON(t, got))); diff != "" {
			t.Errorf("request for %s: -scan, +indexed:\n%s", name, diff)
		}
	}
}

// TestSyncRequestCarriesTheObjectAsItIsNow: an object's encoding is made
// anew after a change.
func TestSyncRequestCarriesTheObjectAsItIsNow(t *testing.T) {
	w := NewWorld(t0)
	r := Ref{APIVersion: "example.com/v1", Kind: "Parent", Namespace: "ns", Name: "a"}
	if err := w.Apply(namespaced(r.APIVersion, r.Kind, r.Name, nil)); err != nil {
		t.Fatal(err)
	}
	c := labelled()
	if _, err := w.SyncRequest(c, r); err != nil { // encodes the parent once
		t.Fatal(err)
	}
	w.SetStatus(r, map[string]any{"phase": "changed"})
	req, err := w.SyncRequest(c, r)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Status struct{ Phase string } `json:"status"`
	}
	if err := json.Unmarshal(req.Parent, &p); err != nil || p.Status.Phase != "changed" {
		t.Errorf("the request after a status change carries %s (%v)", req.Parent, err)
	}
}

// mustJSON encodes v with its maps' keys sorted, so two encodings of the
// same content compare equal.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	norm, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return norm
}

// TestClusterScopedRelatedByName: a namespaced parent relating to a
// cluster-scoped resource by name gets it keyed by its bare name, whatever
// namespace the rule names, as Metacontroller serves it; an object of the
// kind and name in the parent's namespace is not it.
func TestClusterScopedRelatedByName(t *testing.T) {
	c := Controller{Name: "stores", Parent: Type{"example.com/v1", "Parent"},
		Customize: func(*metacontroller.CustomizeRequest) (*metacontroller.CustomizeResponse, error) {
			return &metacontroller.CustomizeResponse{RelatedResources: []metacontroller.RelatedResource{
				{APIVersion: "external-secrets.io/v1", Resource: "clustersecretstores", Names: []string{"vault"}},
				{APIVersion: "external-secrets.io/v1", Resource: "clustersecretstores", Namespace: "ns", Names: []string{"other"}},
			}}, nil
		},
		Sync: func(*metacontroller.SyncRequest, time.Time) (*metacontroller.SyncResponse, error) {
			return &metacontroller.SyncResponse{Status: map[string]any{}}, nil
		},
	}
	w := NewWorld(t0)
	store := func(name, ns string) Object {
		meta := map[string]any{"name": name}
		if ns != "" {
			meta["namespace"] = ns
		}
		return Object{"apiVersion": "external-secrets.io/v1", "kind": "ClusterSecretStore", "metadata": meta}
	}
	for _, o := range []Object{namespaced("example.com/v1", "Parent", "a", nil), store("vault", "ns")} {
		if err := w.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	r := Ref{APIVersion: "example.com/v1", Kind: "Parent", Namespace: "ns", Name: "a"}
	names := func() []string {
		t.Helper()
		req, err := w.SyncRequest(c, r)
		if err != nil {
			t.Fatal(err)
		}
		return req.Related.Names("ClusterSecretStore.external-secrets.io/v1")
	}
	if got := names(); len(got) != 0 {
		t.Errorf("no cluster-scoped store yet: %v", got)
	}
	for _, o := range []Object{store("vault", ""), store("other", "")} {
		if err := w.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"other", "vault"}, names()); diff != "" {
		t.Errorf("cluster-scoped stores by bare name: -want, +got:\n%s", diff)
	}
}
