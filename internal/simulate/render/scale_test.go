package render

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

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

// renderCPU renders each file a few times, taking turns, and returns the
// least user CPU time each took, with the garbage collector paused: on a
// shared machine the wall clock measures the neighbours as much as the
// render, and the collector's cost depends on the heap it finds, which
// taking turns and collecting before each run does not make the same.
func renderCPU(t *testing.T, paths []string, counts []int) []time.Duration {
	t.Helper()
	best := make([]time.Duration, len(paths))
	for i := range best {
		best[i] = time.Duration(1<<63 - 1)
	}
	for range 4 {
		for i, path := range paths {
			var out bytes.Buffer
			runtime.GC()
			gc := debug.SetGCPercent(-1)
			start := cpuTime(t)
			err := Command{Paths: []string{path}, Format: FormatYAML, Quiet: true, Options: Options{MaxRounds: DefaultMaxRounds}}.Run(nil, &out, io.Discard)
			best[i] = min(best[i], cpuTime(t)-start)
			debug.SetGCPercent(gc)
			require.NoError(t, err)
			require.Equal(t, counts[i], bytes.Count(out.Bytes(), []byte("kind: ConfigMap")), "every ConfigMap is in the output")
		}
	}
	return best
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano())
}

// Render is linear in the objects it reads: each object applied is admitted
// against what the webhook reads in its namespace, not a copy of the whole
// cluster. Quadratic, four times the objects take sixteen times as long
// (2,000 ConfigMaps took 21 s, 8,000 would take minutes).
func TestRenderIsLinearInItsInput(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 8,000 objects several times")
	}
	small, large := 2000, 8000
	cpu := renderCPU(t, []string{configMaps(t, small), configMaps(t, large)}, []int{small, large})
	ts, tl := cpu[0], cpu[1]
	ratio := float64(tl) / float64(ts)
	t.Logf("render of %d ConfigMaps: %s of user CPU, of %d: %s (x%.2f)", small, ts.Round(time.Millisecond), large, tl.Round(time.Millisecond), ratio)
	assert.LessOrEqual(t, ratio, 4.5, "render time grows at most 4.5x from %d to %d objects", small, large)
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
