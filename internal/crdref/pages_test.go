package crdref

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// update rewrites docs/reference, as the fixtures are: go test
// ./internal/crdref -update (or UPDATE_FIXTURES=1), or go run ./hack/crdref.
var update = flag.Bool("update", os.Getenv("UPDATE_FIXTURES") != "", "rewrite docs/reference")

// TestPagesInStep fails while a page of docs/reference differs from what
// the CRDs give, or a page has no CRD.
func TestPagesInStep(t *testing.T) {
	dir := filepath.Join("..", "..", Dir)
	pages, err := Pages()
	require.NoError(t, err)
	require.Len(t, pages, 3, "one page per CRD: Glance, GlanceBackend, ControlPlane")
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		path := filepath.Join(dir, name)
		if *update {
			require.NoError(t, os.WriteFile(path, pages[name], 0o644))
			continue
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err, "run `go run ./hack/crdref` to write it")
		require.Equal(t, string(pages[name]), string(have), "%s is stale: run `go run ./hack/crdref` (or make fixtures)", path)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.Contains(t, pages, e.Name(), "%s/%s is no CRD's page: remove it", Dir, e.Name())
	}
}
