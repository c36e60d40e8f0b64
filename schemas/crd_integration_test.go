//go:build integration

package schemas_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubetest"
	"github.com/c5c3/glance-hooks/test/refrules"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

var (
	controlPlanes  = schema.GroupVersionResource{Group: "c5c3.io", Version: "v1alpha1", Resource: "controlplanes"}
	glances        = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
	glanceBackends = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glancebackends"}
)

// ns is where the rule tests run; the guide's own objects are created in
// its namespace, openstack, once.
const ns = "admission"

// Messages the rules answer with. The first is the guide's text word for
// word, the second its troubleshooting table's.
const (
	msgOneDefault = "exactly one backends entry must set isDefault"
	msgReserved   = "name uses the reserved os_glance_ / os-glance- prefix, or collides with a reserved store section"
)

// objects decodes YAML documents.
func objects(t *testing.T, y string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(y, "\n---\n") {
		js, err := utilyaml.ToJSON([]byte(doc))
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(js))
		out = append(out, u)
	}
	return out
}

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	objs := objects(t, y)
	require.Len(t, objs, 1)
	return objs[0]
}

// set changes o at path; a value of nil removes the field.
func set(t *testing.T, o *unstructured.Unstructured, value any, path ...string) *unstructured.Unstructured {
	t.Helper()
	if value == nil {
		unstructured.RemoveNestedField(o.Object, path...)
		return o
	}
	require.NoError(t, unstructured.SetNestedField(o.Object, value, path...))
	return o
}

// entries returns the ControlPlane's backends list for editing.
func entries(t *testing.T, o *unstructured.Unstructured) []any {
	t.Helper()
	list, found, err := unstructured.NestedSlice(o.Object, "spec", "services", "glance", "backends")
	require.NoError(t, err)
	require.True(t, found)
	return list
}

func setEntries(t *testing.T, o *unstructured.Unstructured, list []any) *unstructured.Unstructured {
	t.Helper()
	require.NoError(t, unstructured.SetNestedSlice(o.Object, list, "spec", "services", "glance", "backends"))
	return o
}

func client(env *kubetest.Env, gvr schema.GroupVersionResource) dynamic.ResourceInterface {
	return env.Dynamic.Resource(gvr).Namespace(ns)
}

// dryCreate asks the API server to admit o without storing it, and returns
// the object it would have stored (defaults applied).
func dryCreate(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	t.Helper()
	env.Namespace(t, ns)
	o.SetNamespace(ns)
	return client(env, gvr).Create(context.Background(), o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

func accepted(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := dryCreate(t, env, gvr, o)
	require.NoError(t, err)
	return out
}

// refused asserts err is the API server's Invalid answer carrying msg.
func refused(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err, "the API server accepted it")
	assert.True(t, apierrors.IsInvalid(err), "not an Invalid error: %v", err)
	assert.Contains(t, err.Error(), msg)
}

func refusedCreate(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured, msg string) {
	t.Helper()
	_, err := dryCreate(t, env, gvr, o)
	refused(t, err, msg)
}

// store creates o for real, under name, for tests of updates.
func store(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured, name string) *unstructured.Unstructured {
	t.Helper()
	env.Namespace(t, ns)
	o.SetNamespace(ns)
	o.SetName(name)
	out, err := client(env, gvr).Create(context.Background(), o, metav1.CreateOptions{})
	require.NoError(t, err)
	return out
}

// strictCreate asks the API server to admit o without storing it, with
// the strict field validation kubectl applies by default: a field the
// schema lacks is refused rather than dropped.
func strictCreate(t *testing.T, env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	t.Helper()
	env.Namespace(t, ns)
	o.SetNamespace(ns)
	return client(env, gvr).Create(context.Background(), o,
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
}

func dryUpdate(env *kubetest.Env, gvr schema.GroupVersionResource, o *unstructured.Unstructured) error {
	_, err := client(env, gvr).Update(context.Background(), o, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

func backend(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	o := objects(t, guide.Backends)[0]
	o.SetName(name)
	return o
}

// --- the guide's objects --------------------------------------------------

func TestGuideObjectsAreAccepted(t *testing.T) {
	env := kubetest.Shared(t)
	env.Namespace(t, "openstack")
	for _, y := range []string{guide.ControlPlane, guide.Glance, guide.Backends} {
		out, errOut, err := env.Kubectl(t, y, "apply", "-f", "-")
		require.NoError(t, err, "kubectl apply: %s", errOut)
		assert.Contains(t, out, "created")
	}
	// The defaults a user who leaves fields out gets.
	gb, err := env.Dynamic.Resource(glanceBackends).Namespace("openstack").Get(context.Background(), "primary", metav1.GetOptions{})
	require.NoError(t, err)
	format, _, _ := unstructured.NestedString(gb.Object, "spec", "s3", "bucketURLFormat")
	assert.Equal(t, "path", format)
}

// TestProjectedChildrenAreAccepted feeds the stored guide ControlPlane to the
// ControlPlane sync hook, with the admin credentials and service user
// Secrets it reads, and creates what it projects: the hook's children (the
// registration Job and its ServiceAccount too) and status must pass the
// API server's validation of what they are written against.
func TestProjectedChildrenAreAccepted(t *testing.T) {
	env := kubetest.Shared(t)
	cp := store(t, env, controlPlanes, object(t, guide.ControlPlane), "projected")
	parent, err := cp.MarshalJSON()
	require.NoError(t, err)
	secret := func(name string, data map[string]string) json.RawMessage {
		enc := map[string]string{}
		for k, v := range data {
			enc[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		raw, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": cp.GetNamespace()}, "data": enc})
		require.NoError(t, err)
		return raw
	}
	related := metacontroller.ObjectMap{"Secret.v1": {
		"keystone-admin": secret("keystone-admin", map[string]string{"OS_AUTH_URL": "http://keystone.openstack.svc.cluster.local:5000/v3",
			"OS_USERNAME": "admin", "OS_PASSWORD": "admin-password-0001", "OS_PROJECT_NAME": "admin"}),
		"glance-service-user": secret("glance-service-user", map[string]string{"password": "service-password-0001"}),
	}}
	resp, err := controlplane.Hook{JobImage: "ghcr.io/c5c3/glance-hooks:test"}.Sync(&metacontroller.SyncRequest{Parent: parent, Children: metacontroller.ObjectMap{}, Related: related}, time.Now())
	require.NoError(t, err)
	require.Len(t, resp.Children, 5, "a Glance, two GlanceBackends, the registration Job and its ServiceAccount")
	for _, c := range resp.Children {
		raw, err := json.Marshal(c)
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(raw))
		gvr := map[string]schema.GroupVersionResource{
			"Glance": glances, "GlanceBackend": glanceBackends,
			"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
			"Job":            {Group: "batch", Version: "v1", Resource: "jobs"},
		}[u.GetKind()]
		_, err = client(env, gvr).Create(context.Background(), u, metav1.CreateOptions{})
		require.NoError(t, err, "projected %s %s", u.GetKind(), u.GetName())
	}
	status, err := json.Marshal(map[string]any{"status": resp.Status})
	require.NoError(t, err)
	_, err = client(env, controlPlanes).Patch(context.Background(), "projected", types.MergePatchType, status, metav1.PatchOptions{}, "status")
	require.NoError(t, err, "the hook's ControlPlane status")
}

// TestPrinterColumnsAsInTheGuide lists projected-style backends the way the
// guide does and reads the same columns back.
func TestPrinterColumnsAsInTheGuide(t *testing.T) {
	env := kubetest.Shared(t)
	const space = "columns"
	env.Namespace(t, space)
	for i, name := range []string{"default", "secondary"} {
		o := backend(t, "controlplane-glance-"+name)
		o.SetNamespace(space)
		set(t, o, "controlplane-glance", "spec", "glanceRef", "name")
		set(t, o, name, "spec", "storeId")
		set(t, o, i == 0, "spec", "isDefault")
		_, err := env.Dynamic.Resource(glanceBackends).Namespace(space).Create(context.Background(), o, metav1.CreateOptions{})
		require.NoError(t, err)
		ready := "True"
		if i == 1 {
			ready = "False"
		}
		status := fmt.Sprintf(`{"status":{"storeId":%q,"conditions":[{"type":"Ready","status":%q,"reason":"Checked","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`, name, ready)
		_, err = env.Dynamic.Resource(glanceBackends).Namespace(space).Patch(context.Background(), o.GetName(), types.MergePatchType, []byte(status), metav1.PatchOptions{}, "status")
		require.NoError(t, err)
	}
	out, errOut, err := env.Kubectl(t, "", "get", "glancebackends", "-n", space)
	require.NoError(t, err, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Equal(t, []string{"NAME", "READY", "TYPE", "DEFAULT", "GLANCE", "AGE"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"controlplane-glance-default", "True", "S3", "true", "controlplane-glance"}, strings.Fields(lines[1])[:5])
	assert.Equal(t, []string{"controlplane-glance-secondary", "False", "S3", "false", "controlplane-glance"}, strings.Fields(lines[2])[:5])

	g := object(t, guide.Glance)
	g.SetNamespace(space)
	g.SetName("controlplane-glance")
	_, err = env.Dynamic.Resource(glances).Namespace(space).Create(context.Background(), g, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = env.Dynamic.Resource(glances).Namespace(space).Patch(context.Background(), g.GetName(), types.MergePatchType,
		[]byte(`{"status":{"defaultBackend":"default","installedRelease":"2025.2","endpoint":"http://controlplane-glance.columns.svc.cluster.local:9292",`+
			`"conditions":[{"type":"Ready","status":"True","reason":"AllReady","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`),
		metav1.PatchOptions{}, "status")
	require.NoError(t, err)
	out, errOut, err = env.Kubectl(t, "", "get", "glances", "-n", space)
	require.NoError(t, err, errOut)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	// The reference's columns by position (NAME READY RELEASE ENDPOINT AGE),
	// then this project's.
	assert.Equal(t, []string{"NAME", "READY", "RELEASE", "ENDPOINT", "AGE", "DEFAULT", "STATUS"}, strings.Fields(lines[0]))
	row := strings.Fields(lines[1])
	require.GreaterOrEqual(t, len(row), 6, lines[1])
	assert.Equal(t, []string{"controlplane-glance", "True", "2025.2", "http://controlplane-glance.columns.svc.cluster.local:9292"}, row[:4])
	assert.Equal(t, "default", row[5])

	cp := object(t, guide.ControlPlane)
	cp.SetNamespace(space)
	set(t, cp, "2025.2", "spec", "openStackRelease")
	_, err = env.Dynamic.Resource(controlPlanes).Namespace(space).Create(context.Background(), cp, metav1.CreateOptions{})
	require.NoError(t, err)
	out, errOut, err = env.Kubectl(t, "", "get", "controlplanes", "-n", space)
	require.NoError(t, err, errOut)
	// The reference's columns: RELEASE is the spec's.
	cpLines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, cpLines, 2, out)
	assert.Equal(t, []string{"NAME", "READY", "RELEASE", "AGE"}, strings.Fields(cpLines[0]))
	assert.Equal(t, []string{cp.GetName(), "2025.2"}, strings.Fields(cpLines[1])[:2], "no status yet: READY is blank")

	// The short names and the category list the same objects, and the
	// category does not shadow the guide's `kubectl get glance <name>`.
	want := []string{
		"controlplane.c5c3.io/controlplane",
		"glance.glance.openstack.c5c3.io/controlplane-glance",
		"glancebackend.glance.openstack.c5c3.io/controlplane-glance-default",
		"glancebackend.glance.openstack.c5c3.io/controlplane-glance-secondary",
	}
	for _, what := range []string{"cp,gl,gb", "openstack", "c5c3"} {
		out, errOut, err = env.Kubectl(t, "", "get", what, "-n", space, "-o", "name")
		require.NoError(t, err, errOut)
		assert.ElementsMatch(t, want, strings.Fields(out), "kubectl get %s", what)
	}
	out, errOut, err = env.Kubectl(t, "", "get", "glance", "controlplane-glance", "-n", space, "-o", "name")
	require.NoError(t, err, errOut)
	assert.Equal(t, "glance.glance.openstack.c5c3.io/controlplane-glance\n", out)
}

func TestExplainReadsWell(t *testing.T) {
	env := kubetest.Shared(t)
	out, errOut, err := env.Kubectl(t, "", "explain", "glancebackend.spec.s3")
	require.NoError(t, err, errOut)
	for _, want := range []string{
		"S3 settings of the store; set exactly when type is S3.",
		// host is required by a CEL rule, not by the schema's required
		// list: a missing required field would stop the rule that says an
		// s3.endpoint copied from a ControlPlane is to be s3.host.
		"host\t<string>", "URL of the S3 endpoint",
		"bucket\t<string> -required-", "credentialsSecretRef\t<Object> -required-",
		"access-key-id", "secret-access-key",
		"bucketURLFormat\t<string>", "path", "virtual",
		"largeObjectSize\t<integer>", "largeObjectChunkSize\t<integer>",
		"region\t<string>", "createBucketOnPut\t<boolean>",
	} {
		assert.Contains(t, out, want)
	}
	out, errOut, err = env.Kubectl(t, "", "explain", "controlplane.spec.services.glance.backends.name")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "X-Image-Meta-Store")
}

// --- ControlPlane ----------------------------------------------------------

func TestControlPlaneExactlyOneDefault(t *testing.T) {
	env := kubetest.Shared(t)
	accepted(t, env, controlPlanes, object(t, guide.ControlPlane))

	zero := object(t, guide.ControlPlane)
	list := entries(t, zero)
	list[0].(map[string]any)["isDefault"] = false
	refusedCreate(t, env, controlPlanes, setEntries(t, zero, list), msgOneDefault)

	two := object(t, guide.ControlPlane)
	list = entries(t, two)
	list[1].(map[string]any)["isDefault"] = true
	refusedCreate(t, env, controlPlanes, setEntries(t, two, list), msgOneDefault)

	omitted := object(t, guide.ControlPlane)
	list = entries(t, omitted)
	delete(list[0].(map[string]any), "isDefault")
	refusedCreate(t, env, controlPlanes, setEntries(t, omitted, list), msgOneDefault)

	empty := set(t, object(t, guide.ControlPlane), []any{}, "spec", "services", "glance", "backends")
	refusedCreate(t, env, controlPlanes, empty, msgOneDefault)

	// isDefault defaults to false: the omitted flag of a non-default entry is fine.
	implicit := object(t, guide.ControlPlane)
	list = entries(t, implicit)
	delete(list[1].(map[string]any), "isDefault")
	out := accepted(t, env, controlPlanes, setEntries(t, implicit, list))
	assert.Equal(t, false, entries(t, out)[1].(map[string]any)["isDefault"])
}

// TestControlPlaneSwitchDefault is the guide's Step 3: moving the flag in one
// edit is accepted, setting a second default first is refused.
func TestControlPlaneSwitchDefault(t *testing.T) {
	env := kubetest.Shared(t)
	cp := store(t, env, controlPlanes, object(t, guide.ControlPlane), "switch")

	both := cp.DeepCopy()
	list := entries(t, both)
	list[1].(map[string]any)["isDefault"] = true
	refused(t, dryUpdate(env, controlPlanes, setEntries(t, both, list)), msgOneDefault)

	moved := cp.DeepCopy()
	list = entries(t, moved)
	list[0].(map[string]any)["isDefault"] = false
	list[1].(map[string]any)["isDefault"] = true
	require.NoError(t, dryUpdate(env, controlPlanes, setEntries(t, moved, list)))
}

func TestControlPlaneUniqueEntryNames(t *testing.T) {
	env := kubetest.Shared(t)
	dup := object(t, guide.ControlPlane)
	list := entries(t, dup)
	list[1].(map[string]any)["name"] = "default"
	refusedCreate(t, env, controlPlanes, setEntries(t, dup, list), "backends entry names must be unique")
}

func TestControlPlaneS3SetExactlyWhenTypeS3(t *testing.T) {
	env := kubetest.Shared(t)
	o := object(t, guide.ControlPlane)
	list := entries(t, o)
	delete(list[1].(map[string]any), "s3")
	refusedCreate(t, env, controlPlanes, setEntries(t, o, list), "the s3 block must be set exactly when type is S3")

	o = object(t, guide.ControlPlane)
	list = entries(t, o)
	list[1].(map[string]any)["type"] = "Swift"
	refusedCreate(t, env, controlPlanes, setEntries(t, o, list), `Unsupported value: "Swift": supported values: "S3"`)
}

func TestControlPlaneEndpointIsHTTPURL(t *testing.T) {
	env := kubetest.Shared(t)
	for _, bad := range []string{"garage.shared-services.svc.cluster.local:3900", "ftp://garage:3900", "http://", "http://garage:3900/a b", "http://garage:99999", "http://key:secret@garage:3900"} {
		t.Run(bad, func(t *testing.T) {
			o := object(t, guide.ControlPlane)
			list := entries(t, o)
			list[1].(map[string]any)["s3"].(map[string]any)["endpoint"] = bad
			refusedCreate(t, env, controlPlanes, setEntries(t, o, list), "endpoint must be an http:// or https:// URL")
		})
	}
	o := object(t, guide.ControlPlane)
	list := entries(t, o)
	list[1].(map[string]any)["s3"].(map[string]any)["endpoint"] = "https://s3.example.com"
	accepted(t, env, controlPlanes, setEntries(t, o, list))
}

func TestControlPlaneEntryNames(t *testing.T) {
	env := kubetest.Shared(t)
	withName := func(name string) *unstructured.Unstructured {
		o := object(t, guide.ControlPlane)
		list := entries(t, o)
		list[1].(map[string]any)["name"] = name
		return setEntries(t, o, list)
	}
	for _, name := range []string{"os-glance-tasks", "os_glance_staging_store", "database", "cache", "task", "wsgi"} {
		t.Run(name, func(t *testing.T) {
			refusedCreate(t, env, controlPlanes, withName(name), msgReserved)
			refusedCreate(t, env, controlPlanes, withName(name), `store id "`+name+`"`)
		})
	}
	// An entry name ends the projected GlanceBackend's object name: no '_', no capitals.
	for _, name := range []string{"my_store", "Secondary", "-x", "x-", strings.Repeat("a", 64)} {
		refusedCreate(t, env, controlPlanes, withName(name), "")
	}
	refusedCreate(t, env, controlPlanes, withName("my_store"), "entry name must be 1 to 63 lowercase letters, digits, '.' or '-'")
	for _, name := range []string{"secondary", "s3.archive", "b2", strings.Repeat("a", 63)} {
		accepted(t, env, controlPlanes, withName(name))
	}
}

func TestControlPlaneName(t *testing.T) {
	env := kubetest.Shared(t)
	const msg = "a ControlPlane running Glance needs a name of at most 56 lowercase letters, digits or '-'"
	for _, name := range []string{strings.Repeat("c", 57), "1controlplane", "control.plane"} {
		o := object(t, guide.ControlPlane)
		o.SetName(name)
		refusedCreate(t, env, controlPlanes, o, msg)
	}
	o := object(t, guide.ControlPlane)
	o.SetName(strings.Repeat("c", 56))
	accepted(t, env, controlPlanes, o)
	// Without Glance the name is only limited by Kubernetes.
	o = object(t, guide.ControlPlane)
	o.SetName("control.plane")
	accepted(t, env, controlPlanes, set(t, o, nil, "spec", "services", "glance"))
}

func TestControlPlaneBounds(t *testing.T) {
	env := kubetest.Shared(t)
	o := object(t, guide.ControlPlane)
	list := entries(t, o)
	for i := len(list); i < 33; i++ {
		e := (&unstructured.Unstructured{Object: list[1].(map[string]any)}).DeepCopy().Object
		e["name"] = fmt.Sprintf("store-%d", i)
		list = append(list, e)
	}
	refusedCreate(t, env, controlPlanes, setEntries(t, o, list), "must have at most 32 items")
	accepted(t, env, controlPlanes, setEntries(t, object(t, guide.ControlPlane), list[:32]))
}

func TestControlPlaneExtraOptions(t *testing.T) {
	env := kubetest.Shared(t)
	withOptions := func(opts map[string]any) *unstructured.Unstructured {
		o := object(t, guide.ControlPlane)
		list := entries(t, o)
		list[1].(map[string]any)["extraOptions"] = opts
		return setEntries(t, o, list)
	}
	refusedCreate(t, env, controlPlanes, withOptions(map[string]any{"s3_store_host": "http://elsewhere"}),
		`option "s3_store_host" is owned by the service, which renders it from the s3 block of the entry`)
	refusedCreate(t, env, controlPlanes, withOptions(map[string]any{"Bad-Key": "1"}), "option name must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)")
	refusedCreate(t, env, controlPlanes, withOptions(map[string]any{"s3_store_cacert": "x\n[DEFAULT]"}),
		"extraOptions values may not contain control characters")
	refusedCreate(t, env, controlPlanes, withOptions(map[string]any{"s3_store_cacert": "/etc/ssl/certs/ca.pem"}),
		`option "s3_store_cacert" is owned by the service`)
	accepted(t, env, controlPlanes, withOptions(map[string]any{"s3_store_thread_pools": "4", "store_description": "archive"}))
}

func TestControlPlaneCABundleRef(t *testing.T) {
	env := kubetest.Shared(t)
	withCA := func(endpoint string) *unstructured.Unstructured {
		o := object(t, guide.ControlPlane)
		list := entries(t, o)
		s3 := list[1].(map[string]any)["s3"].(map[string]any)
		s3["endpoint"] = endpoint
		s3["caBundleRef"] = map[string]any{"name": "internal-ca"}
		return setEntries(t, o, list)
	}
	refusedCreate(t, env, controlPlanes, withCA("http://garage.shared-services.svc.cluster.local:3900"),
		"caBundleRef needs an https:// endpoint")
	out := accepted(t, env, controlPlanes, withCA("https://rgw.internal:443"))
	ref, _, _ := unstructured.NestedMap(entries(t, out)[1].(map[string]any), "s3", "caBundleRef")
	assert.Equal(t, map[string]any{"kind": "ConfigMap", "name": "internal-ca", "key": "ca.crt"}, ref, "kind and key are defaulted")
}

// --- GlanceBackend ---------------------------------------------------------

func TestGlanceBackendS3SetExactlyWhenTypeS3(t *testing.T) {
	env := kubetest.Shared(t)
	refusedCreate(t, env, glanceBackends, set(t, backend(t, "no-s3"), nil, "spec", "s3"), "exactly one backend block matching spec.type must be set (type S3 requires spec.s3)")
	refusedCreate(t, env, glanceBackends, set(t, backend(t, "swift"), "Swift", "spec", "type"), `Unsupported value: "Swift": supported values: "S3"`)
	accepted(t, env, glanceBackends, backend(t, "with-s3"))
}

func TestGlanceBackendDefaults(t *testing.T) {
	env := kubetest.Shared(t)
	o := set(t, backend(t, "defaults"), nil, "spec", "isDefault")
	set(t, o, nil, "spec", "s3", "bucketURLFormat")
	out := accepted(t, env, glanceBackends, o)
	isDefault, found, _ := unstructured.NestedBool(out.Object, "spec", "isDefault")
	assert.True(t, found)
	assert.False(t, isDefault)
	format, _, _ := unstructured.NestedString(out.Object, "spec", "s3", "bucketURLFormat")
	assert.Equal(t, "path", format)
	refusedCreate(t, env, glanceBackends, set(t, backend(t, "dns"), "dns", "spec", "s3", "bucketURLFormat"),
		`Unsupported value: "dns": supported values: "path", "virtual"`)
	accepted(t, env, glanceBackends, set(t, backend(t, "virtual"), "virtual", "spec", "s3", "bucketURLFormat"))
}

func TestGlanceBackendHostIsHTTPURL(t *testing.T) {
	env := kubetest.Shared(t)
	for _, bad := range []string{"garage:3900", "s3://bucket", "http://", "https://a b", "http://garage:3900\n[DEFAULT]", "http://garage:65536", "https://ak@s3.example.com"} {
		refusedCreate(t, env, glanceBackends, set(t, backend(t, "host"), bad, "spec", "s3", "host"), "host must be an http:// or https:// URL")
	}
	for _, good := range []string{"https://s3.example.com", "http://10.0.0.1:9000/", "http://[::1]:65535", "http://garage.shared-services.svc.cluster.local:3900"} {
		accepted(t, env, glanceBackends, set(t, backend(t, "host"), good, "spec", "s3", "host"))
	}
}

func TestGlanceBackendImmutableGlanceRef(t *testing.T) {
	env := kubetest.Shared(t)
	gb := store(t, env, glanceBackends, backend(t, "b"), "immutable-ref")
	moved := set(t, gb.DeepCopy(), "other-glance", "spec", "glanceRef", "name")
	refused(t, dryUpdate(env, glanceBackends, moved), "glanceRef is immutable")
	// Other fields stay editable, e.g. releasing the default (the guide's first patch).
	released := set(t, gb.DeepCopy(), false, "spec", "isDefault")
	require.NoError(t, dryUpdate(env, glanceBackends, released))
	_, err := client(env, glanceBackends).Patch(context.Background(), gb.GetName(), types.MergePatchType,
		[]byte(`{"spec":{"glanceRef":{"name":"elsewhere"}}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	refused(t, err, "glanceRef is immutable")
}

func TestGlanceBackendImmutableStoreID(t *testing.T) {
	env := kubetest.Shared(t)
	implicit := store(t, env, glanceBackends, backend(t, "x"), "implicit-id")
	refused(t, dryUpdate(env, glanceBackends, set(t, implicit.DeepCopy(), "other", "spec", "storeId")), "storeId is immutable")

	explicit := store(t, env, glanceBackends, set(t, backend(t, "x"), "archive", "spec", "storeId"), "explicit-id")
	refused(t, dryUpdate(env, glanceBackends, set(t, explicit.DeepCopy(), "archive2", "spec", "storeId")), "storeId is immutable")
	refused(t, dryUpdate(env, glanceBackends, set(t, explicit.DeepCopy(), nil, "spec", "storeId")), "storeId is immutable")
	require.NoError(t, dryUpdate(env, glanceBackends, set(t, explicit.DeepCopy(), "glance-images-3", "spec", "s3", "bucket")))
}

// TestGlanceBackendImmutableType proves the type transition rule. S3 is the
// only type the enum allows, so the rule is exercised on a copy of the CRD
// (under a test group) whose enum also allows Swift.
func TestGlanceBackendImmutableType(t *testing.T) {
	env := kubetest.Shared(t)
	ctx := context.Background()
	const group = "typetest.kubetest.local"
	crd := object(t, mustRead(t, "glancebackends.glance.openstack.c5c3.io.yaml"))
	crd.SetName("glancebackends." + group)
	set(t, crd, group, "spec", "group")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	v := versions[0].(map[string]any)
	typ := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)
	require.Equal(t, []any{"S3"}, typ["enum"])
	typ["enum"] = []any{"S3", "Swift"}
	set(t, crd, versions, "spec", "versions")
	crds := env.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	gvr := schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "glancebackends"}
	o := backend(t, "typed")
	o.SetNamespace(ns)
	o.SetAPIVersion(group + "/v1alpha1")
	env.Namespace(t, ns)
	var stored *unstructured.Unstructured
	kubetest.Eventually(t, 30*time.Second, func() error {
		stored, err = env.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, o, metav1.CreateOptions{})
		return err
	})
	changed := set(t, set(t, stored.DeepCopy(), "Swift", "spec", "type"), nil, "spec", "s3")
	_, err = env.Dynamic.Resource(gvr).Namespace(ns).Update(ctx, changed, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	refused(t, err, "type is immutable")
	// The same Swift object is fine when created as such: only the change is refused.
	fresh := set(t, set(t, backend(t, "swift"), "Swift", "spec", "type"), nil, "spec", "s3")
	fresh.SetNamespace(ns)
	fresh.SetAPIVersion(group + "/v1alpha1")
	_, err = env.Dynamic.Resource(gvr).Namespace(ns).Create(ctx, fresh, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.NoError(t, err)
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(raw)
}

// TestGlanceBackendReservedStoreIDs refuses every id hooks/contract/storeconf
// reserves, given as spec.storeId or, when that is unset, as the name.
func TestGlanceBackendReservedStoreIDs(t *testing.T) {
	env := kubetest.Shared(t)
	ids := append(storeconf.ReservedSections(), "os_glance_staging_store", "os_glance_tasks_store", "os-glance-foo", "OS_GLANCE_X")
	for _, id := range ids {
		t.Run("storeId="+id, func(t *testing.T) {
			o := set(t, backend(t, "reserved"), id, "spec", "storeId")
			refusedCreate(t, env, glanceBackends, o, msgReserved)
			refusedCreate(t, env, glanceBackends, o, `store id "`+id+`" is refused`)
		})
	}
	// Names that are valid object names and reserved ids.
	for _, name := range []string{"os-glance-staging", "database", "cache", "cors", "healthcheck", "profiler", "vault", "wsgi", "task", "privsep", "barbican"} {
		t.Run("name="+name, func(t *testing.T) {
			refusedCreate(t, env, glanceBackends, backend(t, name), msgReserved)
			refusedCreate(t, env, glanceBackends, backend(t, name), `metadata.name: Invalid value: store id "`+name+`" (metadata.name, as spec.storeId is unset) is refused`)
			// With an explicit store id the name is just a name.
			accepted(t, env, glanceBackends, set(t, backend(t, name), "s1", "spec", "storeId"))
		})
	}
	// The guide's ControlPlane store id "default" is not reserved (DEFAULT
	// is), but a standalone backend named default would read as the default
	// store in every listing: its name is refused while it is the store id.
	accepted(t, env, glanceBackends, set(t, backend(t, "controlplane-glance-default"), "default", "spec", "storeId"))
	refusedCreate(t, env, glanceBackends, backend(t, "default"), `store id "default" (metadata.name, as spec.storeId is unset) is refused`)
}

func TestGlanceBackendStoreIDPattern(t *testing.T) {
	env := kubetest.Shared(t)
	const msg = "storeId must be 1 to 63 lowercase letters, digits, '.', '_' or '-'"
	for _, id := range []string{"Archive", "_x", "x-", "a b", "a/b"} {
		refusedCreate(t, env, glanceBackends, set(t, backend(t, "pattern"), id, "spec", "storeId"), msg)
	}
	refusedCreate(t, env, glanceBackends, set(t, backend(t, "pattern"), "", "spec", "storeId"), "spec.storeId")
	refusedCreate(t, env, glanceBackends, set(t, backend(t, "pattern"), strings.Repeat("a", 64), "spec", "storeId"), "may not be more than 63")
	for _, id := range []string{"my_store", "s3.archive", "a", strings.Repeat("a", 63)} {
		accepted(t, env, glanceBackends, set(t, backend(t, "pattern"), id, "spec", "storeId"))
	}
	// Without storeId the name is the store id: any object name the
	// reference takes, up to the 247 characters its store Secret's name
	// (<name>-store) leaves.
	longest := strings.Repeat("a.", 123) + "a"
	accepted(t, env, glanceBackends, backend(t, longest))
	refusedCreate(t, env, glanceBackends, backend(t, longest+"b"),
		"metadata.name is the store id when spec.storeId is unset, and its store Secret <name>-store is an object name, so it may have at most 247 characters")
	accepted(t, env, glanceBackends, set(t, backend(t, longest+"b"), "n", "spec", "storeId"))
}

func TestGlanceBackendGlanceRefName(t *testing.T) {
	env := kubetest.Shared(t)
	for _, bad := range []string{"Glance", "1glance", "glance.x", strings.Repeat("g", 64)} {
		refusedCreate(t, env, glanceBackends, set(t, backend(t, "ref"), bad, "spec", "glanceRef", "name"), "spec.glanceRef.name")
	}
}

func TestGlanceBackendS3Fields(t *testing.T) {
	env := kubetest.Shared(t)
	for _, c := range []struct {
		path  []string
		value any
	}{
		{[]string{"spec", "s3", "bucket"}, "Glance_Images"},
		{[]string{"spec", "s3", "bucket"}, "ab"},
		{[]string{"spec", "s3", "region"}, "us east"},
		{[]string{"spec", "s3", "credentialsSecretRef", "name"}, "Garage_Creds"},
		{[]string{"spec", "s3", "largeObjectSize"}, int64(0)},
		{[]string{"spec", "s3", "largeObjectChunkSize"}, int64(-5)},
	} {
		refusedCreate(t, env, glanceBackends, set(t, backend(t, "fields"), c.value, c.path...), "spec.s3."+c.path[2])
	}
	o := backend(t, "fields")
	set(t, o, int64(100), "spec", "s3", "largeObjectSize")
	set(t, o, int64(10), "spec", "s3", "largeObjectChunkSize")
	set(t, o, true, "spec", "s3", "createBucketOnPut")
	accepted(t, env, glanceBackends, o)
}

func TestGlanceBackendExtraOptions(t *testing.T) {
	env := kubetest.Shared(t)
	withOptions := func(opts map[string]any) *unstructured.Unstructured {
		return set(t, backend(t, "extra"), opts, "spec", "extraOptions")
	}
	for _, owned := range []string{"s3_store_host", "s3_store_access_key", "s3_store_secret_key", "s3_store_bucket",
		"s3_store_bucket_url_format", "s3_store_region_name", "s3_store_create_bucket_on_put",
		"s3_store_large_object_size", "s3_store_large_object_chunk_size", "s3_store_cacert"} {
		refusedCreate(t, env, glanceBackends, withOptions(map[string]any{owned: "x"}), `option "`+owned+`" is owned by the service, which renders it from spec.s3`)
	}
	// The reference's key rule: letters, digits and '_', at most 256.
	for _, key := range []string{"with-dash", "a b", "a\nb"} {
		refusedCreate(t, env, glanceBackends, withOptions(map[string]any{key: "x"}), "option name must match ^[A-Za-z0-9_]+$ (letters, digits, and underscore)")
	}
	refusedCreate(t, env, glanceBackends, withOptions(map[string]any{strings.Repeat("k", 257): "x"}), "each extraOptions key must be <=256 characters")
	accepted(t, env, glanceBackends, withOptions(map[string]any{"Upper": "x", "1st": "x", strings.Repeat("k", 256): "x"}))
	for _, v := range []string{"a\nb", "tab\there", " leading", "trailing ", "nul\x00"} {
		refusedCreate(t, env, glanceBackends, withOptions(map[string]any{"store_description": v}), "extraOptions values may not contain control characters")
	}
	many := map[string]any{}
	for i := range 33 {
		many[fmt.Sprintf("opt_%d", i)] = "x"
	}
	refusedCreate(t, env, glanceBackends, withOptions(many), "must have at most 32 items")
	refusedCreate(t, env, glanceBackends, withOptions(map[string]any{"store_description": strings.Repeat("x", 1025)}), "may not be more than 1024")
	accepted(t, env, glanceBackends, withOptions(map[string]any{"store_description": "Archive (slow)", "s3_store_thread_pools": "4", "k": strings.Repeat("x", 1024)}))
}

func TestGlanceBackendCABundleRef(t *testing.T) {
	env := kubetest.Shared(t)
	withCA := func(host string, ref map[string]any) *unstructured.Unstructured {
		o := set(t, backend(t, "tls"), host, "spec", "s3", "host")
		return set(t, o, ref, "spec", "s3", "caBundleRef")
	}
	refusedCreate(t, env, glanceBackends, withCA("http://garage:3900", map[string]any{"name": "internal-ca"}),
		"caBundleRef needs an https:// host")
	refusedCreate(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"name": "internal-ca", "kind": "Certificate"}),
		`Unsupported value: "Certificate": supported values: "ConfigMap", "Secret"`)
	refusedCreate(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"name": "Internal_CA"}), "spec.s3.caBundleRef.name")
	refusedCreate(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"name": "internal-ca", "key": "ca/crt"}), "spec.s3.caBundleRef.key")
	refusedCreate(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"kind": "Secret"}), "spec.s3.caBundleRef.name")
	out := accepted(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"name": "internal-ca"}))
	ref, _, _ := unstructured.NestedMap(out.Object, "spec", "s3", "caBundleRef")
	assert.Equal(t, map[string]any{"kind": "ConfigMap", "name": "internal-ca", "key": "ca.crt"}, ref, "kind and key are defaulted")
	accepted(t, env, glanceBackends, withCA("https://rgw.internal", map[string]any{"kind": "Secret", "name": "rgw-tls", "key": "ca.crt"}))
	accepted(t, env, glanceBackends, set(t, backend(t, "plain"), "https://rgw.internal", "spec", "s3", "host"))
}

// --- Glance ----------------------------------------------------------------

func TestGlanceName(t *testing.T) {
	env := kubetest.Shared(t)
	const msg = "a Glance's name is also the name of its Service, so it must be a DNS-1035 label"
	for _, name := range []string{strings.Repeat("g", 64), "1glance", "glance.example"} {
		o := object(t, guide.Glance)
		o.SetName(name)
		refusedCreate(t, env, glances, o, "metadata.name: Invalid value: "+msg)
	}
	// A new Glance is held to the purge CronJob's name too, in the
	// reference's words: at most 43 characters.
	o := object(t, guide.Glance)
	o.SetName(strings.Repeat("g", 44))
	refusedCreate(t, env, glances, o, `name must be at most 43 characters: the db-purge CronJob appends "-db-purge" and Kubernetes caps CronJob names at 52 characters`)
	o = object(t, guide.Glance)
	o.SetName(strings.Repeat("g", 43))
	accepted(t, env, glances, o)
}

func TestGlanceFields(t *testing.T) {
	env := kubetest.Shared(t)
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "keystone:5000", "spec", "keystoneEndpoint"),
		"keystoneEndpoint must be an http:// or https:// URL")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "keystone.example.com", "spec", "keystonePublicEndpoint"),
		"keystonePublicEndpoint must be an http:// or https:// URL")
	accepted(t, env, glances, set(t, object(t, guide.Glance), "https://keystone.example.com/v3", "spec", "keystonePublicEndpoint"))
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), nil, "spec", "openStackRelease"), "spec.openStackRelease: Required value")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "dalmatian", "spec", "openStackRelease"), "spec.openStackRelease")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), int64(-1), "spec", "deployment", "replicas"), "spec.deployment.replicas")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "Openstack_Memcached", "spec", "cache", "clusterRef", "name"), "spec.cache.clusterRef.name")
	// As in the reference, only the password's Secret is required: the
	// user, project and domains default (glance, service, Default).
	accepted(t, env, glances, set(t, object(t, guide.Glance), nil, "spec", "serviceUser", "username"))
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), nil, "spec", "serviceUser", "secretRef"), "spec.serviceUser.secretRef: Required value")
	// The database password's key, as the reference has it: a Secret data key.
	accepted(t, env, glances, set(t, object(t, guide.Glance), "db-password", "spec", "database", "secretRef", "key"))
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "db/password", "spec", "database", "secretRef", "key"), "spec.database.secretRef.key")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "", "spec", "serviceUser", "username"), "spec.serviceUser.username")
	res := map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "512Mi"}, "limits": map[string]any{"memory": int64(1073741824)}}
	accepted(t, env, glances, set(t, object(t, guide.Glance), res, "spec", "deployment", "resources"))
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), map[string]any{"requests": map[string]any{"cpu": "lots"}}, "spec", "deployment", "resources"), "spec.deployment.resources.requests")
}

// TestGlanceStatusKeepsLastUpgrade: status.lastUpgrade, which the upgrade
// Events are made from, is declared, so the API server neither prunes nor
// refuses it when the sync hook's status is written.
func TestGlanceStatusKeepsLastUpgrade(t *testing.T) {
	env := kubetest.Shared(t)
	g := store(t, env, glances, object(t, guide.Glance), "last-upgrade")
	end := map[string]any{"result": api.UpgradeComplete, "fromRelease": "2025.2", "toRelease": "2026.1", "endedAt": "2026-01-01T00:00:07Z"}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"installedRelease": "2026.1", "lastUpgrade": end}})
	require.NoError(t, err)
	out, err := client(env, glances).Patch(context.Background(), g.GetName(), types.MergePatchType, patch,
		metav1.PatchOptions{FieldValidation: metav1.FieldValidationStrict}, "status")
	require.NoError(t, err)
	got, _, err := unstructured.NestedMap(out.Object, "status", "lastUpgrade")
	require.NoError(t, err)
	assert.Equal(t, end, got)
}

// TestInjectedPropertyBounds: an injected property's name and value are
// at most 255 characters, counted as code points, refused in the
// reference's CEL words (a map key has no maxLength of its own), on a
// Glance and under a ControlPlane's services.glance.
func TestInjectedPropertyBounds(t *testing.T) {
	env := kubetest.Shared(t)
	const bound = "each injected property name and value must be at most 255 characters"
	props := func(o *unstructured.Unstructured, v map[string]any, path ...string) *unstructured.Unstructured {
		return set(t, o, map[string]any{"properties": v}, append(path, "importPlugins", "injectMetadata")...)
	}
	long := strings.Repeat("n", 256)
	refusedCreate(t, env, glances, props(object(t, guide.Glance), map[string]any{long: "v"}, "spec"), bound)
	refusedCreate(t, env, controlPlanes, props(object(t, guide.ControlPlane), map[string]any{long: "v"}, "spec", "services", "glance"), bound)
	accepted(t, env, glances, props(object(t, guide.Glance), map[string]any{strings.Repeat("é", 255): strings.Repeat("ü", 255)}, "spec"))
}

// TestAutoscalingGeneratedSchema: the schema of spec.autoscaling is
// generated from its spec part's type (hooks/contract/api/autoscaling.go)
// and holds on the API server as written there: the bounds of each field,
// maxReplicas required, and the rule that a set minimum is not above the
// maximum, on a Glance and under a ControlPlane's services.glance.
func TestAutoscalingGeneratedSchema(t *testing.T) {
	env := kubetest.Shared(t)
	scaler := func(v map[string]any) *unstructured.Unstructured {
		return set(t, object(t, guide.Glance), v, "spec", "autoscaling")
	}
	accepted(t, env, glances, scaler(map[string]any{"minReplicas": int64(2), "maxReplicas": int64(6), "targetMemoryUtilization": int64(70)}))
	refusedCreate(t, env, glances, scaler(map[string]any{"minReplicas": int64(5), "maxReplicas": int64(3)}), "minReplicas must not exceed maxReplicas")
	refusedCreate(t, env, glances, scaler(map[string]any{"minReplicas": int64(0), "maxReplicas": int64(3)}), "spec.autoscaling.minReplicas")
	refusedCreate(t, env, glances, scaler(map[string]any{"maxReplicas": int64(101)}), "spec.autoscaling.maxReplicas")
	refusedCreate(t, env, glances, scaler(map[string]any{"maxReplicas": int64(3), "targetCPUUtilization": int64(0)}), "spec.autoscaling.targetCPUUtilization")
	refusedCreate(t, env, glances, scaler(map[string]any{"minReplicas": int64(2)}), "spec.autoscaling.maxReplicas: Required value")
	cp := set(t, object(t, guide.ControlPlane), map[string]any{"minReplicas": int64(5), "maxReplicas": int64(3)}, "spec", "services", "glance", "autoscaling")
	refusedCreate(t, env, controlPlanes, cp, "minReplicas must not exceed maxReplicas")
}

// TestImageCacheGeneratedSchema: the schema of spec.imageCache is
// generated from its spec part's type (hooks/contract/api/imagecache.go)
// and holds on the API server as written there: a quantity for sizeLimit,
// a duration of at most 64 characters for maintenanceInterval, on a Glance
// and under a ControlPlane's services.glance.
func TestImageCacheGeneratedSchema(t *testing.T) {
	env := kubetest.Shared(t)
	cache := func(v map[string]any) *unstructured.Unstructured {
		return set(t, object(t, guide.Glance), v, "spec", "imageCache")
	}
	accepted(t, env, glances, cache(map[string]any{"sizeLimit": "20Gi", "maintenanceInterval": "10m"}))
	accepted(t, env, glances, cache(map[string]any{"sizeLimit": int64(21474836480)}))
	refusedCreate(t, env, glances, cache(map[string]any{"sizeLimit": "lots"}), "spec.imageCache.sizeLimit")
	refusedCreate(t, env, glances, cache(map[string]any{"maintenanceInterval": strings.Repeat("1m", 33)}), "spec.imageCache.maintenanceInterval")
	cp := set(t, object(t, guide.ControlPlane), map[string]any{"maintenanceInterval": "five minutes"}, "spec", "services", "glance", "imageCache")
	refusedCreate(t, env, controlPlanes, cp, "spec.services.glance.imageCache.maintenanceInterval")
}

// TestDBPurgeGeneratedSchema: the schema of spec.dbPurge is generated
// from its spec part's type (hooks/contract/api/dbpurge.go) and holds on
// the API server as written there: at least a day kept, a schedule of at
// most 128 characters (its form is admission's), the switches booleans.
func TestDBPurgeGeneratedSchema(t *testing.T) {
	env := kubetest.Shared(t)
	purge := func(v map[string]any) *unstructured.Unstructured {
		return set(t, object(t, guide.Glance), v, "spec", "dbPurge")
	}
	accepted(t, env, glances, purge(map[string]any{"retentionDays": int64(7), "schedule": "@daily", "purgeImagesTable": true, "suspend": false}))
	refusedCreate(t, env, glances, purge(map[string]any{"retentionDays": int64(0)}), "spec.dbPurge.retentionDays")
	refusedCreate(t, env, glances, purge(map[string]any{"schedule": strings.Repeat("1", 129)}), "spec.dbPurge.schedule")
	refusedCreate(t, env, glances, purge(map[string]any{"suspend": "yes"}), "spec.dbPurge.suspend")
}

func TestGlanceReleaseAndImageTag(t *testing.T) {
	env := kubetest.Shared(t)
	const msg = "image.tag names another release than openStackRelease"
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "2025.3", "spec", "openStackRelease"), "spec.openStackRelease")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "2026.1", "spec", "image", "tag"), "spec.image.tag: Invalid value: "+msg)
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "2025.1-p2", "spec", "image", "tag"), msg)
	// The default tag follows the release; a patch build of it, and a tag
	// naming no release, are taken.
	accepted(t, env, glances, set(t, set(t, object(t, guide.Glance), "2026.1", "spec", "openStackRelease"), nil, "spec", "image", "tag"))
	accepted(t, env, glances, set(t, object(t, guide.Glance), "2025.2-p1", "spec", "image", "tag"))
	accepted(t, env, glances, set(t, object(t, guide.Glance), "dev", "spec", "image", "tag"))

	cp := set(t, object(t, guide.ControlPlane), map[string]any{"tag": "2026.1"}, "spec", "services", "glance", "image")
	refusedCreate(t, env, controlPlanes, cp, "spec.services.glance.image.tag: Invalid value: services.glance.image.tag names another release")
	accepted(t, env, controlPlanes, set(t, cp, "2026.1", "spec", "openStackRelease"))
	accepted(t, env, controlPlanes, set(t, object(t, guide.ControlPlane), map[string]any{"tag": "2025.2-p1"}, "spec", "services", "glance", "image"))
}

func TestGlanceAPISize(t *testing.T) {
	env := kubetest.Shared(t)
	uwsgi := func(v map[string]any) *unstructured.Unstructured {
		return set(t, object(t, guide.Glance), v, "spec", "apiServer", "uwsgi")
	}
	refusedCreate(t, env, glances, uwsgi(map[string]any{"processes": int64(0)}), "spec.apiServer.uwsgi.processes")
	refusedCreate(t, env, glances, uwsgi(map[string]any{"threads": int64(65)}), "spec.apiServer.uwsgi.threads")
	refusedCreate(t, env, glances, uwsgi(map[string]any{"httpKeepAliveTimeout": int64(5)}), "httpKeepAliveTimeout may only be set when httpKeepAlive is true")
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), int64(0), "spec", "apiServer", "workers"), "spec.apiServer.workers")
	accepted(t, env, glances, uwsgi(map[string]any{"processes": int64(4), "threads": int64(8)}))
	accepted(t, env, glances, set(t, object(t, guide.Glance), int64(4), "spec", "apiServer", "workers"))
}

func TestGlanceDatabaseAndCache(t *testing.T) {
	env := kubetest.Shared(t)
	secret := map[string]any{"name": "glance-db"}
	db := func(v map[string]any) *unstructured.Unstructured {
		v["database"], v["secretRef"] = "glance", secret
		return set(t, object(t, guide.Glance), v, "spec", "database")
	}
	const oneDB = "exactly one of clusterRef or host must be set"
	refusedCreate(t, env, glances, db(map[string]any{}), oneDB)
	refusedCreate(t, env, glances, db(map[string]any{"clusterRef": map[string]any{"name": "openstack-db"}, "host": "db.example.com"}), oneDB)
	refusedCreate(t, env, glances, db(map[string]any{"host": "db/x"}), "spec.database.host")
	refusedCreate(t, env, glances, db(map[string]any{"host": "db.example.com", "port": int64(70000)}), "spec.database.port")
	accepted(t, env, glances, db(map[string]any{"host": "127.0.0.1", "port": int64(3307)}))
	accepted(t, env, glances, db(map[string]any{"host": "fd00::1"}))

	cache := func(v map[string]any) *unstructured.Unstructured {
		return set(t, object(t, guide.Glance), v, "spec", "cache")
	}
	const oneCache = "exactly one of clusterRef or servers must be set"
	refusedCreate(t, env, glances, cache(map[string]any{}), oneCache)
	refusedCreate(t, env, glances, cache(map[string]any{"clusterRef": map[string]any{"name": "memcached"}, "servers": []any{"127.0.0.1:11211"}}), oneCache)
	refusedCreate(t, env, glances, cache(map[string]any{"servers": []any{"memcached"}}), "spec.cache.servers[0]")
	// The reference's CEL words beside the name's pattern, which refuses it too.
	refusedCreate(t, env, glances, cache(map[string]any{"clusterRef": map[string]any{"name": "memcached\n"}}),
		"clusterRef.name must not contain a newline or carriage return")
	accepted(t, env, glances, cache(map[string]any{"servers": []any{"127.0.0.1:11211", "[::1]:11211", "memcached.example.com:11211"}}))

	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), "etc/glance/metadefs", "spec", "metadefsPath"), "spec.metadefsPath")
	accepted(t, env, glances, set(t, object(t, guide.Glance), "/usr/share/glance-common/metadefs", "spec", "metadefsPath"))
}

// TestControlPlaneKeepsFieldsItDoesNotOwn: a ControlPlane is shared with
// other components. What this service does not read (other services,
// other spec fields) is stored as written, kubectl's strict field validation does not refuse it, and the
// fields this service owns are still checked where such fields live.
func TestControlPlaneKeepsFieldsItDoesNotOwn(t *testing.T) {
	env := kubetest.Shared(t)
	env.Namespace(t, "shared")
	y := strings.Replace(guide.ControlPlane, "namespace: openstack", "namespace: shared", 1)
	y = strings.Replace(y, "spec:\n  services:\n    glance:\n",
		"spec:\n  otherComponent:\n    enabled: true\n  services:\n    keystone:\n      replicas: 3\n    glance:\n", 1)
	require.Contains(t, y, "otherComponent", "the guide's ControlPlane has the shape this test edits")
	out, errOut, err := env.Kubectl(t, y, "apply", "--validate=strict", "-f", "-")
	require.NoError(t, err, "kubectl apply: %s %s", out, errOut)

	got, err := env.Dynamic.Resource(controlPlanes).Namespace("shared").Get(context.Background(), "controlplane", metav1.GetOptions{})
	require.NoError(t, err)
	for _, path := range [][]string{
		{"spec", "otherComponent", "enabled"},
		{"spec", "services", "keystone", "replicas"},
	} {
		_, found, err := unstructured.NestedFieldNoCopy(got.Object, path...)
		require.NoError(t, err)
		assert.True(t, found, "%s kept", strings.Join(path, "."))
	}

	// A field this service owns is still held to its schema.
	bad := object(t, guide.ControlPlane)
	set(t, bad, int64(-1), "spec", "services", "glance", "replicas")
	set(t, bad, "x", "spec", "services", "glance", "gateway", "hostname")
	_, err = dryCreate(t, env, controlPlanes, bad)
	require.Error(t, err, "replicas -1 is below the schema's minimum")
	assert.Contains(t, err.Error(), "spec.services.glance.replicas")
	assert.Contains(t, err.Error(), "spec.services.glance.gateway.parentRef", "a gateway names its Gateway")
}

// TestControlPlaneInfrastructure: the reference's spec.infrastructure is
// held to the schema of what the hooks read of it (its database and
// cache, each with every field optional, as the reference's webhook fills
// them in), and keeps the rest as written.
func TestControlPlaneInfrastructure(t *testing.T) {
	env := kubetest.Shared(t)
	cp := object(t, guide.ControlPlane)
	set(t, cp, map[string]any{"database": map[string]any{"replicas": int64(1), "storageSize": "512Mi"},
		"cache": map[string]any{"replicas": int64(1)}, "messaging": map[string]any{"replicas": int64(1)}}, "spec", "infrastructure")
	got, err := dryCreate(t, env, controlPlanes, cp)
	require.NoError(t, err, "the reference quick start's infrastructure, nothing named")
	_, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "infrastructure", "messaging", "replicas")
	assert.True(t, found, "a block the hooks do not read is kept")

	for path, want := range map[string]string{
		"database": "at most one of clusterRef or host may be set",
		"cache":    "at most one of clusterRef or servers may be set",
	} {
		bad := object(t, guide.ControlPlane)
		block := map[string]any{"clusterRef": map[string]any{"name": "shared"}, "host": "db.example.com", "servers": []any{"mc:11211"}}
		if path == "database" {
			delete(block, "servers")
		} else {
			delete(block, "host")
		}
		set(t, bad, block, "spec", "infrastructure", path)
		_, err := dryCreate(t, env, controlPlanes, bad)
		require.Error(t, err, "%s names two servers", path)
		assert.Contains(t, err.Error(), "spec.infrastructure."+path)
		assert.Contains(t, err.Error(), want)
	}
}

// --- the reference Glance API ---------------------------------------------

// TestReferenceExampleAccepted: the reference's example Glance applies.
func TestReferenceExampleAccepted(t *testing.T) {
	env := kubetest.Shared(t)
	accepted(t, env, glances, object(t, refrules.ExampleGlance))
}

// TestReferenceCELRules: every rule the CRD holds itself refuses the
// reference example changed to break it, naming the field; a rule left to
// the webhook, and every accepted case, passes the CRD, so the table's CEL
// marks are true.
func TestReferenceCELRules(t *testing.T) {
	celRules(t, glances, refrules.ExampleGlance, refrules.GlanceRules, refrules.AcceptedRules)
}

// TestControlPlaneCELRules: the same of the ControlPlane's rules, on the
// guide's ControlPlane.
func TestControlPlaneCELRules(t *testing.T) {
	celRules(t, controlPlanes, guide.ControlPlane, refrules.ControlPlaneRules, refrules.AcceptedControlPlaneRules)
}

// TestGlanceBackendCELRules: the same of the GlanceBackend's rules, on
// the guide's secondary store.
func TestGlanceBackendCELRules(t *testing.T) {
	celRules(t, glanceBackends, guide.SecondaryBackend(), refrules.GlanceBackendRules, refrules.AcceptedGlanceBackendRules)
}

func celRules(t *testing.T, gvr schema.GroupVersionResource, base string, rules, accepted []refrules.Rule) {
	env := kubetest.Shared(t)
	require.NotEmpty(t, rules)
	// Through JSON, as kubectl would send it (Go ints are no JSON values
	// of unstructured), and strict, as kubectl sends it: a field a
	// Kubernetes type of the schema lacks is refused (400), not dropped.
	create := func(t *testing.T, r refrules.Rule) error {
		o := object(t, base)
		r.Apply(o.Object)
		js, err := json.Marshal(o.Object)
		require.NoError(t, err)
		o = &unstructured.Unstructured{}
		require.NoError(t, o.UnmarshalJSON(js))
		_, err = strictCreate(t, env, gvr, o)
		return err
	}
	for _, r := range rules {
		t.Run(r.Name, func(t *testing.T) {
			err := create(t, r)
			if !r.CEL {
				require.NoError(t, err, "the CRD refuses a rule marked for the webhook")
				return
			}
			require.Error(t, err, "the API server accepted it")
			assert.True(t, apierrors.IsInvalid(err) || apierrors.IsBadRequest(err), "not refused as invalid: %v", err)
			assert.Contains(t, err.Error(), r.Field)
		})
	}
	for _, r := range accepted {
		t.Run("accepted/"+r.Name, func(t *testing.T) {
			require.NoError(t, create(t, r))
		})
	}
}

// TestReferenceBoundsOnBothKinds: the reference's minimum of one replica,
// of one networkPolicy source, and a source's required namespaceSelector
// hold on a Glance and on a ControlPlane's services.glance alike; one
// replica and a source naming its namespaces pass.
func TestReferenceBoundsOnBothKinds(t *testing.T) {
	env := kubetest.Shared(t)
	podsOnly := []any{map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"role": "client"}}}}
	withNamespaces := []any{map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"team": "images"}},
		"podSelector": map[string]any{"matchLabels": map[string]any{"role": "client"}}}}
	for _, kind := range []struct {
		gvr  schema.GroupVersionResource
		yaml string
		at   []string
	}{
		{glances, guide.Glance, []string{"spec"}},
		{controlPlanes, guide.ControlPlane, []string{"spec", "services", "glance"}},
	} {
		at := func(p ...string) []string { return append(append([]string{}, kind.at...), p...) }
		field := strings.Join(kind.at, ".") + "."
		refusedCreate(t, env, kind.gvr, set(t, object(t, kind.yaml), int64(0), at("deployment", "replicas")...),
			field+"deployment.replicas: Invalid value: 0: "+field+"deployment.replicas in body should be greater than or equal to 1")
		accepted(t, env, kind.gvr, set(t, object(t, kind.yaml), int64(1), at("deployment", "replicas")...))
		refusedCreate(t, env, kind.gvr, set(t, object(t, kind.yaml), podsOnly, at("networkPolicy", "ingress")...),
			field+"networkPolicy.ingress[0].namespaceSelector: Required value")
		// The reference's words (its CEL rule), not minItems' generic ones.
		refusedCreate(t, env, kind.gvr, set(t, object(t, kind.yaml), []any{}, at("networkPolicy", "ingress")...),
			field+"networkPolicy.ingress: Invalid value: at least one ingress source must be specified")
		accepted(t, env, kind.gvr, set(t, object(t, kind.yaml), withNamespaces, at("networkPolicy", "ingress")...))
	}
}

// TestReferenceDefaultsStored: the defaults the reference's API server
// stores are stored here too, so a Glance reads back the same.
func TestReferenceDefaultsStored(t *testing.T) {
	env := kubetest.Shared(t)
	g := object(t, guide.Glance)
	set(t, g, map[string]any{}, "spec", "logging")
	set(t, g, map[string]any{}, "spec", "apiServer", "uwsgi")
	set(t, g, map[string]any{"name": "vault"}, "spec", "secretStoreRef")
	out := accepted(t, env, glances, g)
	for want, path := range map[any][]string{
		"text":               {"spec", "logging", "format"},
		"INFO":               {"spec", "logging", "level"},
		int64(2):             {"spec", "apiServer", "uwsgi", "processes"},
		"ClusterSecretStore": {"spec", "secretStoreRef", "kind"},
	} {
		got, found, err := unstructured.NestedFieldNoCopy(out.Object, path...)
		require.NoError(t, err)
		assert.True(t, found, "%s is stored", strings.Join(path, "."))
		assert.Equal(t, want, got, strings.Join(path, "."))
	}
}

// TestReferenceWordsInTheCRD: an empty rules map is no rule, as in the
// reference's CRD, which refuses it before the webhook is asked.
func TestReferenceWordsInTheCRD(t *testing.T) {
	env := kubetest.Shared(t)
	refusedCreate(t, env, glances, set(t, object(t, guide.Glance), map[string]any{"rules": map[string]any{}}, "spec", "policyOverrides"),
		"spec.policyOverrides: Invalid value: at least one of rules or configMapRef must be set")
	accepted(t, env, glances, set(t, object(t, guide.Glance), map[string]any{"rules": map[string]any{"get_images": "@"}}, "spec", "policyOverrides"))
}

// TestStandaloneBackendNamedDefault: the guide's reserved names include
// default for a GlanceBackend whose name is its store id; a ControlPlane's
// child carries the store id default under another name.
func TestStandaloneBackendNamedDefault(t *testing.T) {
	env := kubetest.Shared(t)
	refusedCreate(t, env, glanceBackends, backend(t, "default"), msgReserved)
	child := backend(t, "controlplane-glance-default")
	set(t, child, "default", "spec", "storeId")
	accepted(t, env, glanceBackends, child)
}

// TestControlPlaneGlanceIsStructural: a misspelt field under
// services.glance is refused (kubectl's strict field validation), not kept.
func TestControlPlaneGlanceIsStructural(t *testing.T) {
	env := kubetest.Shared(t)
	cp := set(t, object(t, guide.ControlPlane), int64(2), "spec", "services", "glance", "replcas")
	_, err := strictCreate(t, env, controlPlanes, cp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "spec.services.glance.replcas"`)
	// A misspelt service is no service: refused too, not stored as a
	// ControlPlane that runs no Glance (the webhook says which was meant).
	cp = object(t, guide.ControlPlane)
	cp.SetNamespace(ns)
	services, _, err := unstructured.NestedMap(cp.Object, "spec", "services")
	require.NoError(t, err)
	services["glanse"] = services["glance"]
	delete(services, "glance")
	require.NoError(t, unstructured.SetNestedMap(cp.Object, services, "spec", "services"))
	_, err = client(env, controlPlanes).Create(context.Background(), cp,
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
	require.Error(t, err, "a ControlPlane whose only service is misspelt")
	assert.Contains(t, err.Error(), `unknown field "spec.services.glanse"`)
	// A service these hooks do not run is kept as written.
	cp = object(t, guide.ControlPlane)
	set(t, cp, int64(3), "spec", "services", "keystone", "replicas")
	accepted(t, env, controlPlanes, cp)
}

// --- Kubernetes types ------------------------------------------------------

// TestKubeTypesExplained: the fields typed as Kubernetes types show their
// subfields in kubectl explain, as in a Deployment or a NetworkPolicy.
func TestKubeTypesExplained(t *testing.T) {
	env := kubetest.Shared(t)
	cases := map[string]struct {
		reason string
		field  string
		want   []string
	}{
		"strategy": {"a Deployment's strategy", "glance.spec.deployment.strategy",
			[]string{"rollingUpdate\t<Object>", "type\t<string>", "Type of deployment"}},
		// How an int-or-string is named differs between kubectl releases.
		"rollingUpdate": {"its rolling parameters, integers or percentages", "glance.spec.deployment.strategy.rollingUpdate",
			[]string{"maxSurge\t<", "maxUnavailable\t<", "Value can be an absolute number (ex: 5) or a percentage of desired pods"}},
		"spread": {"a pod's spread constraint, with its required fields", "glance.spec.deployment.topologySpreadConstraints",
			[]string{"maxSkew\t<integer> -required-", "topologyKey\t<string> -required-", "whenUnsatisfiable\t<string> -required-",
				"labelSelector\t<Object>", "matchLabelKeys\t<[]string>", "Replace the default spread"}},
		"egress": {"a NetworkPolicy's egress rule", "glance.spec.networkPolicy.additionalEgress",
			[]string{"ports\t<[]Object>", "to\t<[]Object>"}},
		"egress peer": {"down to the peers", "glance.spec.networkPolicy.additionalEgress.to",
			[]string{"ipBlock\t<Object>", "namespaceSelector\t<Object>", "podSelector\t<Object>"}},
		"ControlPlane": {"the ControlPlane's copy is typed the same", "controlplane.spec.services.glance.deployment.strategy",
			[]string{"rollingUpdate\t<Object>", "type\t<string>"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := env.Kubectl(t, "", "explain", tc.field)
			require.NoError(t, err, errOut)
			for _, want := range tc.want {
				assert.Contains(t, out, want, tc.reason)
			}
		})
	}
}

// TestKubeTypesAreStrict: a misspelt field inside a Kubernetes type of the
// schema is refused by strict field validation, naming it; spelt right, it
// is admitted and kept as written.
func TestKubeTypesAreStrict(t *testing.T) {
	env := kubetest.Shared(t)
	spread := func(extra map[string]any) []any {
		c := map[string]any{"maxSkew": int64(1), "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}
		maps.Copy(c, extra)
		return []any{c}
	}
	egress := func(peer string) []any {
		return []any{map[string]any{peer: []any{map[string]any{"ipBlock": map[string]any{"cidr": "203.0.113.0/24"}}}}}
	}
	strategy := []string{"deployment", "strategy"}
	spreads := []string{"deployment", "topologySpreadConstraints"}
	egresses := []string{"networkPolicy", "additionalEgress"}
	cases := map[string]struct {
		reason       string
		controlPlane bool // the ControlPlane's services.glance, else a Glance
		path         []string
		value        any
		unknown      string // the field refused; "" when admitted
	}{
		"strategy misspelt": {"rollingUpdat is no field of a Deployment's strategy", false, strategy,
			map[string]any{"type": "RollingUpdate", "rollingUpdat": map[string]any{"maxSurge": int64(1)}}, "spec.deployment.strategy.rollingUpdat"},
		"strategy": {"spelt right, a percentage and a number", false, strategy,
			map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxSurge": "50%", "maxUnavailable": int64(0)}}, ""},
		"spread misspelt": {"labelSelecter is no field of a spread constraint", false, spreads,
			spread(map[string]any{"labelSelecter": map[string]any{}}), "spec.deployment.topologySpreadConstraints[0].labelSelecter"},
		"spread":          {"spelt right", false, spreads, spread(map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"app": "glance"}}}), ""},
		"egress misspelt": {"a misspelt to would widen the rule", false, egresses, egress("too"), "spec.networkPolicy.additionalEgress[0].too"},
		"egress":          {"spelt right", false, egresses, egress("to"), ""},
		"ControlPlane strategy misspelt": {"the ControlPlane's copy is as strict", true, strategy,
			map[string]any{"rollingUpdat": map[string]any{}}, "spec.services.glance.deployment.strategy.rollingUpdat"},
		"ControlPlane egress misspelt": {"the ControlPlane's copy is as strict", true, egresses, egress("too"),
			"spec.services.glance.networkPolicy.additionalEgress[0].too"},
		"ControlPlane spread": {"spelt right", true, spreads, spread(nil), ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			gvr, o, at := glances, object(t, guide.Glance), append([]string{"spec"}, tc.path...)
			if tc.controlPlane {
				gvr, o, at = controlPlanes, object(t, guide.ControlPlane), append([]string{"spec", "services", "glance"}, tc.path...)
			}
			if tc.path[0] == "networkPolicy" {
				set(t, o, []any{map[string]any{"namespaceSelector": map[string]any{}}}, append(at[:len(at)-1:len(at)-1], "ingress")...)
			}
			out, err := strictCreate(t, env, gvr, set(t, o, tc.value, at...))
			if tc.unknown != "" {
				require.Error(t, err, tc.reason)
				assert.True(t, apierrors.IsBadRequest(err), "%s: not a strict decoding error: %v", tc.reason, err)
				assert.Contains(t, err.Error(), `unknown field "`+tc.unknown+`"`, tc.reason)
				return
			}
			require.NoError(t, err, tc.reason)
			got, _, _ := unstructured.NestedFieldNoCopy(out.Object, at...)
			assert.Equal(t, tc.value, got, "%s: kept as written", tc.reason)
		})
	}
}

// TestKubeTypesRequiredFields: the schema holds a Kubernetes type's
// required fields, as the API server holds a Deployment's.
func TestKubeTypesRequiredFields(t *testing.T) {
	env := kubetest.Shared(t)
	o := set(t, object(t, guide.Glance), []any{map[string]any{"maxSkew": int64(1), "whenUnsatisfiable": "ScheduleAnyway"}},
		"spec", "deployment", "topologySpreadConstraints")
	refusedCreate(t, env, glances, o, "spec.deployment.topologySpreadConstraints[0].topologyKey: Required value")
}

// TestMisnamedS3Address: the S3 address copied between a GlanceBackend
// (s3.host) and a ControlPlane's entry (s3.endpoint) is refused by the API
// server with the name the kind wants, in the webhook's words.
func TestMisnamedS3Address(t *testing.T) {
	env := kubetest.Shared(t)
	b := backend(t, "misnamed")
	host, _, err := unstructured.NestedString(b.Object, "spec", "s3", "host")
	require.NoError(t, err)
	unstructured.RemoveNestedField(b.Object, "spec", "s3", "host")
	set(t, b, host, "spec", "s3", "endpoint")
	refusedCreate(t, env, glanceBackends, b, "spec.s3.endpoint: Invalid value: "+api.MisnamedS3Endpoint)

	cp := object(t, guide.ControlPlane)
	list := entries(t, cp)
	s3 := list[0].(map[string]any)["s3"].(map[string]any)
	s3["host"] = s3["endpoint"]
	delete(s3, "endpoint")
	setEntries(t, cp, list)
	refusedCreate(t, env, controlPlanes, cp, "spec.services.glance.backends[0].s3.host: Invalid value: "+api.MisnamedS3Host)
}
