//go:build integration

package webhook_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
	"github.com/c5c3/glance-hooks/hooks/controlplane"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubetest"
	"github.com/c5c3/glance-hooks/test/testbin"
)

func TestMain(m *testing.M) {
	code := kubetest.Main(m)
	if service.svc != nil {
		if code != 0 {
			fmt.Fprintf(os.Stderr, "glance-hooks log ends:\n%s\n", service.svc.tail(40))
		}
		service.svc.stop()
	}
	testbin.Cleanup()
	os.Exit(code)
}

var (
	controlPlanes  = schema.GroupVersionResource{Group: "c5c3.io", Version: "v1alpha1", Resource: "controlplanes"}
	glanceBackends = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glancebackends"}
	glances        = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
)

const (
	// webhookName is the README's registration.
	webhookName = "validate.glance.openstack.c5c3.io"
	// labelAPI on a namespace moves it from the service that reads the API
	// to the one that cannot (TestFailClosed).
	labelAPI         = "glance-hooks.test/api"
	labelUnreachable = "unreachable"
)

// The guide's texts, word for word.

// siblingDefault is the guide's refusal of a second default store.
func siblingDefault(other, glance string) string {
	return fmt.Sprintf("GlanceBackend %q attached to the same Glance %q is already marked isDefault; exactly one default store is allowed", other, glance)
}

// msgOneDefault is Step 3's ControlPlane refusal.
const msgOneDefault = "exactly one backends entry must set isDefault"

// storeIDCollision is the README's refusal of a store id already used by a
// backend of the same Glance.
func storeIDCollision(id, name, other, glance string) string {
	return fmt.Sprintf("store id %q of GlanceBackend %q is already used by GlanceBackend %q attached to the same Glance %q; store ids must be unique per Glance", id, name, other, glance)
}

// cannotCheck is the README's fail-closed refusal, up to the reason the
// read failed.
func cannotCheck(name, glance, ns string) string {
	return fmt.Sprintf("GlanceBackend %q cannot be checked against the other backends of Glance %q, so it is refused: listing GlanceBackends in namespace %q failed: ", name, glance, ns)
}

// inNamespace moves the guide's objects from openstack to ns.
func inNamespace(y, ns string) string {
	return strings.ReplaceAll(y, "namespace: openstack", "namespace: "+ns)
}

// backendYAML is a GlanceBackend like the guide's; storeID may be empty.
func backendYAML(ns, name, glance string, isDefault bool, storeID string) string {
	id := ""
	if storeID != "" {
		id = "\n  storeId: " + storeID
	}
	return fmt.Sprintf(`apiVersion: glance.openstack.c5c3.io/v1alpha1
kind: GlanceBackend
metadata:
  name: %s
  namespace: %s
spec:
  glanceRef:
    name: %s
  type: S3
  isDefault: %t%s
  s3:
    host: http://garage.shared-services.svc.cluster.local:3900
    bucket: glance-images-3
    region: garage
    credentialsSecretRef:
      name: garage-s3-credentials
`, name, ns, glance, isDefault, id)
}

func decode(y string) (*unstructured.Unstructured, error) {
	js, err := utilyaml.ToJSON([]byte(y))
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(js)
}

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u, err := decode(y)
	require.NoError(t, err)
	return u
}

// --- the service under test -------------------------------------------------

// service is the package's glance-hooks, reading the API with the harness's
// admin kubeconfig and registered for every namespace except those labelled
// unreachable.
var service struct {
	once sync.Once
	svc  *hookService
	err  error
}

// suite is what a test gets: the API server and the service registered on it.
type suite struct {
	env *kubetest.Env
	svc *hookService
}

func setup(t *testing.T) *suite {
	t.Helper()
	env := kubetest.Shared(t)
	service.once.Do(func() {
		begin := time.Now()
		service.svc, service.err = startHooks(env.Kubeconfig)
		if service.err != nil {
			return
		}
		t.Logf("glance-hooks built in %s, serving %s", binary.took.Round(time.Millisecond), service.svc.URL)
		service.err = register(env, service.svc)
		t.Logf("webhook answering %s after start", time.Since(begin).Round(time.Millisecond))
	})
	if service.err != nil {
		t.Fatalf("the validate webhook: %v", service.err)
	}
	return &suite{env: env, svc: service.svc}
}

// webhookConfig registers svc for CREATE and UPDATE of the three kinds, as
// the README does (failurePolicy Fail, sideEffects None, timeoutSeconds 10).
func webhookConfig(name string, svc *hookService, namespaces *metav1.LabelSelector) *admissionregistrationv1.ValidatingWebhookConfiguration {
	cfg := kubetest.ValidatingWebhook(name, svc.URL+"/validate", svc.CAPEM,
		kubetest.WebhookRule("c5c3.io", "v1alpha1", "controlplanes"),
		kubetest.WebhookRule("glance.openstack.c5c3.io", "v1alpha1", "glances", "glancebackends"))
	cfg.Webhooks[0].NamespaceSelector = namespaces
	return cfg
}

// register creates the package's webhook configuration (it lives as long as
// the API server) and waits until the API server calls it: a second default
// in namespace probe is refused by it.
func register(env *kubetest.Env, svc *hookService) error {
	ctx, cancel := contextTimeout()
	defer cancel()
	cfg := webhookConfig(webhookName, svc, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: labelAPI, Operator: metav1.LabelSelectorOpNotIn, Values: []string{labelUnreachable}},
	}})
	if _, err := env.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering %s: %w", webhookName, err)
	}
	probe := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}
	if _, err := env.Kube.CoreV1().Namespaces().Create(ctx, probe, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	backends := env.Dynamic.Resource(glanceBackends).Namespace("probe")
	first, err := decode(backendYAML("probe", "probe-a", "probe", true, ""))
	if err != nil {
		return err
	}
	if _, err := backends.Create(ctx, first, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the probe backend: %w", err)
	}
	second, err := decode(backendYAML("probe", "probe-b", "probe", true, ""))
	if err != nil {
		return err
	}
	// Any refusal by this webhook will do: the tests check its words.
	called := fmt.Sprintf("admission webhook %q denied the request: ", webhookName)
	for {
		_, err := backends.Create(ctx, second, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if strings.Contains(errText(err), called) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the API server did not call the webhook (last answer: %v)", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// --- helpers ------------------------------------------------------------------

// call runs kubectl and returns what the service logged about parent for
// that call (nil when the service was not called, e.g. CEL refused first).
func (s *suite) call(t *testing.T, parent, stdin string, args ...string) (stdout, stderr string, rec *logRecord, err error) {
	t.Helper()
	seen := len(s.svc.decisions(parent))
	stdout, stderr, err = s.env.Kubectl(t, stdin, args...)
	if d := s.svc.decisions(parent); len(d) > seen {
		rec = &d[len(d)-1]
	} else if err == nil || denial(stderr) != "" {
		// The API server has the answer before the line is logged.
		r := s.svc.lastDecision(t, parent, seen)
		rec = &r
	}
	return stdout, stderr, rec, err
}

// accepted runs kubectl, which must succeed, and checks the service was
// asked and allowed it.
func (s *suite) accepted(t *testing.T, parent, stdin string, args ...string) string {
	t.Helper()
	out, errOut, rec, err := s.call(t, parent, stdin, args...)
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), errOut)
	require.NotNil(t, rec, "the webhook was not called for %s", parent)
	require.NotNil(t, rec.Allowed)
	assert.True(t, *rec.Allowed, "the webhook's answer for %s", parent)
	return out
}

// refused runs kubectl, which must fail with the webhook's message exactly
// want, and checks the service logged that refusal.
func (s *suite) refused(t *testing.T, parent, want, stdin string, args ...string) string {
	t.Helper()
	_, errOut, rec, err := s.call(t, parent, stdin, args...)
	require.Error(t, err, "kubectl %s was accepted", strings.Join(args, " "))
	assert.Equal(t, want, denial(errOut), "kubectl's stderr: %s", errOut)
	if assert.NotNil(t, rec, "the webhook was not called for %s", parent) {
		assert.Equal(t, want, rec.Denied, "the service's log")
	}
	return errOut
}

func isDefault(t *testing.T, env *kubetest.Env, ns, name string) bool {
	t.Helper()
	ctx, cancel := contextTimeout()
	defer cancel()
	o, err := env.Dynamic.Resource(glanceBackends).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	v, _, err := unstructured.NestedBool(o.Object, "spec", "isDefault")
	require.NoError(t, err)
	return v
}

const (
	promote = `{"spec":{"isDefault":true}}`
	release = `{"spec":{"isDefault":false}}`
)

func patchBackend(ns, name, patch string) []string {
	return []string{"patch", "glancebackend", name, "-n", ns, "--type", "merge", "-p", patch}
}

// step runs f as a subtest and stops t when it fails: the steps of a test
// build on each other.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

// --- the guide's standalone Glance ----------------------------------------

// TestStandaloneGuide walks the guide's standalone section: its Glance and
// two GlanceBackends are admitted, a second default is refused at CREATE,
// and the two-patch default switch is accepted in the guide's order
// (release, then promote) and refused in the other.
func TestStandaloneGuide(t *testing.T) {
	s := setup(t)
	const ns = "openstack"
	s.env.Namespace(t, ns)

	step(t, "the guide's Glance and GlanceBackends are accepted", func(t *testing.T) {
		out := s.accepted(t, "CREATE Glance openstack/glance", guide.Glance, "apply", "-f", "-")
		assert.Contains(t, out, "glance.glance.openstack.c5c3.io/glance created")
		seen := len(s.svc.decisions("CREATE GlanceBackend openstack/secondary"))
		out = s.accepted(t, "CREATE GlanceBackend openstack/primary", guide.Backends, "apply", "-f", "-")
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/primary created")
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/secondary created")
		rec := s.svc.lastDecision(t, "CREATE GlanceBackend openstack/secondary", seen)
		assert.True(t, rec.Allowed != nil && *rec.Allowed, "secondary was allowed by the webhook")
		assert.True(t, isDefault(t, s.env, ns, "primary"))
		assert.False(t, isDefault(t, s.env, ns, "secondary"))
	})

	step(t, "a second default at CREATE is refused", func(t *testing.T) {
		want := siblingDefault("primary", "glance")
		errOut := s.refused(t, "CREATE GlanceBackend openstack/tertiary", want,
			backendYAML(ns, "tertiary", "glance", true, ""), "apply", "-f", "-")
		assert.Contains(t, errOut, "Error from server (Forbidden)")
		// The same through client-go: a 403 Forbidden, nothing stored.
		ctx, cancel := contextTimeout()
		defer cancel()
		_, err := s.env.Dynamic.Resource(glanceBackends).Namespace(ns).Create(ctx, object(t, backendYAML(ns, "tertiary", "glance", true, "")), metav1.CreateOptions{})
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		assert.Equal(t, want, denial(err.Error()))
		_, err = s.env.Dynamic.Resource(glanceBackends).Namespace(ns).Get(ctx, "tertiary", metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "tertiary was not stored: %v", err)
		// As a non-default store it is fine.
		s.accepted(t, "CREATE GlanceBackend openstack/tertiary", backendYAML(ns, "tertiary", "glance", false, ""), "apply", "-f", "-")
	})

	step(t, "promoting secondary before releasing primary is refused", func(t *testing.T) {
		s.refused(t, "UPDATE GlanceBackend openstack/secondary",
			`GlanceBackend "primary" attached to the same Glance "glance" is already marked isDefault; exactly one default store is allowed`,
			"", patchBackend(ns, "secondary", promote)...)
		assert.True(t, isDefault(t, s.env, ns, "primary"))
		assert.False(t, isDefault(t, s.env, ns, "secondary"))
	})

	step(t, "releasing primary, then promoting secondary, is accepted", func(t *testing.T) {
		out := s.accepted(t, "UPDATE GlanceBackend openstack/primary", "", patchBackend(ns, "primary", release)...)
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/primary patched")
		assert.False(t, isDefault(t, s.env, ns, "primary"))
		out = s.accepted(t, "UPDATE GlanceBackend openstack/secondary", "", patchBackend(ns, "secondary", promote)...)
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/secondary patched")
		assert.True(t, isDefault(t, s.env, ns, "secondary"))
	})

	step(t, "now secondary holds the default", func(t *testing.T) {
		s.refused(t, "UPDATE GlanceBackend openstack/primary", siblingDefault("secondary", "glance"),
			"", patchBackend(ns, "primary", promote)...)
		s.refused(t, "UPDATE GlanceBackend openstack/tertiary", siblingDefault("secondary", "glance"),
			"", patchBackend(ns, "tertiary", promote)...)
		assert.False(t, isDefault(t, s.env, ns, "primary"))
	})
}

// --- the ControlPlane's projected Glance ------------------------------------

// project runs the ControlPlane sync hook on the stored ControlPlane and
// returns its Glance and GlanceBackend children (the kinds the webhook
// checks; its registration ServiceAccount is left out) by name, owned by it
// as Metacontroller would own them (a controller owner reference).
func project(t *testing.T, cp *unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	parent, err := cp.MarshalJSON()
	require.NoError(t, err)
	resp, err := controlplane.Hook{JobImage: "ghcr.io/c5c3/glance-hooks:test"}.Sync(&metacontroller.SyncRequest{Parent: parent, Children: metacontroller.ObjectMap{}, Related: metacontroller.ObjectMap{}}, time.Now())
	require.NoError(t, err)
	yes := true
	owner := []metav1.OwnerReference{{APIVersion: cp.GetAPIVersion(), Kind: cp.GetKind(), Name: cp.GetName(), UID: cp.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}}
	out := map[string]*unstructured.Unstructured{}
	for _, c := range resp.Children {
		raw, err := json.Marshal(c)
		require.NoError(t, err)
		u := &unstructured.Unstructured{}
		require.NoError(t, u.UnmarshalJSON(raw))
		if u.GetKind() != "Glance" && u.GetKind() != "GlanceBackend" {
			continue
		}
		u.SetOwnerReferences(owner)
		out[u.GetName()] = u
	}
	return out
}

// applyChild creates a projected child, or updates the stored one to the
// projected spec, the way Metacontroller applies children.
func applyChild(t *testing.T, env *kubetest.Env, child *unstructured.Unstructured) error {
	t.Helper()
	ctx, cancel := contextTimeout()
	defer cancel()
	gvr := glanceBackends
	if child.GetKind() == "Glance" {
		gvr.Resource = "glances"
	}
	client := env.Dynamic.Resource(gvr).Namespace(child.GetNamespace())
	stored, err := client.Get(ctx, child.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = client.Create(ctx, child, metav1.CreateOptions{})
		return err
	}
	require.NoError(t, err)
	stored.Object["spec"] = child.Object["spec"]
	_, err = client.Update(ctx, stored, metav1.UpdateOptions{})
	return err
}

func getControlPlane(t *testing.T, env *kubetest.Env, ns, name string) *unstructured.Unstructured {
	t.Helper()
	ctx, cancel := contextTimeout()
	defer cancel()
	cp, err := env.Dynamic.Resource(controlPlanes).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return cp
}

// TestProjectedGlance is the guide's ControlPlane side: the projected
// children are admitted, a hand-made store attached to controlplane-glance
// is accepted as a non-default and refused as a default (Step 4), and the
// one-edit switch of Step 3 reaches the children in either order.
func TestProjectedGlance(t *testing.T) {
	s := setup(t)
	const ns = "openstack"
	s.env.Namespace(t, ns)
	var cp *unstructured.Unstructured

	step(t, "the guide's ControlPlane and its projected children are accepted", func(t *testing.T) {
		out := s.accepted(t, "CREATE ControlPlane openstack/controlplane", guide.ControlPlane, "apply", "-f", "-")
		assert.Contains(t, out, "controlplane.c5c3.io/controlplane created")
		cp = getControlPlane(t, s.env, ns, "controlplane")
		children := project(t, cp)
		require.Len(t, children, 3, "a Glance and two GlanceBackends")
		for _, name := range []string{"controlplane-glance", "controlplane-glance-default", "controlplane-glance-secondary"} {
			require.Contains(t, children, name)
			kind := children[name].GetKind()
			seen := len(s.svc.decisions("CREATE " + kind + " openstack/" + name))
			require.NoError(t, applyChild(t, s.env, children[name]), "creating %s", name)
			rec := s.svc.lastDecision(t, "CREATE "+kind+" openstack/"+name, seen)
			assert.True(t, rec.Allowed != nil && *rec.Allowed)
		}
		assert.True(t, isDefault(t, s.env, ns, "controlplane-glance-default"))
		assert.False(t, isDefault(t, s.env, ns, "controlplane-glance-secondary"))
	})

	step(t, "a hand-made non-default backend on the projected Glance is accepted", func(t *testing.T) {
		out := s.accepted(t, "CREATE GlanceBackend openstack/archive",
			backendYAML(ns, "archive", "controlplane-glance", false, ""), "apply", "-f", "-")
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/archive created")
	})

	want := siblingDefault("controlplane-glance-default", "controlplane-glance")
	step(t, "a hand-made default backend on the projected Glance is refused", func(t *testing.T) {
		s.refused(t, "CREATE GlanceBackend openstack/archive-default", want,
			backendYAML(ns, "archive-default", "controlplane-glance", true, ""), "apply", "-f", "-")
		// Promoting the hand-made store later is refused the same way.
		s.refused(t, "UPDATE GlanceBackend openstack/archive", want, "", patchBackend(ns, "archive", promote)...)
	})

	step(t, "a child of another ControlPlane does not pass as a sibling", func(t *testing.T) {
		other := object(t, strings.Replace(guide.ControlPlane, "name: controlplane\n", "name: other\n", 1))
		ctx, cancel := contextTimeout()
		defer cancel()
		stored, err := s.env.Dynamic.Resource(controlPlanes).Namespace(ns).Create(ctx, other, metav1.CreateOptions{})
		require.NoError(t, err)
		foreign := object(t, backendYAML(ns, "foreign-default", "controlplane-glance", true, ""))
		yes := true
		foreign.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: stored.GetAPIVersion(), Kind: stored.GetKind(), Name: stored.GetName(), UID: stored.GetUID(), Controller: &yes}})
		_, err = s.env.Dynamic.Resource(glanceBackends).Namespace(ns).Create(ctx, foreign, metav1.CreateOptions{})
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		assert.Equal(t, want, denial(err.Error()))
	})

	step(t, "a ControlPlane edit that adds a second default is refused", func(t *testing.T) {
		_, errOut, err := s.env.Kubectl(t, "", "patch", "controlplane", "controlplane", "-n", ns, "--type", "json",
			"-p", `[{"op":"replace","path":"/spec/services/glance/backends/1/isDefault","value":true}]`)
		require.Error(t, err, "kubectl patch was accepted")
		assert.Equal(t, msgOneDefault, celMessage(errOut), "kubectl's stderr: %s", errOut)
	})

	step(t, "the one-edit switch is accepted on the ControlPlane", func(t *testing.T) {
		out := s.accepted(t, "UPDATE ControlPlane openstack/controlplane", "",
			"patch", "controlplane", "controlplane", "-n", ns, "--type", "json", "-p",
			`[{"op":"replace","path":"/spec/services/glance/backends/0/isDefault","value":false},`+
				`{"op":"replace","path":"/spec/services/glance/backends/1/isDefault","value":true}]`)
		assert.Contains(t, out, "controlplane.c5c3.io/controlplane patched")
	})

	step(t, "the promoted child is accepted before the released one", func(t *testing.T) {
		children := project(t, getControlPlane(t, s.env, ns, "controlplane"))
		promoted, released := children["controlplane-glance-secondary"], children["controlplane-glance-default"]
		require.NotNil(t, promoted)
		require.NotNil(t, released)

		seen := len(s.svc.decisions("UPDATE GlanceBackend openstack/controlplane-glance-secondary"))
		require.NoError(t, applyChild(t, s.env, promoted), "the promoted child first")
		rec := s.svc.lastDecision(t, "UPDATE GlanceBackend openstack/controlplane-glance-secondary", seen)
		assert.True(t, rec.Allowed != nil && *rec.Allowed)
		// For a moment both projected children say isDefault: true.
		assert.True(t, isDefault(t, s.env, ns, "controlplane-glance-default"))
		assert.True(t, isDefault(t, s.env, ns, "controlplane-glance-secondary"))
		// A hand-made default is still refused then.
		s.refused(t, "UPDATE GlanceBackend openstack/archive", want, "", patchBackend(ns, "archive", promote)...)

		require.NoError(t, applyChild(t, s.env, released), "then the released child")
		assert.False(t, isDefault(t, s.env, ns, "controlplane-glance-default"))
		assert.True(t, isDefault(t, s.env, ns, "controlplane-glance-secondary"))
	})

	step(t, "afterwards the hand-made default is refused naming the new default", func(t *testing.T) {
		s.refused(t, "UPDATE GlanceBackend openstack/archive",
			siblingDefault("controlplane-glance-secondary", "controlplane-glance"), "", patchBackend(ns, "archive", promote)...)
	})
}

// TestHandMadeDefaultBeforeTheProjectedOne: the ControlPlane exists, its
// children do not yet; a hand-made default on its Glance is refused naming
// the ControlPlane (the webhook gets the ControlPlane, there is no sibling
// to name); the projected default is then admitted, and so is the Glance.
func TestHandMadeDefaultBeforeTheProjectedOne(t *testing.T) {
	s := setup(t)
	const ns = "first"
	s.env.Namespace(t, ns)
	y := strings.ReplaceAll(guide.ControlPlane, "namespace: openstack", "namespace: "+ns)
	s.accepted(t, "CREATE ControlPlane first/controlplane", y, "apply", "-f", "-")

	s.refused(t, "CREATE GlanceBackend first/archive",
		`GlanceBackend "archive" cannot be the default store of Glance "controlplane-glance": ControlPlane "controlplane" projects that Glance, `+
			`and its spec.services.glance.backends[] alone sets the default; attach a hand-made backend as a non-default store`,
		backendYAML(ns, "archive", "controlplane-glance", true, ""), "apply", "-f", "-")
	s.accepted(t, "CREATE GlanceBackend first/archive", backendYAML(ns, "archive", "controlplane-glance", false, ""), "apply", "-f", "-")

	children := project(t, getControlPlane(t, s.env, ns, "controlplane"))
	for _, name := range []string{"controlplane-glance", "controlplane-glance-default", "controlplane-glance-secondary"} {
		require.NoError(t, applyChild(t, s.env, children[name]), "creating %s", name)
	}
	assert.True(t, isDefault(t, s.env, ns, "controlplane-glance-default"))
	// Now the Glance exists and its controller is the ControlPlane: the
	// guide's message names the projected default.
	s.refused(t, "UPDATE GlanceBackend first/archive", siblingDefault("controlplane-glance-default", "controlplane-glance"),
		"", patchBackend(ns, "archive", promote)...)
}

// celMessage is the API server's text after the last "Invalid value: ...: "
// of an Invalid answer: what a CEL rule's message says.
func celMessage(stderr string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	i := strings.LastIndex(line, ": ")
	if i < 0 {
		return ""
	}
	return strings.TrimSpace(line[i+2:])
}

// TestControlPlaneTwoDefaults: a ControlPlane with two defaults is refused
// with Step 3's text (the CRD's CEL rule answers before the webhook is
// asked); one default is accepted by both.
func TestControlPlaneTwoDefaults(t *testing.T) {
	s := setup(t)
	const ns = "controlplanes"
	s.env.Namespace(t, ns)
	two := strings.Replace(inNamespace(guide.ControlPlane, ns), "isDefault: false", "isDefault: true", 1)
	require.NotEqual(t, inNamespace(guide.ControlPlane, ns), two)
	_, errOut, rec, err := s.call(t, "CREATE ControlPlane controlplanes/controlplane", two, "apply", "-f", "-")
	require.Error(t, err, "kubectl apply was accepted")
	assert.Contains(t, errOut, `The ControlPlane "controlplane" is invalid`)
	assert.Equal(t, msgOneDefault, celMessage(errOut), "kubectl's stderr: %s", errOut)
	assert.Nil(t, rec, "the CRD refused it before the webhook was called")

	out := s.accepted(t, "CREATE ControlPlane controlplanes/controlplane", inNamespace(guide.ControlPlane, ns), "apply", "-f", "-")
	assert.Contains(t, out, "controlplane.c5c3.io/controlplane created")
}

// TestGlanceAndControlPlaneRefusals: for the two kinds whose rules the
// CRDs mostly hold themselves, a value only the webhook refuses (a service
// user name with a leading blank, which would be written into
// glance-api.conf) reaches kubectl word for word as an Invalid answer.
func TestGlanceAndControlPlaneRefusals(t *testing.T) {
	s := setup(t)
	const ns = "values"
	s.env.Namespace(t, ns)

	glance := inNamespace(guide.Glance, ns)
	spaced := strings.Replace(glance, "username: glance", "username: ' glance'", 1)
	require.NotEqual(t, glance, spaced)
	errOut := s.refused(t, "CREATE Glance values/glance",
		`Glance "glance": spec.serviceUser.username has leading or trailing whitespace`, spaced, "apply", "-f", "-")
	assert.Contains(t, errOut, "The request is invalid")
	s.accepted(t, "CREATE Glance values/glance", glance, "apply", "-f", "-")

	serviceUser := "      serviceUser:\n        username: ' glance'\n        projectName: service\n" +
		"        userDomainName: Default\n        projectDomainName: Default\n        secretRef:\n          name: glance-service-user\n"
	cp := strings.Replace(inNamespace(guide.ControlPlane, ns), "      backends:\n", serviceUser+"      backends:\n", 1)
	require.NotEqual(t, inNamespace(guide.ControlPlane, ns), cp)
	s.refused(t, "CREATE ControlPlane values/controlplane",
		`ControlPlane "controlplane": spec.services.glance.serviceUser.username has leading or trailing whitespace`, cp, "apply", "-f", "-")
	s.accepted(t, "CREATE ControlPlane values/controlplane", strings.Replace(cp, "' glance'", "glance", 1), "apply", "-f", "-")
}

// --- store ids --------------------------------------------------------------

// TestReservedStoreIDs: a reserved store id is refused with a message that
// names it and says why. The CRD's CEL rules answer first on a real API
// server (validation runs before validating webhooks), so this checks what
// a user sees, whichever layer said it.
func TestReservedStoreIDs(t *testing.T) {
	s := setup(t)
	const ns = "reserved"
	s.env.Namespace(t, ns)
	for _, c := range []struct {
		name, storeID, id string
		why               []string
	}{
		{name: "os-glance-x", id: "os-glance-x", why: []string{"reserved", "os-glance- prefix"}},
		{name: "os-glance-staging", id: "os-glance-staging", why: []string{"reserved", "os-glance- prefix"}},
		{name: "store", storeID: "glance_store", id: "glance_store", why: []string{"reserved store section"}},
		{name: "store", storeID: "os_glance_tasks_store", id: "os_glance_tasks_store", why: []string{"reserved", "os_glance_ "}},
		{name: "database", id: "database", why: []string{"reserved store section"}},
	} {
		t.Run(c.id, func(t *testing.T) {
			_, errOut, rec, err := s.call(t, "CREATE GlanceBackend reserved/"+c.name,
				backendYAML(ns, c.name, "glance", false, c.storeID), "apply", "-f", "-")
			require.Error(t, err, "kubectl apply was accepted")
			assert.Contains(t, errOut, fmt.Sprintf("store id %q", c.id))
			for _, w := range c.why {
				assert.Contains(t, errOut, w)
			}
			by := "the CRD (CEL)"
			if rec != nil {
				by = "the webhook"
			}
			t.Logf("refused by %s: %s", by, strings.TrimSpace(errOut))
		})
	}
	t.Run("a ControlPlane entry named database", func(t *testing.T) {
		y := strings.Replace(inNamespace(guide.ControlPlane, ns), "- name: secondary", "- name: database", 1)
		_, errOut, err := s.env.Kubectl(t, y, "apply", "-f", "-")
		require.Error(t, err, "kubectl apply was accepted")
		assert.Contains(t, errOut, `store id "database"`)
		assert.Contains(t, errOut, "reserved store section")
	})
	t.Run("with a store id the name is just a name", func(t *testing.T) {
		s.accepted(t, "CREATE GlanceBackend reserved/os-glance-x", backendYAML(ns, "os-glance-x", "glance", false, "archive"), "apply", "-f", "-")
	})
}

// TestStoreIDCollision: store ids are unique among the backends of one
// Glance, whether the id is spec.storeId or the name; another Glance may
// reuse them.
func TestStoreIDCollision(t *testing.T) {
	s := setup(t)
	const ns = "storeids"
	s.env.Namespace(t, ns)
	s.accepted(t, "CREATE GlanceBackend storeids/images", backendYAML(ns, "images", "glance", true, ""), "apply", "-f", "-")
	s.accepted(t, "CREATE GlanceBackend storeids/archive-a", backendYAML(ns, "archive-a", "glance", false, "archive"), "apply", "-f", "-")

	s.refused(t, "CREATE GlanceBackend storeids/archive-b",
		`store id "archive" of GlanceBackend "archive-b" is already used by GlanceBackend "archive-a" attached to the same Glance "glance"; store ids must be unique per Glance`,
		backendYAML(ns, "archive-b", "glance", false, "archive"), "apply", "-f", "-")
	// The name is the store id when storeId is unset, on either side.
	s.refused(t, "CREATE GlanceBackend storeids/archive", storeIDCollision("archive", "archive", "archive-a", "glance"),
		backendYAML(ns, "archive", "glance", false, ""), "apply", "-f", "-")
	s.refused(t, "CREATE GlanceBackend storeids/images-2", storeIDCollision("images", "images-2", "images", "glance"),
		backendYAML(ns, "images-2", "glance", false, "images"), "apply", "-f", "-")
	// Another Glance has its own store ids.
	s.accepted(t, "CREATE GlanceBackend storeids/archive-b", backendYAML(ns, "archive-b", "glance-b", false, "archive"), "apply", "-f", "-")
}

// --- fail closed ------------------------------------------------------------

// TestFailClosed moves a namespace to a second glance-hooks whose
// kubeconfig points at a dead port: what needs the siblings (promoting a
// default, a new backend) is refused with the service's message, while
// releasing a default and editing the current default read nothing and are
// accepted. Moving the namespace back restores the normal answers.
func TestFailClosed(t *testing.T) {
	s := setup(t)
	const ns = "failclosed"
	s.env.Namespace(t, ns)
	s.accepted(t, "CREATE GlanceBackend failclosed/primary", inNamespace(guide.Backends, ns), "apply", "-f", "-")
	require.True(t, isDefault(t, s.env, ns, "primary"))

	kubeconfig, server, err := deadKubeconfig(t.TempDir(), s.env.CAPEM)
	require.NoError(t, err)
	dead, err := startHooks(kubeconfig)
	require.NoError(t, err)
	t.Cleanup(dead.stop)
	var access *logRecord
	for _, r := range dead.records() {
		if r.Msg == "API access for /validate" {
			access = &r
		}
	}
	require.NotNil(t, access, "the service logs its API access: %s", dead.tail(10))
	assert.Equal(t, "--kubeconfig", access.Source)
	assert.Equal(t, server, access.Host)

	s.env.RegisterValidatingWebhook(t, webhookConfig("unreachable.glance.openstack.c5c3.io", dead,
		&metav1.LabelSelector{MatchLabels: map[string]string{labelAPI: labelUnreachable}}))
	label := func(value any) {
		ctx, cancel := contextTimeout()
		defer cancel()
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]any{labelAPI: value}}})
		_, err := s.env.Kube.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, patch, metav1.PatchOptions{})
		require.NoError(t, err)
	}
	label(labelUnreachable)
	t.Cleanup(func() { label(nil) })

	backends := s.env.Dynamic.Resource(glanceBackends).Namespace(ns)
	prefix := cannotCheck("secondary", "glance", ns)
	kubetest.Eventually(t, 30*time.Second, func() error {
		ctx, cancel := contextTimeout()
		defer cancel()
		_, err := backends.Patch(ctx, "secondary", types.MergePatchType, []byte(promote), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if !strings.HasPrefix(denial(errText(err)), prefix) {
			return fmt.Errorf("the unreachable service does not answer yet: %v", err)
		}
		return nil
	})

	refusedClosed := func(t *testing.T, parent, want string, stdin string, args ...string) {
		t.Helper()
		_, errOut, err := s.env.Kubectl(t, stdin, args...)
		require.Error(t, err, "kubectl %s was accepted", strings.Join(args, " "))
		got := denial(errOut)
		assert.True(t, strings.HasPrefix(got, want), "kubectl's stderr: %s", errOut)
		assert.Greater(t, len(got), len(want), "the refusal says why the read failed")
		assert.Contains(t, errOut, "Error from server (ServiceUnavailable)")
		d := dead.decisions(parent)
		if assert.NotEmpty(t, d, "the unreachable service was called for %s", parent) {
			assert.Equal(t, got, d[len(d)-1].Denied)
		}
	}

	step(t, "promoting a default is refused", func(t *testing.T) {
		refusedClosed(t, "UPDATE GlanceBackend failclosed/secondary", prefix, "", patchBackend(ns, "secondary", promote)...)
		t.Logf("refusal: %s", dead.decisions("UPDATE GlanceBackend failclosed/secondary")[0].Denied)
	})
	step(t, "editing the current default is accepted", func(t *testing.T) {
		_, errOut, err := s.env.Kubectl(t, "", patchBackend(ns, "primary", `{"spec":{"s3":{"bucket":"glance-images-3"}}}`)...)
		require.NoError(t, err, errOut)
		assert.NotEmpty(t, dead.decisions("UPDATE GlanceBackend failclosed/primary"), "the unreachable service decided")
	})
	step(t, "releasing a default is accepted", func(t *testing.T) {
		out, errOut, err := s.env.Kubectl(t, "", patchBackend(ns, "primary", release)...)
		require.NoError(t, err, errOut)
		assert.Contains(t, out, "glancebackend.glance.openstack.c5c3.io/primary patched")
		assert.False(t, isDefault(t, s.env, ns, "primary"))
	})
	step(t, "promoting is refused even with no default left", func(t *testing.T) {
		refusedClosed(t, "UPDATE GlanceBackend failclosed/secondary", prefix, "", patchBackend(ns, "secondary", promote)...)
		assert.False(t, isDefault(t, s.env, ns, "secondary"))
	})
	step(t, "a new backend is refused", func(t *testing.T) {
		refusedClosed(t, "CREATE GlanceBackend failclosed/tertiary", cannotCheck("tertiary", "glance", ns),
			backendYAML(ns, "tertiary", "glance", false, ""), "apply", "-f", "-")
	})
	step(t, "with the API readable again the promotion is accepted", func(t *testing.T) {
		label(nil)
		kubetest.Eventually(t, 30*time.Second, func() error {
			_, errOut, err := s.env.Kubectl(t, "", patchBackend(ns, "secondary", promote)...)
			if err != nil {
				return fmt.Errorf("%v: %s", err, errOut)
			}
			return nil
		})
		assert.True(t, isDefault(t, s.env, ns, "secondary"))
	})
}
