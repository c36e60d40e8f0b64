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
