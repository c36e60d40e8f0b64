//go:build integration

package chart

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/c5c3/glance-hooks/hooks/glance/report"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubechain"
)

// readyRounds bounds the rounds a default install may take to a Ready
// ControlPlane; the in-memory walk of the guide takes fewer.
const readyRounds = 8

// A default install reaches a Ready ControlPlane on the real API server.
// The chart is installed with default values and its containers run as in
// TestDefaultInstallReachable; the guide's Secrets (with the Keystone
// admin Secret of the README's step 4) and the guide's ControlPlane are
// created through the API server, so /validate admits them as installed.
// Metacontroller is played by kubechain from the CompositeControllers the
// chart registered: their hook URLs, CA and token Secrets, customize
// answers; every child, related object and status goes through the API
// server, and the Job and Deployment controllers are played through the
// status subresource. The ControlPlane, its Glance and every GlanceBackend
// end Ready within readyRounds rounds, and a pass after that writes nothing.
func TestDefaultInstallReachesReady(t *testing.T) {
	in := install(t, "glance-hooks", "glance-hooks-ready")
	in.credentials(t)
	hooks := in.startHooks(t)
	in.startValidate(t)

	ns := in.c.env.Namespace(t, "openstack")
	objs, err := guide.Objects(guide.ControlPlane)
	require.NoError(t, err)
	for _, o := range append(append(guide.Secrets(ns), keystoneAdmin(ns)), objs...) {
		createAdmitted(t, in, obj(o))
	}

	ctx := context.Background()
	mc, err := kubechain.New(ctx, in.c.env.Config, map[string]string{in.serviceAddr(t, "hooks"): hooks})
	require.NoError(t, err)
	var controllers []string
	for _, r := range mc.Registrations() {
		controllers = append(controllers, r.Name)
	}
	require.Equal(t, []string{"controlplane-glance", "glance", "glancebackend"}, controllers, "the chart's CompositeControllers, parents before children")

	sent := map[string][]byte{}
	mc.Sent = func(url string, body []byte) { sent[url] = body }
	mc.Namespace = ns
	require.NoError(t, mc.ActAs(metacontrollerIdentity(in.c.env.Config)))
	asMC, err := kubernetes.NewForConfig(metacontrollerIdentity(in.c.env.Config))
	require.NoError(t, err)
	err = asMC.CoreV1().Pods(ns).Delete(ctx, "any", metav1.DeleteOptions{})
	require.True(t, apierrors.IsForbidden(err), "the identity is in effect: the role reads pods, never deletes one (%v)", err)
	synced, played, rounds := 0, 0, 0
	for rounds < readyRounds && !allReady(t, in, ns) {
		rounds++
		s, p := round(t, mc, ns)
		synced, played = synced+len(s), played+len(p)
		t.Logf("round %d: %s", rounds, strings.Join(append(s, p...), ", "))
	}
	require.True(t, allReady(t, in, ns), "Ready within %d rounds:\n%s", readyRounds, readiness(t, in, ns))
	t.Logf("the ControlPlane, its Glance and its GlanceBackends are Ready after %d rounds: %d writes of Metacontroller, %d of the played controllers",
		rounds, synced, played)

	s, p := round(t, mc, ns)
	assert.Empty(t, append(s, p...), "a pass with nothing changed writes nothing")

	// The requests have the shape Metacontroller's have.
	recorded := mustRead(t, "test/fixtures/sync-glance/recorded-metacontroller/request.json")
	sameEnvelope(t, recorded, sent["https://"+in.serviceAddr(t, "hooks")+"/sync/glance"])

	// The same rules as the in-memory chain: from the same objects it ends
	// with the same objects and the same conditions.
	world := inMemory(t, containerOf(t, in.deployment(t), "hooks").Args, append(append(guide.Secrets(ns), keystoneAdmin(ns)), objs...))
	assert.Empty(t, summaryDiff(world, in.summary(t, world)), "the real API server holds what the in-memory chain makes")
}

// summaryDiff lists the objects whose summaries differ, each with what the
// in-memory chain and the API server hold, so a failure names the object
// instead of printing both worlds whole.
func summaryDiff(inMemory, real map[chain.Ref][]string) []string {
	var out []string
	for _, r := range slices.SortedFunc(maps.Keys(mergedRefs(inMemory, real)), func(a, b chain.Ref) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }) {
		m, inM := inMemory[r]
		k, inK := real[r]
		if inM != inK || !slices.Equal(m, k) {
			out = append(out, fmt.Sprintf("%s %s/%s: in memory %v (present %t), API server %v (present %t)", r.Kind, r.Namespace, r.Name, m, inM, k, inK))
		}
	}
	return out
}

func mergedRefs(a, b map[chain.Ref][]string) map[chain.Ref]bool {
	out := map[chain.Ref]bool{}
	for r := range a {
		out[r] = true
	}
	for r := range b {
		out[r] = true
	}
	return out
}

// inMemory runs the chain's World on the objects with the hooks in process
// (the registration Jobs' image as the hooks container's --job-image) and
// sums up what it ends with.
func inMemory(t *testing.T, hookArgs []string, objs []map[string]any) map[chain.Ref][]string {
	var jobImage string
	for _, a := range hookArgs {
		if v, ok := strings.CutPrefix(a, "--job-image="); ok {
			jobImage = v
		}
	}
	require.NotEmpty(t, jobImage, "the chart passes the hooks the Jobs' image")
	w := chain.NewWorld(time.Now())
	for _, o := range objs {
		require.NoError(t, w.Apply(o))
	}
	res, err := w.Run(chain.ControllersWith(jobImage), 50)
	require.NoError(t, err)
	require.True(t, res.Converged)
	out := map[chain.Ref][]string{}
	for _, o := range w.Objects() {
		out[summaryRef(o)] = conditionSummary(o)
	}
	return out
}

// summaryRef is an object's reference, an Event's named by its reason: the
// hook names an Event by a digest of its object's uid and its time, which
// differ between the two clusters.
func summaryRef(o chain.Object) chain.Ref {
	r := chain.RefOf(o)
	if r.Kind == "Event" {
		r.Name = fmt.Sprint(o["reason"])
	}
	return r
}

// summary is what the API server holds of the kinds in want, as inMemory
// sums it up: each object by its reference, with its conditions.
func (in *installed) summary(t *testing.T, want map[chain.Ref][]string) map[chain.Ref][]string {
	types := map[chain.Type]bool{}
	for r := range want {
		types[chain.Type{APIVersion: r.APIVersion, Kind: r.Kind}] = true
	}
	out := map[chain.Ref][]string{}
	for ty := range types {
		for _, o := range in.list(t, ty.APIVersion, ty.Kind, "openstack") {
			if chain.RefOf(o).Kind == "Event" && o["reportingController"] != report.EventReportingController {
				// The API server's own, such as ClusterIPNotAllocated, which
				// its ClusterIP repair loop reports now and then of a
				// Service created while it ran.
				continue
			}
			out[summaryRef(o)] = conditionSummary(o)
		}
	}
	return out
}

// conditionSummary is each condition of a parent as type=status/reason;
// nothing for other kinds (a Job's conditions are the played controller's).
func conditionSummary(o chain.Object) []string {
	if !slices.ContainsFunc(readyKinds, func(k struct{ apiVersion, kind string }) bool { return k.kind == chain.RefOf(o).Kind }) {
		return nil
	}
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	var out []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		out = append(out, fmt.Sprintf("%v=%v/%v", m["type"], m["status"], m["reason"]))
	}
	return out
}

// round is one pass of Metacontroller over every parent, then of the Job
// and Deployment controllers; it returns the writes of each, in order.
func round(t *testing.T, mc *kubechain.Metacontroller, ns string) (synced, played []string) {
	ctx := context.Background()
	s, err := mc.Sync(ctx)
	require.NoError(t, err)
	p, err := mc.PlayControllers(ctx, ns, time.Now())
	require.NoError(t, err)
	return writeNames(s), writeNames(p)
}

func writeNames(writes []kubechain.Write) []string {
	var out []string
	for _, w := range writes {
		out = append(out, w.String())
	}
	return out
}

// createAdmitted creates o through the API server's admission;
// the webhook is called once the validate container answers.
func createAdmitted(t *testing.T, in *installed, o obj) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := in.c.apply(context.Background(), o, false)
		if err == nil {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s: %v", o.id(), err)
		time.Sleep(200 * time.Millisecond)
	}
}

// keystoneAdmin is the Keystone admin Secret the README's step 4 creates,
// with stand-in values: the ControlPlane's registration reads it.
func keystoneAdmin(ns string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "keystone-admin", "namespace": ns},
		"stringData": map[string]any{"OS_AUTH_URL": "http://keystone.openstack.svc.cluster.local:5000/v3", "OS_USERNAME": "admin",
			"OS_PASSWORD": "admin-secret-0001", "OS_PROJECT_NAME": "admin", "OS_USER_DOMAIN_NAME": "Default", "OS_PROJECT_DOMAIN_NAME": "Default"}}
}

// serviceAddr is the host:port the chart's Service gives a port of the
// hook pods, as a CompositeController's webhook names it.
func (in *installed) serviceAddr(t *testing.T, port string) string {
	svc, err := in.c.env.Kube.CoreV1().Services(in.ns).Get(context.Background(), "glance-hooks", metav1.GetOptions{})
	require.NoError(t, err)
	for _, p := range svc.Spec.Ports {
		if p.Name == port {
			return fmt.Sprintf("%s.%s:%d", svc.Name, svc.Namespace, p.Port)
		}
	}
	require.Failf(t, "no port", "Service %s has no port %q", svc.Name, port)
	return ""
}

// readyKinds are the parents whose every object in the namespace must be
// Ready.
var readyKinds = []struct{ apiVersion, kind string }{
	{"c5c3.io/v1alpha1", "ControlPlane"},
	{"glance.openstack.c5c3.io/v1alpha1", "Glance"},
	{"glance.openstack.c5c3.io/v1alpha1", "GlanceBackend"},
}

// allReady: the ControlPlane, the Glance and the GlanceBackends exist (one
// of each kind at least) and each has Ready True.
func allReady(t *testing.T, in *installed, ns string) bool {
	for _, k := range readyKinds {
		objs := in.list(t, k.apiVersion, k.kind, ns)
		if len(objs) == 0 {
			return false
		}
		for _, o := range objs {
			if c, ok := chain.Condition(o, "Ready"); !ok || c["status"] != "True" {
				return false
			}
		}
	}
	return true
}

// readiness names each parent's conditions, for a failure message.
func readiness(t *testing.T, in *installed, ns string) string {
	var b strings.Builder
	for _, k := range readyKinds {
		objs := in.list(t, k.apiVersion, k.kind, ns)
		for _, o := range objs {
			fmt.Fprintf(&b, "%s %s: %s\n", k.kind, obj(o).name(), strings.Join(conditionsOf(t, objs, k.kind, obj(o).name()), " "))
		}
	}
	return b.String()
}

func (in *installed) list(t *testing.T, apiVersion, kind, ns string) []chain.Object {
	ri, err := in.c.resource(apiVersion, kind, ns)
	require.NoError(t, err)
	l, err := ri.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []chain.Object
	for _, u := range l.Items {
		out = append(out, u.Object)
	}
	return out
}

// sameEnvelope: a sync request has the recorded request's top-level keys,
// children and related objects keyed "<Kind>.<apiVersion>" then by name
// (the recorded registration's child types among them), and the
// registration as "controller".
func sameEnvelope(t *testing.T, recorded, got []byte) {
	type envelope struct {
		Controller struct{ Kind string } `json:"controller"`
		Children   map[string]map[string]struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"children"`
		Related map[string]map[string]struct{ Kind string } `json:"related"`
	}
	var want, have map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(recorded, &want))
	require.NoError(t, json.Unmarshal(got, &have), "a sync request was sent")
	assert.ElementsMatch(t, slices.Collect(maps.Keys(want)), slices.Collect(maps.Keys(have)), "top-level keys")
	var w, h envelope
	require.NoError(t, json.Unmarshal(recorded, &w))
	require.NoError(t, json.Unmarshal(got, &h))
	assert.Equal(t, "CompositeController", h.Controller.Kind)
	for key := range w.Children {
		assert.Contains(t, h.Children, key, "every declared child type is present, even empty")
	}
	for key, objs := range h.Children {
		for name, o := range objs {
			assert.Equal(t, name, o.Metadata.Name, "%s is keyed by name", key)
		}
	}
	for key := range w.Related {
		assert.Contains(t, h.Related, key)
	}
}

// metacontrollerIdentity is cfg impersonating the ServiceAccount the chart
// binds its Metacontroller role to by default
// (metacontroller.rbac.serviceAccount): the syncs then need no more than
// that role grants.
func metacontrollerIdentity(cfg *rest.Config) *rest.Config {
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:metacontroller:metacontroller",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:metacontroller", "system:authenticated"}}
	return as
}
