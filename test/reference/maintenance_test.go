package reference

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
)

// The cases of spec.dbPurge and spec.imageCache.
func init() {
	addCases(map[string]fieldCase{
		"dbPurge.retentionDays":          {true, map[string]any{"dbPurge.retentionDays": 12}, rendered, purgeHas(`"--age_in_days","12"`)},
		"dbPurge.schedule":               {true, map[string]any{"dbPurge.schedule": "@weekly"}, rendered, purgeHas(`"schedule":"@weekly"`)},
		"dbPurge.purgeImagesTable":       {true, map[string]any{"dbPurge.purgeImagesTable": true}, rendered, purgeHas(`"db","purge_images_table"`)},
		"dbPurge.suspend":                {true, map[string]any{"dbPurge.suspend": true}, rendered, purgeHas(`"suspend":true`)},
		"imageCache.sizeLimit":           {true, map[string]any{"imageCache.sizeLimit": "2Gi"}, rendered, cacheBound("2Gi", "1717986912")},
		"imageCache.maintenanceInterval": {true, map[string]any{"imageCache.maintenanceInterval": "7m"}, rendered, cacheInterval("14")},
	})
}

// purgeHas checks the purge CronJob's JSON holds want.
func purgeHas(want string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, jsonish(child(t, r, "CronJob")), want)
	}
}

// cacheBound checks the cache volume's bound and the pruner's mark.
func cacheBound(bound, maxSize string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		assert.Contains(t, jsonish(r.pod()["volumes"]), `{"emptyDir":{"sizeLimit":"`+bound+`"},"name":"`+glance.VolumeImageCache+`"}`)
		assert.Contains(t, r.conf, "image_cache_max_size = "+maxSize+"\n")
	}
}

// cacheInterval checks the sidecar's interval, in 30 s polls.
func cacheInterval(polls string) func(*testing.T, result) {
	return func(t *testing.T, r result) {
		t.Helper()
		containers := r.pod()["containers"].([]any)
		require.Len(t, containers, 2, "glance-api and the cache sidecar")
		sidecar := containers[1].(map[string]any)
		assert.Equal(t, glance.CacheMaintenanceContainer, sidecar["name"])
		assert.Equal(t, polls, sidecar["command"].([]any)[5])
	}
}

// child is the one rendered object of a kind.
func child(t *testing.T, r result, kind string) map[string]any {
	t.Helper()
	var all []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.all), &all))
	for _, o := range all {
		if o["kind"] == kind {
			return o
		}
	}
	t.Fatalf("no %s rendered", kind)
	return nil
}
