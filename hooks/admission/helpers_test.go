package admission

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

const ns = "openstack"

// fakeLister serves a fixed list and records what it was asked. controlPlanes
// maps a Glance name to the ControlPlane that projects it.
type fakeLister struct {
	items         []api.GlanceBackend
	controlPlanes map[string]string
	err           error
	calls         int // lists
	gets          int
	namespaces    []string
}

func (f *fakeLister) GlanceControlPlane(_ context.Context, namespace, glance string) (string, error) {
	f.gets++
	if f.err != nil {
		return "", f.err
	}
	return f.controlPlanes[glance], nil
}

func (f *fakeLister) ListGlanceBackends(ctx context.Context, namespace string) ([]api.GlanceBackend, error) {
	f.calls++
	f.namespaces = append(f.namespaces, namespace)
	if f.err != nil {
		return nil, f.err
	}
	var out []api.GlanceBackend
	for _, b := range f.items {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out, nil
}

// backend is the guide's standalone GlanceBackend shape.
func backend(name, glance string, isDefault bool, mods ...func(*api.GlanceBackend)) api.GlanceBackend {
	b := api.GlanceBackend{
		TypeMeta:   metav1.TypeMeta{APIVersion: api.GlanceAPIVersion, Kind: api.KindGlanceBackend},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: api.GlanceBackendSpec{
			GlanceRef: api.LocalObjectReference{Name: glance},
			Type:      api.BackendTypeS3,
			IsDefault: isDefault,
			S3: &api.S3Store{
				Host: "http://garage.shared-services.svc.cluster.local:3900",
				S3Options: api.S3Options{
					Bucket:               "glance-images",
					Region:               "garage",
					CredentialsSecretRef: api.LocalObjectReference{Name: "garage-s3-credentials"},
				},
			},
		},
	}
	for _, m := range mods {
		m(&b)
	}
	return b
}

func deleting(b *api.GlanceBackend) {
	now := metav1.NewTime(metav1.Now().Rfc3339Copy().Time)
	b.DeletionTimestamp = &now
	b.Finalizers = []string{"example.com/hold"}
}

func storeID(id string) func(*api.GlanceBackend) {
	return func(b *api.GlanceBackend) { b.Spec.StoreID = id }
}

func raw(t testing.TB, obj any) runtime.RawExtension {
	t.Helper()
	if obj == nil {
		return runtime.RawExtension{}
	}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return runtime.RawExtension{Raw: b}
}

// request builds the AdmissionRequest the API server sends for obj.
func request(t testing.TB, op admissionv1.Operation, obj, old metav1.Object) *admissionv1.AdmissionRequest {
	t.Helper()
	kind := metav1.GroupVersionKind{Version: "v1alpha1"}
	var o, oo any = obj, old
	switch obj.(type) {
	case *api.GlanceBackend:
		kind.Group, kind.Kind = api.GlanceGroup, api.KindGlanceBackend
	case *api.Glance:
		kind.Group, kind.Kind = api.GlanceGroup, api.KindGlance
	case *api.ControlPlane:
		kind.Group, kind.Kind = "c5c3.io", api.KindControlPlane
	default:
		t.Fatalf("no kind for %T", obj)
	}
	if old == nil {
		oo = nil
	}
	return &admissionv1.AdmissionRequest{
		UID:       "0d1f6c6e-1b7c-4b39-9c57-3d1e0e7c9a01",
		Kind:      kind,
		Name:      obj.GetName(),
		Namespace: obj.GetNamespace(),
		Operation: op,
		Object:    raw(t, o),
		OldObject: raw(t, oo),
	}
}

func create(t testing.TB, obj metav1.Object) *admissionv1.AdmissionRequest {
	return request(t, admissionv1.Create, obj, nil)
}

func update(t testing.TB, obj, old metav1.Object) *admissionv1.AdmissionRequest {
	return request(t, admissionv1.Update, obj, old)
}

// allowed asserts an allowed answer that echoes the uid.
func allowed(t *testing.T, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse) {
	t.Helper()
	require.Equal(t, req.UID, resp.UID)
	if !resp.Allowed {
		t.Fatalf("refused, want allowed: %s", resp.Result.Message)
	}
	require.Nil(t, resp.Result)
}

// denied asserts a refusal with the code and returns its message.
func denied(t *testing.T, req *admissionv1.AdmissionRequest, resp *admissionv1.AdmissionResponse, code int32) string {
	t.Helper()
	require.Equal(t, req.UID, resp.UID)
	require.False(t, resp.Allowed, "allowed, want refused")
	require.NotNil(t, resp.Result)
	require.Equal(t, metav1.StatusFailure, resp.Result.Status)
	require.Equal(t, code, resp.Result.Code, resp.Result.Message)
	require.NotEmpty(t, resp.Result.Reason)
	require.NotContains(t, resp.Result.Message, "\n")
	return resp.Result.Message
}
