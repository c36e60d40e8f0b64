package api

import (
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/inivalue"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The database purge feature's part of a Glance spec (spec.dbPurge): its
// type, its defaults and its rules. Its behaviour (the purge CronJob,
// DBPurgeReady, its Events) is hooks/glance/dbpurge.go; what admission
// alone checks (a new Glance's name, a shorter retention on update) stays in
// hooks/contract/rules/maintenance.go. Its floors have no schema
// counterpart: a pattern that accepts a cron descriptor (@daily) with the
// five-field form would accept invalid expressions too. Its CRD lines are
// generated from the type, as autoscaling's are (make crd-schemas): the
// field comments are the descriptions, the markers the bounds the API
// server holds alone.

// DBPurgeSpec is the recurring purge of soft-deleted rows.
type DBPurgeSpec struct {
	// Days a soft-deleted row is kept before it is purged (default 30).
	// +kubebuilder:validation:Minimum=1
	RetentionDays *int32 `json:"retentionDays,omitempty"`
	// Cron schedule of the purge, five fields or a descriptor such as @daily, without a time zone (default "1 0 * * *"; checked by admission).
	// +kubebuilder:validation:MaxLength=128
	Schedule string `json:"schedule,omitempty"`
	// Whether the images table is purged too, after the others (default false: a purged image row frees its id for reuse).
	PurgeImagesTable *bool `json:"purgeImagesTable,omitempty"`
	// Turns the purge off (default false): the CronJob stays, paused, and DBPurgeReady says DBPurgeSuspended.
	Suspend bool `json:"suspend,omitempty"`
}

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

// dbPurgeDefault spells the purge out, on by default.
func dbPurgeDefault(s *GlanceSpec, _ string) {
	purge := DBPurgeOf(s.DBPurge)
	s.DBPurge = &purge
}

// dbPurgeRules are the part's rules, on a spec with its defaults; paths
// are relative to the Glance settings.
func dbPurgeRules(s GlanceSpec) problem.List { return dbPurgeProblems(s.DBPurge) }

// dbPurgeProblems checks spec.dbPurge.
func dbPurgeProblems(d *DBPurgeSpec) problem.List {
	if d == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("dbPurge")
	// Zero days would purge the rows an import in progress just wrote.
	if d.RetentionDays != nil && *d.RetentionDays < 1 {
		l = append(l, problem.At(at.Child("retentionDays"), "retentionDays must be at least 1"))
	}
	if d.Schedule != "" {
		l = append(l, scheduleProblems(at.Child("schedule"), d.Schedule)...)
	}
	return l
}

// scheduleProblems checks a CronJob schedule at at: the API server's own
// rules (the standard five fields or a descriptor such as @daily, and no
// time zone, which has a field of its own), so a Glance admitted here
// never renders a CronJob it refuses. A schedule the parser refuses is
// refused in the reference's words, "invalid cron expression", followed
// by what a schedule is rather than the parser's reason, which quotes the
// schedule.
func scheduleProblems(at *field.Path, s string) problem.List {
	switch {
	case inivalue.ValueProblem(s) != "":
		// The cron parser splits on any white space, so a trailing
		// newline would pass it and reach the CronJob.
		return problem.List{problem.Invalid(at, "%s", inivalue.ValueProblem(s))}
	case strings.Contains(s, "TZ"):
		return problem.List{problem.Invalid(at, "must not name a time zone (TZ= or CRON_TZ=): the CronJob runs in the controller manager's")}
	}
	if _, err := cron.ParseStandard(s); err != nil {
		return problem.List{problem.At(at, "invalid cron expression: expected five fields (minute hour day-of-month month day-of-week), "+
			"each within its range, or a descriptor such as @daily")}
	}
	return nil
}
