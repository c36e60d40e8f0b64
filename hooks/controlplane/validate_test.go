package controlplane

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/c5c3/glance-hooks/hooks/contract/api"
)

func entry(name string, isDefault bool) api.BackendEntry {
	return api.BackendEntry{Name: name, Type: api.BackendTypeS3, IsDefault: isDefault, S3: &api.S3EntryStore{
		Endpoint: "http://garage:3900",
		S3Options: api.S3Options{Bucket: "b-" + name,
			CredentialsSecretRef: api.LocalObjectReference{Name: "creds"}},
	}}
}

func TestValidateBackends(t *testing.T) {
	with := func(e api.BackendEntry, f func(*api.BackendEntry)) api.BackendEntry { f(&e); return e }
	cases := map[string]struct {
		reason  string
		entries []api.BackendEntry
		want    []string
	}{
		"Guide": {
			reason:  "the guide's two entries, one default, are valid",
			entries: []api.BackendEntry{entry("default", true), entry("secondary", false)},
		},
		"Defaults": {
			reason:  "zero defaults is the guide's message with the count",
			entries: []api.BackendEntry{entry("default", false), entry("secondary", false)},
			want:    []string{"exactly one backends entry must set isDefault (found 0)"},
		},
		"Empty": {
			reason: "an empty list is refused in the reference's words, and in the guide's: it has zero defaults",
			want:   []string{"backends: at least one backend must be declared", "exactly one backends entry must set isDefault (found 0)"},
		},
		"DuplicateAndReserved": {
			reason:  "entry problems are located at the entry, in entry order, before the count of defaults",
			entries: []api.BackendEntry{entry("a", true), entry("a", true), entry("os_glance_x", false)},
			want: []string{
				`backends[1]: duplicate entry name "a"`,
				`backends[2]: store id "os_glance_x" uses the reserved os_glance_ store-section prefix: glance-api keeps os_glance_* stores for itself`,
				`entry "os_glance_x" makes the GlanceBackend name "cp-glance-os_glance_x", which is not a valid object name`,
				"exactly one backends entry must set isDefault (found 2)",
			},
		},
		"NoName": {
			reason:  "an entry needs a name: it is the store id",
			entries: []api.BackendEntry{with(entry("a", true), func(e *api.BackendEntry) { e.Name = "" })},
			want:    []string{"backends[0].name is required"},
		},
		"ProjectedBackendChecks": {
			reason: "the GlanceBackend an entry projects is checked as a hand-made one is, named by the entry's fields",
			entries: []api.BackendEntry{with(entry("a", true), func(e *api.BackendEntry) {
				e.S3.Endpoint, e.S3.Bucket = "garage:3900", ""
				e.ExtraOptions = map[string]string{"s3_store_host": "x"}
			})},
			want: []string{
				"backends[0].s3.endpoint: scheme must be http or https",
				"backends[0].s3.bucket is required",
				`backends[0].extraOptions[s3_store_host]: option "s3_store_host" is owned by s3.endpoint and must not be set via extraOptions`,
			},
		},
		"NoS3": {
			reason:  "an S3 entry needs its s3 settings",
			entries: []api.BackendEntry{with(entry("a", true), func(e *api.BackendEntry) { e.S3 = nil })},
			want:    []string{"backends[0].s3: the s3 block must be set exactly when type is S3"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range ValidateBackends("cp", tc.entries) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nValidateBackends(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
