package glance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

// attached is a store as attachedStores leaves it: rendered when skipped
// is empty.
func attached(name string, isDefault bool, skipped string) *store {
	s := &store{id: name, skipped: skipped, rendered: skipped == ""}
	s.backend.Name = name
	s.backend.Spec = api.GlanceBackendSpec{IsDefault: isDefault}
	if s.rendered {
		s.section = "[" + name + "]\n"
	}
	return s
}

func TestChooseDefault(t *testing.T) {
	type want struct {
		id, message string
	}
	cases := map[string]struct {
		reason string
		stores []*store
		want   want
	}{
		"OneRenderedDefault": {
			reason: "the one rendered store marked isDefault is the default",
			stores: []*store{attached("a", true, ""), attached("b", false, "")},
			want:   want{id: "a"},
		},
		"RenderedDefaultBesideAFaultedOne": {
			reason: "a default whose section is not rendered is no candidate: the rendered one wins",
			stores: []*store{attached("a", true, "its credentials are not ready"), attached("b", true, "")},
			want:   want{id: "b"},
		},
		"NoStores": {
			reason: "a Glance without backends has no default, and says so",
			want:   want{message: "no GlanceBackend is attached to this Glance"},
		},
		"NoneMarked": {
			reason: "rendered stores without a default name no candidate",
			stores: []*store{attached("a", false, ""), attached("b", false, "")},
			want:   want{message: "no attached backend is marked isDefault"},
		},
		"TwoRenderedDefaults": {
			reason: "two rendered defaults are refused, naming both",
			stores: []*store{attached("a", true, ""), attached("b", true, "")},
			want: want{message: `2 credential-ready backends are marked isDefault: "a" (store a), "b" (store b); ` +
				"exactly one must be"},
		},
		"DefaultNotRendered": {
			reason: "a default that cannot be rendered is named with why, so the message says what to fix",
			stores: []*store{attached("a", true, "its credentials are not ready"), attached("b", false, "")},
			want: want{message: "no credential-ready, rendered backend is marked isDefault; candidates: " +
				`"a" (store a): its credentials are not ready`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			def, msg := chooseDefault(tc.stores)
			got := want{message: msg}
			if def != nil {
				got.id = def.id
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nchooseDefault(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestHoldOutdated(t *testing.T) {
	running := "[a]\ns3_store_bucket = old\n\n[b]\ns3_store_bucket = b\n"
	type want struct {
		rendered, held bool
		section        string
	}
	cases := map[string]struct {
		reason string
		store  *store
		want   want
	}{
		"OutdatedInRunningConfig": {
			reason: "a store Secret lagging behind its spec keeps the running section rather than dropping the store",
			store:  &store{id: "a", stale: true},
			want:   want{rendered: true, held: true, section: "[a]\ns3_store_bucket = old\n"},
		},
		"OutdatedNotRunning": {
			reason: "a store the running config does not hold has nothing to keep",
			store:  &store{id: "c", stale: true},
		},
		"Current": {
			reason: "a store rendered from its current spec is left as it is",
			store:  &store{id: "b", rendered: true, section: "[b]\nnew\n"},
			want:   want{rendered: true, section: "[b]\nnew\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			holdOutdated([]*store{tc.store}, func() string { return running })
			got := want{rendered: tc.store.rendered, held: tc.store.held, section: tc.store.section}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nholdOutdated(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("ReadOnlyWhenNeeded", func(t *testing.T) {
		holdOutdated([]*store{{id: "b", rendered: true}}, func() string {
			t.Error("the running backends.conf is read although no store is outdated")
			return ""
		})
	})
}

func TestIsSingleSection(t *testing.T) {
	cases := map[string]struct {
		reason string
		text   string
		want   bool
	}{
		"One":           {reason: "its own header, then options", text: "[a]\nk = v\n", want: true},
		"OtherHeader":   {reason: "a section of another id is refused", text: "[b]\nk = v\n"},
		"SecondSection": {reason: "a second section would add options elsewhere", text: "[a]\nk = v\n[glance_store]\nx = y\n"},
		"Indented":      {reason: "an indented header still opens a section", text: "[a]\n  [DEFAULT]\n"},
		"CarriageReturn": {
			reason: "a CR could hide a line break from this check",
			text:   "[a]\nk = v\r\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := isSingleSection(tc.text, "a"); got != tc.want {
				t.Errorf("%s\nisSingleSection(%q) = %t, want %t", tc.reason, tc.text, got, tc.want)
			}
		})
	}
}

func TestDuplicateStoreIDsNameOneOther(t *testing.T) {
	g := &api.Glance{}
	g.Name, g.Namespace = "glance", "openstack"
	related := metacontroller.ObjectMap{names.GlanceBackendsKey: {}}
	for _, n := range []string{"c", "a", "b"} {
		related[names.GlanceBackendsKey][n] = json.RawMessage(`{"metadata":{"name":"` + n + `","namespace":"openstack"},` +
			`"spec":{"glanceRef":{"name":"glance"},"storeId":"shared"}}`)
	}
	related[names.GlanceBackendsKey]["other-glance"] = json.RawMessage(`{"metadata":{"name":"other-glance","namespace":"openstack"},` +
		`"spec":{"glanceRef":{"name":"another"},"storeId":"shared"}}`)
	stores, err := attachedStores(g, related)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range stores {
		got[s.backend.Name] = s.skipped
	}
	// Each names one other, never all: with n duplicates, n messages naming
	// n backends each grew the answer with n².
	want := map[string]string{
		"a": `store id "shared" is also used by GlanceBackend "b" (3 backends use it)`,
		"b": `store id "shared" is also used by GlanceBackend "a" (3 backends use it)`,
		"c": `store id "shared" is also used by GlanceBackend "a" (3 backends use it)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backends of another Glance do not count; each duplicate names one other: -want, +got:\n%s", diff)
	}
}
