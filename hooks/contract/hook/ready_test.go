package hook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReady(t *testing.T) {
	up := func(typ string) Condition { return Condition{Type: typ, Status: true, Reason: "Fine"} }
	down := func(typ, reason string) Condition { return Condition{Type: typ, Reason: reason} }
	cases := map[string]struct {
		reason string
		others []Condition
		want   Condition
	}{
		"AllTrue": {
			reason: "Ready is True with the given message when every other condition is True",
			others: []Condition{up("A"), up("B")},
			want:   Condition{Type: ConditionReady, Status: true, Reason: ReasonAllReady, Message: "all good"},
		},
		"NoOthers": {
			reason: "an object with nothing else to wait for is ready",
			want:   Condition{Type: ConditionReady, Status: true, Reason: ReasonAllReady, Message: "all good"},
		},
		"OneFalse": {
			reason: "a False condition is named with its reason",
			others: []Condition{up("A"), down("B", "Broken")},
			want:   Condition{Type: ConditionReady, Reason: ReasonNotAllReady, Message: "waiting for B (Broken)"},
		},
		"SeveralFalse": {
			reason: "every False condition is named, in the order given",
			others: []Condition{down("C", "Later"), up("A"), down("B", "Broken")},
			want:   Condition{Type: ConditionReady, Reason: ReasonNotAllReady, Message: "waiting for C (Later), B (Broken)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Ready("all good", tc.others...)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nReady(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPlural(t *testing.T) {
	cases := map[string]struct {
		reason string
		n      int
		want   string
	}{
		"Zero": {reason: "none is counted in the plural", n: 0, want: "0 backends are"},
		"One":  {reason: "one takes the singular words", n: 1, want: "1 backend is"},
		"Many": {reason: "more than one takes the plural words", n: 3, want: "3 backends are"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Plural(tc.n, "backend is", "backends are"); got != tc.want {
				t.Errorf("%s\nPlural(%d, ...) = %q, want %q", tc.reason, tc.n, got, tc.want)
			}
		})
	}
}
