package glance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/ini.v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/glance/decide"
	"github.com/c5c3/glance-hooks/hooks/glance/model"
	"github.com/c5c3/glance-hooks/hooks/glance/observe"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
	"github.com/c5c3/glance-hooks/hooks/glance/storestate"
)

// TestCacheMaxSize: 80% of the bound, never above it, in bytes.
func TestCacheMaxSize(t *testing.T) {
	cases := map[string]struct {
		reason string
		bound  string
		want   int64
	}{
		"default": {"10Gi, the default", "10Gi", 8589934592},
		"floor":   {"1Mi, the floor", "1Mi", 838856},
		"odd":     {"the division first: truncation keeps it below 80%", "256Mi", 214748360},
		"decimal": {"decimal units are bytes too", "5G", 4000000000},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			bound := resource.MustParse(c.bound)
			got := cacheMaxSize(bound)
			assert.Equal(t, c.want, got, c.reason)
			assert.LessOrEqual(t, got*10, bound.Value()*8, "%s: at most 80%% of the bound", c.reason)
		})
	}
}

// TestImageCacheRendered: the block turns on the options, the filter, the
// volume and the sidecar; without it none of them is there.
func TestImageCacheRendered(t *testing.T) {
	type want struct {
		Options   map[string]string
		Pipeline  string
		Filter    string
		Volume    *resource.Quantity
		Mounted   bool
		Sidecar   []string
		Resources bool
	}
	cached := func(c *api.ImageCacheSpec) api.GlanceSpec {
		return testSpec(func(s *api.GlanceSpec) { s.ImageCache = c })
	}
	gi10, mi64 := resource.MustParse("10Gi"), resource.MustParse("64Mi")
	const plain = "cors http_proxy_to_wsgi versionnegotiation osprofiler authtoken context rootapp"
	const withCache = "cors http_proxy_to_wsgi versionnegotiation osprofiler authtoken context cache rootapp"
	cases := map[string]struct {
		reason string
		spec   api.GlanceSpec
		want   want
	}{
		"off": {"no block: nothing of the cache", testSpec(), want{Options: map[string]string{}, Pipeline: plain}},
		"defaults": {"an empty block: 10Gi, every 5 minutes", cached(&api.ImageCacheSpec{}), want{
			Options:  map[string]string{"image_cache_dir": ImageCacheDir, "image_cache_driver": "sqlite", "image_cache_max_size": "8589934592"},
			Pipeline: withCache, Filter: "glance.api.middleware.cache:CacheFilter.factory", Volume: &gi10, Mounted: true,
			Sidecar: []string{"30", "10", "8388608", ImageCacheDir, "--config-file=" + render.ConfigDir + "/" + names.ConfigFile}, Resources: true}},
		"set": {"both fields as written", cached(&api.ImageCacheSpec{SizeLimit: &mi64, MaintenanceInterval: &metav1.Duration{Duration: 90 * time.Second}}), want{
			Options:  map[string]string{"image_cache_dir": ImageCacheDir, "image_cache_driver": "sqlite", "image_cache_max_size": "53687088"},
			Pipeline: withCache, Filter: "glance.api.middleware.cache:CacheFilter.factory", Volume: &mi64, Mounted: true,
			Sidecar: []string{"30", "3", "52428", ImageCacheDir, "--config-file=" + render.ConfigDir + "/" + names.ConfigFile}, Resources: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			def := &model.Store{ID: "primary", State: storestate.Rendered}
			data, err := render.RenderFiles(render.ConfInput{Glance: &api.Glance{}, Spec: tc.spec, Mode: render.Eventlet, Stores: []*model.Store{def}, Def: def, Files: files, Observed: &observe.Observed{}})
			require.NoError(t, err)
			got := want{Options: map[string]string{}}
			f, err := ini.Load([]byte(data[names.ConfigFile]))
			require.NoError(t, err)
			for _, k := range f.Section("DEFAULT").Keys() {
				if strings.HasPrefix(k.Name(), "image_cache") {
					got.Options[k.Name()] = k.String()
				}
			}
			paste, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(data[render.PasteFile]))
			require.NoError(t, err)
			got.Pipeline = paste.Section("pipeline:" + render.PastePipeline).Key("pipeline").String()
			if paste.HasSection("filter:cache") {
				got.Filter = paste.Section("filter:cache").Key("paste.filter_factory").String()
			}
			d := render.Deployment(&api.Glance{}, tc.spec, decide.RunTarget{Image: "glance:1"}, render.PodInputs{Mounts: render.Mounts{ConfigMap: "c", BackendsSecret: "b"}, Digest: "x", EveryPod: everyPod}, nil)
			mountImageCache(render.PodInput{Spec: tc.spec}, d)
			pod := d.Spec.Template.Spec
			for _, v := range pod.Volumes {
				if v.Name == VolumeImageCache {
					got.Volume = v.EmptyDir.SizeLimit
				}
			}
			for _, m := range pod.Containers[0].VolumeMounts {
				got.Mounted = got.Mounted || (m.Name == VolumeImageCache && m.MountPath == ImageCacheDir && !m.ReadOnly)
			}
			for _, c := range pod.Containers[1:] {
				require.Equal(t, CacheMaintenanceContainer, c.Name)
				assert.Equal(t, "glance:1", c.Image, "the sidecar runs glance-api's image")
				assert.Equal(t, []corev1.EnvVar{render.UserEnv()}, c.Env, "no credentials: the cache tools need none; the user's name only")
				var mounted []string
				for _, m := range c.VolumeMounts {
					mounted = append(mounted, m.Name+":"+m.MountPath)
				}
				assert.Equal(t, []string{names.VolumeConfig + ":" + render.ConfigDir, VolumeImageCache + ":" + ImageCacheDir, render.VolumeLock + ":" + render.LockDir, render.VolumeTmp + ":/tmp"},
					mounted, "the config, the cache, the locks it shares with glance-api and /tmp; not the backends with the S3 keys")
				got.Sidecar = c.Command[4:]
				got.Resources = c.Resources.Requests.Cpu().MilliValue() > 0 && !c.Resources.Limits.Memory().IsZero()
				assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCacheFilterLastBeforeTheApp: the cache filter comes after every
// filter of the pipeline, a middleware placed after them included, right
// before the application, and its section is defined once.
func TestCacheFilterLastBeforeTheApp(t *testing.T) {
	spec := api.GlanceSpec{ImageCache: &api.ImageCacheSpec{},
		Middleware: []api.MiddlewareSpec{{Name: "audit", FilterFactory: "audit.middleware:filter_factory", Position: api.MiddlewareAfter}}}
	paste, err := render.RenderPaste(spec, files.Paste)
	require.NoError(t, err)
	assert.Contains(t, paste, "pipeline = "+strings.Join(render.PasteBasePipeline, " ")+" audit cache "+render.PasteApp+"\n")
	assert.Equal(t, 1, strings.Count(paste, "[filter:cache]\npaste.filter_factory = glance.api.middleware.cache:CacheFilter.factory\n"))

	without, err := render.RenderPaste(api.GlanceSpec{}, files.Paste)
	require.NoError(t, err)
	assert.Equal(t, render.PasteIni, without, "without the block the paste file is the hooks' own, byte for byte")
}

// maintenanceRun runs the sidecar's script with stand-ins for the two
// tools (the cleaner fails on its first pass when failOnce) on a cache
// directory holding kib KiB, until the tools ran passes times, then stops
// it with SIGTERM. It returns the tools' calls and the loop's stderr.
func maintenanceRun(t *testing.T, ticks string, kib int, failOnce bool, passes int) (calls []string, stderr string) {
	t.Helper()
	dir := t.TempDir()
	bin, cache := filepath.Join(dir, "bin"), filepath.Join(dir, "cache")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(cache, "incomplete"), 0o755))
	// What the cleaner keeps for a day does not count.
	require.NoError(t, os.WriteFile(filepath.Join(cache, "incomplete", "partial"), make([]byte, 4<<20), 0o644))
	if kib > 0 {
		require.NoError(t, os.WriteFile(filepath.Join(cache, "image"), make([]byte, kib<<10), 0o644))
	}
	log := filepath.Join(dir, "calls")
	tool := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho "+name+" \"$@\" >> "+log+"\n"+body), 0o755))
	}
	tool("glance-cache-pruner", "")
	cleaner := ""
	if failOnce {
		cleaner = "[ -e " + dir + "/once ] && exit 0; touch " + dir + "/once; exit 1\n"
	}
	tool("glance-cache-cleaner", cleaner)
	// A 0.05 s poll; the mark is 1024 KiB.
	cmd := exec.Command("/bin/sh", "-c", cacheMaintenanceScript, CacheMaintenanceContainer, "0.05", ticks, "1024", cache, "--config-file=/x.conf")
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	var errs strings.Builder
	cmd.Stderr = &errs
	require.NoError(t, cmd.Start())
	read := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " --config-file=/x.conf", ""))
	}
	if passes > 0 {
		require.Eventually(t, func() bool { return len(read()) >= 2*passes }, time.Minute, 20*time.Millisecond, "%d passes", passes)
	} else {
		// Enough polls for a pass that should not come.
		time.Sleep(time.Second)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "SIGTERM ends the loop with status 0; stderr: %s", errs.String())
	return read(), errs.String()
}

// TestCacheMaintenanceLoop runs the sidecar's script: a pass is the pruner
// then the cleaner with the config file; the clock runs one every ticks
// polls, the cache above the mark one at the next poll, and a cache below
// it none before its time; a failed pass is reported and the next one says
// it recovered; SIGTERM ends the loop with status 0.
func TestCacheMaintenanceLoop(t *testing.T) {
	t.Run("on the clock", func(t *testing.T) {
		calls, stderr := maintenanceRun(t, "1", 0, true, 3)
		assert.Equal(t, []string{"glance-cache-pruner", "glance-cache-cleaner"}, calls[:2], "the pruner, then the cleaner")
		assert.Regexp(t, `glance-cache-maintenance failed: 1 in a row, cache at [0-9]+ KiB, mark 1024 KiB\n`, stderr)
		assert.Contains(t, stderr, "glance-cache-maintenance recovered after 1 failed passes\n")
	})
	t.Run("above the mark", func(t *testing.T) {
		calls, stderr := maintenanceRun(t, "100000", 2048, false, 2)
		assert.Equal(t, []string{"glance-cache-pruner", "glance-cache-cleaner"}, calls[:2], "passes long before the clock's")
		assert.Empty(t, stderr)
	})
	t.Run("below the mark", func(t *testing.T) {
		calls, stderr := maintenanceRun(t, "100000", 512, false, 0)
		assert.Empty(t, calls, "no pass before the clock's: the 4 MiB being cleaned up does not count")
		assert.Empty(t, stderr)
	})
}
