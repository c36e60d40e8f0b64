package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/test/testbin"
)

// TestSmoke keeps the load test working: it builds the service and its
// floor twin, loads both
// routes with 50 requests at concurrency 2 against the hooks and the floor,
// and checks every answer was a 200 and the table says so. It measures
// nothing: no figure is compared with a target here.
func TestSmoke(t *testing.T) {
	bin, err := testbin.Path()
	require.NoError(t, err)
	defer testbin.Cleanup()

	root, err := testbin.ModuleRoot()
	require.NoError(t, err)
	floorBin := filepath.Join(t.TempDir(), "floor")
	build := exec.Command("go", "build", "-o", floorBin, "./test/load/floorserve")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	cfg := config{
		bin: bin, floorBin: floorBin, backends: 3, entries: 3, paths: []string{"/sync/glance", "/sync/controlplane"},
		concurrency: []int{2}, requests: 50, duration: time.Minute, warmup: 2, slices: 2,
	}
	rep, err := run(cfg)
	require.NoError(t, err)
	require.Len(t, rep.cells, 4, "hook and floor for each route")
	for _, c := range rep.cells {
		assert.Equal(t, 50, c.done, "%s %s", c.mode, c.path)
		assert.Zero(t, c.errors, "%s %s", c.mode, c.path)
		assert.Positive(t, c.p99)
	}
	for _, mode := range []string{"hook", "floor"} {
		for _, path := range cfg.paths {
			assert.Positive(t, rep.rss[rssKey(mode, path, 3)], "%s %s", mode, path)
		}
	}
	var table bytes.Buffer
	rep.print(&table)
	assert.Contains(t, table.String(), "/sync/glance 3 backends c=2")
	assert.Contains(t, table.String(), "/sync/controlplane 3 entries c=2")
	assert.Contains(t, table.String(), "peak RSS")
	assert.Contains(t, table.String(), "install: Deployment", "the table counts the API writes of the guide's install")
}

func TestParseBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkHooks/sync-glance/gen-100/codec-2   	 100	   6751718 ns/op	  64.91 MB/s	 6700000 cpu-ns/op	 11741101 B/op	   10128 allocs/op
BenchmarkHooks/sync-glance/gen-100/floor-2   	 100	   7000000 ns/op	  62.48 MB/s	 7000000 cpu-ns/op	 41609327 B/op	   10226 allocs/op
BenchmarkHooks/sync-glance/gen-100/hook-2    	  60	   9800000 ns/op	  55.52 MB/s	 9700000 cpu-ns/op	   1.45 x-codec	   1.30 x-floor	47223926 B/op	  140163 allocs/op
BenchmarkHooks/sync-glance/gen-100/resync-2  	 900	    490000 ns/op	1000.52 MB/s	  480000 cpu-ns/op	   0.04 x-hook	  711172 B/op	      35 allocs/op
BenchmarkConverge/glance/gen-1000/chain-2    	   1	1329996378 ns/op	1184017000 cpu-ns/op	215073368 B/op	 2561848 allocs/op
PASS
`)
	cases := benchCases(parseBench(out))
	require.Len(t, cases, 2)
	chain := cases[1]
	assert.Equal(t, "glance", chain.hook)
	assert.Equal(t, "gen-1000", chain.kase)
	assert.InDelta(t, 1329996378, chain.chainNs, 0.5)
	assert.InDelta(t, 1184017000, chain.chainCPU, 0.5)
	c := cases[0]
	assert.InDelta(t, 490000, c.resyncNs, 0.5)
	assert.InDelta(t, 480000, c.resyncCPU, 0.5)
	assert.InDelta(t, 0.04, c.resyncRatio(), 1e-9, "the ratio the resync measured alternately, not 490000/9800000")
	assert.Equal(t, "sync-glance", c.hook)
	assert.Equal(t, "gen-100", c.kase)
	assert.InDelta(t, 9800000, c.hookNs, 0.5)
	assert.InDelta(t, 7000000, c.floorNs, 0.5)
	assert.InDelta(t, 9700000, c.hookCPU, 0.5)
	assert.InDelta(t, 1.30, c.floorRatio(), 1e-9, "the ratio the hook measured in turns, not 9800000/7000000")
	assert.InDelta(t, 140163, c.hookAllc, 0.5)
}

func TestFloorTarget(t *testing.T) {
	cases := map[string]struct {
		hook, kase string
		want       float64
	}{
		"Glance1000":        {"sync-glance", "gen-1000", targetGlance1000},
		"Glance100":         {"sync-glance", "gen-100", targetSyncFloor},
		"Backend1000":       {"sync-glancebackend", "gen-1000", targetSyncFloor},
		"ControlPlaneMost":  {"sync-controlplane", "gen-32", targetSyncFloor},
		"ControlPlane10":    {"sync-controlplane", "gen-10", targetFloorRatio},
		"SmallSync":         {"sync-glance", "gen-10", targetFloorRatio},
		"RecordedSync":      {"sync-controlplane", "recorded", targetFloorRatio},
		"Customize1000":     {"customize-glance", "gen-1000", targetCustomizeFloor},
		"CustomizeRecorded": {"customize-glancebackend", "recorded", targetCustomizeFloor},
		"Full1000":          {"sync-glance", "full-1000", targetFullFloor},
		"Full100":           {"sync-glance", "full-100", targetFullFloor},
		"Full1":             {"sync-glance", "full-1", targetFloorRatio},
		"FullCustomize":     {"customize-glance", "full-1000", targetCustomizeFloor},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, floorTarget(tc.hook, tc.kase))
		})
	}
}

// The large load, the full world, is held to the round's goal; the others
// to round two's.
func TestThroughputTarget(t *testing.T) {
	assert.Equal(t, targetFullThroughput, throughputTarget(1000, 1000), "the full world")
	assert.Equal(t, targetThroughputRatio, throughputTarget(100, 1000), "the 100-backend Glance beside it")
	assert.Equal(t, targetThroughputRatio, throughputTarget(32, 0), "no large load")
}
