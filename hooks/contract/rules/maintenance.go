package rules

import (
	"fmt"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
	"github.com/c5c3/glance-hooks/hooks/contract/problem"
)

// The database purge's rules of admission alone: a new Glance's name, and
// what an update changes. Its spec's rules are its spec part
// (hooks/contract/api/dbpurge.go).

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
// ControlPlane projects, <name>-glance, said of the ControlPlane's name in
// the reference ControlPlane's words.
func ControlPlaneDBPurgeNameProblems(controlPlane string) problem.List {
	glance := names.GlanceName(controlPlane)
	if len(glance) <= names.MaxGlanceNameForDBPurge {
		return nil
	}
	return problem.List{problem.At(metadataName, "the projected Glance child CR name would be %d characters; the Glance CRD caps metadata.name at %d "+
		"(its db-purge CronJob appends a suffix, and Kubernetes caps CronJob names at %d characters), so the "+
		"ControlPlane name must be at most %d characters when spec.services.glance is set",
		len(glance), names.MaxGlanceNameForDBPurge, names.MaxCronJobName, names.MaxGlanceNameForDBPurge-len(glance)+len(controlPlane))}
}

// dbPurgeWarnings warn, in the reference's words, when an update shortens
// the retention the purge runs with: the next run purges the rows of the
// days it no longer keeps, and they cannot come back. An absent block runs
// the purge with the default retention, so adding one with a shorter
// retention, or removing one with a longer, shortens it too.
func dbPurgeWarnings(old, s api.GlanceSpec) []string {
	before, after := api.DBPurgeOf(old.DBPurge).Retention(), api.DBPurgeOf(s.DBPurge).Retention()
	if after >= before {
		return nil
	}
	return []string{fmt.Sprintf("%s reduced %d → %d: the next purge run hard-deletes the rows soft-deleted between %d and %d days ago, which cannot be undone",
		specPath.Child("dbPurge", "retentionDays"), before, after, after, before)}
}
