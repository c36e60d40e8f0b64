package glance

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/release"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

var (
	digestA = "sha256:" + strings.Repeat("a", 64)
	digestB = "sha256:" + strings.Repeat("b", 64)
)

// s3Store is a rendered store on host, with a CA bundle of that digest when
// digest is set.
func s3Store(id, host, digest string) *model.Store {
	s := &model.Store{ID: id, State: storestate.Rendered, Section: "[" + id + "]\n"}
	s.Backend.Spec.S3 = &api.S3Store{Host: host}
	if digest != "" {
		s.CA = &model.CAMount{Ref: api.CABundleRef{Name: id + "-ca"}, Digest: digest}
	}
	return s
}

// retiringStore is a store kept from the running config, its backend gone:
// its host is only in its section, and its bundle is the one the running
// Deployment mounts.
func retiringStore(id, host, digest string) *model.Store {
	s := &model.Store{ID: id, Retired: true, State: storestate.Retiring, Section: "[" + id + "]\ns3_store_host = " + host + "\n"}
	if digest != "" {
		s.Section += "s3_store_cacert = /etc/glance/s3-ca/" + id + "/ca.crt\n"
		s.CA = &model.CAMount{Ref: api.CABundleRef{Name: id + "-ca"}, Digest: digest}
	}
	return s
}

func TestProcessWideCABundle(t *testing.T) {
	zed := release.Release{Year: 2022, Minor: 2}
	type want struct {
		env     string
		skipped map[string]string // store id -> message, for stores left out
	}
	oneBundle := "glance_store of release 2022.2 has no s3_store_cacert, so one CA bundle " +
		"(botocore's AWS_CA_BUNDLE) verifies every S3 store of glance-api, "
	conflict := "its CA bundle cannot be used: " + oneBundle
	retiredConflict := "its backend is gone and " + conflict
	// otherThanOld is an attached store's message when its bundle differs
	// from that of retiring store "old".
	otherThanOld := `its CA bundle conflicts with retiring store "old": ` + oneBundle +
		"and a retiring store keeps the bundle it is read with, so images in it stay readable, and this store's has other content; " +
		`give this store the same bundle, drop retiring store "old" (spec.dropRetiredStores), or run 2025.1 or later`
	cases := map[string]struct {
		reason  string
		stores  []*model.Store
		retired []*model.Store
		want    want
	}{
		"NoBundle": {
			reason: "without a CA bundle botocore keeps its default trust roots",
			stores: []*model.Store{s3Store("a", "https://s3.example.com", ""), s3Store("b", "http://garage:3900", "")},
		},
		"OneBundle": {
			reason: "one https store with a bundle beside http stores: the bundle is the process's",
			stores: []*model.Store{s3Store("a", "http://garage:3900", ""), s3Store("b", "https://rgw.internal", digestA)},
			want:   want{env: "/etc/glance/s3-ca/b/ca.crt"},
		},
		"SameContent": {
			reason: "stores naming bundles with the same content share it; the first store's file is named",
			stores: []*model.Store{s3Store("a", "https://rgw-a.internal", digestA), s3Store("b", "https://rgw-b.internal", digestA)},
			want:   want{env: "/etc/glance/s3-ca/a/ca.crt"},
		},
		"NotRenderedIgnored": {
			reason: "a store that is not rendered does not count",
			stores: []*model.Store{s3Store("a", "https://rgw.internal", digestA), {ID: "b", Skipped: "x"}},
			want:   want{env: "/etc/glance/s3-ca/a/ca.crt"},
		},
		"TwoBundles": {
			reason: "two different bundles cannot both be the one: every store with a bundle is skipped, saying why",
			stores: []*model.Store{s3Store("a", "https://rgw-a.internal", digestA), s3Store("b", "https://rgw-b.internal", digestB),
				s3Store("c", "http://garage:3900", "")},
			want: want{skipped: map[string]string{
				"a": conflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
				"b": conflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
			}},
		},
		"HTTPSWithoutBundle": {
			reason: "a bundle would take the system trust roots from an https store without one: the store with the bundle is skipped",
			stores: []*model.Store{s3Store("a", "https://rgw.internal", digestA), s3Store("b", "https://s3.example.com", "")},
			want: want{skipped: map[string]string{
				"a": conflict + `which https:// store "b" without a CA bundle would then be verified with instead of the system trust roots; ` +
					"name the same bundle (holding the roots they need) on every https:// store, or run 2025.1 or later",
			}},
		},
		"RetiringStoreKeepsItsBundle": {
			reason:  "a retiring https store, the only one with a bundle, beside an attached http store: its bundle stays the process's, or its images fail the TLS check",
			stores:  []*model.Store{s3Store("a", "http://garage:3900", "")},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestA)},
			want:    want{env: "/etc/glance/s3-ca/old/ca.crt"},
		},
		"RetiringSameContentByStoreID": {
			reason:  "a retiring store and an attached one with bundles of the same content share it; the first store id's file is named, whichever list it is in",
			stores:  []*model.Store{s3Store("z", "https://rgw-z.internal", digestA)},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestA)},
			want:    want{env: "/etc/glance/s3-ca/old/ca.crt"},
		},
		"RetiringBundleWinsOverNewcomer": {
			reason: "a retiring store's bundle of other content than an attached store's: the retiring store is serving and would be gone for good, " +
				"so the attached one is skipped, naming it and the ways out, and the retiring store's bundle stays the process's",
			stores:  []*model.Store{s3Store("a", "https://rgw-a.internal", digestA), s3Store("b", "http://garage:3900", "")},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestB)},
			want: want{env: "/etc/glance/s3-ca/old/ca.crt", skipped: map[string]string{
				"a": otherThanOld,
			}},
		},
		"RetiringBundleSkipsOnlyTheConflictingNewcomer": {
			reason:  "of two attached stores, the one with the retiring store's bundle content is kept, the other skipped; the first store id's file is named",
			stores:  []*model.Store{s3Store("c", "https://rgw-c.internal", digestB), s3Store("a", "https://rgw-a.internal", digestA)},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestA)},
			want: want{env: "/etc/glance/s3-ca/a/ca.crt", skipped: map[string]string{
				"c": otherThanOld,
			}},
		},
		"RetiringBundleSkipsNewcomerWithoutBundle": {
			reason:  "an attached https store without a bundle would be verified with the retiring store's bundle instead of the system roots: the attached one is skipped",
			stores:  []*model.Store{s3Store("b", "https://s3.example.com", ""), s3Store("c", "http://garage:3900", "")},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestA), retiringStore("older", "https://rgw.internal", digestA)},
			want: want{env: "/etc/glance/s3-ca/old/ca.crt", skipped: map[string]string{
				"b": `it conflicts with retiring stores "old", "older": ` + oneBundle +
					"and a retiring store keeps the bundle it is read with, so images in it stay readable, and this https:// store without a CA bundle " +
					"would then be verified with it instead of the system trust roots; give this store the same bundle (holding the roots it needs), " +
					`drop retiring stores "old", "older" (spec.dropRetiredStores), or run 2025.1 or later`,
			}},
		},
		"RetiringHTTPSWithoutBundle": {
			reason:  "a retiring https store without a bundle (its host read from its kept section) would lose the system trust roots: the attached store with the bundle is skipped, naming it",
			stores:  []*model.Store{s3Store("a", "https://rgw-a.internal", digestA)},
			retired: []*model.Store{retiringStore("old", "https://s3.example.com", "")},
			want: want{skipped: map[string]string{
				"a": `its CA bundle conflicts with retiring https:// store "old" without a CA bundle: ` + oneBundle +
					"and this bundle would replace the system trust roots a retiring store is read with; name no CA bundle on this store " +
					`(when the system trust roots verify its endpoint), drop retiring store "old" (spec.dropRetiredStores), or run 2025.1 or later`,
			}},
		},
		"RetiringHTTPLeavesAttachedConflict": {
			reason:  "a retiring http store asks nothing of the bundle: a conflict among attached stores alone skips them as before",
			stores:  []*model.Store{s3Store("a", "https://rgw-a.internal", digestA), s3Store("b", "https://rgw-b.internal", digestB)},
			retired: []*model.Store{retiringStore("old", "http://garage:3900", "")},
			want: want{skipped: map[string]string{
				"a": conflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
				"b": conflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
			}},
		},
		"RetiringStoresConflictAmongThemselves": {
			reason: "retiring stores one bundle cannot serve (only after a release went back) take no precedence: " +
				"every store with a bundle is skipped, the retiring ones saying their backend is gone",
			stores:  []*model.Store{s3Store("a", "https://rgw-a.internal", digestA)},
			retired: []*model.Store{retiringStore("old", "https://rgw.internal", digestA), retiringStore("older", "https://rgw-2.internal", digestB)},
			want: want{skipped: map[string]string{
				"a":     conflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
				"old":   retiredConflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
				"older": retiredConflict + "and the stores name 2 bundles with different content; give them one bundle, or run 2025.1 or later",
			}},
		},
		"RetiringNotKeptIgnored": {
			reason:  "a retiring store whose section is not kept (dropped) does not count",
			stores:  []*model.Store{s3Store("a", "https://rgw-a.internal", digestA)},
			retired: []*model.Store{{ID: "old", Retired: true, State: storestate.Dropped, CA: &model.CAMount{Digest: digestB}}},
			want:    want{env: "/etc/glance/s3-ca/a/ca.crt"},
		},
	}
	decide := func(t *testing.T, reason string, stores, retired []*model.Store) want {
		got := want{env: processWideCABundle(stores, retired, zed)}
		for _, s := range append(append([]*model.Store{}, stores...), retired...) {
			if s.State == storestate.CAConflict {
				if got.skipped == nil {
					got.skipped = map[string]string{}
				}
				got.skipped[s.ID] = s.Skipped
				if s.State.Rendered() || s.Section != "" {
					t.Errorf("%s: store %s is skipped but still rendered", reason, s.ID)
				}
			}
		}
		return got
	}
	// reversed copies the stores in the other order, unskipped.
	reversed := func(stores []*model.Store) []*model.Store {
		out := make([]*model.Store, len(stores))
		for i, s := range stores {
			c := *s
			out[len(stores)-1-i] = &c
		}
		return out
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			otherOrder, otherOrderRetired := reversed(tc.stores), reversed(tc.retired)
			got := decide(t, tc.reason, tc.stores, tc.retired)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nprocessWideCABundle(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(got, decide(t, tc.reason, otherOrder, otherOrderRetired), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nthe stores in the other order decide otherwise: -in order, +reversed:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestAddCABundles(t *testing.T) {
	d := &render.DeploymentChild{}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: render.ContainerName}}
	secretStore := s3Store("b.archive", "https://rgw.internal", digestB)
	secretStore.CA.Ref = api.CABundleRef{Kind: api.CABundleKindSecret, Name: "rgw-tls", Key: "ca.crt"}
	addCABundles(d, []*model.Store{
		s3Store("a", "https://rgw.internal", digestA),
		secretStore,
		s3Store("c", "http://garage:3900", ""),
		{ID: "d", CA: &model.CAMount{Digest: digestA}}, // not rendered
	}, "/etc/glance/s3-ca/a/ca.crt")

	cmMode, secMode := int32(0o444), int32(0o440)
	items := []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}
	wantVolumes := []corev1.Volume{
		{Name: names.CABundleVolume("a"), VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "a-ca"}, Items: items, DefaultMode: &cmMode}}},
		{Name: names.CABundleVolume("b.archive"), VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: "rgw-tls", Items: items, DefaultMode: &secMode}}},
	}
	if diff := cmp.Diff(wantVolumes, d.Spec.Template.Spec.Volumes); diff != "" {
		t.Errorf("a volume per rendered store with a bundle, its key projected as ca.crt: -want, +got:\n%s", diff)
	}
	ctr := d.Spec.Template.Spec.Containers[0]
	wantMounts := []corev1.VolumeMount{
		{Name: names.CABundleVolume("a"), MountPath: "/etc/glance/s3-ca/a", ReadOnly: true},
		{Name: names.CABundleVolume("b.archive"), MountPath: "/etc/glance/s3-ca/b.archive", ReadOnly: true},
	}
	if diff := cmp.Diff(wantMounts, ctr.VolumeMounts); diff != "" {
		t.Errorf("each mounted read-only at the directory of its store id: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]corev1.EnvVar{{Name: "AWS_CA_BUNDLE", Value: "/etc/glance/s3-ca/a/ca.crt"}}, ctr.Env); diff != "" {
		t.Errorf("the process-wide bundle: -want, +got:\n%s", diff)
	}
	if got, want := d.Spec.Template.Annotations[names.AnnotationCABundles], "a="+digestA+",b.archive="+digestB; got != want {
		t.Errorf("pod template annotation = %q, want %q", got, want)
	}
	for _, v := range d.Spec.Template.Spec.Volumes {
		if len(v.Name) > 63 || strings.ContainsAny(v.Name, "._") {
			t.Errorf("volume name %q is no DNS label", v.Name)
		}
	}

	plain := &render.DeploymentChild{}
	plain.Spec.Template.Spec.Containers = []corev1.Container{{Name: render.ContainerName}}
	addCABundles(plain, []*model.Store{s3Store("a", "https://s3.example.com", "")}, "")
	if plain.Spec.Template.Annotations != nil || plain.Spec.Template.Spec.Volumes != nil || plain.Spec.Template.Spec.Containers[0].Env != nil {
		t.Errorf("a Glance without CA bundles gets nothing: %+v", plain.Spec.Template)
	}
}

// A store naming a CA bundle is rendered only when its backend reports the
// bundle ready and its store Secret carries a digest the pod template can
// take.
func TestEvaluateCABundleStore(t *testing.T) {
	ready := metav1.Condition{Type: names.ConditionCABundleReady, Status: metav1.ConditionTrue}
	cases := map[string]struct {
		reason string
		cond   *metav1.Condition
		digest string
		want   string
	}{
		"Ready": {reason: "a ready bundle and a digest: rendered with the mount", cond: &ready, digest: digestA},
		"ConditionMissing": {reason: "a backend that has not reported on its bundle is waited for: on its way, not a fault",
			digest: digestA, want: observe.PendingMessage},
		"NotReady": {reason: "the backend's reason is carried",
			cond:   &metav1.Condition{Type: names.ConditionCABundleReady, Status: metav1.ConditionFalse, Message: `ConfigMap "a-ca" not found`},
			digest: digestA, want: `its CA bundle is not ready: ConfigMap "a-ca" not found`},
		"NoDigest": {reason: "a store Secret without the digest cannot roll the pods on a new bundle",
			cond: &ready, want: `its store Secret "a-store" carries no valid CA bundle digest (glance.openstack.c5c3.io/ca-bundle-digest)`},
		"ForgedDigest": {reason: "a digest that is not one never reaches the pod template",
			cond: &ready, digest: "sha256:x,evil=1", want: `its store Secret "a-store" carries no valid CA bundle digest (glance.openstack.c5c3.io/ca-bundle-digest)`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g := &api.Glance{}
			g.Name, g.Namespace = "glance", "openstack"
			s := &model.Store{ID: "a"}
			s.Backend.Name = "a"
			s.Backend.Spec = api.GlanceBackendSpec{GlanceRef: api.LocalObjectReference{Name: "glance"}, Type: api.BackendTypeS3,
				S3: &api.S3Store{Host: "https://rgw:443", S3Options: api.S3Options{Bucket: "b", CredentialsSecretRef: api.LocalObjectReference{Name: "c"},
					CABundleRef: &api.CABundleRef{Name: "a-ca"}}}}
			s.Backend.Status.Conditions = []metav1.Condition{{Type: names.ConditionCredentialsReady, Status: metav1.ConditionTrue}}
			if tc.cond != nil {
				s.Backend.Status.Conditions = append(s.Backend.Status.Conditions, *tc.cond)
			}
			annotations := map[string]string{names.AnnotationStoreID: "a", names.AnnotationSpecHash: storeconf.SpecHash(s.Backend.Spec, "a")}
			if tc.digest != "" {
				annotations[names.AnnotationCABundleDigest] = tc.digest
			}
			raw, err := json.Marshal(map[string]any{
				"metadata": map[string]any{"labels": map[string]string{names.LabelGlance: "glance"}, "annotations": annotations,
					"ownerReferences": []any{map[string]any{"kind": api.KindGlanceBackend, "name": "a", "controller": true}}},
				"data": map[string]string{names.StoreSecretKey: base64.StdEncoding.EncodeToString([]byte("[a]\ns3_store_cacert = /etc/glance/s3-ca/a/ca.crt\n"))},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := observe.Evaluate(s, g, metacontroller.ObjectMap{names.SecretsKey: {"a-store": raw}}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, s.Skipped); diff != "" || s.State.Rendered() != (tc.want == "") || s.State.Waiting() != (tc.want == observe.PendingMessage) {
				t.Errorf("%s\nevaluate: rendered %t, pending %t, skipped -want, +got:\n%s", tc.reason, s.State.Rendered(), s.State.Waiting(), diff)
			}
			if tc.want == "" && (s.CA == nil || s.CA.Digest != tc.digest || s.CA.Ref.Name != "a-ca") {
				t.Errorf("%s: the store's mount is %+v", tc.reason, s.CA)
			}
		})
	}
}
