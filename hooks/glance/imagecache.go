package glance

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// The per-pod image cache (spec.imageCache). Each glance-api pod keeps
// the images it served in an emptyDir of its own, so a repeated download
// is answered from the node; the cache is per replica and every new pod
// starts it empty. Nothing of it is rendered while the block is unset.
const (
	// ImageCacheDir is image_cache_dir, the cache volume's mount.
	ImageCacheDir = StateDir + "/image-cache"
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
// volume is the room downloads have between two passes before the kubelet
// evicts the pod for outgrowing the emptyDir.
func cacheMaxSize(bound resource.Quantity) int64 { return bound.Value() / 10 * 8 }

// imageCacheConf is the cache's [DEFAULT] options.
func imageCacheConf(in confInput) (confPart, error) {
	c := in.spec.ImageCache
	if c == nil {
		return confPart{}, nil
	}
	values := []string{ImageCacheDir, imageCacheDriver, strconv.FormatInt(cacheMaxSize(c.Size()), 10)}
	var p confPart
	for i, key := range api.ImageCacheOptions {
		p.defaults = append(p.defaults, storeconf.Option{Key: key, Value: values[i]})
	}
	return p, nil
}

// withCacheFilter puts the cache filter into the paste pipeline right
// before the root app, after authtoken and context: the filter checks the
// download_image policy itself, which needs the request's credentials, and
// answers a cached image without going further down the pipeline.
func withCacheFilter(paste string) string {
	lines := strings.Split(paste, "\n")
	for i, line := range lines {
		if rest, ok := strings.CutPrefix(line, "pipeline = "); ok {
			words := strings.Fields(rest)
			last := len(words) - 1
			words = append(words[:last:last], cacheFilter, words[last])
			lines[i] = "pipeline = " + strings.Join(words, " ")
		}
	}
	return strings.Join(lines, "\n") + "\n[filter:" + cacheFilter + "]\npaste.filter_factory = glance.api.middleware.cache:CacheFilter.factory\n"
}

// cacheMaintenanceScript runs the pruner and the cleaner every interval
// ($1 seconds) with the config files that follow. A failed pass is said on
// stderr and tried again at the next: exiting would restart the container
// and take the pod out of the Service over a cache that still serves.
// SIGTERM ends the loop at once (the shell would otherwise ignore it as
// PID 1, and the pod would wait out its grace period).
const cacheMaintenanceScript = `interval=$1; shift
trap 'exit 0' TERM INT
failed=0
while :; do
  sleep "$interval" & wait $!
  if glance-cache-pruner "$@" && glance-cache-cleaner "$@"; then
    [ "$failed" -gt 0 ] && echo "glance-cache-maintenance recovered after $failed failed passes" >&2
    failed=0
  else
    failed=$((failed+1))
    echo "glance-cache-maintenance failed: $failed in a row" >&2
  fi
done`

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
func mountImageCache(in podInput, d *deploymentChild) {
	c := in.spec.ImageCache
	if c == nil {
		return
	}
	pod := &d.Spec.Template.Spec
	bound := c.Size()
	pod.Volumes = append(pod.Volumes, boundedEmptyDir(VolumeImageCache, &bound))
	cacheMount := corev1.VolumeMount{Name: VolumeImageCache, MountPath: ImageCacheDir}
	for i := range pod.Containers {
		if pod.Containers[i].Name == ContainerName {
			pod.Containers[i].VolumeMounts = append(pod.Containers[i].VolumeMounts, cacheMount)
		}
	}
	pod.Containers = append(pod.Containers, corev1.Container{
		Name:  CacheMaintenanceContainer,
		Image: pod.Containers[0].Image,
		// Only the config file: the backends directory holds the S3 keys,
		// which the cache tools never use.
		Command: []string{"/bin/sh", "-c", cacheMaintenanceScript, CacheMaintenanceContainer,
			fmt.Sprint(int64(c.Interval().Seconds())), "--config-file=" + ConfigDir + "/" + names.ConfigFile},
		// The pod's lock directory too: the SQLite driver creates cache.db
		// under an oslo.concurrency file lock, which glance-api takes as
		// well, so the two never create it at once.
		VolumeMounts: []corev1.VolumeMount{
			{Name: names.VolumeConfig, MountPath: ConfigDir, ReadOnly: true},
			cacheMount,
			{Name: VolumeLock, MountPath: LockDir},
			{Name: VolumeTmp, MountPath: "/tmp"},
		},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: cacheMaintenanceCPU, corev1.ResourceMemory: cacheMaintenanceMemory},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: cacheMaintenanceMemoryLimit},
		},
		SecurityContext: restrictedContainer(),
	})
}
