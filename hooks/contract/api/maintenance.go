package api

// Defaults of the database purge. The block resolves its unset fields
// when the hooks render, never in the stored object, so a Glance that
// leaves one out keeps following the default a later release of the hooks
// may bring.
const (
	// DefaultPurgeRetentionDays is how long a soft-deleted row stays.
	DefaultPurgeRetentionDays = int32(30)
	// DefaultPurgeSchedule is once a day, a minute after midnight.
	DefaultPurgeSchedule = "1 0 * * *"
)

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
