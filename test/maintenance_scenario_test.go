package test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/c5c3/glance-hooks/hooks/glance"
)

// everyBlock is the standalone Glance with every feature block these hooks
// build set. importPlugins and importFiltering join it when they are built.
const everyBlock = `  imageCache: {sizeLimit: 20Gi, maintenanceInterval: 10m}
  dbPurge: {retentionDays: 14, schedule: "30 3 * * *", purgeImagesTable: true}
`

// The captured /sync/glance fixture with every feature block (see
// capture_test.go).
func init() {
	capturedGlanceCases = append(capturedGlanceCases, capturedCase{"every-feature-block", `
A standalone Glance with every feature block set. The image cache: [DEFAULT]
image_cache_dir on the pod's image-cache emptyDir of 20Gi, image_cache_driver
sqlite, image_cache_max_size 17179869184 (80% of the volume), the cache filter
before the root app in the paste pipeline, and the cache-maintenance sidecar
running the pruner and the cleaner every 600 s on the same volume. The
database purge: CronJob glance-db-purge at "30 3 * * *" running glance-manage
db purge and then db purge_images_table, both with --age_in_days 14, with the
schema Jobs' config and database URL.`,
		func(s *scenario) string {
			s.apply(credentials + "\n---\n" + standaloneGlance + everyBlock + "---\n" +
				standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
			s.converge()
			return "glance"
		}})
}

// TestMaintenanceBlocksComeAndGo: setting the blocks adds the cache and
// tunes the purge; removing them takes away the cache's options, filter,
// volume and sidecar, and the pods roll to a config without them, while the
// purge goes back to the reference's defaults: every Glance purges, and
// suspend is how it is turned off, the CronJob kept.
func TestMaintenanceBlocksComeAndGo(t *testing.T) {
	s := newScenario(t)
	backend := standaloneBackend("primary", "glance-images", "garage-s3-credentials", true)
	s.apply(credentials + "\n---\n" + standaloneGlance + everyBlock + "---\n" + backend)
	s.converge()
	on := cacheParts(t, s, "glance")
	assert.Equal(t, cacheView{volume: "20Gi", sidecar: true, mounted: true, conf: true, filter: true}, on)
	require.True(t, s.exists("CronJob", "glance-db-purge"), "the purge CronJob")
	before, _ := mounts(s.get("Deployment", "glance"))

	s.apply(standaloneGlance)
	s.converge()
	assert.Equal(t, cacheView{}, cacheParts(t, s, "glance"), "nothing of the cache is left")
	assert.Equal(t, purgeView{schedule: "1 0 * * *", steps: 1}, purgeOf(t, s), "the CronJob stays, with the defaults: daily, the images table kept")
	assert.Equal(t, "True/DBPurgeScheduled", s.condition("Glance", "glance", "DBPurgeReady"))
	after, _ := mounts(s.get("Deployment", "glance"))
	assert.NotEqual(t, before, after, "the pods roll to a config without the cache")
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))

	s.apply(standaloneGlance + "  dbPurge: {suspend: true}\n")
	s.converge()
	assert.Equal(t, purgeView{schedule: "1 0 * * *", steps: 1, suspended: true}, purgeOf(t, s), "turned off: the CronJob stays, suspended")
	assert.Equal(t, "True/DBPurgeSuspended", s.condition("Glance", "glance", "DBPurgeReady"), "a posture, not a fault")
	assert.Equal(t, "True/AllReady", s.condition("Glance", "glance", "Ready"))
}

// purgeView is what the purge CronJob does: when, whether suspended, and
// how many glance-manage steps its pod runs.
type purgeView struct {
	schedule  string
	suspended bool
	steps     int
}

func purgeOf(t *testing.T, s *scenario) purgeView {
	t.Helper()
	require.True(t, s.exists("CronJob", "glance-db-purge"), "the purge CronJob")
	spec := s.get("CronJob", "glance-db-purge")["spec"].(map[string]any)
	pod := spec["jobTemplate"].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	steps := 0
	for _, key := range []string{"initContainers", "containers"} {
		list, _ := pod[key].([]any)
		steps += len(list)
	}
	suspended, _ := spec["suspend"].(bool)
	return purgeView{schedule: spec["schedule"].(string), suspended: suspended, steps: steps}
}

// TestPurgeKeptWithTheLastGoodConfig: while nothing can be re-rendered (no
// default store), the CronJob stays as it was applied, like the Deployment.
func TestPurgeKeptWithTheLastGoodConfig(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials + "\n---\n" + standaloneGlance + everyBlock + "---\n" +
		standaloneBackend("primary", "glance-images", "garage-s3-credentials", true))
	s.converge()
	before := s.get("CronJob", "glance-db-purge")
	s.apply(standaloneBackend("primary", "glance-images", "garage-s3-credentials", false))
	s.converge()
	assert.Equal(t, "False/NoDefaultBackend", s.condition("Glance", "glance", "BackendsReady"))
	assert.Equal(t, before, s.get("CronJob", "glance-db-purge"), "the CronJob is kept as it was")
}

// TestControlPlaneProjectsTheImageCache: services.glance.imageCache
// reaches the projected Glance and its pods, and goes with them.
func TestControlPlaneProjectsTheImageCache(t *testing.T) {
	s := newScenario(t)
	s.apply(credentials)
	entries := entry("default", "glance-images", true)
	s.apply(controlPlane(entries + "\n      imageCache: {sizeLimit: 2Gi}"))
	s.converge()
	assert.Equal(t, map[string]any{"sizeLimit": "2Gi"}, s.get("Glance", "controlplane-glance")["spec"].(map[string]any)["imageCache"])
	assert.Equal(t, cacheView{volume: "2Gi", sidecar: true, mounted: true, conf: true, filter: true}, cacheParts(t, s, "controlplane-glance"))

	s.apply(controlPlane(entries))
	s.converge()
	assert.Equal(t, cacheView{}, cacheParts(t, s, "controlplane-glance"))
	assert.Equal(t, "True/GlanceReady", s.condition("ControlPlane", "controlplane", "GlanceReady"))
}

// cacheView is what of the image cache the Glance's children hold.
type cacheView struct {
	volume                         string
	sidecar, mounted, conf, filter bool
}

func cacheParts(t *testing.T, s *scenario, deployment string) cacheView {
	t.Helper()
	var v cacheView
	d := s.get("Deployment", deployment)
	pod := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, x := range pod["volumes"].([]any) {
		vol := x.(map[string]any)
		if vol["name"] == glance.VolumeImageCache {
			v.volume, _ = vol["emptyDir"].(map[string]any)["sizeLimit"].(string)
		}
	}
	for _, x := range pod["containers"].([]any) {
		c := x.(map[string]any)
		v.sidecar = v.sidecar || c["name"] == glance.CacheMaintenanceContainer
		if c["name"] != glance.ContainerName {
			continue
		}
		for _, m := range c["volumeMounts"].([]any) {
			v.mounted = v.mounted || m.(map[string]any)["mountPath"] == glance.ImageCacheDir
		}
	}
	cm, _ := mounts(d)
	v.conf = strings.Contains(configText(t, s.get("ConfigMap", cm)), "image_cache_dir = "+glance.ImageCacheDir)
	v.filter = strings.Contains(s.get("ConfigMap", cm)["data"].(map[string]any)[glance.PasteFile].(string), " cache rootapp")
	return v
}
