package names

import (
	"strings"

	"github.com/c5c3/glance-hooks/hooks/contract/contenthash"
	"github.com/c5c3/glance-hooks/hooks/contract/metacontroller"
)

// CronJobsKey: the Glance's database purge is a CronJob child.
var CronJobsKey = metacontroller.Key("CronJob", "batch/v1")

// MaxCronJobName is the longest CronJob name the API server accepts: the
// CronJob controller names each Job it starts <cronjob>-<minutes since the
// epoch>, up to 11 more characters, and a Job name is a label value of at
// most 63.
const MaxCronJobName = MaxJobName - 11

// DBPurgeSuffix ends the name of a Glance's purge CronJob.
const DBPurgeSuffix = "-db-purge"

// DBPurgeCronJobName is the purge CronJob of the Glance named glance:
// <glance>-db-purge. Admission refuses a longer name, but a Glance admitted
// before every Glance had a purge may have one; its CronJob, like the
// reference's, is named by the name's first characters and a hash of the
// whole name, <cut>-<hash>-db-purge, so it still fits and stays its own.
func DBPurgeCronJobName(glance string) string {
	if len(glance) <= MaxGlanceNameForDBPurge {
		return glance + DBPurgeSuffix
	}
	hash := "-" + contenthash.Of(map[string]string{"glance": glance})
	cut := strings.TrimRight(glance[:MaxGlanceNameForDBPurge-len(hash)], "-")
	return cut + hash + DBPurgeSuffix
}

// MaxGlanceNameForDBPurge is the longest Glance name whose purge CronJob
// name still fits.
const MaxGlanceNameForDBPurge = MaxCronJobName - len(DBPurgeSuffix)
