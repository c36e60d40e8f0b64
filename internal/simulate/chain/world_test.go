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
