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
			[]string{"spec.dbPurge.retentionDays reduced 30 → 7: the next purge run hard-deletes the rows soft-deleted between 7 and 30 days ago, which cannot be undone"}},
		"default to shorter": {"an unset retention is the default's 30", spec(&api.DBPurgeSpec{}), spec(days(10)),
			[]string{"spec.dbPurge.retentionDays reduced 30 → 10: the next purge run hard-deletes the rows soft-deleted between 10 and 30 days ago, which cannot be undone"}},
		"block added shorter": {"an absent block purges with the default's 30 too", spec(nil), spec(days(1)),
			[]string{"spec.dbPurge.retentionDays reduced 30 → 1: the next purge run hard-deletes the rows soft-deleted between 1 and 30 days ago, which cannot be undone"}},
		"block removed": {"removing a longer retention falls back to the default's 30", spec(days(90)), spec(nil),
			[]string{"spec.dbPurge.retentionDays reduced 90 → 30: the next purge run hard-deletes the rows soft-deleted between 30 and 90 days ago, which cannot be undone"}},
		"longer":           {"keeping more loses nothing", spec(days(7)), spec(days(30)), nil},
		"block added same": {"the default written out changes nothing", spec(nil), spec(days(30)), nil},
		"suspended": {"a suspended purge keeps its retention for when it resumes", spec(days(30)), spec(&api.DBPurgeSpec{RetentionDays: days(7).RetentionDays, Suspend: true}),
			[]string{"spec.dbPurge.retentionDays reduced 30 → 7: the next purge run hard-deletes the rows soft-deleted between 7 and 30 days ago, which cannot be undone"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, dbPurgeWarnings(c.old, c.new)); diff != "" {
				t.Errorf("%s: -want +got:\n%s", c.reason, diff)
			}
		})
	}
}
