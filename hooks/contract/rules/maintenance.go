package rules

import (
	"fmt"
	"strings"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
	"github.com/c5c3/glance-hooks/hooks/contract/storeconf"
)

// Checks of the database purge. Its floors have no schema counterpart: a
// pattern that accepts a cron descriptor (@daily) with the five-field form
// would accept invalid expressions too. Paths are relative to the Glance
// settings.

// dbPurgeProblems checks spec.dbPurge.
func dbPurgeProblems(d *api.DBPurgeSpec) problem.List {
	if d == nil {
		return nil
	}
	var l problem.List
	at := field.NewPath("dbPurge")
	if d.RetentionDays != nil && *d.RetentionDays < 1 {
		l = append(l, problem.Invalid(at.Child("retentionDays"), "must be at least 1: a purge must not race the rows an import in progress just wrote"))
	}
	if d.Schedule != "" {
		if p := scheduleProblem(d.Schedule); p != "" {
			l = append(l, problem.Invalid(at.Child("schedule"), "%s", p))
		}
	}
	return l
}

// scheduleProblem says what is wrong with a CronJob schedule, "" when
// nothing is: the API server's own rules (the standard five fields or a
// descriptor such as @daily, and no time zone, which has a field of its
// own), so a Glance admitted here never renders a CronJob it refuses.
func scheduleProblem(s string) string {
	if p := storeconf.ValueProblem(s); p != "" {
		// The cron parser splits on any white space, so a trailing
		// newline would pass it and reach the CronJob.
		return p
	}
	if strings.Contains(s, "TZ") {
		return "must not name a time zone (TZ= or CRON_TZ=): the CronJob runs in the controller manager's"
	}
	if _, err := cron.ParseStandard(s); err != nil {
		return "must be a cron schedule of five fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily"
	}
	return ""
}

// DBPurgeNameProblems (admission only: a rule of a new object) refuses, in the reference's words, a Glance name too
// long for its purge CronJob's, whether or not spec.dbPurge is set: the
// purge runs by default. Only a new Glance is held to it (a name never
// changes), so a Glance admitted before keeps taking updates and status.
func DBPurgeNameProblems(glance string) problem.List {
	if len(glance) <= names.MaxGlanceNameForDBPurge {
		return nil
	}
	return problem.List{problem.At(metadataName, "name must be at most %d characters: the db-purge CronJob appends %q and Kubernetes caps CronJob names at %d characters",
		names.MaxGlanceNameForDBPurge, names.DBPurgeSuffix, names.MaxCronJobName)}
}

// ControlPlaneDBPurgeNameProblems is DBPurgeNameProblems for the Glance a
// ControlPlane projects, <name>-glance, said of the ControlPlane's name.
func ControlPlaneDBPurgeNameProblems(controlPlane string) problem.List {
	glance := names.GlanceName(controlPlane)
	if len(glance) <= names.MaxGlanceNameForDBPurge {
		return nil
	}
	return problem.List{problem.At(metadataName, "name must be at most %d characters: the projected Glance %s names its db-purge CronJob %s, and Kubernetes caps CronJob names at %d characters",
		names.MaxGlanceNameForDBPurge-len(glance)+len(controlPlane), names.GlanceName("<name>"), names.DBPurgeCronJobName(names.GlanceName("<name>")), names.MaxCronJobName)}
}

// dbPurgeWarnings warn when an update shortens the retention: the next run
// purges the rows of the days it no longer keeps, and they cannot come back.
func dbPurgeWarnings(old, s api.GlanceSpec) []string {
	if old.DBPurge == nil || s.DBPurge == nil {
		return nil
	}
	before, after := old.DBPurge.Retention(), s.DBPurge.Retention()
	if after >= before {
		return nil
	}
	return []string{fmt.Sprintf("%s goes from %d to %d days: the next purge deletes for good the rows deleted %d to %d days ago",
		specPath.Child("dbPurge", "retentionDays"), before, after, after, before)}
}
