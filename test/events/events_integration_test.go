//go:build integration

package events_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/test/guide"
	"github.com/c5c3/glance-hooks/test/kubetest"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

const namespace = "openstack"

var (
	glances = schema.GroupVersionResource{Group: "glance.openstack.c5c3.io", Version: "v1alpha1", Resource: "glances"}
	events  = schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}
)

// The guide's standalone Glance with a third backend whose credentials
// Secret does not exist. The chain answers as Metacontroller would; its
// Glance is the API server's (same uid), and after each run the Glance's
// status and Event children are written to the API server as the chain
// holds them. kubectl describe shows the GlanceBackendSkipped Warning;
// restoring the Secret makes no new Event, nor does a resync, nor the
// Event's TTL passing.
func TestGlanceBackendSkippedOnARealAPIServer(t *testing.T) {
	env := kubetest.Shared(t)
	env.Namespace(t, namespace)
	ctx := context.Background()

	var g map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(guide.Glance), &g))
	created, err := env.Dynamic.Resource(glances).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: g}, metav1.CreateOptions{})
	require.NoError(t, err)
	uid := string(created.GetUID())

	w := chain.NewWorld(time.Now().UTC().Truncate(time.Second))
	g["metadata"].(map[string]any)["uid"] = uid
	require.NoError(t, w.Apply(g))
	for _, o := range append(backends(t), guide.Secrets(namespace)...) {
		require.NoError(t, w.Apply(o))
	}
	m := mirror{t: t, env: env, w: w, uid: uid}
	glanceRef := chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1", Kind: "Glance", Namespace: namespace, Name: "glance"}

	// The fault: a Warning naming the backend and the missing Secret.
	m.run()
	require.Equal(t, 2, w.Stats().Writes["Event"].Create, "a GlanceBackendSkipped Warning and DatabaseSynced")
	out, errOut, err := env.Kubectl(t, "", "describe", "glance", "glance", "-n", namespace)
	require.NoError(t, err, errOut)
	t.Log(out)
	events := out[strings.Index(out, "Events:"):]
	assert.Regexp(t, `Warning\s+GlanceBackendSkipped\s+\S+\s+c5c3.io/glance-hooks\s+backend "archive" \(store archive\) is skipped: .*archive-s3-credentials`, events)
	assert.Regexp(t, `Normal\s+DatabaseSynced\s+\S+\s+c5c3.io/glance-hooks\s+the schema of 2025.2 is in place`, events)
	out, errOut, err = env.Kubectl(t, "", "get", "events", "-n", namespace, "--field-selector", "reason=GlanceBackendSkipped,type=Warning", "-o", "name")
	require.NoError(t, err, errOut)
	assert.Len(t, strings.Fields(out), 1, out)

	// While the fault lasts, the Warning comes back once per TTL; the
	// Normal Event does not.
	w.Now = w.Now.Add(w.EventTTL)
	m.run()
	assert.Equal(t, 1, w.Stats().Writes["Event"].Create, "the Warning, made again after its TTL")

	// The Secret restored: BackendsReady, and no Event made.
	require.NoError(t, w.Apply(secret("archive-s3-credentials")))
	m.run()
	assert.Contains(t, conditions(t, w, glanceRef), "BackendsReady=True/AllBackendsProjected")
	assert.Zero(t, w.Stats().Writes["Event"].Total(), "nothing written to Events")
	assert.Equal(t, []string{"GlanceBackendSkipped"}, m.serverReasons(), "the Warning stays until its TTL")

	// A resync: the hook answers the Events that are there, nothing else.
	req, err := w.SyncRequest(glanceController(t), glanceRef)
	require.NoError(t, err)
	resp, err := glance.Sync(req, w.Now)
	require.NoError(t, err)
	var answered []string
	for _, c := range resp.Children {
		raw, err := json.Marshal(c)
		require.NoError(t, err)
		var o struct {
			Kind     string
			Metadata struct{ Name string }
		}
		require.NoError(t, json.Unmarshal(raw, &o))
		if o.Kind == "Event" {
			answered = append(answered, o.Metadata.Name)
		}
	}
	assert.Equal(t, m.serverNames(), answered, "a resync returns the Events there and makes none")

	// The TTL passes: the Warning goes and is not made again.
	w.Now = w.Now.Add(w.EventTTL)
	m.run()
	assert.Zero(t, w.Stats().Writes["Event"].Create)
	assert.Empty(t, m.serverReasons())
}

// mirror writes what the chain holds of one Glance to the API server.
type mirror struct {
	t   *testing.T
	env *kubetest.Env
	w   *chain.World
	uid string
}

// run runs the chain to convergence, its stats counted from zero, and
// mirrors the Glance's status and Events.
func (m mirror) run() {
	m.t.Helper()
	m.w.ResetStats()
	res, err := m.w.Run(chain.Controllers(), 40)
	require.NoError(m.t, err)
	require.True(m.t, res.Converged)
	ctx := context.Background()
	for _, o := range m.w.Objects() {
		if r := chain.RefOf(o); r.Kind == "Glance" {
			st, err := json.Marshal(map[string]any{"status": o["status"]})
			require.NoError(m.t, err)
			_, err = m.env.Dynamic.Resource(glances).Namespace(namespace).Patch(ctx, r.Name, types.MergePatchType, st, metav1.PatchOptions{}, "status")
			require.NoError(m.t, err, "the Glance's status schema refuses the status")
		}
	}
	want := map[string]chain.Object{}
	for _, o := range m.w.Objects() {
		if r := chain.RefOf(o); r.Kind == "Event" {
			want[r.Name] = o
		}
	}
	for _, name := range m.serverNames() {
		if _, keep := want[name]; keep {
			delete(want, name)
			continue
		}
		require.NoError(m.t, m.env.Dynamic.Resource(events).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{}))
	}
	for _, o := range want {
		meta := o["metadata"].(map[string]any)
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
			delete(meta, f)
		}
		_, err := m.env.Dynamic.Resource(events).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: o}, metav1.CreateOptions{})
		require.NoError(m.t, err, "the API server refuses the Event %s", meta["name"])
	}
}

// serverEvents are the Glance's Events on the API server, by name, chosen
// by the label Metacontroller selects its children with.
func (m mirror) serverEvents() []unstructured.Unstructured {
	m.t.Helper()
	list, err := m.env.Dynamic.Resource(events).Namespace(namespace).List(context.Background(),
		metav1.ListOptions{LabelSelector: "controller-uid=" + m.uid})
	require.NoError(m.t, err)
	return list.Items
}

func (m mirror) serverNames() []string {
	var out []string
	for _, e := range m.serverEvents() {
		out = append(out, e.GetName())
	}
	return out
}

func (m mirror) serverReasons() []string {
	var out []string
	for _, e := range m.serverEvents() {
		r, _, _ := unstructured.NestedString(e.Object, "reason")
		if r != "DatabaseSynced" {
			out = append(out, r)
		}
	}
	return out
}

// backends are the guide's two standalone GlanceBackends and "archive",
// the guide's secondary with its own bucket and credentials Secret.
func backends(t *testing.T) []chain.Object {
	var out []chain.Object
	for _, doc := range strings.Split(guide.Backends, "\n---\n") {
		var o chain.Object
		require.NoError(t, yaml.Unmarshal([]byte(doc), &o))
		if o == nil {
			continue
		}
		out = append(out, o)
		if o["metadata"].(map[string]any)["name"] == "secondary" {
			var archive chain.Object
			require.NoError(t, yaml.Unmarshal([]byte(doc), &archive))
			archive["metadata"].(map[string]any)["name"] = "archive"
			s3 := archive["spec"].(map[string]any)["s3"].(map[string]any)
			s3["bucket"] = "glance-archive"
			s3["credentialsSecretRef"] = map[string]any{"name": "archive-s3-credentials"}
			out = append(out, archive)
		}
	}
	require.Len(t, out, 3)
	return out
}

func secret(name string) chain.Object {
	return chain.Object{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": name, "namespace": namespace},
		"stringData": map[string]any{"access-key-id": "GKexample0001", "secret-access-key": "secretexample0001"}}
}

func glanceController(t *testing.T) chain.Controller {
	for _, c := range chain.Controllers() {
		if c.Name == "glance" {
			return c
		}
	}
	t.Fatal("no glance controller")
	return chain.Controller{}
}

// conditions lists an object's conditions as "Type=Status/Reason".
func conditions(t *testing.T, w *chain.World, r chain.Ref) []string {
	o, ok := w.Get(r)
	require.True(t, ok)
	raw, err := json.Marshal(o["status"])
	require.NoError(t, err)
	var st struct{ Conditions []metav1.Condition }
	require.NoError(t, json.Unmarshal(raw, &st))
	var out []string
	for _, c := range st.Conditions {
		out = append(out, c.Type+"="+string(c.Status)+"/"+c.Reason)
	}
	return out
}
