package test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	"sigs.k8s.io/yaml"

	"github.com/c5c3/glance-hooks/simulate/chain"
)

// scenario is a World with the service's controllers and helpers to drive it
// the way a person with kubectl would.
type scenario struct {
	t *testing.T
	w *chain.World
}

func newScenario(t *testing.T) *scenario {
	s := &scenario{t: t, w: chain.NewWorld(FixtureNow)}
	// On every intermediate state, whatever the Deployment mounts must be a
	// config glance-api starts with: default_backend among enabled_backends,
	// and a section for every enabled store.
	s.w.AfterSync = func(w *chain.World, _ chain.Ref) error { return consistentMounts(w) }
	return s
}

// apply applies YAML documents separated by "---".
func (s *scenario) apply(docs string) {
	s.t.Helper()
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var o map[string]any
		require.NoError(s.t, yaml.Unmarshal([]byte(doc), &o))
		require.NoError(s.t, s.w.Apply(o))
	}
}

// converge runs the controllers until nothing changes.
func (s *scenario) converge() {
	s.t.Helper()
	res, err := s.w.Run(chain.Controllers(), 30)
	require.NoError(s.t, err)
	require.True(s.t, res.Converged, "did not converge in %d rounds", res.Rounds)
}

// convergeWithout runs every controller but the one named until nothing
// changes: the state just before that controller's next sync.
func (s *scenario) convergeWithout(controller string) {
	s.t.Helper()
	var some []chain.Controller
	for _, c := range chain.Controllers() {
		if c.Name != controller {
			some = append(some, c)
		}
	}
	res, err := s.w.Run(some, 30)
	require.NoError(s.t, err)
	require.True(s.t, res.Converged, "did not converge in %d rounds", res.Rounds)
}

func (s *scenario) get(kind, name string) chain.Object {
	s.t.Helper()
	apiVersion := map[string]string{"Glance": "glance.openstack.c5c3.io/v1alpha1", "GlanceBackend": "glance.openstack.c5c3.io/v1alpha1",
		"ControlPlane": "c5c3.io/v1alpha1", "Deployment": "apps/v1", "Job": "batch/v1", "CronJob": "batch/v1",
		"PodDisruptionBudget": "policy/v1"}[kind]
	if apiVersion == "" {
		apiVersion = "v1"
	}
	o, ok := s.w.Get(chain.Ref{APIVersion: apiVersion, Kind: kind, Namespace: "openstack", Name: name})
	require.True(s.t, ok, "%s %s not found", kind, name)
	return o
}

func (s *scenario) exists(kind, name string) bool {
	for _, o := range s.w.Objects() {
		r := chain.RefOf(o)
		if r.Kind == kind && r.Name == name {
			return true
		}
	}
	return false
}

func (s *scenario) names(kind string) []string {
	var out []string
	for _, o := range s.w.Objects() {
		if r := chain.RefOf(o); r.Kind == kind {
			out = append(out, r.Name)
		}
	}
	return out
}

// condition returns "Status/Reason" of a condition on an object.
func (s *scenario) condition(kind, name, typ string) string {
	s.t.Helper()
	return conditionOf(s.get(kind, name), typ)
}

func conditionOf(o chain.Object, typ string) string {
	if m, ok := chain.Condition(o, typ); ok {
		return fmt.Sprintf("%s/%s", m["status"], m["reason"])
	}
	return "absent"
}

func conditionMessage(o chain.Object, typ string) string {
	if m, ok := chain.Condition(o, typ); ok {
		return m["message"].(string)
	}
	return ""
}

// mounts returns the ConfigMap and Secret names a Deployment mounts, read the
// way the guide's kubectl jsonpath reads them.
func mounts(d chain.Object) (config, backends string) {
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, v := range spec["volumes"].([]any) {
		m := v.(map[string]any)
		switch m["name"] {
		case "config":
			config = m["configMap"].(map[string]any)["name"].(string)
		case "backends":
			backends = m["secret"].(map[string]any)["secretName"].(string)
		}
	}
	return config, backends
}

func configText(t *testing.T, cm chain.Object) string {
	return cm["data"].(map[string]any)["glance-api.conf"].(string)
}

func secretText(t *testing.T, sec chain.Object, key string) string {
	enc := sec["data"].(map[string]any)[key].(string)
	dec, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	return string(dec)
}

// consistentMounts is the invariant every intermediate state keeps.
func consistentMounts(w *chain.World) error {
	for _, o := range w.Objects() {
		r := chain.RefOf(o)
		if r.Kind != "Deployment" {
			continue
		}
		cfgName, backendsName := mounts(o)
		cm, ok := w.Get(chain.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: r.Namespace, Name: cfgName})
		if !ok {
			return fmt.Errorf("Deployment %s mounts ConfigMap %s, which does not exist", r.Name, cfgName)
		}
		sec, ok := w.Get(chain.Ref{APIVersion: "v1", Kind: "Secret", Namespace: r.Namespace, Name: backendsName})
		if !ok {
			return fmt.Errorf("Deployment %s mounts Secret %s, which does not exist", r.Name, backendsName)
		}
		conf, err := ini.Load([]byte(cm["data"].(map[string]any)["glance-api.conf"].(string)))
		if err != nil {
			return err
		}
		enc := sec["data"].(map[string]any)["backends.conf"].(string)
		dec, _ := base64.StdEncoding.DecodeString(enc)
		backends, err := ini.Load(dec)
		if err != nil {
			return err
		}
		def := conf.Section("glance_store").Key("default_backend").String()
		enabled := conf.Section("DEFAULT").Key("enabled_backends").String()
		found := false
		for _, e := range strings.Split(enabled, ",") {
			id := strings.TrimSuffix(e, ":s3")
			if id == def {
				found = true
			}
			if !backends.HasSection(id) {
				return fmt.Errorf("store %s is enabled but backends.conf has no [%s]", id, id)
			}
		}
		if !found {
			return fmt.Errorf("default_backend %q is not in enabled_backends %q", def, enabled)
		}
	}
	return nil
}
