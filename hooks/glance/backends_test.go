package glance

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// attached is a store as attachedStores leaves it: rendered when skipped
// is empty.
func attached(name string, isDefault bool, skipped string) *model.Store {
	s := &model.Store{ID: name, Skipped: skipped, State: storestate.Rendered}
	if skipped != "" {
		s.State = storestate.Skipped
	}
	s.Backend.Name = name
	s.Backend.Spec = api.GlanceBackendSpec{IsDefault: isDefault}
	if s.State.Rendered() {
		s.Section = "[" + name + "]\n"
	}
	return s
}

func TestChooseDefault(t *testing.T) {
	type want struct {
		id, message string
	}
	cases := map[string]struct {
		reason string
		stores []*model.Store
		want   want
	}{
		"OneRenderedDefault": {
			reason: "the one rendered store marked isDefault is the default",
			stores: []*model.Store{attached("a", true, ""), attached("b", false, "")},
			want:   want{id: "a"},
		},
		"RenderedDefaultBesideAFaultedOne": {
			reason: "a default whose section is not rendered is no candidate: the rendered one wins",
			stores: []*model.Store{attached("a", true, "its credentials are not ready"), attached("b", true, "")},
			want:   want{id: "b"},
		},
		"NoStores": {
			reason: "a Glance without backends has no default, and says so",
			want:   want{message: "no GlanceBackend is attached to this Glance"},
		},
		"NoneMarked": {
			reason: "rendered stores without a default name no candidate",
			stores: []*model.Store{attached("a", false, ""), attached("b", false, "")},
			want:   want{message: "no attached backend is marked isDefault"},
		},
		"TwoRenderedDefaults": {
			reason: "two rendered defaults are refused, naming both",
			stores: []*model.Store{attached("a", true, ""), attached("b", true, "")},
			want: want{message: `2 credential-ready backends are marked isDefault: "a" (store a), "b" (store b); ` +
				"exactly one must be"},
		},
		"IgnoredDefaultIsNoCandidate": {
			reason: "on a ControlPlane's Glance a hand-made isDefault is not counted: the projected default stays the one",
			stores: []*model.Store{attached("a", true, ""), func() *model.Store { s := attached("b", true, ""); s.DefaultIgnored = true; return s }()},
			want:   want{id: "a"},
		},
		"DefaultNotRendered": {
			reason: "a default that cannot be rendered is named with why, so the message says what to fix",
			stores: []*model.Store{attached("a", true, "its credentials are not ready"), attached("b", false, "")},
			want: want{message: "no credential-ready, rendered backend is marked isDefault; candidates: " +
				`"a" (store a): its credentials are not ready`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			def, msg := decide.ChooseDefault(tc.stores)
			got := want{message: msg}
			if def != nil {
				got.id = def.ID
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nchooseDefault(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestHoldOutdated(t *testing.T) {
	running := "[a]\ns3_store_bucket = old\n\n[b]\ns3_store_bucket = b\n\n[d]\ns3_store_bucket = d\n\x1cdebug = true\n" +
		"\n[e]\ns3_store_cacert = /etc/glance/s3-ca/e/ca.crt\n\n[f]\ns3_store_cacert = /etc/glance/s3-ca/f/ca.crt\n"
	digest := "sha256:" + strings.Repeat("ab", 32)
	current := &render.DeploymentChild{}
	addCABundles(current, []*model.Store{{ID: "e", State: storestate.Rendered, CA: &model.CAMount{Ref: api.CABundleRef{Name: "internal-ca"}, Digest: digest}}}, "")
	deploy := &appsv1.Deployment{Spec: current.Spec}
	type want struct {
		rendered, held bool
		section        string
		ca             *model.CAMount
	}
	cases := map[string]struct {
		reason string
		store  *model.Store
		want   want
	}{
		"OutdatedInRunningConfig": {
			reason: "a store Secret lagging behind its spec keeps the running section rather than dropping the store",
			store:  &model.Store{ID: "a", State: storestate.Outdated},
			want:   want{rendered: true, held: true, section: "[a]\ns3_store_bucket = old\n"},
		},
		"OutdatedNotRunning": {
			reason: "a store the running config does not hold has nothing to keep",
			store:  &model.Store{ID: "c", State: storestate.Outdated},
		},
		"OutdatedRunningSectionForged": {
			reason: "a running section that no longer reads as the service writes it is not kept",
			store:  &model.Store{ID: "d", State: storestate.Outdated},
		},
		"OutdatedWithRunningCABundle": {
			reason: "a running section naming a CA bundle is kept with the bundle the Deployment mounts for it",
			store:  &model.Store{ID: "e", State: storestate.Outdated},
			want: want{rendered: true, held: true, section: "[e]\ns3_store_cacert = /etc/glance/s3-ca/e/ca.crt\n",
				ca: &model.CAMount{Ref: api.CABundleRef{Kind: "ConfigMap", Name: "internal-ca", Key: "ca.crt"}, Digest: digest}},
		},
		"OutdatedCABundleNotMounted": {
			reason: "a running section naming a CA bundle the Deployment does not mount is not kept",
			store:  &model.Store{ID: "f", State: storestate.Outdated},
		},
		"Current": {
			reason: "a store rendered from its current spec is left as it is",
			store:  &model.Store{ID: "b", State: storestate.Rendered, Section: "[b]\nnew\n"},
			want:   want{rendered: true, section: "[b]\nnew\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stores := []*model.Store{tc.store}
			decide.HoldOutdated(stores, func() string { return running }, deploy)
			s := stores[0] // a store held is a copy put in its place
			got := want{rendered: s.State.Rendered(), held: s.State == storestate.Held, section: s.Section, ca: s.CA}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}, model.CAMount{})); diff != "" {
				t.Errorf("%s\nholdOutdated(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
	t.Run("ReadOnlyWhenNeeded", func(t *testing.T) {
		decide.HoldOutdated([]*model.Store{{ID: "b", State: storestate.Rendered}}, func() string {
			t.Error("the running backends.conf is read although no store is outdated")
			return ""
		}, nil)
	})
}

// A store Secret is copied into backends.conf only when its section reads
// as the service writes it (storeconf.CheckSection): one edited by hand to
// carry a line oslo.config reads differently is skipped, saying which line.
func TestForgedStoreSecretIsSkipped(t *testing.T) {
	cases := map[string]struct {
		reason, section, want string
	}{
		"AsWritten": {reason: "the section the backend's hook wrote is rendered", section: "[a]\ns3_store_bucket = b\n"},
		"FileSeparator": {reason: "a line starting with \\x1c is a line start to oslo.config",
			section: "[a]\ns3_store_bucket = b\n\x1cdebug = true\n",
			want:    `its store Secret "a-store" does not hold a [a] section as the service writes it: line 3 does not start with an option name`},
		"ByteOrderMark": {reason: "a line starting with U+FEFF",
			section: "[a]\n\ufeffs3_store_bucket = b\n",
			want:    `its store Secret "a-store" does not hold a [a] section as the service writes it: line 2 does not start with an option name`},
		"NoDelimiter": {reason: "a line without \" = \"",
			section: "[a]\ns3_store_bucket = b\nverbose\n",
			want:    `its store Secret "a-store" does not hold a [a] section as the service writes it: line 3 is not a "key = value" option`},
		"SecondSection": {reason: "a second header would add options elsewhere",
			section: "[a]\ns3_store_bucket = b\n[DEFAULT]\ndebug = true\n",
			want:    `its store Secret "a-store" does not hold a [a] section as the service writes it: line 3 is not a "key = value" option`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			s := &model.Store{ID: "a"}
			s.Backend.Name = "a"
			s.Backend.Spec = api.GlanceBackendSpec{GlanceRef: api.LocalObjectReference{Name: "glance"}, Type: api.BackendTypeS3,
				S3: &api.S3Store{Host: "http://s3:3900", S3Options: api.S3Options{Bucket: "b", CredentialsSecretRef: api.LocalObjectReference{Name: "c"}}}}
			s.Backend.Status.Conditions = []metav1.Condition{{Type: names.ConditionCredentialsReady, Status: metav1.ConditionTrue}}
			secret := map[string]any{
				"metadata": map[string]any{
					"labels":          map[string]string{names.LabelGlance: "glance"},
					"annotations":     map[string]string{names.AnnotationStoreID: "a", names.AnnotationSpecHash: storeconf.SpecHash(s.Backend.Spec, "a")},
					"ownerReferences": []any{map[string]any{"kind": api.KindGlanceBackend, "name": "a", "controller": true}},
				},
				"data": map[string]string{names.StoreSecretKey: base64.StdEncoding.EncodeToString([]byte(tc.section))},
			}
			raw, err := json.Marshal(secret)
			if err != nil {
				t.Fatal(err)
			}
			related := metacontroller.ObjectMap{names.SecretsKey: {names.StoreSecretName("a"): raw}}
			if err := observe.Evaluate(s, g, related); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.Skipped); diff != "" || s.State.Rendered() != (tc.want == "") {
				t.Errorf("%s\nevaluate: rendered %t, skipped -want, +got:\n%s", tc.reason, s.State.Rendered(), diff)
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
	stores, err := observe.AttachedStores(g, related)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range stores {
		got[s.Backend.Name] = s.Skipped
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

// TestControlPlaneListDecidesOnItsGlance: on a ControlPlane's Glance the
// ControlPlane's backends[] list is the single source of truth for the
// default and for the store ids it names, whatever hand-made backends say
// and whatever got in first.
func TestControlPlaneListDecidesOnItsGlance(t *testing.T) {
	yes := true
	cpRef := func(uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Name: "cp", UID: types.UID(uid), Controller: &yes}}
	}
	backendJSON := func(name, storeID string, isDefault bool, owners []metav1.OwnerReference) json.RawMessage {
		o := map[string]any{
			"metadata": map[string]any{"name": name, "namespace": "openstack", "ownerReferences": owners},
			"spec":     map[string]any{"glanceRef": map[string]any{"name": "cp-glance"}, "storeId": storeID, "isDefault": isDefault},
		}
		raw, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	type got struct {
		Skipped        map[string]string
		DefaultIgnored map[string]bool
	}
	cases := map[string]struct {
		reason  string
		owners  []metav1.OwnerReference
		related map[string]json.RawMessage
		want    got
	}{
		"HandMadeDefaultIgnored": {
			reason: "a hand-made isDefault on a ControlPlane's Glance is ignored, so the projected default stands",
			owners: cpRef("cp-1"),
			related: map[string]json.RawMessage{
				"cp-glance-default": backendJSON("cp-glance-default", "default", true, cpRef("cp-1")),
				"archive":           backendJSON("archive", "archive", true, nil),
			},
			want: got{DefaultIgnored: map[string]bool{"archive": true}},
		},
		"ProjectedKeepsItsStoreID": {
			reason: "a hand-made backend using an entry's store id is skipped; the projected one keeps it",
			owners: cpRef("cp-1"),
			related: map[string]json.RawMessage{
				"cp-glance-default": backendJSON("cp-glance-default", "default", true, cpRef("cp-1")),
				"mine":              backendJSON("mine", "default", false, nil),
			},
			want: got{Skipped: map[string]string{
				"mine": `store id "default" is the ControlPlane's entry, projected as GlanceBackend "cp-glance-default"; a hand-made backend needs another id`,
			}},
		},
		"ChildOfAnotherControlPlane": {
			reason: "only the Glance's own ControlPlane (by uid) projects: a leftover child of a deleted one is hand-made here",
			owners: cpRef("cp-2"),
			related: map[string]json.RawMessage{
				"cp-glance-default": backendJSON("cp-glance-default", "default", true, cpRef("cp-1")),
			},
			want: got{DefaultIgnored: map[string]bool{"cp-glance-default": true}},
		},
		"StandaloneGlance": {
			reason: "without a ControlPlane nothing is ignored and duplicates are duplicates",
			related: map[string]json.RawMessage{
				"a": backendJSON("a", "x", true, nil),
				"b": backendJSON("b", "x", false, nil),
			},
			want: got{Skipped: map[string]string{
				"a": `store id "x" is also used by GlanceBackend "b" (2 backends use it)`,
				"b": `store id "x" is also used by GlanceBackend "a" (2 backends use it)`,
			}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace, g.OwnerReferences = "cp-glance", "openstack", tc.owners
			stores, err := observe.AttachedStores(g, metacontroller.ObjectMap{names.GlanceBackendsKey: tc.related})
			if err != nil {
				t.Fatal(err)
			}
			var out got
			for _, s := range stores {
				if s.DefaultIgnored {
					if out.DefaultIgnored == nil {
						out.DefaultIgnored = map[string]bool{}
					}
					out.DefaultIgnored[s.Backend.Name] = true
				}
				// The specs here are not complete; only the decisions made before a spec is read count.
				if s.Skipped != "" && !strings.HasPrefix(s.Skipped, "its spec cannot be rendered") {
					if out.Skipped == nil {
						out.Skipped = map[string]string{}
					}
					out.Skipped[s.Backend.Name] = s.Skipped
				}
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("%s\nattachedStores: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
