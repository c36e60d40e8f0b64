package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/internal/simulate/chain"
)

// glanceController is the glance CompositeController of chain.Controllers.
func glanceController() chain.Controller {
	for _, c := range chain.Controllers() {
		if c.Name == "glance" {
			return c
		}
	}
	panic("no glance controller")
}

// capturedCase is a /sync/glance fixture whose request is captured from a
// scenario: the exact body Metacontroller would send in that state.
type capturedCase struct {
	name, description string
	// build drives a scenario into the state to capture and returns the Glance.
	build func(s *scenario) string
}

var capturedGlanceCases = []capturedCase{
	{"two-stores-ready", `
The guide's Step 2 after convergence: two stores, both rendered, the
Deployment rolled out. The answer re-renders the same ConfigMap
(default_backend = default, enabled_backends = default:s3,secondary:s3), the
same backends Secret, Deployment and Service; every condition is True.`,
		func(s *scenario) string {
			s.apply(credentials)
			s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
			s.converge()
			return "controlplane-glance"
		}},
	{"default-switched", `
The guide's Step 3: isDefault moved from default to secondary in one edit,
already projected onto the GlanceBackends; the Deployment still mounts the
old config. The answer has a new ConfigMap (default_backend = secondary), the
same backends Secret name, a Deployment mounting the new ConfigMap, and keeps
the ConfigMap the running pods mount until they rolled.`,
		func(s *scenario) string {
			s.apply(credentials)
			s.apply(controlPlane(entry("default", "glance-images", true) + entry("secondary", "glance-images-2", false)))
			s.converge()
			s.apply(standaloneBackendFor("controlplane-glance", "controlplane-glance-default", "default", "glance-images", false))
			s.apply(standaloneBackendFor("controlplane-glance", "controlplane-glance-secondary", "secondary", "glance-images-2", true))
			return "controlplane-glance"
		}},
	{"released-default-keeps-last-good", `
Standalone switch, patch 1: the old default was released, so no backend is the
default. BackendsReady=False/NoDefaultBackend; nothing is re-rendered: every
child comes back exactly as last applied, and the pods keep the last-good
config.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.converge()
			return "glance"
		}},
	{"promoted-default", `
Standalone switch, patch 2: secondary promoted after the release. The config
re-renders with default_backend = secondary, the backends Secret keeps its name,
and the Deployment rolls onto the new ConfigMap.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.converge()
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"first-install-no-default", `
First install: the only backend is the default, but its credentials Secret does
not exist, so its store section was never rendered. No ConfigMap, Secret or
Deployment is created; BackendsReady=False/NoDefaultBackend and
ConfigRendered=False/NotRendered say why.`,
		func(s *scenario) string {
			s.apply(standaloneGlance + "\n---\n" + standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"faulted-non-default-skipped", `
The non-default backend "archive" has no credentials Secret: it is skipped
(status.backends[] reason GlanceBackendSkipped), the default store keeps
projecting, BackendsReady=False/WaitingForBackends names it and why.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("archive", "glance-archive", "archive-credentials", false))
			s.converge()
			return "glance"
		}},
	{"faulted-default-keeps-last-good", `
The default's credentials Secret lost a key after install: its store Secret is
gone, so no default can be rendered. The config is not re-rendered (never a
default_backend missing from enabled_backends); the last-good children are
kept as last applied.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(`
apiVersion: v1
kind: Secret
metadata: {name: garage-s3-credentials, namespace: openstack}
stringData: {access-key-id: GKexample0001}
`)
			s.converge()
			return "glance"
		}},
	{"two-defaults", `
Two backends both claim isDefault (admission should have refused the second).
BackendsReady=False/NoDefaultBackend names both candidates; the last-good
config is kept.`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}},
	{"stale-store-secret", `
The secondary backend's bucket just changed; its store Secret still holds the
section rendered from the old spec (its spec-hash annotation differs). The
stale section is not taken as current, but dropping the store would take it
(and its images) out of glance-api and roll the pods twice: the running
[secondary] section is held, so the answer renders the same names as before
and status says the store waits for its re-render (StoreSecretOutdated).`,
		func(s *scenario) string {
			standalone(s)
			s.apply(standaloneBackend("secondary", "glance-images-3", "garage-s3-credentials", false))
			return "glance"
		}},
	{"rollout-in-progress", `
The default was switched while the Deployment's rollout of the previous
config has not finished (status shows old replicas). The ConfigMap the
template mounted and the older one still in use stay in the answer, so no
running pod loses its config; DeploymentReady=False/RollingOut.`,
		func(s *scenario) string {
			standalone(s)
			s.w.Rollouts = false
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", true))
			s.converge()
			s.apply(standaloneBackend("secondary", "glance-images-2", "garage-s3-credentials", false))
			s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			return "glance"
		}},
	{"no-backends", `
A Glance with no GlanceBackend attached (another Glance's backends are in the
namespace and ignored). Nothing is created; NoDefaultBackend says no backend is
attached.`,
		func(s *scenario) string {
			s.apply(standaloneGlance)
			s.apply(strings.ReplaceAll(standaloneBackend("other", "b", "garage-s3-credentials", true), "glanceRef: {name: glance}", "glanceRef: {name: another}"))
			s.converge()
			return "glance"
		}},
	{"invalid-spec-keeps-last-good", `
The Glance's keystoneEndpoint holds a newline (the API server's schema would
refuse it). Rendering it could inject config, so nothing is re-rendered:
ConfigRendered=False/InvalidSpec and the last-good children are kept.`,
		func(s *scenario) string {
			standalone(s)
			g := s.get("Glance", "glance")
			g["spec"].(map[string]any)["keystoneEndpoint"] = "http://keystone:5000/v3\n[DEFAULT]\ndebug = true"
			require.NoError(s.t, s.w.Apply(g))
			return "glance"
		}},
}

// standaloneBackendFor writes a backend as the ControlPlane projects it.
func standaloneBackendFor(glanceName, name, storeID, bucket string, isDefault bool) string {
	doc := standaloneBackend(name, bucket, "garage-s3-credentials", isDefault)
	doc = strings.ReplaceAll(doc, "glanceRef: {name: glance}", "glanceRef: {name: "+glanceName+"}\n  storeId: "+storeID)
	return doc
}

// TestCaptureGlanceFixtures writes the request.json of every captured case
// (only with -update); TestFixtures then checks or writes the responses.
func TestCaptureGlanceFixtures(t *testing.T) {
	if !*update {
		t.Skip("captures requests only when regenerating fixtures (-update or UPDATE_FIXTURES=1)")
	}
	for _, c := range capturedGlanceCases {
		t.Run(c.name, func(t *testing.T) {
			s := newScenario(t)
			name := c.build(s)
			req, err := s.w.SyncRequest(glanceController(), chain.Ref{APIVersion: "glance.openstack.c5c3.io/v1alpha1",
				Kind: "Glance", Namespace: "openstack", Name: name})
			require.NoError(t, err)
			writeCase(t, filepath.Join("fixtures", "sync-glance", c.name), req, c.description)
		})
	}
}

func writeCase(t *testing.T, dir string, req any, description string) {
	require.NoError(t, os.MkdirAll(dir, 0o755))
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	var pretty any
	require.NoError(t, json.Unmarshal(raw, &pretty))
	out, err := json.MarshalIndent(pretty, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "request.json"), append(out, '\n'), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case.md"), []byte(strings.TrimSpace(description)+"\n\nCaptured from a scenario in test/capture_test.go.\n"), 0o644))
}
