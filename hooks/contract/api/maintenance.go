package api

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Defaults and floors of the image cache and the database purge. Both
// blocks resolve their unset fields when the hooks render, never in the
// stored object, so a Glance that leaves one out keeps following the
// default a later release of the hooks may bring.
var (
	// DefaultImageCacheSize bounds each pod's cache volume.
	DefaultImageCacheSize = resource.MustParse("10Gi")
	// MinImageCacheSize is the smallest cache volume: 100m, a tenth of a
	// byte and the usual typo for 100Mi, would evict the pod on its first
	// cached byte.
	MinImageCacheSize = resource.MustParse("1Mi")
)

const (
	// DefaultCacheMaintenanceInterval is how often the pruner and the
	// cleaner run in each pod.
	DefaultCacheMaintenanceInterval = 5 * time.Minute
	// MinCacheMaintenanceInterval: every pass walks the cache directory and
	// its SQLite index, which a busy pod should not do every few seconds.
	MinCacheMaintenanceInterval = time.Minute
	// DefaultPurgeRetentionDays is how long a soft-deleted row stays.
	DefaultPurgeRetentionDays = int32(30)
	// DefaultPurgeSchedule is once a day, a minute after midnight.
	DefaultPurgeSchedule = "1 0 * * *"
)

// ImageCacheFilter is the paste filter the image cache puts into the
// pipeline; no other middleware may take its name while the cache is on.
const ImageCacheFilter = "cache"

// ImageCacheOptions are the [DEFAULT] options the image cache renders.
// The hooks own them: image_cache_max_size at or above the volume's bound
// leaves the pruner nothing to do until the kubelet evicts the pod, and an
// image_cache_dir elsewhere fills another volume.
var ImageCacheOptions = []string{"image_cache_dir", "image_cache_driver", "image_cache_max_size"}

// Size is the cache volume's bound, resolved.
func (c ImageCacheSpec) Size() resource.Quantity {
	if c.SizeLimit != nil {
		return *c.SizeLimit
	}
	return DefaultImageCacheSize
}

// Interval is the maintenance interval, resolved.
func (c ImageCacheSpec) Interval() time.Duration {
	if c.MaintenanceInterval != nil {
		return c.MaintenanceInterval.Duration
	}
	return DefaultCacheMaintenanceInterval
}

// DBPurgeOf is the purge a Glance runs. An absent block is an empty one, as
// in the reference: the purge runs unless spec.dbPurge.suspend says
// otherwise, since soft-deleted rows otherwise grow for the life of the
// database. Its fields stay unset here and resolve when the hooks render.
func DBPurgeOf(p *DBPurgeSpec) DBPurgeSpec {
	if p == nil {
		return DBPurgeSpec{}
	}
	return *p
}

// Retention is retentionDays, resolved.
func (d DBPurgeSpec) Retention() int32 {
	if d.RetentionDays != nil {
		return *d.RetentionDays
	}
	return DefaultPurgeRetentionDays
}

// CronSchedule is the schedule, resolved.
func (d DBPurgeSpec) CronSchedule() string {
	if d.Schedule != "" {
		return d.Schedule
	}
	return DefaultPurgeSchedule
}

// PurgesImagesTable says whether the images table is purged too (off by
// default: a purged row frees its image id for reuse).
func (d DBPurgeSpec) PurgesImagesTable() bool {
	return d.PurgeImagesTable != nil && *d.PurgeImagesTable
}
