package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
	"github.com/c5c3/glance-hooks/hooks/contract/names"
)

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
