package render

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// configMaps writes n small ConfigMaps into one file, one namespace, the
// shape of a GitOps repository rendered whole.
func configMaps(t testing.TB, n int) string {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%06d\n  namespace: apps\ndata:\n  key: value-%d\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "in.yaml")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o600))
	return path
}

// renderWork renders each file once and returns the heap allocations and
// bytes each render made. Allocations count the work itself: unlike CPU
// time they do not depend on what else the machine runs, so the ratio
// below is the same on a quiet laptop and on a loaded CI runner (CPU time
// stays in the benchmark).
func renderWork(t *testing.T, paths []string, counts []int) (mallocs, bytesAllocated []uint64) {
	t.Helper()
	for i, path := range paths {
		var out bytes.Buffer
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := Command{Paths: []string{path}, Format: FormatYAML, Quiet: true, Options: Options{MaxRounds: DefaultMaxRounds}}.Run(nil, &out, io.Discard)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Equal(t, counts[i], bytes.Count(out.Bytes(), []byte("kind: ConfigMap")), "every ConfigMap is in the output")
		mallocs = append(mallocs, after.Mallocs-before.Mallocs)
		bytesAllocated = append(bytesAllocated, after.TotalAlloc-before.TotalAlloc)
	}
	return mallocs, bytesAllocated
}

// Render is linear in the objects it reads: each object applied is admitted
// against what the webhook reads in its namespace, not a copy of the whole
// cluster. Quadratic, four times the objects cost sixteen times the work
// (2,000 ConfigMaps took 21 s, 8,000 would take minutes).
func TestRenderIsLinearInItsInput(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 10,000 objects")
	}
	small, large := 2000, 8000
	mallocs, allocated := renderWork(t, []string{configMaps(t, small), configMaps(t, large)}, []int{small, large})
	for _, m := range []struct {
		what   string
		counts []uint64
	}{{"heap allocations", mallocs}, {"bytes allocated", allocated}} {
		ratio := float64(m.counts[1]) / float64(m.counts[0])
		t.Logf("render of %d ConfigMaps: %d %s, of %d: %d (x%.2f)", small, m.counts[0], m.what, large, m.counts[1], ratio)
		assert.LessOrEqual(t, ratio, 4.5, "%s grow at most 4.5x from %d to %d objects", m.what, small, large)
	}
}

// BenchmarkRender100kConfigMaps is the render row of the benchmark: a
// repository of 100,000 small objects.
func BenchmarkRender100kConfigMaps(b *testing.B) {
	path := configMaps(b, 100_000)
	for b.Loop() {
		if err := (Command{Paths: []string{path}, Format: FormatYAML, Quiet: true, Options: Options{MaxRounds: DefaultMaxRounds}}).Run(nil, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
