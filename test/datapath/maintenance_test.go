package datapath

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance"
	"github.com/c5c3/glance-hooks/test/glancestack"
	"github.com/c5c3/glance-hooks/test/proc"
)

// maintenance proves the image cache in both launch modes and the
// database purge, each on a stack of its own.
func maintenance(t *testing.T, svc *glancestack.Services) {
	t.Run("image cache 2025.2", func(t *testing.T) {
		t.Parallel()
		imageCacheServes(t, svc, glancestack.Options{Release: "2025.2", Database: "glance_cache_2025_2"})
	})
	onBothSystems(t, "image cache 2026.1", func(t *testing.T, unstable bool) {
		o := glancestack.Options{Release: "2026.1", Database: "glance_cache_2026_1"}
		if unstable {
			o = onUnstable(t, o)
		}
		imageCacheServes(t, svc, o)
	})
	onBothSystems(t, "database purge", func(t *testing.T, unstable bool) {
		o := glancestack.Options{Database: "glance_purge"}
		if unstable {
			o = onUnstable(t, o)
		}
		dbPurgeRuns(t, svc, o, purgeSet)
	})
	t.Run("database purge by default", func(t *testing.T) {
		t.Parallel()
		dbPurgeRuns(t, svc, glancestack.Options{Database: "glance_purge_default"}, purgeByDefault)
	})
}

// The cache proof's sizes: the volume's bound, an image well below the
// pruner's mark (80% of the bound), and one above it.
var (
	cacheBound                 = resource.MustParse("4Mi")
	smallImageLen, bigImageLen = 1 << 20, 3<<20 + 512<<10
)

// imageCacheServes: an upload caches nothing; the first download of an
// image below the mark writes it into the pod's cache volume (byte for
// byte; GET /v2/cache lists it with no hit) and the second is answered from
// the cache (one hit, the same bytes). The download of an image above the
// mark takes the cache past it: the sidecar's next poll runs the pruner,
// which removes the least recently used images until the cache is below
// the mark, here both (its debug log names each), and the big image still
// downloads from S3.
func imageCacheServes(t *testing.T, svc *glancestack.Services, o glancestack.Options) {
	interval := time.Minute
	release := o.Release
	o.Standalone = true
	o.Customize = func(s *api.GlanceSpec) {
		s.ImageCache = &api.ImageCacheSpec{SizeLimit: &cacheBound, MaintenanceInterval: &metav1.Duration{Duration: interval}}
		// The pruner says what it prunes at debug level only.
		s.Logging = &api.LoggingSpec{Debug: ptr(true)}
	}
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	p := onlyPod(t, st)
	started := time.Now()
	c := st.Client(t, p)
	cachePath := func(id string) string {
		path, err := p.HostPath(p.Container, glance.ImageCacheDir+"/"+id)
		require.NoError(t, err)
		return path
	}

	small := randomBytes(41, smallImageLen)
	id := c.UploadActive(t, "small", small, "", "primary")
	_, err := os.Stat(cachePath(id))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "an upload caches nothing: %v", err)
	assert.Equal(t, small, c.Download(t, id), "the first download, from S3")
	waitForCacheHits(t, c, map[string]int{id: 0}, "the cache API lists it after the first download, not served from the cache yet")
	onDisk, err := os.ReadFile(cachePath(id))
	require.NoError(t, err, "the first download leaves the image in the pod's cache volume")
	assert.Equal(t, small, onDisk)
	assert.Equal(t, small, c.Download(t, id), "the second download, the same bytes")
	waitForCacheHits(t, c, map[string]int{id: 1}, "the second download was answered from the cache")

	big := randomBytes(42, bigImageLen)
	bigID := c.UploadActive(t, "big", big, "", "primary")
	assert.Equal(t, big, c.Download(t, bigID), "the big image, from S3")
	// The sidecar measures the cache every 30 s; give it a few polls on a
	// loaded machine.
	deadline := time.Now().Add(3 * interval)
	for {
		_, errSmall := os.Stat(cachePath(id))
		_, errBig := os.Stat(cachePath(bigID))
		if errors.Is(errSmall, fs.ErrNotExist) && errors.Is(errBig, fs.ErrNotExist) && len(cacheHits(t, c)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache still holds %v after %s; the sidecar's log ends:\n%s", cacheHits(t, c), 3*interval,
				proc.LastLines(p.Logs(glance.CacheMaintenanceContainer), 30))
		}
		time.Sleep(2 * time.Second)
	}
	sidecar := p.Logs(glance.CacheMaintenanceContainer)
	for _, image := range []string{id, bigID} {
		assert.Contains(t, sidecar, "Pruning '"+image+"' to free", "the pruner removed %s", image)
	}
	assert.NotContains(t, sidecar, "glance-cache-maintenance failed", "every pass succeeded")
	assert.Equal(t, big, c.Download(t, bigID), "pruned from the cache, the image still downloads from S3")
	t.Logf("%s (%s): a %d-byte image cached on the first download and served from the cache on the second; a %d-byte one took the cache past the %d-byte mark, and the sidecar pruned both within %s of the pod being ready",
		release, p.Mode, len(small), len(big), cacheBound.Value()/10*8, time.Since(started).Round(time.Second))
}

// cacheHits is GET /v2/cache's cached images and their hits.
// waitForCacheHits waits until the cache API lists exactly want. Glance
// records a cached image and a hit only after it handed the last byte to
// the client: the cache file is committed when the caching iterator ends,
// and open_for_read counts the hit when the file is closed. A client that
// asks at once can be ahead of both, so the test waits a bounded time.
func waitForCacheHits(t *testing.T, c *glancestack.Client, want map[string]int, what string) {
	t.Helper()
	var got map[string]int
	deadline := time.Now().Add(30 * time.Second)
	for got = cacheHits(t, c); !assert.ObjectsAreEqual(want, got) && time.Now().Before(deadline); got = cacheHits(t, c) {
		time.Sleep(200 * time.Millisecond)
	}
	assert.Equal(t, want, got, what)
}

func cacheHits(t *testing.T, c *glancestack.Client) map[string]int {
	t.Helper()
	var state struct {
		Cached []struct {
			ID   string `json:"image_id"`
			Hits int    `json:"hits"`
		} `json:"cached_images"`
	}
	c.GetJSON(t, "/v2/cache", &state)
	out := map[string]int{}
	for _, e := range state.Cached {
		out[e.ID] = e.Hits
	}
	return out
}

// purgeProof is one purge on the real database: the Glance's spec.dbPurge
// (nil leaves it out), its retention resolved, and what it purges.
type purgeProof struct {
	spec      *api.DBPurgeSpec
	retention int
	// imagesTable: db purge_images_table runs after db purge, so the aged
	// images' own rows go too.
	imagesTable bool
}

var (
	// The block set: a short retention, the images table too.
	purgeSet = purgeProof{retention: 5, imagesTable: true,
		spec: &api.DBPurgeSpec{RetentionDays: ptr(int32(5)), PurgeImagesTable: ptr(true)}}
	// No block: the reference's default, 30 days, the images table kept.
	purgeByDefault = purgeProof{retention: int(api.DefaultPurgeRetentionDays)}
)

// dbPurgeRuns deletes four of five images and ages, in MariaDB, two of the
// deleted ones (their rows and their locations' and properties' rows) past
// the retention and one to two days short of it. A Job made from the
// rendered CronJob's jobTemplate, as the CronJob controller makes it, runs:
// the rows deleted before the retention are gone (the images' own rows
// too with purgeImagesTable, else they stay, marked deleted, keeping the
// ids taken), while the image deleted within the retention, the one
// deleted today and the live one keep every row.
func dbPurgeRuns(t *testing.T, svc *glancestack.Services, o glancestack.Options, proof purgeProof) {
	o.Standalone = true
	o.Customize = func(s *api.GlanceSpec) { s.DBPurge = proof.spec }
	st := glancestack.New(t, svc, o)
	st.Reconcile(t)
	cronJob := names.DBPurgeCronJobName(st.Glance)
	require.True(t, st.Exists("batch/v1", "CronJob", cronJob), "the Glance has its purge CronJob")
	c := st.Client(t, onlyPod(t, st))
	ids := map[string]string{}
	for i, name := range []string{"old-1", "old-2", "recent", "deleted-today", "live"} {
		ids[name] = c.UploadActive(t, name, randomBytes(uint64(50+i), 64<<10+i), "", "primary")
	}
	for _, name := range []string{"old-1", "old-2", "recent", "deleted-today"} {
		code, body := c.Call(t, http.MethodDelete, "/v2/images/"+ids[name], nil, nil)
		require.Equal(t, http.StatusNoContent, code, "DELETE %s: %s", name, body)
	}
	age(t, st, proof.retention+5, ids["old-1"], ids["old-2"])
	age(t, st, proof.retention-2, ids["recent"])
	before := rowsOf(t, st, ids)
	require.Equal(t, map[string]string{"old-1": "deleted", "old-2": "deleted", "recent": "deleted", "deleted-today": "deleted", "live": "live"}, before.images)
	require.NotZero(t, before.locations["old-1"], "the aged image has a soft-deleted location row")

	run := st.RunCronJob(t, cronJob)
	require.True(t, run.Succeeded(), "the purge Job succeeds; its containers: %v", run.Pod)
	steps, kept := []string{"db-purge"}, map[string]string{"recent": "deleted", "deleted-today": "deleted", "live": "live"}
	if proof.imagesTable {
		steps = append(steps, "db-purge-images-table")
	} else {
		kept["old-1"], kept["old-2"] = "deleted", "deleted"
	}
	assert.Equal(t, steps, run.Containers(), "db purge, then db purge_images_table when asked")
	after := rowsOf(t, st, ids)
	assert.Equal(t, kept, after.images,
		"the images rows left after a purge of %d days (purgeImagesTable %t)", proof.retention, proof.imagesTable)
	assert.Zero(t, after.locations["old-1"]+after.locations["old-2"], "the aged images' location rows are gone")
	for _, name := range []string{"recent", "deleted-today", "live"} {
		assert.Equal(t, before.locations[name], after.locations[name], "the location rows of %s stay", name)
	}
	t.Logf("purge Job %s (retention %d days): %d image rows before, %d after, %d location rows of the aged images before, %d after, in %s",
		run.Name, proof.retention, len(before.images), len(after.images),
		before.locations["old-1"]+before.locations["old-2"], after.locations["old-1"]+after.locations["old-2"], run.Took.Round(time.Millisecond))
}

// age moves the deletion of the images ids, their locations and their
// properties the given number of days into the past.
func age(t *testing.T, st *glancestack.Stack, days int, ids ...string) {
	t.Helper()
	db, in := "`"+st.Database+"`", quoted(ids...)
	set := fmt.Sprintf(" SET deleted_at = UTC_TIMESTAMP() - INTERVAL %d DAY WHERE ", days)
	st.Services.DB.Exec(t, "UPDATE "+db+".images"+set+"id IN ("+in+");"+
		"UPDATE "+db+".image_locations"+set+"deleted = 1 AND image_id IN ("+in+");"+
		"UPDATE "+db+".image_properties"+set+"deleted = 1 AND image_id IN ("+in+");")
}

// purgeRows are the rows the proof's images have: each image's state, by
// name, and the number of its location rows.
type purgeRows struct {
	images    map[string]string
	locations map[string]int
}

func rowsOf(t *testing.T, st *glancestack.Stack, ids map[string]string) purgeRows {
	t.Helper()
	r := purgeRows{images: map[string]string{}, locations: map[string]int{}}
	db := "`" + st.Database + "`"
	for name, id := range ids {
		for _, row := range st.Services.DB.Query(t, "SELECT deleted FROM "+db+".images WHERE id = '"+id+"'") {
			r.images[name] = map[string]string{"0": "live", "1": "deleted"}[row[0]]
		}
		rows := st.Services.DB.Query(t, "SELECT COUNT(*) FROM "+db+".image_locations WHERE image_id = '"+id+"'")
		n, err := strconv.Atoi(rows[0][0])
		require.NoError(t, err)
		r.locations[name] = n
	}
	return r
}

func quoted(ids ...string) string { return "'" + strings.Join(ids, "','") + "'" }

func ptr[T any](v T) *T { return &v }
