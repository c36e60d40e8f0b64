package admission

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

const exactSiblingDefault = `GlanceBackend "primary" attached to the same Glance "glance" is already marked isDefault; exactly one default store is allowed`

func ptr[T any](v T) *T { return &v }

func TestSiblingDefaultMessageIsTheGuidesText(t *testing.T) {
	assert.Equal(t, exactSiblingDefault, SiblingDefaultMessage("primary", "glance"))
}

func TestGlanceBackendSiblingDefault(t *testing.T) {
	primary := backend("primary", "glance", true)
	secondary := backend("secondary", "glance", false)

	t.Run("second default on CREATE is refused with the guide's message", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{primary}}
		b := backend("secondary", "glance", true)
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, l), 403)
		assert.Equal(t, exactSiblingDefault, msg)
		assert.Equal(t, []string{ns}, l.namespaces)
	})
	t.Run("promote while the old default holds it is refused", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{primary, secondary}}
		promoted := backend("secondary", "glance", true)
		req := update(t, &promoted, &secondary)
		assert.Equal(t, exactSiblingDefault, denied(t, req, Review(context.Background(), req, l), 403))
	})
	t.Run("release then promote is accepted", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{primary, secondary}}
		released := backend("primary", "glance", false)
		req := update(t, &released, &primary)
		allowed(t, req, Review(context.Background(), req, l))
		assert.Zero(t, l.calls, "releasing a default must not depend on the API")

		l.items = []api.GlanceBackend{released, secondary}
		promoted := backend("secondary", "glance", true)
		req = update(t, &promoted, &secondary)
		allowed(t, req, Review(context.Background(), req, l))
		assert.Equal(t, 1, l.calls)
	})
	t.Run("release is allowed even when the API cannot be read", func(t *testing.T) {
		l := &fakeLister{err: errors.New("connection refused")}
		released := backend("primary", "glance", false)
		req := update(t, &released, &primary)
		allowed(t, req, Review(context.Background(), req, l))
	})
	t.Run("UPDATE keeping the default on the default is allowed", func(t *testing.T) {
		// Another default exists (made while the webhook was down): editing the
		// current default must still work, and so must fixing the state.
		other := backend("other", "glance", true)
		l := &fakeLister{items: []api.GlanceBackend{primary, other}}
		edited := backend("primary", "glance", true, func(b *api.GlanceBackend) { b.Spec.S3.Bucket = "glance-images-3" })
		req := update(t, &edited, &primary)
		allowed(t, req, Review(context.Background(), req, l))
		assert.Zero(t, l.calls)
	})
	t.Run("itself is skipped", func(t *testing.T) {
		// The listed copy of the object being promoted is already default
		// (e.g. a retried request); it must not refuse itself.
		l := &fakeLister{items: []api.GlanceBackend{backend("secondary", "glance", true)}}
		promoted := backend("secondary", "glance", true)
		req := update(t, &promoted, &secondary)
		allowed(t, req, Review(context.Background(), req, l))
		assert.Equal(t, 1, l.calls)
	})
	t.Run("a default sibling being deleted is skipped", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("primary", "glance", true, deleting)}}
		b := backend("secondary", "glance", true)
		req := create(t, &b)
		allowed(t, req, Review(context.Background(), req, l))
	})
	t.Run("defaults of other Glances and namespaces do not count", func(t *testing.T) {
		elsewhere := backend("primary", "glance", true, func(b *api.GlanceBackend) { b.Namespace = "other" })
		l := &fakeLister{items: []api.GlanceBackend{backend("a", "glance-multistore", true), elsewhere}}
		b := backend("secondary", "glance", true)
		req := create(t, &b)
		allowed(t, req, Review(context.Background(), req, l))
	})
	t.Run("the first default by name is named", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("zeta", "glance", true), backend("alpha", "glance", true)}}
		b := backend("secondary", "glance", true)
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, l), 403)
		assert.Equal(t, SiblingDefaultMessage("alpha", "glance"), msg)
	})
	t.Run("a non-default backend next to a default is accepted", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{primary}}
		req := create(t, &secondary)
		allowed(t, req, Review(context.Background(), req, l))
	})
	t.Run("hand-made default on a projected Glance is refused", func(t *testing.T) {
		projected := backend("controlplane-glance-default", "controlplane-glance", true, storeID("default"))
		l := &fakeLister{items: []api.GlanceBackend{projected}}
		b := backend("archive", "controlplane-glance", true)
		req := create(t, &b)
		assert.Equal(t,
			`GlanceBackend "controlplane-glance-default" attached to the same Glance "controlplane-glance" is already marked isDefault; exactly one default store is allowed`,
			denied(t, req, Review(context.Background(), req, l), 403))

		nonDefault := backend("archive", "controlplane-glance", false)
		req = create(t, &nonDefault)
		allowed(t, req, Review(context.Background(), req, l))
	})
}

func TestGlanceBackendFailsClosed(t *testing.T) {
	b := backend("secondary", "glance", true)
	cases := map[string]Lister{
		"lister error": &fakeLister{err: errors.New(`glancebackends.glance.openstack.c5c3.io is forbidden: User "system:serviceaccount:x:y" cannot list resource`)},
		"unavailable":  Unavailable{Reason: "no Kubernetes API access is configured"},
		"nil lister":   nil,
	}
	for name, l := range cases {
		t.Run(name, func(t *testing.T) {
			req := create(t, &b)
			msg := denied(t, req, Review(context.Background(), req, l), 503)
			assert.Contains(t, msg, `GlanceBackend "secondary" cannot be checked against the other backends of Glance "glance", so it is refused: listing GlanceBackends in namespace "openstack" failed: `)
		})
	}
	t.Run("a canceled context is a refusal, not an allow", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		l := listerFunc(func(ctx context.Context, _ string) ([]api.GlanceBackend, error) { return nil, ctx.Err() })
		req := create(t, &b)
		assert.Contains(t, denied(t, req, Review(ctx, req, l), 503), "context canceled")
	})
	t.Run("a non-default CREATE needs the siblings too (store ids)", func(t *testing.T) {
		nd := backend("secondary", "glance", false)
		req := create(t, &nd)
		denied(t, req, Review(context.Background(), req, Unavailable{Reason: "down"}), 503)
	})
	t.Run("an UPDATE that changes neither default nor store id needs no API", func(t *testing.T) {
		old := backend("secondary", "glance", false)
		nw := backend("secondary", "glance", false, func(b *api.GlanceBackend) { b.Spec.S3.Region = "eu" })
		req := update(t, &nw, &old)
		allowed(t, req, Review(context.Background(), req, Unavailable{Reason: "down"}))
	})
}

type listerFunc func(ctx context.Context, namespace string) ([]api.GlanceBackend, error)

func (f listerFunc) ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error) {
	return f(ctx, namespace)
}

func (f listerFunc) GlanceControlPlane(context.Context, string, string) (string, error) {
	return "", nil
}

func TestGlanceBackendStoreIDCollision(t *testing.T) {
	t.Run("same store id through spec.storeId", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("controlplane-glance-secondary", "controlplane-glance", false, storeID("secondary"))}}
		b := backend("secondary", "controlplane-glance", false)
		req := create(t, &b)
		assert.Equal(t,
			`store id "secondary" of GlanceBackend "secondary" is already used by GlanceBackend "controlplane-glance-secondary" attached to the same Glance "controlplane-glance"; store ids must be unique per Glance`,
			denied(t, req, Review(context.Background(), req, l), 403))
	})
	t.Run("same id on another Glance is fine", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("x", "glance-multistore", false, storeID("secondary"))}}
		b := backend("secondary", "glance", false)
		req := create(t, &b)
		allowed(t, req, Review(context.Background(), req, l))
	})
	t.Run("a sibling being deleted still holds its id", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("old", "glance", false, storeID("archive"), deleting)}}
		b := backend("new", "glance", false, storeID("archive"))
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, l), 403)
		assert.Contains(t, msg, `already used by GlanceBackend "old"`)
		assert.Contains(t, msg, `"old" is being deleted; retry once it is gone`)
	})
	t.Run("changing the store id to a taken one is refused", func(t *testing.T) {
		a := backend("a", "glance", false)
		bOld := backend("b", "glance", false)
		l := &fakeLister{items: []api.GlanceBackend{a, bOld}}
		bNew := backend("b", "glance", false, storeID("a"))
		req := update(t, &bNew, &bOld)
		assert.Contains(t, denied(t, req, Review(context.Background(), req, l), 403), `store id "a" of GlanceBackend "b" is already used by GlanceBackend "a"`)
	})
	t.Run("both conflicts are reported", func(t *testing.T) {
		l := &fakeLister{items: []api.GlanceBackend{backend("primary", "glance", true), backend("y", "glance", false, storeID("secondary"))}}
		b := backend("secondary", "glance", true)
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, l), 403)
		assert.Contains(t, msg, exactSiblingDefault)
		assert.Contains(t, msg, `already used by GlanceBackend "y"`)
	})
}

func TestGlanceBackendReservedStoreIDs(t *testing.T) {
	cases := []struct {
		name, storeID string
		want          string
	}{
		{"os-glance-staging", "", `GlanceBackend "os-glance-staging": its name is its store id (spec.storeId is unset), and store id "os-glance-staging" uses the reserved os-glance- store-section prefix`},
		{"glance-store", "glance_store", `GlanceBackend "glance-store": spec.storeId: store id "glance_store" collides with a reserved store section`},
		{"mine", "os_glance_tasks_store", `spec.storeId: store id "os_glance_tasks_store" uses the reserved os_glance_ store-section prefix`},
		{"keystone-authtoken", "keystone_authtoken", `store id "keystone_authtoken" collides with a reserved store section`},
		{"database", "", `its name is its store id (spec.storeId is unset), and store id "database" collides with a reserved store section`},
	}
	for _, tc := range cases {
		t.Run(tc.name+"/"+tc.storeID, func(t *testing.T) {
			l := &fakeLister{}
			b := backend(tc.name, "glance", false, storeID(tc.storeID))
			req := create(t, &b)
			assert.Contains(t, denied(t, req, Review(context.Background(), req, l), 422), tc.want)
			assert.Zero(t, l.calls, "a refusal on the object alone needs no API read")
		})
	}
	t.Run("the guide's store id default is allowed", func(t *testing.T) {
		b := backend("controlplane-glance-default", "controlplane-glance", true, storeID("default"))
		req := create(t, &b)
		allowed(t, req, Review(context.Background(), req, &fakeLister{}))
	})
	t.Run("a generated name without storeId is refused", func(t *testing.T) {
		b := backend("", "glance", false, func(b *api.GlanceBackend) { b.GenerateName = "store-" })
		req := create(t, &b)
		assert.Contains(t, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422), "a generated name cannot be used; set spec.storeId")
	})
	t.Run("a generated name with storeId is fine", func(t *testing.T) {
		b := backend("", "glance", false, storeID("archive"), func(b *api.GlanceBackend) { b.GenerateName = "store-" })
		req := create(t, &b)
		allowed(t, req, Review(context.Background(), req, &fakeLister{}))
	})
}

func TestGlanceBackendSpecRules(t *testing.T) {
	secretish := "AKIA-not-to-be-echoed"
	cases := []struct {
		name string
		mod  func(*api.GlanceBackend)
		want string
	}{
		{"no glanceRef", func(b *api.GlanceBackend) { b.Spec.GlanceRef.Name = "" }, "spec.glanceRef.name is required"},
		{"bad glanceRef", func(b *api.GlanceBackend) { b.Spec.GlanceRef.Name = "Glance_1" }, `spec.glanceRef.name cannot name a Glance`},
		{"type", func(b *api.GlanceBackend) { b.Spec.Type = "Swift" }, `spec.type: Unsupported value: supported values: "S3"`},
		{"no s3", func(b *api.GlanceBackend) { b.Spec.S3 = nil }, "spec.s3: exactly one backend block matching spec.type must be set (type S3 requires spec.s3)"},
		{"no host", func(b *api.GlanceBackend) { b.Spec.S3.Host = "" }, "spec.s3.host is required"},
		{"a ControlPlane entry's endpoint", func(b *api.GlanceBackend) { b.Spec.S3.Endpoint, b.Spec.S3.Host = b.Spec.S3.Host, "" },
			"spec.s3.endpoint is how a ControlPlane's backends entry names the S3 address: a GlanceBackend names it s3.host"},
		{"host not a URL", func(b *api.GlanceBackend) { b.Spec.S3.Host = "garage:3900" }, "spec.s3.host: scheme must be http or https"},
		{"host with credentials", func(b *api.GlanceBackend) { b.Spec.S3.Host = "http://key:" + secretish + "@garage:3900" }, "spec.s3.host: must not carry credentials"},
		{"host with newline", func(b *api.GlanceBackend) { b.Spec.S3.Host = "http://garage\n[DEFAULT]" }, "spec.s3.host contains a newline"},
		{"host that does not parse", func(b *api.GlanceBackend) { b.Spec.S3.Host = "http://key:" + secretish + "%zz@garage:3900" }, "spec.s3.host: must be a valid URL: invalid URL escape"},
		{"port that is no number", func(b *api.GlanceBackend) { b.Spec.S3.Host = "http://key:" + secretish + "@garage:39x0" }, "spec.s3.host: must be a valid URL: invalid port after host"},
		{"lone quote", func(b *api.GlanceBackend) { b.Spec.S3.Bucket = `"` }, "spec.s3.bucket is a lone quote, which the config parser reads as an empty value"},
		{"no bucket", func(b *api.GlanceBackend) { b.Spec.S3.Bucket = "" }, "spec.s3.bucket is required"},
		{"bucket injection", func(b *api.GlanceBackend) { b.Spec.S3.Bucket = "b\r\nx=1" }, "spec.s3.bucket contains a carriage return"},
		{"no secret", func(b *api.GlanceBackend) { b.Spec.S3.CredentialsSecretRef.Name = "" }, "spec.s3.credentialsSecretRef.name is required"},
		{"url format", func(b *api.GlanceBackend) { b.Spec.S3.BucketURLFormat = "auto" }, "spec.s3.bucketURLFormat must be path or virtual"},
		{"chunk size", func(b *api.GlanceBackend) { b.Spec.S3.LargeObjectChunkSize = ptr(int64(0)) }, "spec.s3.largeObjectChunkSize must be at least 1"},
		{"extra option key", func(b *api.GlanceBackend) { b.Spec.ExtraOptions = map[string]string{"a]\n[b": "1"} }, `spec.extraOptions[a]\n[b]: option name must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)`},
		{"extra option value", func(b *api.GlanceBackend) {
			b.Spec.ExtraOptions = map[string]string{"s3_store_thread_pools": secretish + "\n[x]"}
		}, "spec.extraOptions[s3_store_thread_pools]: value must not contain newline or carriage-return characters"},
		{"extra option credential", func(b *api.GlanceBackend) {
			b.Spec.ExtraOptions = map[string]string{"s3_store_secret_key": secretish}
		}, `spec.extraOptions[s3_store_secret_key]: option "s3_store_secret_key" is owned by spec.s3.credentialsSecretRef and must not be set via extraOptions`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := backend("secondary", "glance", false, tc.mod)
			req := create(t, &b)
			msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
			assert.Contains(t, msg, `GlanceBackend "secondary": `+tc.want)
			assert.NotContains(t, msg, secretish, "a refusal must not echo values")
		})
	}
	t.Run("several problems are all reported", func(t *testing.T) {
		b := backend("os_glance_x", "glance", false, func(b *api.GlanceBackend) { b.Spec.S3.Bucket = ""; b.Spec.Type = "S3" })
		req := create(t, &b)
		msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 422)
		assert.Contains(t, msg, "reserved os_glance_ store-section prefix")
		assert.Contains(t, msg, "; ")
		assert.Contains(t, msg, "spec.s3.bucket is required")
	})
	t.Run("a name that is no object name", func(t *testing.T) {
		b := backend("Secondary_1", "glance", false, storeID("secondary"))
		req := create(t, &b)
		assert.Contains(t, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422), `GlanceBackend "Secondary_1": the name is not a valid object name`)
	})
	t.Run("glanceRef and type are immutable", func(t *testing.T) {
		old := backend("secondary", "glance", false)
		moved := backend("secondary", "glance-multistore", false)
		req := update(t, &moved, &old)
		assert.Equal(t, `GlanceBackend "secondary": spec.glanceRef: glanceRef is immutable`, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422),
			"the CRD's and the reference's words")
		retyped := backend("secondary", "glance", false, func(b *api.GlanceBackend) { b.Spec.Type = "Swift" })
		req = update(t, &retyped, &old)
		assert.Contains(t, denied(t, req, Review(context.Background(), req, &fakeLister{}), 422), "spec.type: type is immutable")
	})
	t.Run("an object being deleted is allowed (finalizers can go)", func(t *testing.T) {
		old := backend("os_glance_x", "glance", true, deleting)
		nw := backend("os_glance_x", "glance", true, deleting, func(b *api.GlanceBackend) { b.Finalizers = nil })
		req := update(t, &nw, &old)
		allowed(t, req, Review(context.Background(), req, Unavailable{Reason: "down"}))
	})
}

func TestGlanceBackendUndecodableObject(t *testing.T) {
	b := backend("secondary", "glance", true)
	req := create(t, &b)
	req.Object.Raw = []byte(`{"metadata":{"name":"secondary"},"spec":{"isDefault":"yes-AKIA"}}`)
	msg := denied(t, req, Review(context.Background(), req, &fakeLister{}), 400)
	assert.Contains(t, msg, "GlanceBackend object does not match its schema: field spec.isDefault must be bool")
	assert.NotContains(t, msg, "AKIA")
}

func TestOtherRequestsAreAllowed(t *testing.T) {
	bad := backend("os_glance_x", "glance", true)
	for _, tc := range []struct {
		name string
		mod  func(*admissionv1.AdmissionRequest)
	}{
		{"DELETE", func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Delete }},
		{"CONNECT", func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Connect }},
		{"status subresource", func(r *admissionv1.AdmissionRequest) { r.SubResource = "status" }},
		{"another kind", func(r *admissionv1.AdmissionRequest) { r.Kind.Kind = "ConfigMap"; r.Kind.Group = "" }},
		{"same kind, other group", func(r *admissionv1.AdmissionRequest) { r.Kind.Group = "example.com" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &fakeLister{err: errors.New("must not be called")}
			req := create(t, &bad)
			tc.mod(req)
			allowed(t, req, Review(context.Background(), req, l))
			require.Zero(t, l.calls)
		})
	}
}

// projectedBy makes a backend a projected child of the ControlPlane
// "controlplane".
func projectedBy(uid string) func(*api.GlanceBackend) { return projectedByNamed("controlplane", uid) }

func projectedByNamed(cp, uid string) func(*api.GlanceBackend) {
	return func(b *api.GlanceBackend) {
		yes := true
		b.OwnerReferences = []metav1.OwnerReference{{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane,
			Name: cp, UID: types.UID(uid), Controller: &yes}}
	}
}

// TestProjectedSiblingsSwitchInAnyOrder: Metacontroller applies a
// ControlPlane's one-edit switch child by child in no fixed order; the
// promoted child must not be refused because its projected sibling has not
// been released yet. A hand-made default stays refused, and so does a
// child of another ControlPlane attached to this one's Glance.
func TestProjectedSiblingsSwitchInAnyOrder(t *testing.T) {
	oldDefault := backend("controlplane-glance-default", "controlplane-glance", true, projectedBy("cp-1"))
	secondary := backend("controlplane-glance-secondary", "controlplane-glance", false, projectedBy("cp-1"))
	l := &fakeLister{items: []api.GlanceBackend{oldDefault, secondary}, controlPlanes: map[string]string{"controlplane-glance": "controlplane"}}
	promoted := backend("controlplane-glance-secondary", "controlplane-glance", true, projectedBy("cp-1"))
	req := update(t, &promoted, &secondary)
	allowed(t, req, Review(context.Background(), req, l))

	hand := backend("archive", "controlplane-glance", true)
	req = create(t, &hand)
	assert.Equal(t, SiblingDefaultMessage("controlplane-glance-default", "controlplane-glance"),
		denied(t, req, Review(context.Background(), req, l), 403))

	other := backend("x", "controlplane-glance", true, projectedByNamed("other", "cp-2"))
	req = create(t, &other)
	denied(t, req, Review(context.Background(), req, l), 403)
}

// TestHandMadeDefaultOnAControlPlanesGlance: the ControlPlane's list is the
// single source of truth for the default on its Glance. A hand-made
// default is refused whatever was created first, and the projected children
// are never blocked by a hand-made sibling that got in anyway.
func TestHandMadeDefaultOnAControlPlanesGlance(t *testing.T) {
	const glance = "controlplane-glance"
	hand := backend("archive", glance, true)
	projected := backend("controlplane-glance-default", glance, true, projectedBy("cp-1"))
	cases := map[string]struct {
		reason string
		lister *fakeLister
		req    func() *admissionv1.AdmissionRequest
		want   string // "" allowed
		code   int32
	}{
		"hand-made default before the projected one": {
			reason: "the ControlPlane (or its Glance) exists but no projected default yet: refused, naming the ControlPlane",
			lister: &fakeLister{controlPlanes: map[string]string{glance: "controlplane"}},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &hand) },
			want:   ControlPlaneDefaultMessage("archive", glance, "controlplane"),
			code:   403,
		},
		"hand-made default after the projected one": {
			reason: "the guide's Step 4: the projected default already holds it",
			lister: &fakeLister{items: []api.GlanceBackend{projected}, controlPlanes: map[string]string{glance: "controlplane"}},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &hand) },
			want:   SiblingDefaultMessage("controlplane-glance-default", glance),
			code:   403,
		},
		"hand-made backend promoted later": {
			reason: "an UPDATE that makes a hand-made backend the default is refused the same way",
			lister: &fakeLister{controlPlanes: map[string]string{glance: "controlplane"}},
			req: func() *admissionv1.AdmissionRequest {
				before := backend("archive", glance, false)
				return update(t, &hand, &before)
			},
			want: ControlPlaneDefaultMessage("archive", glance, "controlplane"),
			code: 403,
		},
		"projected default after a hand-made one got in": {
			reason: "never block the projected children: a hand-made default admitted earlier does not refuse the ControlPlane's own",
			lister: &fakeLister{items: []api.GlanceBackend{hand}, controlPlanes: map[string]string{glance: "controlplane"}},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &projected) },
		},
		"projected child taking a store id a hand-made one holds": {
			reason: "the ControlPlane's entry names its store id; its Glance prefers the projected child",
			lister: &fakeLister{items: []api.GlanceBackend{backend("default", glance, false)}},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &projected) },
		},
		"standalone Glance": {
			reason: "without a ControlPlane a first hand-made default is the default",
			lister: &fakeLister{},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &hand) },
		},
		"the ControlPlane cannot be read": {
			reason: "fail closed",
			lister: &fakeLister{err: errors.New("connection refused")},
			req:    func() *admissionv1.AdmissionRequest { return create(t, &hand) },
			want:   `GlanceBackend "archive" cannot be checked against the other backends of Glance "controlplane-glance", so it is refused: listing GlanceBackends in namespace "openstack" failed: connection refused`,
			code:   503,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := tc.req()
			resp := Review(context.Background(), req, tc.lister)
			if tc.want == "" {
				allowed(t, req, resp)
				return
			}
			assert.Equal(t, tc.want, denied(t, req, resp, tc.code), tc.reason)
		})
	}
}

func TestControlPlaneOfGlance(t *testing.T) {
	yes := true
	owned := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "cp-glance", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: api.ControlPlaneAPIVersion, Kind: api.KindControlPlane, Name: "cp", Controller: &yes}}}}
	standalone := &api.Glance{ObjectMeta: metav1.ObjectMeta{Name: "cp-glance"}}
	running := &api.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp"}, Spec: api.ControlPlaneSpec{Services: api.Services{Glance: &api.GlanceService{}}}}
	other := &api.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp"}}
	assert.Equal(t, "cp", ControlPlaneOfGlance(owned, nil), "the Glance's controller")
	assert.Equal(t, "", ControlPlaneOfGlance(standalone, running), "an existing Glance decides: a hand-made Glance of that name is standalone")
	assert.Equal(t, "cp", ControlPlaneOfGlance(nil, running), "a ControlPlane about to project the Glance")
	assert.Equal(t, "", ControlPlaneOfGlance(nil, other), "a ControlPlane that runs no Glance")
	assert.Equal(t, "", ControlPlaneOfGlance(nil, nil))
	assert.Equal(t, "cp", CandidateControlPlane("cp-glance"))
	assert.Equal(t, "", CandidateControlPlane("glance"))
	assert.Equal(t, "", CandidateControlPlane("-glance"))
}
