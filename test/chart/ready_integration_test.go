//go:build integration

package chart

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/internal/simulate/chain"
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
		kubetestEventuallyApplied(t, in, obj(o))
	}

	ctx := context.Background()
	mc, err := kubechain.New(ctx, in.c.env.Config, map[string]string{in.serviceAddr(t, "hooks"): hooks})
	require.NoError(t, err)
	var names []string
	for _, r := range mc.Registrations() {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"controlplane-glance", "glance", "glancebackend"}, names, "the chart's CompositeControllers, parents before children")

	total, rounds := 0, 0
	for rounds < readyRounds && !allReady(t, in, ns) {
		rounds++
		writes := round(t, mc, ns)
		total += len(writes)
		t.Logf("round %d: %d writes: %s", rounds, len(writes), strings.Join(writes, ", "))
	}
	require.True(t, allReady(t, in, ns), "Ready within %d rounds:\n%s", readyRounds, readiness(t, in, ns))
	t.Logf("the ControlPlane, its Glance and its GlanceBackends are Ready after %d rounds and %d writes", rounds, total)

	assert.Empty(t, round(t, mc, ns), "a pass with nothing changed writes nothing")
}

// round is one pass of Metacontroller over every parent, then the Job and
// Deployment controllers; it returns the writes, in order.
func round(t *testing.T, mc *kubechain.Metacontroller, ns string) []string {
	ctx := context.Background()
	synced, err := mc.Sync(ctx)
	require.NoError(t, err)
	played, err := mc.PlayControllers(ctx, ns, time.Now())
	require.NoError(t, err)
	var out []string
	for _, w := range append(synced, played...) {
		out = append(out, w.String())
	}
	return out
}

// kubetestEventuallyApplied creates o through the API server's admission;
// the webhook is called once the validate container answers.
func kubetestEventuallyApplied(t *testing.T, in *installed, o obj) {
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
