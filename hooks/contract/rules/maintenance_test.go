package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

func TestDBPurgeProblems(t *testing.T) {
	days := func(n int32) *int32 { return &n }
	const notCron = "dbPurge.schedule must be a cron schedule of five fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily"
	cases := map[string]struct {
		reason string
		purge  *api.DBPurgeSpec
		want   string
	}{
		"unset":      {"no block, nothing to check", nil, ""},
		"empty":      {"an empty block takes the defaults", &api.DBPurgeSpec{}, ""},
		"five":       {"the standard form", &api.DBPurgeSpec{Schedule: "30 2 * * 1-5", RetentionDays: days(1)}, ""},
		"descriptor": {"a descriptor, as a CronJob takes it", &api.DBPurgeSpec{Schedule: "@daily"}, ""},
		"every":      {"@every is what a CronJob takes too", &api.DBPurgeSpec{Schedule: "@every 12h"}, ""},
		"zero days": {"the rows an import just wrote must stay", &api.DBPurgeSpec{RetentionDays: days(0)},
			"dbPurge.retentionDays must be at least 1: a purge must not race the rows an import in progress just wrote"},
		"words":        {"not cron", &api.DBPurgeSpec{Schedule: "every night"}, notCron},
		"six fields":   {"seconds are not in the standard form", &api.DBPurgeSpec{Schedule: "0 30 2 * * *"}, notCron},
		"out of range": {"minute 61", &api.DBPurgeSpec{Schedule: "61 2 * * *"}, notCron},
		"time zone": {"the API server refuses TZ in the schedule", &api.DBPurgeSpec{Schedule: "TZ=UTC 0 3 * * *"},
			"dbPurge.schedule must not name a time zone (TZ= or CRON_TZ=): the CronJob runs in the controller manager's"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, dbPurgeProblems(c.purge).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}

func TestDBPurgeNameProblems(t *testing.T) {
	longest := strings.Repeat("g", names.MaxGlanceNameForDBPurge)
	cases := map[string]struct {
		reason string
		name   string
		want   string
	}{
		"fits": {"the longest name whose CronJob name fits", longest, ""},
		"one longer": {"one character more and the CronJob name is too long, with or without spec.dbPurge (the purge runs by default); the reference's words", longest + "g",
			`metadata.name: name must be at most 43 characters: the db-purge CronJob appends "-db-purge" and Kubernetes caps CronJob names at 52 characters`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, DBPurgeNameProblems(c.name).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
	if got := len(names.DBPurgeCronJobName(longest)); got != names.MaxCronJobName {
		t.Errorf("the longest Glance name gives a CronJob name of %d characters, want %d", got, names.MaxCronJobName)
	}
}

func TestDBPurgeWarnings(t *testing.T) {
	days := func(n int32) *api.DBPurgeSpec { return &api.DBPurgeSpec{RetentionDays: &n} }
	spec := func(p *api.DBPurgeSpec) api.GlanceSpec { return api.GlanceSpec{DBPurge: p} }
	cases := map[string]struct {
		reason   string
		old, new api.GlanceSpec
		want     []string
	}{
		"shorter": {"the rows between the two retentions go at the next run", spec(days(30)), spec(days(7)),
			[]string{"spec.dbPurge.retentionDays goes from 30 to 7 days: the next purge deletes for good the rows deleted 7 to 30 days ago"}},
		"default to shorter": {"an unset retention is the default's 30", spec(&api.DBPurgeSpec{}), spec(days(10)),
			[]string{"spec.dbPurge.retentionDays goes from 30 to 10 days: the next purge deletes for good the rows deleted 10 to 30 days ago"}},
		"longer":    {"keeping more loses nothing", spec(days(7)), spec(days(30)), nil},
		"turned on": {"no purge ran before: nothing shortened", spec(nil), spec(days(1)), nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, dbPurgeWarnings(c.old, c.new)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}
