package names

import "github.com/c5c3/glance-hooks/hooks/contract/metacontroller"

// CronJobsKey: the Glance's database purge is a CronJob child.
var CronJobsKey = metacontroller.Key("CronJob", "batch/v1")

// MaxCronJobName is the longest CronJob name the API server accepts: the
// CronJob controller names each Job it starts <cronjob>-<minutes since the
// epoch>, up to 11 more characters, and a Job name is a label value of at
// most 63.
const MaxCronJobName = MaxJobName - 11

// DBPurgeSuffix ends the name of a Glance's purge CronJob.
const DBPurgeSuffix = "-db-purge"

// DBPurgeCronJobName is the purge CronJob of the Glance named glance.
func DBPurgeCronJobName(glance string) string { return glance + DBPurgeSuffix }

// MaxGlanceNameForDBPurge is the longest Glance name whose purge CronJob
// name still fits.
const MaxGlanceNameForDBPurge = MaxCronJobName - len(DBPurgeSuffix)
