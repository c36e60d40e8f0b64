package names

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestDBPurgeCronJobName: every Glance name a DNS-1035 label allows gives a
// CronJob name the API server takes (at most 52 characters, a DNS-1123
// subdomain) that is <glance>-db-purge up to 43 characters and stays
// distinct above, where two names that share their first characters differ
// in the hash.
func TestDBPurgeCronJobName(t *testing.T) {
	cases := map[string]struct {
		reason string
		glance string
		want   string
	}{
		"short":   {"the reference's name", "glance", "glance-db-purge"},
		"longest": {"43 characters: still the plain name", strings.Repeat("g", 43), strings.Repeat("g", 43) + "-db-purge"},
		"longer":  {"44 characters: cut, with a hash of the whole name", strings.Repeat("g", 44), ""},
		"dash at the cut": {"a '-' the cut ends in is dropped, so the name has no '--'",
			strings.Repeat("g", 31) + "-" + strings.Repeat("h", 31), ""},
	}
	seen := map[string]string{}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := DBPurgeCronJobName(tc.glance)
			if tc.want != "" && got != tc.want {
				t.Errorf("%s: got %q, want %q", tc.reason, got, tc.want)
			}
			if len(got) > MaxCronJobName || !strings.HasSuffix(got, DBPurgeSuffix) || strings.Contains(got, "--") {
				t.Errorf("%s: %q is not a purge CronJob name of at most %d characters", tc.reason, got, MaxCronJobName)
			}
			if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
				t.Errorf("%s: %q: %v", tc.reason, got, errs)
			}
			if other, dup := seen[got]; dup {
				t.Errorf("%s: %q is also %q's", tc.reason, got, other)
			}
			seen[got] = tc.glance
		})
	}
	a, b := strings.Repeat("g", 60)+"a", strings.Repeat("g", 60)+"b"
	if DBPurgeCronJobName(a) == DBPurgeCronJobName(b) {
		t.Errorf("two long names that differ only past the cut share the CronJob %q", DBPurgeCronJobName(a))
	}
}
