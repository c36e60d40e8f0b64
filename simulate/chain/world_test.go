package chain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSortedRefs(t *testing.T) {
	secret := func(ns, name string) Ref { return Ref{APIVersion: "v1", Kind: "Secret", Namespace: ns, Name: name} }
	cases := map[string]struct {
		reason string
		refs   []Ref
		want   []Ref
	}{
		"KindFirst": {
			reason: "objects are grouped by kind before namespace and name",
			refs:   []Ref{secret("a", "x"), {APIVersion: "v1", Kind: "ConfigMap", Namespace: "b", Name: "y"}},
			want:   []Ref{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "b", Name: "y"}, secret("a", "x")},
		},
		"NamespaceThenName": {
			reason: "within a kind, namespace orders before name",
			refs:   []Ref{secret("b", "a"), secret("a", "z"), secret("a", "b")},
			want:   []Ref{secret("a", "b"), secret("a", "z"), secret("b", "a")},
		},
		"APIVersionLast": {
			reason: "the same kind and name in two API versions still sort the same way every time",
			refs:   []Ref{{APIVersion: "v2", Kind: "K", Name: "n"}, {APIVersion: "v1", Kind: "K", Name: "n"}},
			want:   []Ref{{APIVersion: "v1", Kind: "K", Name: "n"}, {APIVersion: "v2", Kind: "K", Name: "n"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := map[Ref]bool{}
			for _, r := range tc.refs {
				m[r] = true
			}
			if diff := cmp.Diff(tc.want, SortedRefs(m)); diff != "" {
				t.Errorf("%s\nSortedRefs(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// An object read from a cluster keeps its uid, so what the hooks derive
// from it (an Event's regarding.uid) names the cluster's object; any other
// gets a uid derived from its name.
func TestApplyKeepsAGivenUID(t *testing.T) {
	w := NewWorld(t0)
	given := Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "ns", "uid": "from-the-cluster"}}
	plain := Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "b", "namespace": "ns"}}
	for _, o := range []Object{given, plain} {
		if err := w.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := w.Get(RefOf(given))
	b, _ := w.Get(RefOf(plain))
	if uid := a["metadata"].(map[string]any)["uid"]; uid != "from-the-cluster" {
		t.Errorf("given uid: got %v", uid)
	}
	if uid := b["metadata"].(map[string]any)["uid"]; uid != uidFor(RefOf(plain)) {
		t.Errorf("derived uid: got %v", uid)
	}
}
