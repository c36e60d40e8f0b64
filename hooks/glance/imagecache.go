package glance

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
	"github.com/c5c3/glance-hooks/hooks/glance/render"
)

// The per-pod image cache (spec.imageCache). Each glance-api pod keeps
// the images it served in an emptyDir of its own, so a repeated download
// is answered from the node; the cache is per replica and every new pod
// starts it empty. Nothing of it is rendered while the block is unset.
const (
	// ImageCacheDir is image_cache_dir, the cache volume's mount.
	ImageCacheDir = render.StateDir + "/image-cache"
	// VolumeImageCache is the cache's emptyDir.
	VolumeImageCache = "image-cache"
	// CacheMaintenanceContainer runs the pruner and the cleaner.
	CacheMaintenanceContainer = "cache-maintenance"
	// imageCacheDriver keeps the cache's index in a SQLite file inside the
	// cache directory, so it lives and dies with the volume. Every release
	// from Zed to 2026.1 has it. The centralized_db driver (2024.1 and
	// later) keeps the index in the Glance database keyed by each pod's
	// worker_self_reference_url: a Deployment's pods get new addresses on
	// every roll, and the rows of the pods that went would stay for good.
	imageCacheDriver = "sqlite"
	// cacheFilter is the paste filter that serves and fills the cache.
	cacheFilter = api.ImageCacheFilter
)

// cacheMaxSize is image_cache_max_size: 80% of the volume's bound,
// divided first so it is never above 80%. Glance checks the size only
// when the pruner runs, and only prunes down to this mark; the rest of the
// volume is the room downloads have between two of the sidecar's polls
// before the kubelet evicts the pod for outgrowing the emptyDir.
func cacheMaxSize(bound resource.Quantity) int64 { return bound.Value() / 10 * 8 }

// imageCacheConf is the cache's [DEFAULT] options.
func imageCacheConf(in render.ConfInput) (render.ConfPart, error) {
	c := in.Spec.ImageCache
	if c == nil {
		return render.ConfPart{}, nil
	}
	values := []string{ImageCacheDir, imageCacheDriver, strconv.FormatInt(cacheMaxSize(c.Size()), 10)}
	var p render.ConfPart
	for i, key := range api.ImageCacheOptions {
		p.Defaults = append(p.Defaults, storeconf.Option{Key: key, Value: values[i]})
	}
	return p, nil
}

// imageCacheFilters puts the cache filter into the paste pipeline right
// before the root app, after authtoken and context and after every
// spec.middleware filter (features lists it after middleware): the filter checks
// the download_image policy itself, which needs the request's credentials,
// and answers a cached image without going further down the pipeline.
func imageCacheFilters(spec api.GlanceSpec) []render.PasteFilter {
	if spec.ImageCache == nil {
		return nil
	}
	return []render.PasteFilter{{Name: cacheFilter, Factory: "glance.api.middleware.cache:CacheFilter.factory", Position: api.MiddlewareAfter}}
}

// cacheMaintenanceScript is the sidecar's loop. Its arguments: the poll
// period in seconds, the polls between two timed passes, the pruner's mark
// in KiB, the cache directory, then the config arguments of the tools.
// Glance never checks the cache's size when it writes to it, so a loop on
// the clock alone would let a burst of downloads grow the emptyDir past its
// bound between two passes, and the kubelet evict the pod. So the loop
// measures the cache every poll and runs a pass at once when it is above
// the mark, and otherwise every maintenanceInterval (rounded up to a whole
// number of polls) to clean stalled entries. The incomplete, invalid and
// queue directories do not count: their entries are the cleaner's, after a
// day, and counting them would run a pass every poll for nothing. A cache
// that cannot be measured gets a pass (du says why on stderr). A failed
// pass is said on stderr and tried again at the next: exiting would restart
// the container and take the pod out of the Service over a cache that still
// serves. SIGTERM ends the loop at once (the shell would otherwise ignore it
// as PID 1, and the pod would wait out its grace period).
const cacheMaintenanceScript = `poll=$1 ticks=$2 mark=$3 dir=$4; shift 4
trap 'exit 0' TERM INT
kib() {
  out=$(du -sk "$1") || return 1
  echo "${out%%[[:space:]]*}"
}
used() {
  total=$(kib "$dir") || return 1
  for sub in incomplete invalid queue; do
    if [ -d "$dir/$sub" ]; then
      n=$(kib "$dir/$sub") || return 1
      total=$((total - n))
    fi
  done
  echo "$total"
}
failed=0 tick=0
while :; do
  sleep "$poll" & wait $!
  tick=$((tick + 1))
  if size=$(used); then
    if [ "$tick" -lt "$ticks" ] && [ "$size" -le "$mark" ]; then
      continue
    fi
  else
    size=unknown
    echo "glance-cache-maintenance unmeasured: could not measure $dir; running a pass" >&2
  fi
  tick=0
  if glance-cache-pruner "$@" && glance-cache-cleaner "$@"; then
    [ "$failed" -gt 0 ] && echo "glance-cache-maintenance recovered after $failed failed passes" >&2
    failed=0
  else
    failed=$((failed + 1))
    echo "glance-cache-maintenance failed: $failed in a row, cache at $size KiB, mark $mark KiB" >&2
  fi
done`

// cachePollSeconds is how often the sidecar measures the cache. A burst of
// downloads has this long to grow the cache from the mark towards the
// volume's bound; the 20% between them is sized for that.
const cachePollSeconds = 30

// cacheMaintenanceArgs are the script's arguments after its name.
func cacheMaintenanceArgs(c api.ImageCacheSpec) []string {
	ticks := max(1, (int64(c.Interval().Seconds())+cachePollSeconds-1)/cachePollSeconds)
	return []string{fmt.Sprint(cachePollSeconds), fmt.Sprint(ticks), fmt.Sprint(cacheMaxSize(c.Size()) / 1024), ImageCacheDir,
		"--config-file=" + render.ConfigDir + "/" + names.ConfigFile}
}

// Fixed resources of the maintenance sidecar: with requests on every
// container an autoscaler can read the pod's CPU use.
var (
	cacheMaintenanceCPU         = resource.MustParse("25m")
	cacheMaintenanceMemory      = resource.MustParse("64Mi")
	cacheMaintenanceMemoryLimit = resource.MustParse("256Mi")
)

// mountImageCache gives glance-api the cache volume and runs the pruner and
// the cleaner beside it. They work on the pod's own emptyDir, which no
// other pod (a CronJob's included) can reach, so they are a container of
// the pod. The sidecar reads only glance-api.conf and uses the cache and
// the lock directory: no environment, no Secret, no network.
func mountImageCache(in render.PodInput, d *render.DeploymentChild) {
	c := in.Spec.ImageCache
	if c == nil {
		return
	}
	pod := &d.Spec.Template.Spec
	bound := c.Size()
	pod.Volumes = append(pod.Volumes, render.BoundedEmptyDir(VolumeImageCache, &bound))
	cacheMount := corev1.VolumeMount{Name: VolumeImageCache, MountPath: ImageCacheDir}
	for i := range pod.Containers {
		if pod.Containers[i].Name == render.ContainerName {
			pod.Containers[i].VolumeMounts = append(pod.Containers[i].VolumeMounts, cacheMount)
		}
	}
	pod.Containers = append(pod.Containers, corev1.Container{
		Name:  CacheMaintenanceContainer,
		Image: pod.Containers[0].Image,
		// Only the config file: the backends directory holds the S3 keys,
		// which the cache tools never use.
		Command: append([]string{"/bin/sh", "-c", cacheMaintenanceScript, CacheMaintenanceContainer}, cacheMaintenanceArgs(*c)...),
		Env:     []corev1.EnvVar{render.UserEnv()},
		// The pod's lock directory too: the SQLite driver creates cache.db
		// under an oslo.concurrency file lock, which glance-api takes as
		// well, so the two never create it at once.
		VolumeMounts: []corev1.VolumeMount{
			{Name: names.VolumeConfig, MountPath: render.ConfigDir, ReadOnly: true},
			cacheMount,
			{Name: render.VolumeLock, MountPath: render.LockDir},
			{Name: render.VolumeTmp, MountPath: "/tmp"},
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: cacheMaintenanceCPU, corev1.ResourceMemory: cacheMaintenanceMemory},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: cacheMaintenanceMemoryLimit},
		},
		SecurityContext: render.RestrictedContainer(),
	})
}
