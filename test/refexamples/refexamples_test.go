package refexamples

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/simulate/chain"
	"github.com/c5c3/glance-hooks/simulate/render"
)

// Namespace is where an example that names none is put.
const Namespace = "openstack"

// Sets are the examples, by name: each directory is one set (a suite's
// Glance and its backends, or a guide's Glance and backends shown apart),
// and each file directly in docs/ a set of its own. The suites of refused
// CRs (RefusedDir) are no examples.
func Sets(t testing.TB) map[string][]string {
	t.Helper()
	sets := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && path == RefusedDir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		set := filepath.Dir(path)
		if set == "docs" {
			set = strings.TrimSuffix(path, ".yaml")
		}
		sets[set] = append(sets[set], path)
		return nil
	})
	require.NoError(t, err)
	for _, files := range sets {
		slices.Sort(files)
	}
	return sets
}

// Published are the Glance and GlanceBackend objects of a set's files, in
// file order, exactly as published.
func Published(t testing.TB, files []string) []render.Doc {
	t.Helper()
	var docs []render.Doc
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		parsed, err := render.Parse(raw, f, Namespace)
		require.NoError(t, err, "%s parses", f)
		docs = append(docs, parsed...)
	}
	return docs
}

// TestEveryExampleConvergesToReady: each set, with the Secrets it names
// (Scaffold), is admitted, and every Glance and GlanceBackend in it
// reaches Ready=True.
func TestEveryExampleConvergesToReady(t *testing.T) {
	sets := Sets(t)
	require.GreaterOrEqual(t, len(sets), 20, "the examples of the reference's docs and suites")
	for name, files := range sets {
		t.Run(name, func(t *testing.T) {
			examples := Published(t, files)
			docs := append(Scaffold(examples), examples...)
			st, err := render.Render(docs, render.Options{})
			require.NoError(t, err, "admitted and converged")
			objs := st.Objects()
			require.Empty(t, notReadyConditions(objs, routeWaits), "every parent Ready")
			glances := 0
			for _, o := range objs {
				if o["kind"] == api.KindGlance {
					glances++
				}
			}
			require.Positive(t, glances, "the set runs a Glance")
		})
	}
}

// docsOf keeps the objects of kind.
func docsOf(docs []render.Doc, kind string) []chain.Object {
	var out []chain.Object
	for _, d := range docs {
		if d.Object["kind"] == kind {
			out = append(out, d.Object)
		}
	}
	return out
}

// notReadyConditions lists every condition of a parent that is not True,
// but those allowed says are waits of the world, not of the hooks.
func notReadyConditions(objs []chain.Object, allowed func(render.Condition) bool) []string {
	var out []string
	for _, o := range objs {
		if o["kind"] != api.KindGlance && o["kind"] != api.KindGlanceBackend && o["kind"] != api.KindControlPlane {
			continue
		}
		for _, c := range render.ConditionsOf(o) {
			if c.Status != "True" && !allowed(c) {
				out = append(out, fmt.Sprintf("%s %s: %s=%s/%s: %s", o["kind"], str(o, "metadata", "name"), c.Type, c.Status, c.Reason, c.Message))
			}
		}
	}
	return out
}

// routeWaits allows what a Glance with spec.gateway says until a Gateway
// controller accepts its HTTPRoute: the in-process walk runs none (the
// suites' Gateways are those of their clusters), so HTTPRouteReady stays
// False/HTTPRouteNotAccepted and Ready waits for it, naming only it. That
// a controller's acceptance then makes it Ready is test/reach_scenario_test.go's.
// A ControlPlane's GlanceReady and Ready pass that wait on.
func routeWaits(c render.Condition) bool {
	return c.Type == "HTTPRouteReady" && c.Reason == "HTTPRouteNotAccepted" ||
		c.Type == "Ready" && c.Message == "waiting for HTTPRouteReady (HTTPRouteNotAccepted)" ||
		// A ControlPlane passes its Glance's wait on.
		c.Type == "GlanceReady" && strings.HasSuffix(c.Message, "is not ready: NotAllReady: waiting for HTTPRouteReady (HTTPRouteNotAccepted)") ||
		c.Type == "Ready" && c.Message == "waiting for GlanceReady (GlanceNotReady)"
}
