package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDBPurgeDefaults: every Glance purges, as the reference's does; an
// absent block resolves like an empty one, and the fields left out take
// the reference's retention and schedule when the hooks render, so a later
// release of the hooks can move them.
func TestDBPurgeDefaults(t *testing.T) {
	type resolved struct {
		Retention          int32
		Schedule           string
		ImagesTable, Pause bool
	}
	days, yes := int32(7), true
	cases := map[string]struct {
		reason string
		spec   *DBPurgeSpec
		want   resolved
	}{
		"absent":    {"no block: the purge runs with the reference's defaults", nil, resolved{30, "1 0 * * *", false, false}},
		"empty":     {"an empty block is the same", &DBPurgeSpec{}, resolved{30, "1 0 * * *", false, false}},
		"suspended": {"suspend is how a user turns it off", &DBPurgeSpec{Suspend: true}, resolved{30, "1 0 * * *", false, true}},
		"set":       {"what is set is kept", &DBPurgeSpec{RetentionDays: &days, Schedule: "@hourly", PurgeImagesTable: &yes}, resolved{7, "@hourly", true, false}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := GlanceSpec{DBPurge: tc.spec}.WithDefaults("openstack")
			p := *spec.DBPurge
			got := resolved{p.Retention(), p.CronSchedule(), p.PurgesImagesTable(), p.Suspend}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(p, DBPurgeOf(tc.spec)); diff != "" {
				t.Errorf("WithDefaults and DBPurgeOf disagree:\n%s", diff)
			}
			if tc.spec == nil || tc.spec.RetentionDays == nil {
				if p.RetentionDays != nil || p.Schedule != "" {
					t.Errorf("%s: the defaults are resolved when rendering, not written into the spec: %+v", tc.reason, p)
				}
			}
		})
	}
}

func TestDBPurgeProblems(t *testing.T) {
	days := func(n int32) *int32 { return &n }
	// The reference's words, then what a schedule is: the parser's own
	// reason would quote the schedule.
	const notCron = "dbPurge.schedule: invalid cron expression: expected five fields (minute hour day-of-month month day-of-week), each within its range, or a descriptor such as @daily"
	cases := map[string]struct {
		reason string
		purge  *DBPurgeSpec
		want   string
	}{
		"unset":      {"no block, nothing to check", nil, ""},
		"empty":      {"an empty block takes the defaults", &DBPurgeSpec{}, ""},
		"five":       {"the standard form", &DBPurgeSpec{Schedule: "30 2 * * 1-5", RetentionDays: days(1)}, ""},
		"descriptor": {"a descriptor, as a CronJob takes it", &DBPurgeSpec{Schedule: "@daily"}, ""},
		"every":      {"@every is what a CronJob takes too", &DBPurgeSpec{Schedule: "@every 12h"}, ""},
		"zero days": {"the rows an import just wrote must stay", &DBPurgeSpec{RetentionDays: days(0)},
			"dbPurge.retentionDays: retentionDays must be at least 1"},
		"words":        {"not cron", &DBPurgeSpec{Schedule: "every night"}, notCron},
		"six fields":   {"seconds are not in the standard form", &DBPurgeSpec{Schedule: "0 30 2 * * *"}, notCron},
		"out of range": {"minute 61", &DBPurgeSpec{Schedule: "61 2 * * *"}, notCron},
		"time zone": {"the API server refuses TZ in the schedule", &DBPurgeSpec{Schedule: "TZ=UTC 0 3 * * *"},
			"dbPurge.schedule must not name a time zone (TZ= or CRON_TZ=): the CronJob runs in the controller manager's"},
		"newline": {"the parser splits on any white space, so a trailing newline is refused before it", &DBPurgeSpec{Schedule: "1 0 * * *\n"},
			"dbPurge.schedule contains a newline"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, dbPurgeProblems(c.purge).String()); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}
