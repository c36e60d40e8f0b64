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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
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
	const plain = "cors healthcheck http_proxy_to_wsgi versionnegotiation osprofiler authtoken context rootapp"
	const withCache = "cors healthcheck http_proxy_to_wsgi versionnegotiation osprofiler authtoken context cache rootapp"
	cases := map[string]struct {
		reason string
		spec   api.GlanceSpec
		want   want
	}{
		"off": {"no block: nothing of the cache", testSpec(), want{Options: map[string]string{}, Pipeline: plain}},
		"defaults": {"an empty block: 10Gi, every 5 minutes", cached(&api.ImageCacheSpec{}), want{
			Options:  map[string]string{"image_cache_dir": ImageCacheDir, "image_cache_driver": "sqlite", "image_cache_max_size": "8589934592"},
			Pipeline: withCache, Filter: "glance.api.middleware.cache:CacheFilter.factory", Volume: &gi10, Mounted: true,
			Sidecar: []string{"300", "--config-file=" + ConfigDir + "/" + names.ConfigFile}, Resources: true}},
		"set": {"both fields as written", cached(&api.ImageCacheSpec{SizeLimit: &mi64, MaintenanceInterval: &metav1.Duration{Duration: 90 * time.Second}}), want{
			Options:  map[string]string{"image_cache_dir": ImageCacheDir, "image_cache_driver": "sqlite", "image_cache_max_size": "53687088"},
			Pipeline: withCache, Filter: "glance.api.middleware.cache:CacheFilter.factory", Volume: &mi64, Mounted: true,
			Sidecar: []string{"90", "--config-file=" + ConfigDir + "/" + names.ConfigFile}, Resources: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			def := &store{id: "primary", state: stateRendered}
			conf, err := renderConfig(confInput{glance: &api.Glance{}, spec: tc.spec, mode: Eventlet, stores: []*store{def}, def: def})
			require.NoError(t, err)
			data := configData(conf, tc.spec, Eventlet)
			got := want{Options: map[string]string{}}
			f, err := ini.Load([]byte(data[names.ConfigFile]))
			require.NoError(t, err)
			for _, k := range f.Section("DEFAULT").Keys() {
				if strings.HasPrefix(k.Name(), "image_cache") {
					got.Options[k.Name()] = k.String()
				}
			}
			paste, err := ini.LoadSources(ini.LoadOptions{KeyValueDelimiters: "=:"}, []byte(data[PasteFile]))
			require.NoError(t, err)
			got.Pipeline = paste.Section("pipeline:glance-api-" + PasteFlavor).Key("pipeline").String()
			if paste.HasSection("filter:cache") {
				got.Filter = paste.Section("filter:cache").Key("paste.filter_factory").String()
			}
			d := deployment(&api.Glance{}, tc.spec, runTarget{image: "glance:1"}, podInputs{mounts{"c", "b"}, "x"}, nil)
			mountImageCache(podInput{spec: tc.spec}, d)
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
				assert.Empty(t, c.Env, "no environment: the cache tools need no credentials")
				var mounted []string
				for _, m := range c.VolumeMounts {
					mounted = append(mounted, m.Name+":"+m.MountPath)
				}
				assert.Equal(t, []string{names.VolumeConfig + ":" + ConfigDir, VolumeImageCache + ":" + ImageCacheDir, VolumeLock + ":" + LockDir, VolumeTmp + ":/tmp"},
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

// TestWithCacheFilterEveryPipeline: every pipeline of the file gets the
// filter before its app, and the section is defined once.
func TestWithCacheFilterEveryPipeline(t *testing.T) {
	in := "[pipeline:a]\npipeline = x y app\n\n[pipeline:b]\npipeline = app\n"
	want := "[pipeline:a]\npipeline = x y cache app\n\n[pipeline:b]\npipeline = cache app\n\n" +
		"[filter:cache]\npaste.filter_factory = glance.api.middleware.cache:CacheFilter.factory\n"
	assert.Equal(t, want, withCacheFilter(in))
}

// TestCacheMaintenanceLoop runs the sidecar's script with stand-ins for
// the two tools: each pass runs both with the config file, a failed pass is
// reported and the loop goes on, the next good pass says it recovered, and
// SIGTERM ends the loop with status 0.
func TestCacheMaintenanceLoop(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	tool := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\necho "+name+" \"$@\" >> "+calls+"\n"+body), 0o755))
	}
	tool("glance-cache-pruner", "")
	// The cleaner fails on its first pass only.
	tool("glance-cache-cleaner", "[ -e "+dir+"/once ] && exit 0; touch "+dir+"/once; exit 1\n")
	cmd := exec.Command("/bin/sh", "-c", cacheMaintenanceScript, CacheMaintenanceContainer, "0.05", "--config-file=/x.conf")
	cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "glance-cache-cleaner") >= 3
	}, time.Minute, 20*time.Millisecond, "three passes")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "SIGTERM ends the loop with status 0; stderr: %s", stderr.String())
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	assert.Equal(t, []string{"glance-cache-pruner --config-file=/x.conf", "glance-cache-cleaner --config-file=/x.conf"}, lines[:2],
		"the pruner, then the cleaner, each with the config file")
	assert.Contains(t, stderr.String(), "glance-cache-maintenance failed: 1 in a row\n")
	assert.Contains(t, stderr.String(), "glance-cache-maintenance recovered after 1 failed passes\n")
}
